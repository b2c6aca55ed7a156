//! serde's attributes are read by serde's own parser (`serde_derive_internals`): an error in
//! one is the error serde reports, at the same span, so rustc shows it once.

use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camel")]
struct Findings {
    total: u32,
}

fn main() {}
