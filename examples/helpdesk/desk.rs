//! The desk the tools work on: five seeded tickets, their notes and locks (in memory, or in
//! the `--store` database), and the stores the framework's writes use.

use std::{
    collections::BTreeMap,
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc, Mutex,
    },
};

use mcp_result::{
    approval::{ApprovalStore, MemoryApprovals},
    audit::{AuditSink, TracingSink},
    idempotency::{IdempotencyStore, MemoryIdempotencyStore},
    store::{ArtifactAccess, ArtifactStore, MemoryStore},
    task::{MemoryTasks, TaskStore},
    ServerServices, ToolError, Tx,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tools::TicketView;

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

pub(crate) struct Ticket {
    pub(crate) id: String,
    pub(crate) title: String,
    pub(crate) body: String,
    pub(crate) severity: Severity,
    /// A locked ticket (legal hold, escalation) accepts no new notes.
    pub(crate) locked: bool,
    pub(crate) notes: Vec<String>,
}

/// The desk: five seeded tickets, and the state that calls change (notes, locks) with the
/// framework's stores. `Clone` (every call runs on a clone of the server), so its state is
/// shared behind `Arc`s.
#[derive(Clone)]
pub struct Helpdesk {
    pub(crate) tickets: Arc<Mutex<BTreeMap<String, Ticket>>>,
    pub(crate) next_event: Arc<AtomicU64>,
    /// Where large reports go; served back through `resources/read`.
    pub(crate) artifacts: Arc<dyn ArtifactStore>,
    /// Idempotency records, approval requests and the audit log.
    pub(crate) idempotency: Arc<dyn IdempotencyStore>,
    pub(crate) approvals: Arc<dyn ApprovalStore>,
    pub(crate) audit: Arc<dyn AuditSink>,
    /// Tasks (MCP tasks extension): `add_internal_note` and `close_ticket` answer a client
    /// that declares it with a task.
    pub(crate) tasks: Arc<dyn TaskStore>,
    /// `--store URL`: notes and locks (and every store above) in one SQL database, shared
    /// by every instance that names it.
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    pub(crate) sql: Option<mcp_result::sql::SqlStores>,
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

    /// Ticket `id` with its notes and lock as they stand now (in the database, with
    /// `--store`).
    pub(crate) async fn view(&self, id: &str) -> Result<TicketView, ToolError> {
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
    pub(crate) async fn add_note(
        &self,
        id: &str,
        body: String,
        tx: &Tx,
    ) -> Result<String, ToolError> {
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
    pub(crate) async fn lock(&self, id: &str) -> Result<String, ToolError> {
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
    pub(crate) fn with_ticket<R>(
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
    pub(crate) fn next_message(&self) -> u64 {
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

impl ArtifactAccess for Helpdesk {
    fn artifact_store(&self) -> &dyn ArtifactStore {
        &*self.artifacts
    }
    // `may_read` keeps its default: only the identity whose call made an artifact reads
    // it (over HTTP, the bearer token's identity; over stdio, the process's one user).
}

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
