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
    /// The human approval this close ran under.
    pub approval_id: Option<String>,
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
    #[mcp_tool(idempotency_key = "requestId", approval = "Close ticket {ticketId}")]
    async fn close_ticket(&self, args: CloseArgs, write: WriteContext) -> TicketClosed {
        self.closed.lock().unwrap().push(args.ticket_id.clone());
        TicketClosed {
            ticket_id: args.ticket_id,
            status: Status::Succeeded,
            retry_safe: write.retry_safe(),
            audit_event_id: write.audit_event_id().clone(),
            approval_id: write.approval().map(|(id, _approver)| id.to_owned()),
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
    use mcp_result::{approval::MemoryApprovals, lint::Host, testing::TestServer, State};
    use serde_json::json;

    #[tokio::test]
    async fn a_close_waits_for_alice() {
        let approvals = MemoryApprovals::default();
        let state = State::new().with_approval_store(Arc::new(approvals.clone()));
        let desk = Desk::default();
        let server = TestServer::start_with_state(desk.clone(), Host::PORTABLE, state).await;
        let close = json!({"ticketId": "T-1", "requestId": "close-T-1"});

        let blocked = server.call("close_ticket", close.clone()).await;
        let envelope = blocked.result().structured_content.clone().unwrap();
        assert_eq!(envelope["status"], "blocked");
        assert!(desk.closed.lock().unwrap().is_empty()); // nothing ran
        let request = envelope["approvalRequestId"].as_str().unwrap();

        let approval_id = approvals.approve(request, "alice").unwrap();
        let mut approved = close.clone();
        approved["approvalRequestId"] = json!(request);
        let closed = server.call("close_ticket", approved).await;
        assert_eq!(closed.structured_value().unwrap()["approvalId"], approval_id);
        assert_eq!(*desk.closed.lock().unwrap(), ["T-1"]);
        server.close().await;
    }
}
