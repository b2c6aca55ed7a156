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
    #[mcp_tool(name = "search tickets!", read_only)]
    fn search(&self, query: Query) -> Found {
        Found { total: query.text.len() as u32 }
    }

    /// Long.
    #[mcp_tool(name = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", read_only)]
    fn long(&self) -> Found {
        Found { total: 0 }
    }
}

fn main() {}
