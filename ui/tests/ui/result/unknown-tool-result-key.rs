use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(sumary = "Found {total}", content = "both")]
struct Findings {
    total: u32,
}

fn main() {}
