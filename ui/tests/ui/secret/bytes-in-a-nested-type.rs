// A `#[derive(Redact)]` type is what a result holds, so it serializes into the same
// `structuredContent`: its byte fields must say what their bytes are, as a result's do.
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, mcp_result::Redact)]
struct Attachment {
    name: String,
    data: Vec<u8>,
}

fn main() {}
