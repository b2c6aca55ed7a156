use mcp_result::{Redact, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

/// A struct a result contains: its `#[secret]` field must be a `Secret<T>`.
#[derive(Serialize, JsonSchema, Redact)]
#[serde(tag = "kind")]
enum Login {
    Bearer {
        user: String,
        #[secret]
        #[serde(skip)]
        token: String,
    },
    Anonymous,
}

#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Session {
    login: Option<Login>,
    redaction_applied: bool,
}

fn main() {}
