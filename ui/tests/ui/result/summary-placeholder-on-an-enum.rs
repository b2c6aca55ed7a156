use mcp_result::ToolResult;
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "Outcome: {outcome}")]
#[serde(rename_all = "lowercase")]
enum Outcome {
    Done,
    Skipped,
}

fn main() {}
