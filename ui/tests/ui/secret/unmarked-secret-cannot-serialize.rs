use mcp_result::{Secret, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Login {
    user: String,
    // No `skip`: `Secret` has no `Serialize`, so even an unmarked secret cannot serialize.
    token: Secret<String>,
}

fn main() {}