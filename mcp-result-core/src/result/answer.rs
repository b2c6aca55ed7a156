//! How a tool call answers: [`ToolAnswer`].

use rmcp::model::{CallToolResult, InputRequiredResult};

/// How a tool's call glue answers: a result (success or `isError`), a JSON-RPC error
/// ([`ToolError::protocol`](crate::ToolError::protocol)), or an input-required round (a
/// question of [`Ask`](crate::Ask), MCP 2026-07-28).
#[derive(Debug, Clone)]
pub enum ToolAnswer {
    /// The `CallToolResult`.
    Result(CallToolResult),
    /// A JSON-RPC error: nothing ran.
    Protocol(rmcp::ErrorData),
    /// The client is asked first; the call comes again with the answers.
    Ask(InputRequiredResult),
}

impl From<CallToolResult> for ToolAnswer {
    fn from(result: CallToolResult) -> Self {
        ToolAnswer::Result(result)
    }
}
