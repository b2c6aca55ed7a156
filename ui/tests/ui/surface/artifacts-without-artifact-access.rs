use mcp_result::{mcp_tools, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    total: u32,
}

#[derive(Clone)]
struct Server;

#[mcp_tools(artifacts)]
impl Server {
    /// Count.
    #[mcp_tool(read_only)]
    fn count(&self) -> Found {
        Found { total: 0 }
    }
}

fn main() {}
