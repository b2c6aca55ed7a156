// serde_json writes a `u128` or `i128` as a bare JSON number, and no JSON client reads an
// integer past 2^53 - 1 exactly (the TypeScript SDK rounds it silently): a wide integer
// field, bare or inside containers, is a compile error at its type, naming
// `mcp_result::DecimalString`.
use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Ledger {
    total: u128,
}

#[derive(Serialize, JsonSchema, ToolResult)]
struct Deltas {
    changes: Option<Vec<i128>>,
}

fn main() {}
