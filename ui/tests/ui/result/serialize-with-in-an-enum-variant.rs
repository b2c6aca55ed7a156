use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

fn as_string<S: serde::Serializer>(value: &u64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&value.to_string())
}

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(tag = "kind")]
enum Balance {
    Known {
        #[serde(serialize_with = "as_string")]
        cents: u64,
    },
    Unknown,
}

fn main() {}
