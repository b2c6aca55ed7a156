use mcp_result::ToolResult;
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

struct Server;

impl Server {
    /// Search.
    #[mcp_result::mcp_tool(read_only)]
    fn search(&self, query: Query) -> Found {
        Found { total: query.text.len() as u32 }
    }
}

fn main() {}
