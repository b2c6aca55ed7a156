// `#[derive(Redact)]` is strict: its `withholds_secrets` answers from every field, so each
// field's type must implement `Redacts`. A field of a type without it (here a struct that
// holds a skipped secret, without `#[derive(Redact)]`) could withhold a secret no flag
// would report: a compile error at the field.
use mcp_result::{Redact, Secret};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema)]
struct Credentials {
    user: String,
    #[serde(skip)]
    token: Secret<String>,
}

#[derive(Serialize, JsonSchema, Redact)]
struct Upstream {
    name: String,
    credentials: Credentials,
}

fn main() {}
