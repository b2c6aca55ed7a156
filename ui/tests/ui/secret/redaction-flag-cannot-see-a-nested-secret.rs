// A result that declares `redactionApplied` and has no `#[secret]` of its own answers it
// from its fields: a field whose type cannot say whether it withheld a secret (here a
// struct that holds one, without `#[derive(Redact)]`) would make the flag say `false`
// while a secret was withheld. It is a compile error at the field.
use mcp_result::{Secret, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema)]
pub struct Account {
    pub name: String,
    #[serde(skip)]
    pub password: Secret<String>,
}

/// An account.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
pub struct Owned {
    pub owner: Account,
    pub redaction_applied: bool,
}

fn main() {}
