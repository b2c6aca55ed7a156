use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Found {totl} findings")]
struct Findings {
    total: u32,
    ids: Vec<String>,
}

fn main() {}
