// `#[tool_result(text = "field")]` names the field whose text is the result's one text block:
// it must exist, always serialize as a string under its own key, be no secret, and stand
// alone (no `summary`, no `content` mode beside it).
use mcp_result::{Secret, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

/// Unknown field.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(text = "body")]
struct Unknown {
    content: String,
}

/// Not a string.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(text = "lines")]
struct NotText {
    lines: Vec<String>,
}

/// Sometimes absent.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(text = "content")]
struct Sometimes {
    #[serde(skip_serializing_if = "String::is_empty")]
    content: String,
}

/// With a summary.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(text = "content", summary = "Read {path}")]
struct WithSummary {
    path: String,
    content: String,
}

/// A secret.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(text = "token")]
struct SecretText {
    #[secret]
    #[serde(skip)]
    token: Secret<String>,
}

fn main() {}
