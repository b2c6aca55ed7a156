//! A small support-desk MCP server built with mcp-result.
//!
//! - `cargo run --example helpdesk` serves MCP over stdio (for any MCP client).
//! - `cargo run --example helpdesk -- demo` starts this same binary as a child process,
//!   connects rmcp's client to it over stdio and prints the `tools/list` result and a few
//!   `tools/call` results as JSON: the whole contract in one command.
//! - `cargo run --example helpdesk -- docs [--json] [PATH]` prints (or writes to `PATH`) the
//!   docs of every tool, rendered from the `tools/list` payload (`docs/helpdesk.md`).
//!
//! - `--store sqlite:PATH` or `--store postgres://...` (features `sqlite`, `postgres`) keeps
//!   every store and the desk's notes and locks in that database; `--http ADDRESS`
//!   (feature `http`) serves streamable HTTP with bearer tokens (`--tokens PATH`), so that
//!   several instances can share one database; with `--oauth-issuer URL --resource URL`
//!   (feature `oauth`) it is an OAuth 2.1 protected resource instead, its JWT access tokens
//!   issued by that authorization server for that resource URI (`--introspect CLIENT_ID`
//!   with `MCP_RESULT_CLIENT_SECRET` verifies opaque tokens by introspection instead), and
//!   `--allow-origin ORIGIN` lets a browser page of that origin call it (CORS). `approve --store URL ID APPROVER` and
//!   `reject --store URL ID APPROVER REASON` decide an approval request from another
//!   process.
//!
//! With `--store`, `add_internal_note` writes its note in the write's transaction
//! (`mcp_result::Tx`): the note, its idempotency key and its audit records commit together,
//! once. `HELPDESK_NOTE_DELAY_MS` (for the kill tests, `tests/scale_out.rs`) makes it wait
//! that long after inserting, before the commit.
//!
//! The tickets are seeded (five of them); everything else is the real thing.

use std::{
    collections::BTreeMap,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex,
    },
};

use mcp_result::{
    approval::{ApprovalStore, MemoryApprovals},
    audit::{AuditSink, JsonLinesSink, TracingSink},
    content::Payload,
    content::{BlockAnnotations, Image},
    extract::WriteContext,
    idempotency::{IdempotencyStore, MemoryIdempotencyStore},
    mcp_handler, mcp_tools,
    pagination::{Page, Pager},
    rmcp::{
        model::{Implementation, ServerCapabilities, ServerConfig},
        ServerHandler,
    },
    store::{ArtifactAccess, ArtifactStore, MemoryStore},
    task::{MemoryTasks, TaskStore},
    Audience, AuditEventId, Secret, ServerServices, Status, ToolError, ToolResult, Tx,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------------------
// Domain
// ---------------------------------------------------------------------------------------

/// How bad a ticket's problem is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Low,
    Medium,
    High,
    Critical,
}

struct Ticket {
    id: String,
    title: String,
    body: String,
    severity: Severity,
    /// A locked ticket (legal hold, escalation) accepts no new notes.
    locked: bool,
    notes: Vec<String>,
}

/// The desk: five seeded tickets, and the state that calls change (notes, locks) with the
/// framework's stores. `Clone` (every call runs on a clone of the server), so its state is
/// shared behind `Arc`s.
#[derive(Clone)]
pub struct Helpdesk {
    tickets: Arc<Mutex<BTreeMap<String, Ticket>>>,
    next_event: Arc<AtomicU64>,
    /// Where large reports go; served back through `resources/read`.
    artifacts: Arc<dyn ArtifactStore>,
    /// Idempotency records, approval requests and the audit log.
    idempotency: Arc<dyn IdempotencyStore>,
    approvals: Arc<dyn ApprovalStore>,
    audit: Arc<dyn AuditSink>,
    /// Tasks (MCP tasks extension): `add_internal_note` and `close_ticket` answer a client
    /// that declares it with a task.
    tasks: Arc<dyn TaskStore>,
    /// `--store URL`: notes and locks (and every store above) in one SQL database, shared
    /// by every instance that names it.
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    sql: Option<mcp_result::sql::SqlStores>,
}

impl Helpdesk {
    /// A desk seeded with five tickets; `T-1004` is locked.
    pub fn seeded() -> Self {
        let seed = [
            (
                "T-1001",
                "Login fails with SSO",
                "SSO redirect loops for EU tenants",
                Severity::High,
                false,
            ),
            (
                "T-1002",
                "Invoice PDF has wrong VAT",
                "VAT rounding differs from ledger",
                Severity::Medium,
                false,
            ),
            (
                "T-1003",
                "Login page slow",
                "p95 login latency 4s since deploy",
                Severity::Low,
                false,
            ),
            (
                "T-1004",
                "Data export leaked to wrong tenant",
                "Export job mixed tenant ids",
                Severity::Critical,
                true,
            ),
            (
                "T-1005",
                "Password reset email missing",
                "Reset mails not delivered to outlook",
                Severity::High,
                false,
            ),
        ];
        let tickets = seed
            .into_iter()
            .map(|(id, title, body, severity, locked)| {
                let ticket = Ticket {
                    id: id.into(),
                    title: title.into(),
                    body: body.into(),
                    severity,
                    locked,
                    notes: Vec::new(),
                };
                (id.to_owned(), ticket)
            })
            .collect();
        Self {
            tickets: Arc::new(Mutex::new(tickets)),
            next_event: Arc::new(AtomicU64::new(1)),
            artifacts: Arc::new(MemoryStore::new()),
            idempotency: Arc::new(MemoryIdempotencyStore::new()),
            approvals: Arc::new(MemoryApprovals::default()),
            audit: Arc::new(TracingSink),
            tasks: Arc::new(MemoryTasks::default()),
            #[cfg(any(feature = "sqlite", feature = "postgres"))]
            sql: None,
        }
    }

