//! A write tool whose own statements commit with the framework's records: [`Tx`].

use std::{
    ops::{Deref, DerefMut},
    sync::Arc,
};

use serde_json::Value;
use tokio::sync::{MappedMutexGuard, Mutex, MutexGuard};

use super::{
    failed,
    idempotency::{keyed, Transaction, COMPLETE},
};
use crate::{
    store::{StoreError, StoreFuture},
    tool::extract::{via, FromToolCall, ToolCall, ToolExtension},
    wire::envelope::ToolError,
    write::{
        audit::AuditRecord,
        idempotency::{KeyScope, TxHandle, WriteTransaction},
    },
};

/// The transaction a write tool's statements and the framework's records share.
type Shared = Mutex<Option<Transaction>>;

/// Where the tool's statements start: after the claim and the intent.
const SAVEPOINT: &str = "mcp_result_tool";

/// The intent written in `tx`, and the savepoint the tool's statements start after.
pub(super) async fn opened(tx: &mut Transaction, intent: &AuditRecord) -> Result<(), StoreError> {
    super::audit::insert(&mut **tx, intent, None).await?;
    sqlx::query(&format!("SAVEPOINT {SAVEPOINT}"))
        .execute(&mut **tx)
        .await
        .map_err(failed("opening a write"))?;
    Ok(())
}

/// An open write of the SQL stores: the claim (its key and token, when keyed) and the intent
/// are written in its transaction, not committed.
pub(super) struct SqlWrite {
    shared: Arc<Shared>,
    key: Option<(KeyScope, u64)>,
}

impl SqlWrite {
    pub(super) fn new(tx: Transaction, key: Option<(KeyScope, u64)>) -> Self {
        Self {
            shared: Arc::new(Mutex::new(Some(tx))),
            key,
        }
    }
}

impl WriteTransaction for SqlWrite {
    fn handle(&self) -> Arc<dyn std::any::Any + Send + Sync> {
        self.shared.clone()
    }

    fn commit<'a>(
        self: Box<Self>,
        result: &'a Value,
        outcome: &'a AuditRecord,
        tool_failed: bool,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let Some(mut tx) = self.shared.lock().await.take() else {
                return Err(StoreError::Invalid(
                    "SQL stores: a write's transaction was taken before its commit".into(),
                ));
            };
            if tool_failed {
                sqlx::query(&format!("ROLLBACK TO SAVEPOINT {SAVEPOINT}"))
                    .execute(&mut *tx)
                    .await
                    .map_err(failed("rolling a failed tool back"))?;
            }
            if let Some((scope, token)) = &self.key {
                keyed(COMPLETE, scope, *token)
                    .bind(serde_json::to_string(result)?)
                    .execute(&mut *tx)
                    .await
                    .map_err(failed("storing a result"))?;
            }
            super::audit::insert(&mut *tx, outcome, None).await?;
            tx.commit().await.map_err(failed("committing a write"))
        })
    }
}

/// The database transaction of a write: take it as a parameter of a write tool, and the
/// tool's own statements commit together with the framework's records of the call, once —
/// the idempotency claim, the audit intent, the statements, the audit outcome and the stored
/// answer — when the server's idempotency store and audit log are one [`SqlStores`](super::SqlStores).
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
/// Served on other stores (the in-memory defaults, or an audit sink elsewhere),
/// [`Tx::connection`] is `None` and the write runs as any other: write the tool for both
/// (guide, "Identity and state"). A read-only tool, and a write gated by a human approval,
/// cannot take it (the server does not start).
///
/// ```
/// use mcp_result_core::sql::{sqlx, Tx};
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
/// ```
#[derive(Debug, Clone)]
pub struct Tx {
    shared: Option<Arc<Shared>>,
}

/// The connection of a write's transaction, locked for the tool's statements: a
/// `sqlx::AnyConnection` (`&mut *connection` is an executor).
#[derive(Debug)]
pub struct TxConnection<'a>(MappedMutexGuard<'a, sqlx::AnyConnection>);

impl Deref for TxConnection<'_> {
    type Target = sqlx::AnyConnection;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl DerefMut for TxConnection<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.0
    }
}

impl Tx {
    /// The transaction's connection, for the tool's statements; `None` when the write is
    /// served on stores that are not one SQL database (it then runs as any other write), or
    /// after the write ended.
    pub async fn connection(&self) -> Option<TxConnection<'_>> {
        let guard = self.shared.as_ref()?.lock().await;
        MutexGuard::try_map(guard, |tx| tx.as_mut().map(|tx| &mut **tx))
            .ok()
            .map(TxConnection)
    }

    /// Whether the tool's statements commit with the framework's records (the stores are
    /// one SQL database).
    pub fn is_transactional(&self) -> bool {
        self.shared.is_some()
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
        let shared = call
            .context()
            .extensions
            .get::<TxHandle>()
            .and_then(|handle| handle.0.clone().downcast::<Shared>().ok());
        Ok(Tx { shared })
    }
}
