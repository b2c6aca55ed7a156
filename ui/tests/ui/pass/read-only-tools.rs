use mcp_result::{mcp_tools, rmcp::ServerHandler, mcp_handler, ToolError, ToolResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Search results.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "{{literal}} {match_count} matches", content = "json_then_summary")]
struct Found {
    match_count: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_page: Option<String>,
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
    #[mcp_tool(read_only, idempotent, open_world = false, title = "Search")]
    async fn search(
        &self,
        query: Query,
        _context: mcp_result::rmcp::service::RequestContext<mcp_result::rmcp::RoleServer>,
    ) -> Result<Found, ToolError> {
        Ok(Found { match_count: query.text.len() as u32, next_page: None })
    }

    #[mcp_tool(read_only, name = "count.v2", spec_name, description = "Counts.")]
    fn count(&self) -> Found {
        Found { match_count: 0, next_page: None }
    }

    fn helper(&self) {}
}

#[mcp_handler]
impl ServerHandler for Server {}

fn main() {
    Server.helper();
}