    /// The desk that `serve` runs: in memory, or with every store in the database at
    /// `store` (`sqlite:PATH`, `postgres://...`); audit records also to `audit_log`.
    async fn open(
        store: Option<&str>,
        audit_log: Option<JsonLinesSink>,
    ) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        let mut desk = Self::seeded();
        let mut sinks: Vec<Arc<dyn AuditSink>> = Vec::new();
        match store {
            None => {}
            #[cfg(any(feature = "sqlite", feature = "postgres"))]
            Some(url) => {
                let stores = mcp_result::sql::SqlStores::connect(url).await?;
                for table in [
                    "CREATE TABLE IF NOT EXISTS helpdesk_notes (ticket_id TEXT NOT NULL, \
                     n BIGINT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (ticket_id, n))",
                    "CREATE TABLE IF NOT EXISTS helpdesk_locks (ticket_id TEXT PRIMARY KEY)",
                ] {
                    mcp_result::sql::sqlx::query(table)
                        .execute(stores.pool())
                        .await?;
                }
                desk.artifacts = Arc::new(stores.artifacts(Default::default()));
                desk.idempotency = Arc::new(stores.idempotency());
                desk.approvals = Arc::new(stores.approvals());
                desk.tasks = Arc::new(stores.tasks());
                sinks.push(Arc::new(stores.audit()));
                desk.sql = Some(stores);
            }
            #[cfg(not(any(feature = "sqlite", feature = "postgres")))]
            Some(_) => {
                return Err("--store needs the `sqlite` or `postgres` feature: \
                            cargo run --features sqlite --example helpdesk -- --store sqlite:desk.db"
                    .into())
            }
        }
        if let Some(file) = audit_log {
            sinks.push(Arc::new(file));
        }
        // The log when nothing else records.
        desk.audit = match sinks.len() {
            0 => Arc::new(TracingSink),
            1 => sinks.remove(0),
            _ => Arc::new(sinks),
        };
        Ok(desk)
    }

    /// Ticket `id` with its notes and lock as they stand now (in the database, with
    /// `--store`).
    async fn view(&self, id: &str) -> Result<TicketView, ToolError> {
        #[allow(unused_mut)]
        let mut view = self.with_ticket(id, |ticket| {
            Ok(TicketView {
                id: ticket.id.clone(),
                title: ticket.title.clone(),
                body: ticket.body.clone(),
                severity: ticket.severity,
                locked: ticket.locked,
                notes: ticket.notes.clone(),
            })
        })?;
        #[cfg(any(feature = "sqlite", feature = "postgres"))]
        if let Some(sql) = &self.sql {
            view.notes = mcp_result::sql::sqlx::query_scalar(
                "SELECT body FROM helpdesk_notes WHERE ticket_id = $1 ORDER BY n",
            )
            .bind(id)
            .fetch_all(sql.pool())
            .await
            .map_err(unavailable)?;
            view.locked |= locked_in(sql, id).await?;
        }
        Ok(view)
    }

    /// Adds note `body` to ticket `id` unless it is locked: its note id. With `--store`, in
    /// the write's transaction `tx`, so the note commits with the call's idempotency key and
    /// audit records, once, and the lock is checked in the same statement (one commit in
    /// all). When the stores cannot hold the write's transaction (`--audit-log` beside
    /// `--store` records to a second log), the note still goes to the database, in a
    /// transaction of its own.
    async fn add_note(&self, id: &str, body: String, tx: &Tx) -> Result<String, ToolError> {
        let locked = |id: &str| {
            ToolError::policy_blocked(format!(
                "ticket {id} is locked (legal hold); notes need a human reviewer"
            ))
        };
        if self.with_ticket(id, |ticket| Ok(ticket.locked))? {
            return Err(locked(id));
        }
        #[cfg(any(feature = "sqlite", feature = "postgres"))]
        if let Some(sql) = &self.sql {
            use mcp_result::sql::sqlx;
            let mut in_write = tx.connection().await;
            let mut own = match in_write {
                Some(_) => None,
                None => Some(sql.pool().begin().await.map_err(unavailable)?),
            };
            let connection: &mut sqlx::AnyConnection = match (&mut in_write, &mut own) {
                (Some(connection), _) => connection,
                (None, Some(own)) => own,
                (None, None) => unreachable!("one of the two is open"),
            };
            // The next number, taken in the insert itself, unless the ticket is locked; two
            // instances that race for a number collide on the primary key, and the loser
            // takes the one after (a savepoint keeps the transaction usable after it).
            for _ in 0..20 {
                sqlx::query("SAVEPOINT note")
                    .execute(&mut *connection)
                    .await
                    .map_err(unavailable)?;
                let inserted: Result<Option<i64>, _> = sqlx::query_scalar(
                    "INSERT INTO helpdesk_notes (ticket_id, n, body) \
                     SELECT $1, (SELECT COALESCE(MAX(n), 0) + 1 FROM helpdesk_notes \
                     WHERE ticket_id = $2), $3 \
                     WHERE NOT EXISTS (SELECT 1 FROM helpdesk_locks WHERE ticket_id = $4) \
                     RETURNING n",
                )
                .bind(id)
                .bind(id)
                .bind(&body)
                .bind(id)
                .fetch_optional(&mut *connection)
                .await;
                match inserted {
                    Ok(Some(n)) => {
                        if let Some(own) = own {
                            own.commit().await.map_err(unavailable)?;
                        }
                        return Ok(format!("{id}-N{n}"));
                    }
                    Ok(None) => return Err(locked(id)),
                    Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                        sqlx::query("ROLLBACK TO SAVEPOINT note")
                            .execute(&mut *connection)
                            .await
                            .map_err(unavailable)?;
                    }
                    Err(error) => return Err(unavailable(error)),
                }
            }
            return Err(ToolError::conflict(format!(
                "Too many notes were added to {id} at once; call again."
            )));
        }
        let _ = tx;
        self.with_ticket(id, |ticket| {
            ticket.notes.push(body);
            Ok(format!("{}-N{}", ticket.id, ticket.notes.len()))
        })
    }

    /// Locks ticket `id` (closed tickets take no notes).
    async fn lock(&self, id: &str) -> Result<String, ToolError> {
        let id = self.with_ticket(id, |ticket| {
            ticket.locked = true;
            Ok(ticket.id.clone())
        })?;
        #[cfg(any(feature = "sqlite", feature = "postgres"))]
        if let Some(sql) = &self.sql {
            mcp_result::sql::sqlx::query(
                "INSERT INTO helpdesk_locks (ticket_id) VALUES ($1) ON CONFLICT DO NOTHING",
            )
            .bind(&id)
            .execute(sql.pool())
            .await
            .map_err(unavailable)?;
        }
        Ok(id)
    }

    /// Runs `f` on ticket `id` under the lock; `not_found` (with what to do) when there is none.
    fn with_ticket<R>(
        &self,
        id: &str,
        f: impl FnOnce(&mut Ticket) -> Result<R, ToolError>,
    ) -> Result<R, ToolError> {
        let mut tickets = self.tickets.lock().unwrap_or_else(|e| e.into_inner());
        let ticket = tickets.get_mut(id).ok_or_else(|| {
            ToolError::not_found(format!(
                "No ticket `{id}`. Use search_tickets to find ticket ids."
            ))
        })?;
        f(ticket)
    }

    /// The mail upstream's next message id.
    fn next_message(&self) -> u64 {
        self.next_event.fetch_add(1, Ordering::Relaxed)
    }
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
async fn locked_in(sql: &mcp_result::sql::SqlStores, id: &str) -> Result<bool, ToolError> {
    let found: Option<String> = mcp_result::sql::sqlx::query_scalar(
        "SELECT ticket_id FROM helpdesk_locks WHERE ticket_id = $1",
    )
    .bind(id)
    .fetch_optional(sql.pool())
    .await
    .map_err(unavailable)?;
    Ok(found.is_some())
}

