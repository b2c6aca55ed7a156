//! A write tool's database transaction: [`Tx`] (its connection: `sql`, features `sqlite`,
//! `postgres`).

use std::{any::Any, sync::Arc};

use crate::{
    tool::extract::{via, FromToolCall, ToolCall, ToolExtension},
    wire::envelope::ToolError,
    write::idempotency::TxHandle,
};

/// The database transaction of a write: take it as a parameter of a write tool, and the
/// tool's own statements commit together with the framework's records of the call, once —
/// the idempotency claim, the audit intent, the statements, the audit outcome and the stored
/// answer — when the server's idempotency store and audit log are one `SqlStores` (features `sqlite`, `postgres`).
///
/// What each end of the call leaves:
///
/// - **the tool succeeds**: everything commits, in one commit;
/// - **the tool returns an error** (or panics): its statements roll back (to the point
///   taken after the intent), its error outcome is recorded and stored under the key, and a
///   retry with the key is answered that error, as for any write;
/// - **the process dies before the commit**: nothing stays, no claim, no statement, no
///   audit record of a write; a retry with the key runs fresh. A transactional write never
///   answers `outcome_unknown`;
/// - **its time limit passes, or the client cancels it**: the tool stops, everything rolls
///   back, and the answer says so (`failed`, `retrySafe: true`);
/// - **a concurrent call with the same key** waits for the commit (the claim's row lock)
///   and is answered the committed result.
///
/// The transaction holds its locks while the tool runs: on PostgreSQL the key's row (a
/// duplicate waits up to 100 ms in its claim, then outside it); on SQLite the database's one
/// write lock, so every other write of the process waits for it (at most the 10 s busy
/// timeout). Keep transactional tools short, give them a time limit, and write only through
/// the `Tx` (a statement on another connection of the pool waits for this one).
///
/// Served on other stores (the in-memory defaults, or an audit sink elsewhere),
/// [`Tx::connection`] is `None` and the write runs as any other: write the tool for both
/// (guide, "Identity and state"). A read-only tool, and a write gated by a human approval,
/// cannot take it (the server does not start).
///
/// ```
/// # #[cfg(any(feature = "sqlite", feature = "postgres"))] mod with_sql {
/// use mcp_result_core::{sql::sqlx, Tx};
///
/// async fn add_note(tx: &Tx, ticket: &str, body: &str) -> Result<bool, sqlx::Error> {
///     let Some(mut connection) = tx.connection().await else {
///         return Ok(false); // in-memory stores: write elsewhere
///     };
///     sqlx::query("INSERT INTO notes (ticket_id, body) VALUES ($1, $2)")
///         .bind(ticket)
///         .bind(body)
///         .execute(&mut *connection)
///         .await?;
///     Ok(true)
/// }
/// # }
/// ```
#[derive(Clone)]
pub struct Tx {
    handle: Option<Arc<dyn Any + Send + Sync>>,
}

impl std::fmt::Debug for Tx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tx")
            .field("transactional", &self.handle.is_some())
            .finish()
    }
}

impl Tx {
    /// Whether the tool's statements commit with the framework's records (the stores are
    /// one SQL database).
    pub fn is_transactional(&self) -> bool {
        self.handle.is_some()
    }

    /// The store's transaction behind `Any` (the SQL stores' own type).
    #[cfg_attr(not(any(feature = "sqlite", feature = "postgres")), allow(dead_code))]
    pub(crate) fn handle(&self) -> Option<&(dyn Any + Send + Sync)> {
        self.handle.as_deref()
    }
}

impl FromToolCall<via::Extractor> for Tx {
    fn tool_extension() -> Option<ToolExtension> {
        Some(ToolExtension {
            transactional: true,
            ..ToolExtension::default()
        })
    }

    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        let handle = call
            .context()
            .extensions
            .get::<TxHandle>()
            .map(|handle| handle.0.clone());
        Ok(Tx { handle })
    }
}
