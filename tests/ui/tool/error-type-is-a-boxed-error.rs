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
    /// Looks up.
    #[mcp_tool(read_only)]
    fn lookup(&self) -> Result<Found, Box<dyn std::error::Error + Send + Sync>> {
        Err("upstream failed".into())
    }
}

fn main() {}
