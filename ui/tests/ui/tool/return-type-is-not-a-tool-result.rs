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

#[derive(Serialize, JsonSchema)]
struct Plain {
    total: u32,
}

#[mcp_tools]
impl Server {
    /// Count.
    #[mcp_tool(read_only)]
    fn count(&self) -> Plain {
        Plain { total: 0 }
    }
}

fn main() {}
