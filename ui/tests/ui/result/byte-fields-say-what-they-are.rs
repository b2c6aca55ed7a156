// serde_json writes bytes as an array of numbers, sent twice (`structuredContent` and the
// JSON text): a byte field must say what its bytes are (a media block, an artifact, an
// explicit encoding, or `#[mcp_result(bytes_as_numbers)]`). Every such field is reported
// at once, each at its type.
use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Download {
    body: Vec<u8>,
    magic: [u8; 4],
    digest: Box<[u8]>,
    thumbnail: Option<Vec<u8>>,
}

fn main() {}
