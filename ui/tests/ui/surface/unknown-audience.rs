use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary_audience = "everyone")]
struct Report {
    total: u32,
}

fn main() {}
