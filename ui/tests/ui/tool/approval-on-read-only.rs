use mcp_result::{mcp_tools, ToolResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    total: u32,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Query {
    ticket_id: String,
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// Look up.
    #[mcp_tool(read_only, approval = "Look up {ticketId}")]
    fn lookup(&self, query: Query) -> Found {
        let _ = query.ticket_id;
        Found { total: 0 }
    }

    /// Count.
    #[mcp_tool(read_only, requires_approval)]
    fn count(&self) -> Found {
        Found { total: 0 }
    }
}

fn main() {}
