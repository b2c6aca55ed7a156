use std::sync::{Arc, Mutex};

use mcp_result::{
    approval::ApprovalStore,
    audit::AuditSink,
    extract::WriteContext,
    http::{serve_http, HttpOptions, StaticTokens},
    mcp_handler, mcp_tools,
    rmcp::ServerHandler,
    sql::{sqlx, AppMigration, Database, SqlStores},
    AuditEventId, FieldError, Identity, ResultExt, State, Status, ToolError, ToolResult, Tx,
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

/// The desk's own table, made in `desk.db` beside the framework's, once.
const MIGRATIONS: &[AppMigration] = &[AppMigration::new(
    1,
    "ticket notes",
    "CREATE TABLE ticket_notes (ticket_id TEXT NOT NULL, body TEXT NOT NULL)",
)];

/// A ticket's notes.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Notes on {ticket_id}: {notes}")]
pub struct TicketNotes {
    pub ticket_id: String,
    pub notes: Vec<String>,
}

/// A note was added to a ticket.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Noted on {ticket_id}")]
pub struct NoteAdded {
    pub ticket_id: String,
    pub status: Status,
    pub retry_safe: bool,
    pub audit_event_id: AuditEventId,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoteArgs {
    /// The ticket, such as `T-1`.
    pub ticket_id: String,
    /// The note.
    pub body: String,
    /// The same for every retry of one note: a retry then gets the first answer.
    pub request_id: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketArgs {
    /// The ticket, such as `T-1`.
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

    /// Add a note to a ticket.
    #[mcp_tool(idempotency_key = "requestId")]
    async fn add_note(
        &self,
        args: NoteArgs,
        tx: Tx,
        write: WriteContext,
    ) -> Result<NoteAdded, ToolError> {
        // In the write's transaction: the note commits with its key and audit records, once.
        let mut connection = tx.connection().await.ok_or_else(|| {
            ToolError::internal_logged("add_note needs the SQL stores (State::connect)")
        })?;
        sqlx::query("INSERT INTO ticket_notes (ticket_id, body) VALUES ($1, $2)")
            .bind(&args.ticket_id)
            .bind(&args.body)
            .execute(&mut *connection)
            .await
            .internal()?;
        Ok(NoteAdded {
            ticket_id: args.ticket_id,
            status: Status::Succeeded,
            retry_safe: write.retry_safe(),
            audit_event_id: write.audit_event_id().clone(),
        })
    }

    /// List a ticket's notes, oldest first.
    #[mcp_tool(read_only)]
    async fn list_notes(
        &self,
        args: TicketArgs,
        Database(pool): Database,
    ) -> Result<TicketNotes, ToolError> {
        let notes = sqlx::query_scalar("SELECT body FROM ticket_notes WHERE ticket_id = $1")
            .bind(&args.ticket_id)
            .fetch_all(&pool)
            .await
            .internal()?;
        Ok(TicketNotes { ticket_id: args.ticket_id, notes })
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

type Error = Box<dyn std::error::Error + Send + Sync>;

#[tokio::main]
async fn main() -> Result<(), Error> {
    // Made and migrated on first use, the desk's own table too; every process on this file
    // shares what it holds.
    let stores = SqlStores::connect_with("sqlite:desk.db", MIGRATIONS).await?;
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
    use mcp_result::{lint::Host, testing::TestServer};
    use serde_json::json;

    #[tokio::test]
    async fn a_note_is_written_once_and_read_back() {
        let file = std::env::temp_dir().join(format!("desk-notes-{}.db", std::process::id()));
        let _ = std::fs::remove_file(&file);
        let url = format!("sqlite:{}", file.display());
        let state = State::connect_with(&url, MIGRATIONS).await.unwrap();
        let server = TestServer::start_with_state(Desk::default(), Host::PORTABLE, state).await;
        let note = json!({"ticketId": "T-1", "body": "Called back.", "requestId": "note-1"});

        let first = server.call("add_note", note.clone()).await;
        let again = server.call("add_note", note).await; // a retry: the first answer
        let id = &first.structured_value().unwrap()["auditEventId"];
        assert_eq!(&again.structured_value().unwrap()["auditEventId"], id);

        let listed = server.call("list_notes", json!({"ticketId": "T-1"})).await;
        assert_eq!(listed.structured_value().unwrap()["notes"], json!(["Called back."]));
        server.close().await;
        let _ = std::fs::remove_file(&file);
    }
}
