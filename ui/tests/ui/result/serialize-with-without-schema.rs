use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

fn as_string<S: serde::Serializer>(value: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&value.to_string())
}

#[derive(Serialize, JsonSchema, ToolResult)]
struct Balance {
    #[serde(serialize_with = "as_string")]
    cents: u64,
}

fn main() {}