/// The database failed: the cause to the log, `upstream_unavailable` to the caller.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
fn unavailable(error: mcp_result::sql::sqlx::Error) -> ToolError {
    tracing::error!(%error, "helpdesk database");
    ToolError::upstream_unavailable("The ticket database is unavailable; call again.", true)
}

// ---------------------------------------------------------------------------------------
// Tool arguments and results
// ---------------------------------------------------------------------------------------

/// Arguments of `search_tickets` (its `Pager` adds `cursor` and `pageSize`).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchArgs {
    /// Words to look for in ticket titles and bodies (case-insensitive; all must match; `""`
    /// matches every ticket).
    pub query: String,
    /// Only tickets at or above this severity.
    #[serde(default)]
    pub min_severity: Option<Severity>,
}

/// One ticket that matched a search.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Ticket id, e.g. `T-1001`.
    pub id: String,
    pub title: String,
    pub severity: Severity,
    /// Where the full ticket lives.
    pub uri: String,
}

/// Arguments of `add_internal_note`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoteArgs {
    /// The ticket to annotate, e.g. `T-1001`.
    pub ticket_id: String,
    /// The note text (1 to 2000 characters). Internal notes are never shown to the customer.
    #[schemars(length(min = 1, max = 2000))]
    pub body: String,
    /// An idempotency key you choose (1 to 255 characters): a retry with the same
    /// `requestId` returns the first call's result and adds no second note.
    #[serde(default)]
    pub request_id: Option<String>,
}

/// Who can see a note.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Staff only.
    Internal,
}

/// An internal note was added to a ticket.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(
    summary = "Added internal note {note_id} to {ticket_id} (status {status}, \
                         audit event {audit_event_id}). Retry only with the same requestId."
)]
pub struct NoteCreated {
    pub ticket_id: String,
    pub note_id: String,
    pub visibility: Visibility,
    pub status: Status,
    /// True when the call carried an idempotency key (a retry with it returns this result);
    /// false otherwise: a retry without one would add the note twice.
    pub retry_safe: bool,
    pub audit_event_id: AuditEventId,
}

/// A ticket was closed, under a human approval.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Closed {ticket_id} (approval {approval_id}).")]
pub struct TicketClosed {
    pub ticket_id: String,
    pub status: Status,
    pub retry_safe: bool,
    pub audit_event_id: AuditEventId,
    /// The human approval it ran under.
    pub approval_id: Option<String>,
}

/// A transcript was emailed.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Emailed the transcript to {recipient} (message {message_id}).")]
pub struct TranscriptSent {
    /// The mail upstream's message id.
    pub message_id: String,
    /// Who got it.
    pub recipient: String,
    pub status: Status,
    pub retry_safe: bool,
    pub audit_event_id: AuditEventId,
}

/// Names one ticket.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TicketArgs {
    /// The ticket id, e.g. `T-1001`.
    pub ticket_id: String,
}

/// One ticket.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "{id}: {title} (severity {severity}, {notes} internal notes)")]
pub struct TicketView {
    pub id: String,
    pub title: String,
    pub body: String,
    pub severity: Severity,
    pub locked: bool,
    /// Internal notes, oldest first.
    pub notes: Vec<String>,
}

/// Arguments of `lookup_customer`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerArgs {
    /// The customer id, e.g. `C-100`.
    pub customer_id: String,
}

