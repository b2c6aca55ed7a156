// The byte-field rule holds in an enum's variants too: the field is reported at its type.
use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(tag = "kind")]
enum Fetched {
    File { name: String, contents: Vec<u8> },
    Missing,
}

fn main() {}
