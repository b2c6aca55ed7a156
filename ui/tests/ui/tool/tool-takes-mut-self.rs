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
    /// Count.
    #[mcp_tool(read_only)]
    fn count(&mut self) -> Found {
        Found { total: 0 }
    }
}

fn main() {}
