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
    /// Look up.
    #[mcp_tool(read_only, timeout_ms = 0)]
    fn lookup(&self) -> Found {
        Found { total: 0 }
    }
}

fn main() {}
