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
    /// The same for every retry of one close: a retry then gets the first answer.
    pub request_id: Option<String>,
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
    #[mcp_tool(idempotency_key = "requestId")]
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

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_result::testing::TestServer;
    use serde_json::json;

    #[tokio::test]
    async fn a_retried_close_runs_once() {
        let desk = Desk::default();
        let server = TestServer::start(desk.clone()).await;
        let close = json!({"ticketId": "T-1", "requestId": "close-T-1"});
        let first = server.call("close_ticket", close.clone()).await;
        let retry = server.call("close_ticket", close).await;
        assert_eq!(retry.structured_value().unwrap(), first.structured_value().unwrap());
        assert_eq!(*desk.closed.lock().unwrap(), ["T-1"]); // it ran once

        let other = json!({"ticketId": "T-2", "requestId": "close-T-1"});
        let refused = server.call("close_ticket", other).await;
        assert_eq!(refused.error().unwrap().error_kind(), Some("conflict"));
        server.close().await;
    }
}
