use mcp_result::rmcp::ErrorData;
use mcp_result::{mcp_tools, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    total: u32,
}

// rmcp's alias for it.
type McpError = ErrorData;

#[derive(Clone)]
struct Server;

// A JSON-RPC error where a tool execution error belongs.
#[mcp_tools]
impl Server {
    /// Looks up.
    #[mcp_tool(read_only)]
    fn lookup(&self) -> Result<Found, mcp_result::rmcp::ErrorData> {
        Err(ErrorData::invalid_params("no such ticket", None))
    }

    /// Looks up, through rmcp's alias.
    #[mcp_tool(read_only)]
    fn lookup_aliased(&self) -> Result<Found, McpError> {
        Err(ErrorData::invalid_params("no such ticket", None))
    }
}

fn main() {}