/// A customer, as the CRM record has them. The record holds the customer's API token: it
/// is `#[secret]`, so it never reaches the client, the schema or `Debug` output, and the
/// result says `redactionApplied: true`.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "{name} ({customer_id}) is on the {plan} plan")]
pub struct Customer {
    pub customer_id: String,
    pub name: String,
    /// Subscription plan: `free`, `team` or `enterprise`.
    pub plan: String,
    /// The customer's API token for the CRM.
    #[secret]
    #[serde(skip)]
    pub api_token: Secret<String>,
    /// True when a value of this record was withheld (set by mcp-result).
    pub redaction_applied: bool,
}

/// The slow upstream: a CRM that takes 40 ms, or 2 s for the customer `C-SLOW`.
async fn crm_fetch(customer_id: &str) -> Option<Customer> {
    let delay = if customer_id == "C-SLOW" { 2_000 } else { 40 };
    tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
    let (name, plan) = match customer_id {
        "C-100" => ("Acme GmbH", "enterprise"),
        "C-200" => ("Birch & Co", "team"),
        "C-SLOW" => ("Sloth Ltd", "free"),
        _ => return None,
    };
    Some(Customer {
        customer_id: customer_id.into(),
        name: name.into(),
        plan: plan.into(),
        api_token: Secret::new(format!("crm-token-{customer_id}-7f3a9c")),
        redaction_applied: false,
    })
}

/// Arguments of `billing_import_dry_run`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportArgs {
    /// How many invoice rows the simulated export holds (1 to 100000).
    #[schemars(range(min = 1, max = 100000))]
    pub rows: u32,
}

/// A billing import checked without writing anything.
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(
    summary = "Dry run: {rows_valid} of {rows_total} invoice rows would import, \
                         {rows_rejected} rejected. The full report is linked (resources/read)."
)]
pub struct ImportDryRun {
    pub rows_total: u32,
    pub rows_valid: u32,
    pub rows_rejected: u32,
    /// The row-by-row report (CSV), stored as an artifact: its URI here, a `resource_link`
    /// in `content`.
    pub report: Payload,
}

/// The header image of a ticket (a tiny generated PNG).
#[derive(Debug, Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
#[tool_result(summary = "Attachment of {ticket_id} (image block for the user)")]
pub struct Attachment {
    pub ticket_id: String,
    /// The image: bytes in an `image` block, metadata here.
    pub image: Image,
}

/// A 1x1 transparent PNG.
const TINY_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

impl ArtifactAccess for Helpdesk {
    fn artifact_store(&self) -> &dyn ArtifactStore {
        &*self.artifacts
    }
    // `may_read` keeps its default: only the identity whose call made an artifact reads
    // it (over HTTP, the bearer token's identity; over stdio, the process's one user).
}

// ---------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------

/// The stores `Helpdesk::open` chose: in memory, or in the `--store` database.
impl ServerServices for Helpdesk {
    fn idempotency_store(&self, _state: &mcp_result::State) -> Arc<dyn IdempotencyStore> {
        self.idempotency.clone()
    }
    fn approval_store(&self, _state: &mcp_result::State) -> Arc<dyn ApprovalStore> {
        self.approvals.clone()
    }
    fn audit_sink(&self, _state: &mcp_result::State) -> Arc<dyn AuditSink> {
        self.audit.clone()
    }
    fn task_store(&self, _state: &mcp_result::State) -> Arc<dyn TaskStore> {
        self.tasks.clone()
    }
}

#[mcp_tools(artifacts, services)]
impl Helpdesk {
    /// Search support tickets by words in their title or body. Returns the matches, most
    /// severe first, with their ids and URIs, a page at a time: `pageSize` (1 to 200,
    /// default 50) per page; for the next page, call again with the same arguments and the
    /// result's `nextCursor` as `cursor` (absent on the last page).
    #[mcp_tool(read_only, title = "Search tickets", scopes = "tickets:read")]
    fn search_tickets(&self, args: SearchArgs, pages: Pager<usize>) -> Page<Finding> {
        let words: Vec<String> = args
            .query
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        let tickets = self.tickets.lock().unwrap_or_else(|e| e.into_inner());
        let mut matches: Vec<&Ticket> = tickets
            .values()
            .filter(|t| args.min_severity.is_none_or(|min| t.severity >= min))
            .filter(|t| {
                let text = format!("{} {}", t.title, t.body).to_lowercase();
                words.iter().all(|w| text.contains(w.as_str()))
            })
            .collect();
        matches.sort_by(|a, b| b.severity.cmp(&a.severity).then(a.id.cmp(&b.id)));
        // The position is an offset into the sorted matches (`None`: the first page).
        let start = pages.position().unwrap_or(0).min(matches.len());
        let end = start.saturating_add(pages.page_size()).min(matches.len());
        let findings = matches[start..end]
            .iter()
            .map(|t| Finding {
                id: t.id.clone(),
                title: t.title.clone(),
                severity: t.severity,
                uri: format!("helpdesk://tickets/{}", t.id),
            })
            .collect();
        let next = (end < matches.len()).then_some(end);
        pages.page(findings, next, Some(matches.len() as u64))
    }

