use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(transparent)]
struct Count {
    value: u64,
}

fn main() {}
