use std::sync::{Arc, Mutex};

use mcp_result::{
    approval::ApprovalStore,
    audit::AuditSink,
    extract::WriteContext,
    http::{serve_http, HttpOptions, StaticTokens},
    mcp_handler, mcp_tools,
    rmcp::ServerHandler,
    sql::SqlStores,
    AuditEventId, FieldError, Identity, State, Status, ToolError, ToolResult,
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

type Error = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> Result<(), Error> {
    // Made and migrated on first use; every process on this file shares what it holds.
    let stores = SqlStores::connect("sqlite:desk.db").await?;
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [command, request, approver] = &args[..] {
        if command == "approve" {
            return approve(&stores, request, approver).await;
        }
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    serve(stores, listener, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await
}

/// Serves the desk over streamable HTTP on `listener` until `shutdown`, with its
/// idempotency keys, approval requests, audit log and tasks in `stores`.
async fn serve(
    stores: SqlStores,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), Error> {
    // Every store in the database, in one call: keys, approvals, audit, tasks.
    let state = State::with_sql_stores(stores);
    // Who calls comes from the bearer token, never from the arguments.
    let tokens = StaticTokens::new().with("bob-token", Identity::new("bob"));
    let options = HttpOptions { state, ..HttpOptions::default() };
    serve_http(Desk::default(), listener, Arc::new(tokens), options, shutdown).await
}

/// `approver` approves approval request `request`: from any process on the database. The
/// decision goes in the audit log too, beside the records of the write it lets run.
async fn approve(stores: &SqlStores, request: &str, approver: &str) -> Result<(), Error> {
    match stores.approvals().approve(request, approver).await? {
        Ok(approval_id) => println!("approved: {approval_id}"),
        Err(refusal) => println!("not approved: {refusal:?}"),
    }
    let decided = stores.approvals().get(request).await?;
    if let Some(record) = decided.and_then(|request| request.decision_record()) {
        stores.audit().record(&record).await?;
    }
    Ok(())
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