    /// List every ticket id, oldest first. The result is a JSON array, so `structuredContent`
    /// wraps it as `{"result": [...]}` (the tool's `_meta` says so).
    #[mcp_tool(
        read_only,
        idempotent,
        title = "List ticket ids",
        scopes = "tickets:read"
    )]
    fn list_ticket_ids(&self) -> Vec<String> {
        let tickets = self.tickets.lock().unwrap_or_else(|e| e.into_inner());
        tickets.keys().cloned().collect()
    }

    /// Read one ticket with its internal notes.
    #[mcp_tool(read_only, title = "Get ticket", scopes = "tickets:read")]
    async fn get_ticket(&self, args: TicketArgs) -> Result<TicketView, ToolError> {
        self.view(&args.ticket_id).await
    }

    /// Look a customer up in the CRM. The CRM is slow at times: past 500 ms the call is
    /// answered with `upstream_timeout` (retry-safe: the lookup is idempotent).
    #[mcp_tool(
        read_only,
        idempotent,
        timeout_ms = 500,
        title = "Look up customer",
        scopes = "tickets:read"
    )]
    async fn lookup_customer(&self, args: CustomerArgs) -> Result<Customer, ToolError> {
        crm_fetch(&args.customer_id).await.ok_or_else(|| {
            ToolError::not_found(format!("No customer `{}` in the CRM.", args.customer_id))
        })
    }

    /// Add an internal (staff-only) note to a ticket. Not idempotent: each call adds a note,
    /// unless it carries an idempotency key (`requestId`, or `_meta`
    /// `io.github.mcp-result/idempotencyKey`): a retry with the same key returns the first
    /// result. Locked tickets refuse notes (policy); the result then has status `blocked`.
    #[mcp_tool(
        title = "Add internal note",
        destructive = false,
        idempotency_key = "requestId",
        scopes = "tickets:write",
        task = "optional"
    )]
    async fn add_internal_note(
        &self,
        args: NoteArgs,
        write: WriteContext,
        tx: Tx,
    ) -> Result<NoteCreated, ToolError> {
        let note_id = self.add_note(&args.ticket_id, args.body, &tx).await?;
        if let Some(delay) = std::env::var("HELPDESK_NOTE_DELAY_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
        {
            tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
        }
        Ok(NoteCreated {
            // The framework minted and recorded this event before the tool ran.
            audit_event_id: write.audit_event_id().clone(),
            ticket_id: args.ticket_id,
            note_id,
            visibility: Visibility::Internal,
            status: Status::Succeeded,
            // The framework writes what is true here: true under an idempotency key.
            retry_safe: false,
        })
    }

    /// Close a ticket. A human approves first: a client that can elicit asks its user; any
    /// other gets `blocked` with an `approvalRequestId` to call again with once an approver
    /// approved it.
    #[mcp_tool(
        title = "Close ticket",
        approval = "Close ticket {ticketId}",
        scopes = "tickets:write",
        task = "optional"
    )]
    async fn close_ticket(
        &self,
        args: TicketArgs,
        write: WriteContext,
    ) -> Result<TicketClosed, ToolError> {
        let ticket_id = self.lock(&args.ticket_id).await?;
        Ok(TicketClosed {
            ticket_id,
            status: Status::Succeeded,
            retry_safe: false,
            audit_event_id: write.audit_event_id().clone(),
            approval_id: write.approval().map(|(id, _)| id.to_owned()),
        })
    }

    /// Email a ticket's transcript to its customer. The mail upstream takes a few hundred
    /// milliseconds; past the 2 s limit the answer says the outcome is unknown, and the
    /// mail is still sent and recorded. Send an idempotency key (`_meta`
    /// `io.github.mcp-result/idempotencyKey`) so that a retry never mails twice.
    #[mcp_tool(
        title = "Email transcript",
        timeout_ms = 2000,
        scopes = "tickets:write"
    )]
    async fn email_transcript(
        &self,
        args: TicketArgs,
        write: WriteContext,
    ) -> Result<TranscriptSent, ToolError> {
        let customer = self.with_ticket(&args.ticket_id, |ticket| {
            Ok(format!("customer-of-{}", ticket.id))
        })?;
        // The mail upstream.
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let n = self.next_message();
        Ok(TranscriptSent {
            message_id: format!("mail-{n:06}"),
            recipient: customer,
            // Passed on to the mail upstream as a reference in a real server.
            audit_event_id: write.audit_event_id().clone(),
            status: Status::Succeeded,
            retry_safe: false,
        })
    }

    /// Check a billing import without writing anything: counts in the result, the full
    /// row-by-row report behind a `resource_link` (only the caller who made it may read it).
    #[mcp_tool(
        read_only,
        idempotent,
        title = "Billing import (dry run)",
        scopes = "tickets:read"
    )]
    fn billing_import_dry_run(&self, args: ImportArgs) -> ImportDryRun {
        let mut report = String::from("row,invoice,status,reason\n");
        let mut rejected = 0;
        for row in 1..=args.rows {
            // Every 7th row has a negative amount in the simulated export.
            let (status, reason) = if row % 7 == 0 {
                rejected += 1;
                ("rejected", "negative amount")
            } else {
                ("ok", "")
            };
            report.push_str(&format!("{row},INV-{row:06},{status},{reason}\n"));
        }
        ImportDryRun {
            rows_total: args.rows,
            rows_valid: args.rows - rejected,
            rows_rejected: rejected,
            report: Payload::text("import-report.csv", "text/csv", report)
                .with_title("Billing import dry-run report"),
        }
    }

    /// Get a ticket's attachment (an image).
    #[mcp_tool(read_only, title = "Get attachment", scopes = "tickets:read")]
    fn get_attachment(&self, args: TicketArgs) -> Result<Attachment, ToolError> {
        let tickets = self.tickets.lock().unwrap_or_else(|e| e.into_inner());
        if !tickets.contains_key(&args.ticket_id) {
            return Err(ToolError::not_found(format!(
                "No ticket `{}`.",
                args.ticket_id
            )));
        }
        let annotations = BlockAnnotations::new().audience(Audience::USER);
        Ok(Attachment {
            ticket_id: args.ticket_id,
            image: Image::new(TINY_PNG, "image/png").with_annotations(annotations),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Helpdesk {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_tasks()
                .build(),
        )
        .with_server_info(Implementation::new("helpdesk", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "Support desk. Search tickets, read one, add internal notes. Results carry \
                 structuredContent; write results carry status, retrySafe and auditEventId.",
        )
    }
}

// ---------------------------------------------------------------------------------------
// Main: serve over stdio, or run the demo client
// ---------------------------------------------------------------------------------------

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    // The flags may stand anywhere; the rest is the command.
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    init_logs(args.first().is_some_and(|a| a == "demo"));
    if args.iter().any(|a| a == "--help" || a == "-h") || args.first().is_some_and(|a| a == "help")
    {
        print!("{HELP}");
        return Ok(());
    }
    let audit_log = match take_flag(&mut args, "--audit-log")? {
        Some(path) => Some(JsonLinesSink::open(path)?),
        None => None,
    };
    let store = take_flag(&mut args, "--store")?;
    let http = take_flag(&mut args, "--http")?;
    let access = Access {
        tokens: take_flag(&mut args, "--tokens")?,
        issuer: take_flag(&mut args, "--oauth-issuer")?,
        resource: take_flag(&mut args, "--resource")?,
        introspect: take_flag(&mut args, "--introspect")?,
        origins: take_flags(&mut args, "--allow-origin")?,
    };
    match args.first().map(String::as_str) {
        None | Some("serve") => {
            let desk = Helpdesk::open(store.as_deref(), audit_log).await?;
            match http {
                None => mcp_result::serve_stdio(desk).await,
                Some(address) => serve_http(desk, &address, access).await,
            }
        }
        Some("demo") => demo().await,
        Some(decision @ ("approve" | "reject")) => {
            decide(store.as_deref(), decision, &args[1..]).await
        }
        Some("docs") => docs(args.into_iter().skip(1)),
        Some(other) => Err(format!(
            "unknown command `{other}`: expected `serve`, `demo`, `docs`, `approve` or \
             `reject` (`--help` says more)"
        )
        .into()),
    }
}

/// Logs go to stderr (stdout is the MCP channel), as `RUST_LOG` chooses: a level or a list
/// of `target=level` (`RUST_LOG=debug`, `RUST_LOG=warn,mcp_result=debug`). Without it a
/// server logs at `info`, and `demo` logs nothing, nor does the server it starts
/// (`RUST_LOG=off` for the child), so it prints only what it demonstrates.
fn init_logs(demo: bool) {
    use tracing_subscriber::{filter::Targets, layer::SubscriberExt, util::SubscriberInitExt};
    let info = || Targets::new().with_default(tracing::Level::INFO);
    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) => directives.parse::<Targets>().unwrap_or_else(|error| {
            eprintln!("RUST_LOG `{directives}`: {error}; logging at info");
            info()
        }),
        Err(_) if demo => return,
        Err(_) => info(),
    };
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false),
        )
        .with(filter)
        .init();
}

