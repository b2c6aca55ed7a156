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
    #[mcp_tool(read_only, scopes = "")]
    fn lookup(&self) -> Found {
        Found { total: 0 }
    }

    /// Look up, quoted.
    #[mcp_tool(read_only, scopes = "tickets:read \"admin\"")]
    fn quoted(&self) -> Found {
        Found { total: 0 }
    }
}

fn main() {}
