use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary_priority = 1.5, json_priority = -0.1)]
struct Report {
    total: u32,
}

fn main() {}
