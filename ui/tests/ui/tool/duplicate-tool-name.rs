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
    #[mcp_tool(read_only)]
    fn search(&self, query: Query) -> Found {
        Found { total: query.text.len() as u32 }
    }

    /// Search again.
    #[mcp_tool(name = "search", read_only)]
    fn search_again(&self) -> Found {
        Found { total: 0 }
    }
}

fn main() {}
