use mcp_result::rmcp::model::CallToolResult;
use mcp_result::{mcp_tools, ToolError};

#[derive(Clone)]
struct Server;

// rmcp's own spelling: a tool that builds its `CallToolResult` by hand.
#[mcp_tools]
impl Server {
    /// Counts.
    #[mcp_tool(read_only)]
    fn count(&self) -> CallToolResult {
        CallToolResult::success(vec![])
    }

    /// Counts, or fails.
    #[mcp_tool(read_only)]
    fn count_or_fail(&self) -> Result<CallToolResult, ToolError> {
        Ok(CallToolResult::success(vec![]))
    }

    /// Closes a ticket: a write tool.
    #[mcp_tool]
    fn close(&self) -> Result<CallToolResult, ToolError> {
        Ok(CallToolResult::success(vec![]))
    }
}

fn main() {}
