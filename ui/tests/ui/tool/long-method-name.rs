use mcp_result::{mcp_tools, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    total: u32,
}

#[derive(Clone)]
struct Server;

#[mcp_tools]
impl Server {
    /// The method name is the tool name: 67 characters.
    #[mcp_tool(read_only)]
    fn search_every_ticket_of_every_customer_by_title_body_and_attachments(&self) -> Found {
        Found { total: 0 }
    }
}

fn main() {}
