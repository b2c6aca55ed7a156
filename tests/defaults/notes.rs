//! A notes server written the way the README and the guide teach, built by
//! `tests/defaults.rs` as a crate of its own and served over stdio to the TypeScript SDK
//! client. With `NOTES_DB` unset it runs on the defaults (every store in memory, nothing
//! configured); with `NOTES_DB=sqlite:PATH` every store and its own table are in that file,
//! in one call, and `notes approvals ...` decides its gated deletes from another process;
//! with `NOTES_PAGE=127.0.0.1:0` it serves its approvals page on a loopback port beside
//! stdio.

use mcp_result::{
    approval, mcp_handler, mcp_tools,
    extract::WriteContext,
    rmcp::ServerHandler,
    sql::{sqlx, AppMigration, Database},
    AuditEventId, ResultExt, State, Status, ToolError, ToolResult,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The application's own table, migrated beside the framework's stores.
const MIGRATIONS: &[AppMigration] = &[AppMigration::new(
    1,
    "notes",
    "CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT NOT NULL)",
)];

/// The notes kept so far.
#[derive(Serialize, JsonSchema, ToolResult)]
#[tool_result(summary = "{count} notes")]
pub struct Notes {
    pub count: usize,
    pub ids: Vec<String>,
}

/// A note was written or deleted.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Note {id}: {status}")]
pub struct NoteWritten {
    pub id: String,
    pub status: Status,
    pub retry_safe: bool,
    pub audit_event_id: AuditEventId,
    /// The human approval a delete ran under.
    pub approval_id: Option<String>,
}

impl NoteWritten {
    /// The answer of `write`, which ran on note `id`.
    fn of(id: String, write: &WriteContext) -> Self {
        Self {
            id,
            status: Status::Succeeded,
            retry_safe: write.retry_safe(),
            audit_event_id: write.audit_event_id().clone(),
            approval_id: write.approval().map(|(id, _approver)| id.to_owned()),
        }
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoteArgs {
    /// The note's id.
    pub id: String,
    /// Its text.
    pub body: Option<String>,
    /// The same for every retry of one write: a retry then gets the first answer.
    pub request_id: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
pub struct NoArgs {}

#[derive(Clone)]
pub struct Desk;

#[mcp_tools]
impl Desk {
    /// List the notes.
    #[mcp_tool(read_only)]
    async fn list_notes(&self, Database(pool): Database, _args: NoArgs) -> Result<Notes, ToolError> {
        let ids: Vec<String> = sqlx::query_scalar("SELECT id FROM notes ORDER BY id")
            .fetch_all(&pool)
            .await
            .internal()?;
        Ok(Notes { count: ids.len(), ids })
    }

    /// Write a note.
    #[mcp_tool(idempotency_key = "requestId")]
    async fn add_note(
        &self,
        Database(pool): Database,
        args: NoteArgs,
        write: WriteContext,
    ) -> Result<NoteWritten, ToolError> {
        sqlx::query("INSERT INTO notes (id, body) VALUES ($1, $2)")
            .bind(&args.id)
            .bind(args.body.unwrap_or_default())
            .execute(&pool)
            .await
            .internal()?;
        Ok(NoteWritten::of(args.id, &write))
    }

    /// Delete a note, once a person approves.
    #[mcp_tool(destructive, approval = "Delete note {id}")]
    async fn delete_note(
        &self,
        Database(pool): Database,
        args: NoteArgs,
        write: WriteContext,
    ) -> Result<NoteWritten, ToolError> {
        sqlx::query("DELETE FROM notes WHERE id = $1")
            .bind(&args.id)
            .execute(&pool)
            .await
            .internal()?;
        Ok(NoteWritten::of(args.id, &write))
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let state = match std::env::var("NOTES_DB") {
        Ok(url) => State::connect_with(&url, MIGRATIONS).await?,
        Err(_) => State::new(),
    };
    // `NOTES_PAGE=127.0.0.1:0`: the approvals page on a loopback port beside stdio, where
    // the person at the client confirms the deletes they asked for.
    let state = match std::env::var("NOTES_PAGE") {
        Ok(address) => state.with_local_approvals_page(address),
        Err(_) => state,
    };
    // `notes approvals list`, `notes approvals approve ID --as WHO`: decides from another
    // process, through the same database.
    if let Some(done) = approval::run_command(&state, std::env::args().skip(1)).await {
        return done;
    }
    mcp_result::serve_stdio_with_state(Desk, state).await
}