/// What `--help` prints.
const HELP: &str = "\
helpdesk: a small support-desk MCP server built with mcp-result.

Usage:
  helpdesk [serve] [FLAGS]         serve MCP over stdio (the default), or HTTP with --http
  helpdesk demo                    run this binary as a child over stdio, connect rmcp's
                                   client, print tools/list and a few tools/call results
  helpdesk docs [--json] [PATH]    print (or write to PATH) the docs of every tool
  helpdesk approve --store URL ID APPROVER
  helpdesk reject --store URL ID APPROVER REASON
                                   decide a pending approval request through the store
  helpdesk --help                  this text

Flags:
  --store URL            keep every store, the notes and the locks in one database:
                         sqlite:PATH or postgres://... (features sqlite, postgres)
  --audit-log PATH       also write the audit log as JSON Lines to PATH
  --http ADDRESS         serve streamable HTTP on ADDRESS, e.g. 127.0.0.1:8080 (feature http)
  --tokens PATH          bearer tokens of --http, a JSON table {token: {subject, tenant?,
                         scopes?}}; without it the demo tokens alice-token and bob-token
  --oauth-issuer URL     an OAuth 2.1 protected resource instead: JWT access tokens of this
  --resource URL           authorization server for this resource URI (feature oauth)
  --introspect CLIENT_ID verify opaque tokens by introspection (MCP_RESULT_CLIENT_SECRET)
  --allow-origin ORIGIN  let a browser page of ORIGIN call (CORS; repeatable)

Environment:
  MCP_RESULT_SERVER_KEY  the server key shared by every instance (base64, 32 bytes or more)
  MCP_RESULT_INSTANCE    this instance's name in the audit log
  RUST_LOG               which logs: a level or target=level list, e.g. warn,mcp_result=debug
                         (default: info when serving, none for demo)

Logs go to stderr: stdout is the MCP channel.
";

/// `approve --store URL ID APPROVER` / `reject --store URL ID APPROVER REASON`: an
/// approver's decision on a pending approval request, from another process than the
/// server's, through the shared store.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
async fn decide(
    store: Option<&str>,
    decision: &str,
    args: &[String],
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let usage =
        "usage: helpdesk approve --store URL ID APPROVER | reject --store URL ID APPROVER REASON";
    let store = store.ok_or(usage)?;
    let approvals = mcp_result::sql::SqlStores::connect(store)
        .await?
        .approvals();
    let outcome = match (decision, args) {
        ("approve", [id, approver]) => approvals
            .approve(id, approver)
            .await?
            .map(|approval_id| format!("approved {id}: approval {approval_id}")),
        ("reject", [id, approver, reason]) => approvals
            .reject(id, approver, reason)
            .await?
            .map(|()| format!("rejected {id}")),
        _ => return Err(usage.into()),
    };
    match outcome {
        Ok(done) => {
            println!("{done}");
            Ok(())
        }
        Err(refusal) => Err(refusal.message().into()),
    }
}

#[cfg(not(any(feature = "sqlite", feature = "postgres")))]
async fn decide(
    _store: Option<&str>,
    _decision: &str,
    _args: &[String],
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    Err("approve and reject need a shared store: cargo run --features sqlite --example helpdesk -- approve --store sqlite:desk.db ID APPROVER".into())
}

