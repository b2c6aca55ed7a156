use mcp_result::{Secret, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Login {
    user: String,
    #[secret]
    #[serde(skip_serializing_if = "String::is_empty")]
    token: String,
}

fn main() {
    let _ = Secret::new(());
}