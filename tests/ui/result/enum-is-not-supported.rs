use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
enum Outcome {
    Done { id: String },
    Skipped,
}

fn main() {}