/// Removes every `--flag VALUE` from `args`: the values.
fn take_flags(
    args: &mut Vec<String>,
    flag: &str,
) -> Result<Vec<String>, Box<dyn std::error::Error + Send + Sync>> {
    let mut values = Vec::new();
    while let Some(value) = take_flag(args, flag)? {
        values.push(value);
    }
    Ok(values)
}

/// Who may call over HTTP: `--tokens PATH`, or `--oauth-issuer URL --resource URL`
/// [`--introspect CLIENT_ID`], and `--allow-origin ORIGIN` (repeatable).
#[cfg_attr(not(feature = "http"), allow(dead_code))]
struct Access {
    tokens: Option<String>,
    issuer: Option<String>,
    resource: Option<String>,
    introspect: Option<String>,
    origins: Vec<String>,
}

/// Removes `--flag VALUE` from `args`: the value, if the flag is there.
fn take_flag(
    args: &mut Vec<String>,
    flag: &str,
) -> Result<Option<String>, Box<dyn std::error::Error + Send + Sync>> {
    let Some(at) = args.iter().position(|a| a == flag) else {
        return Ok(None);
    };
    let value = args
        .get(at + 1)
        .cloned()
        .ok_or_else(|| format!("{flag} needs a value"))?;
    args.drain(at..=at + 1);
    Ok(Some(value))
}

