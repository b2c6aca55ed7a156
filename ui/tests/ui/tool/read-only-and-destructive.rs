use mcp_result::{mcp_tools, ToolResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    total: u32,
}

#[derive(Deserialize, JsonSchema)]
struct Query {
    text: String,
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// Purge.
    #[mcp_tool(read_only, destructive)]
    fn purge(&self) -> Found {
        Found { total: 0 }
    }
}

fn main() {}
