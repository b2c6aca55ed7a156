use mcp_result::{mcp_handler, mcp_tools, rmcp::ServerHandler};

#[derive(Clone)]
struct Desk;

#[mcp_tools]
impl Desk {
    /// Lists tickets.
    #[mcp_tool(read_only)]
    fn tickets(&self) -> Vec<String> {
        Vec::new()
    }

    fn legacy() -> Vec<String> {
        Vec::new()
    }
}

// `rmcp_router` takes an expression of an rmcp `ToolRouter<Self>`.
#[mcp_handler(rmcp_router = Self::legacy())]
impl ServerHandler for Desk {}

fn main() {}