/// `--http ADDRESS`: streamable HTTP at `http://ADDRESS/mcp`, statelessly (any instance
/// answers any request), each request's caller the identity of its bearer token: from the
/// `--tokens PATH` table (JSON: `{"token": {"subject": ..., "tenant": ..., "scopes":
/// [...]}}`) or the demo table printed at start, or, with `--oauth-issuer URL --resource
/// URL`, a JWT access token of that authorization server for that resource (introspected
/// with `--introspect CLIENT_ID`). Stops on Ctrl-C or SIGTERM after running writes finish.
#[cfg(feature = "http")]
async fn serve_http(
    desk: Helpdesk,
    address: &str,
    access: Access,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use mcp_result::http::{HttpOptions, TokenVerifier};
    let listener = tokio::net::TcpListener::bind(address).await?;
    let local = listener.local_addr()?;
    let mut options = HttpOptions {
        allowed_origins: access.origins.clone(),
        ..HttpOptions::default()
    };
    // How long a task's instance holds it without renewing (tests shorten it to take a
    // killed instance's tasks over sooner).
    if let Some(ms) = std::env::var("HELPDESK_TASK_LEASE_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
    {
        let policy = mcp_result::task::TaskPolicy::default()
            .with_lease(std::time::Duration::from_millis(ms));
        options.state = options.state.with(policy);
    }
    let verifier: Arc<dyn TokenVerifier> = match (&access.issuer, &access.resource) {
        (Some(issuer), Some(resource)) => {
            let (verifier, resource) =
                oauth(issuer, resource, access.introspect.as_deref()).await?;
            options.resource = Some(resource);
            verifier
        }
        (None, None) => Arc::new(static_tokens(access.tokens.as_deref())?),
        _ => return Err("--oauth-issuer and --resource go together".into()),
    };
    tracing::info!("serving MCP at http://{local}/mcp");
    let shutdown = async {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
    };
    mcp_result::http::serve_http(desk, listener, verifier, options, shutdown).await
}

/// `--tokens PATH`, or the demo tokens.
#[cfg(feature = "http")]
fn static_tokens(
    path: Option<&str>,
) -> Result<mcp_result::http::StaticTokens, Box<dyn std::error::Error + Send + Sync>> {
    use mcp_result::{http::StaticTokens, Identity};
    Ok(match path {
        Some(path) => StaticTokens::from_json(&std::fs::read_to_string(path)?)?,
        None => {
            tracing::warn!(
                "no --tokens: demo tokens `alice-token` (acme:alice) and `bob-token` (globex:bob)"
            );
            let scopes = ["tickets:read", "tickets:write"];
            StaticTokens::new()
                .with(
                    "alice-token",
                    Identity::new("alice")
                        .with_tenant("acme")
                        .with_scopes(scopes),
                )
                .with(
                    "bob-token",
                    Identity::new("bob")
                        .with_tenant("globex")
                        .with_scopes(scopes),
                )
        }
    })
}

/// The verifier of `issuer`'s tokens for `resource`, and the protected resource the server
/// is: JWT access tokens checked against the issuer's keys, or, with `--introspect
/// CLIENT_ID` (its secret in `MCP_RESULT_CLIENT_SECRET`), opaque ones by introspection.
#[cfg(feature = "oauth")]
async fn oauth(
    issuer: &str,
    resource: &str,
    introspect: Option<&str>,
) -> Result<
    (
        Arc<dyn mcp_result::http::TokenVerifier>,
        mcp_result::http::ProtectedResource,
    ),
    Box<dyn std::error::Error + Send + Sync>,
> {
    use mcp_result::{
        http::ProtectedResource,
        oauth::{ClientCredentials, IntrospectionVerifier, JwtVerifier},
    };
    let verifier: Arc<dyn mcp_result::http::TokenVerifier> = match introspect {
        None => Arc::new(JwtVerifier::discover(issuer, resource).await?),
        Some(client_id) => {
            let secret = std::env::var("MCP_RESULT_CLIENT_SECRET")
                .map_err(|_| "--introspect needs the client secret in MCP_RESULT_CLIENT_SECRET")?;
            let credentials = ClientCredentials::new(client_id, secret);
            Arc::new(IntrospectionVerifier::discover(issuer, credentials, resource).await?)
        }
    };
    let mut protected = ProtectedResource::new(resource, [issuer]);
    protected.resource_name = Some("Helpdesk".to_owned());
    Ok((verifier, protected))
}

#[cfg(all(feature = "http", not(feature = "oauth")))]
async fn oauth(
    _issuer: &str,
    _resource: &str,
    _introspect: Option<&str>,
) -> Result<
    (
        Arc<dyn mcp_result::http::TokenVerifier>,
        mcp_result::http::ProtectedResource,
    ),
    Box<dyn std::error::Error + Send + Sync>,
> {
    Err("--oauth-issuer needs the `oauth` feature: cargo run --features oauth --example helpdesk -- --http 127.0.0.1:8080 --oauth-issuer URL --resource URL".into())
}

#[cfg(not(feature = "http"))]
async fn serve_http(
    _desk: Helpdesk,
    _address: &str,
    _access: Access,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    Err("--http needs the `http` feature: cargo run --features http --example helpdesk -- --http 127.0.0.1:8080".into())
}

/// `docs [--json] [PATH]`: the Markdown (or JSON) docs of every tool, to stdout or `PATH`.
/// The committed `docs/helpdesk.md` and `docs/helpdesk.json` are this output.
#[cfg(feature = "docs")]
fn docs(
    args: impl Iterator<Item = String>,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (flags, paths): (Vec<String>, Vec<String>) = args.partition(|a| a.starts_with("--"));
    let json = match flags.as_slice() {
        [] => false,
        [flag] if flag == "--json" => true,
        _ => return Err(format!("usage: helpdesk docs [--json] [PATH], got {flags:?}").into()),
    };
    let docs = mcp_result::docs::ServerDocs::for_tool_set::<Helpdesk>("helpdesk")?;
    let text = if json {
        docs.to_json_pretty()
    } else {
        docs.to_markdown()
    };
    match paths.as_slice() {
        [] => print!("{text}"),
        [path] => std::fs::write(path, text)?,
        _ => return Err("usage: helpdesk docs [--json] [PATH]".into()),
    }
    Ok(())
}

#[cfg(not(feature = "docs"))]
fn docs(
    _args: impl Iterator<Item = String>,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    Err("the docs command needs the `docs` feature: cargo run --features docs --example helpdesk -- docs".into())
}

async fn demo() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    use mcp_result::rmcp::{
        model::CallToolRequestParams, transport::TokioChildProcess, ServiceExt,
    };
    use serde_json::json;

    let mut child = tokio::process::Command::new(std::env::current_exe()?);
    // The server's logs only when asked for (`init_logs`).
    if std::env::var_os("RUST_LOG").is_none() {
        child.env("RUST_LOG", "off");
    }
    let client = ().serve(TokioChildProcess::new(child)?).await?;
    let print = |label: &str, value: &dyn erased::Json| {
        println!("=== {label}\n{}\n", value.pretty());
    };

    let tools = client.list_all_tools().await?;
    print("tools/list", &tools);

    let calls = [
        ("search_tickets", json!({"query": "login"})),
        ("list_ticket_ids", json!({})),
        ("get_ticket", json!({"ticketId": "T-1003"})),
        (
            "add_internal_note",
            json!({"ticketId": "T-1001", "body": "Customer confirmed SSO loop."}),
        ),
        (
            "add_internal_note",
            json!({"ticketId": "T-1004", "body": "Checking export job."}),
        ),
        ("get_ticket", json!({"ticketId": "T-9999"})),
        ("lookup_customer", json!({"customerId": "C-100"})),
        ("lookup_customer", json!({"customerId": "C-SLOW"})),
        ("search_tickets", json!({"query": "", "pageSize": 2})),
        ("search_tickets", json!({"query": 42, "pageSize": 500})),
        ("get_attachment", json!({"ticketId": "T-1002"})),
    ];
    for (name, arguments) in calls {
        let serde_json::Value::Object(arguments) = arguments else {
            unreachable!()
        };
        let label = format!(
            "tools/call {name} {}",
            serde_json::Value::Object(arguments.clone())
        );
        let result = client
            .call_tool(CallToolRequestParams::new(name).with_arguments(arguments))
            .await?;
        print(&label, &result);
    }
    // A large report behind a resource_link, readable by the identity that made it; a URI
    // the store never made (they are 128 random bits) is not found.
    let import = CallToolRequestParams::new("billing_import_dry_run")
        .with_arguments(serde_json::Map::from_iter([("rows".into(), json!(20))]));
    let result = client.call_tool(import).await?;
    print("tools/call billing_import_dry_run {\"rows\":20}", &result);
    let uri = result
        .structured_content
        .as_ref()
        .and_then(|s| s["report"].as_str())
        .unwrap_or_default()
        .to_owned();
    let guessed = "mcp-result://artifacts/00000000000000000000000000000001".to_owned();
    for target in [uri, guessed] {
        let read = mcp_result::rmcp::model::ReadResourceRequestParams::new(target.clone());
        match client.read_resource(read).await {
            Ok(contents) => print(&format!("resources/read {target}"), &contents),
            Err(error) => println!("=== resources/read {target}\n{error}\n"),
        }
    }
    match client
        .call_tool(CallToolRequestParams::new("delete_everything"))
        .await
    {
        Err(error) => println!("=== tools/call delete_everything (unknown tool)\n{error}\n"),
        Ok(result) => print("tools/call delete_everything", &result),
    }
    client.cancel().await?;
    Ok(())
}

mod erased {
    /// Pretty JSON for anything serializable, behind `dyn` so the demo's printer is one
    /// closure.
    pub trait Json {
        fn pretty(&self) -> String;
    }
    impl<T: serde::Serialize> Json for T {
        fn pretty(&self) -> String {
            serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("<{e}>"))
        }
    }
}
