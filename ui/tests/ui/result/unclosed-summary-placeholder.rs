use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Found {total findings")]
struct Findings {
    total: u32,
}

fn main() {}
