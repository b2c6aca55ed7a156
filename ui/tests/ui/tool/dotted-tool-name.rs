use mcp_result::{mcp_tools, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    total: u32,
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// Search tickets.
    #[mcp_tool(name = "tickets.search", read_only)]
    fn search(&self) -> Found {
        Found { total: 0 }
    }
}

fn main() {}
