use mcp_result::{Redact, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

/// A struct a result contains: its `#[secret]` field follows the same rules.
#[derive(Serialize, JsonSchema, Redact)]
struct Upstream {
    name: String,
    #[secret]
    token: String,
}

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Upstreams {
    items: Vec<Upstream>,
    redaction_applied: bool,
}

fn main() {}
