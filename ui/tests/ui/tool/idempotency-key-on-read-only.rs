use mcp_result::{mcp_tools, ToolResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    total: u32,
}

#[derive(Deserialize, JsonSchema)]
struct Query {
    request_id: Option<String>,
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// Look up.
    #[mcp_tool(read_only, idempotency_key = "request_id")]
    fn lookup(&self, query: Query) -> Found {
        let _ = query.request_id;
        Found { total: 0 }
    }
}

fn main() {}
