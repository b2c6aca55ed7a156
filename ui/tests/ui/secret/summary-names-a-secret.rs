use mcp_result::{Secret, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Logged in as {user} with {token}")]
struct Login {
    user: String,
    #[secret]
    #[serde(skip)]
    token: Secret<String>,
}

fn main() {}