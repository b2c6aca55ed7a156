use mcp_result::{Secret, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Login {
    user: String,
    #[secret]
    token: String,
}

fn main() {
    let _ = Secret::new(());
}