use std::sync::{Arc, Mutex};

use mcp_result::{
    extract::WriteContext,
    mcp_handler, mcp_tools,
    rmcp::ServerHandler,
    AuditEventId, FieldError, Status, ToolError, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Ticket search results.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Found {total} findings; highest severity {highest_severity}")]
pub struct TicketSearch {
    /// How many tickets matched.
    pub total: usize,
    pub highest_severity: Option<String>,
    pub ids: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Words to look for.
    pub query: String,
}

/// A ticket was closed.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Closed ticket {ticket_id}")]
pub struct TicketClosed {
    pub ticket_id: String,
    pub status: Status,
    pub retry_safe: bool,
    pub audit_event_id: AuditEventId,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CloseArgs {
    /// The ticket to close, such as `T-1`.
    pub ticket_id: String,
}

#[derive(Clone, Default)]
pub struct Desk {
    /// The tickets closed so far (your database, in a real desk).
    closed: Arc<Mutex<Vec<String>>>,
}

#[mcp_tools]
impl Desk {
    /// Search support tickets by words in their title or body.
    #[mcp_tool(read_only)]
    async fn search_tickets(&self, args: SearchArgs) -> Result<TicketSearch, ToolError> {
        if args.query.is_empty() {
            let field = FieldError::new("/query", "give at least one word");
            return Err(ToolError::validation(vec![field]));
        }
        Ok(TicketSearch { total: 0, highest_severity: None, ids: vec![] })
    }

    /// Close a support ticket.
    #[mcp_tool]
    async fn close_ticket(&self, args: CloseArgs, write: WriteContext) -> TicketClosed {
        self.closed.lock().unwrap().push(args.ticket_id.clone());
        TicketClosed {
            ticket_id: args.ticket_id,
            status: Status::Succeeded,
            retry_safe: write.retry_safe(),
            audit_event_id: write.audit_event_id().clone(),
        }
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    mcp_result::serve_stdio(Desk::default()).await
}
