// A field's `#[mcp_result(...)]` takes `bytes_as_numbers` only: a misspelled key is an
// error at the key, naming the key it takes, instead of an attribute that silently does
// nothing.
use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Levels {
    #[mcp_result(bytes_as_number)]
    samples: Vec<u8>,
}

fn main() {}
