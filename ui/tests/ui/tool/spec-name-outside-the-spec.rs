use mcp_result::{mcp_tools, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    total: u32,
}

#[derive(Clone)]
struct Server;

// `spec_names` widens the rule to MCP's, and no further.
#[mcp_tools(spec_names)]
impl Server {
    /// Search.
    #[mcp_tool(name = "tickets/search", read_only)]
    fn search(&self) -> Found {
        Found { total: 0 }
    }
}

#[derive(Clone)]
struct Other;

#[mcp_tools]
impl Other {
    /// Count.
    #[mcp_tool(name = "tickets.count:all", spec_name, read_only)]
    fn count(&self) -> Found {
        Found { total: 0 }
    }
}

fn main() {}
