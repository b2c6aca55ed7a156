use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Found {total}", content = "json")]
#[tool_result(summary = "{total} found", content = "summary", json_priority = 0.5)]
#[tool_result(json_priority = 0.2)]
struct Findings {
    total: u32,
}

fn main() {}
