use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Cache key {cache_key}")]
struct Lookup {
    value: String,
    #[serde(skip)]
    cache_key: String,
}

fn main() {}
