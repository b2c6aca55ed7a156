//! The MCP spec's wider tool-name rule, opted into per tool and per server.

use mcp_result::{mcp_tools, ToolResult};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Serialize, JsonSchema, ToolResult)]
struct Found {
    total: u32,
}

#[derive(Clone)]
struct PerTool;

#[mcp_tools]
impl PerTool {
    /// Search tickets.
    #[mcp_tool(name = "tickets.search", spec_name, read_only)]
    fn search(&self) -> Found {
        Found { total: 0 }
    }

    /// Portable names need no opt-in.
    #[mcp_tool(read_only)]
    fn count_tickets(&self) -> Found {
        Found { total: 0 }
    }
}

#[derive(Clone)]
struct PerServer;

#[mcp_tools(spec_names)]
impl PerServer {
    /// Search customers.
    #[mcp_tool(name = "customers.search.by-name.and-by-email-address.and-by-phone-number.v2", read_only)]
    fn search(&self) -> Found {
        Found { total: 0 }
    }

    /// A long method name, within the spec's 128 characters.
    #[mcp_tool(read_only)]
    fn search_every_ticket_of_every_customer_by_title_body_and_attachments(&self) -> Found {
        Found { total: 0 }
    }
}

fn main() {}
