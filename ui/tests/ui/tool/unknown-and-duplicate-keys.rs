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
    /// Search.
    #[mcp_tool(read_only, readonly, timeout_secs = 3, read_only)]
    fn search(&self, query: Query) -> Found {
        Found { total: query.text.len() as u32 }
    }
}

fn main() {}
