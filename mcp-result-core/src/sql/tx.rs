//! The SQL side of [`Tx`](crate::Tx): the write transaction its tool's statements share with the
//! framework's records, and the connection it hands the tool.

use std::{
    ops::{Deref, DerefMut},
    sync::Arc,
};

use serde_json::Value;
use tokio::sync::{MappedMutexGuard, Mutex, MutexGuard};

use super::{
    failed, keyed,
    statements::{complete_with_outcome, ClaimQuery},
    Transaction, COMPLETE,
};
use crate::{
    store::StoreError,
    write::{
        audit::AuditRecord,
        idempotency::{CommitFailure, CommitFuture, KeyScope, WriteTransaction},
    },
};

/// The transaction a write tool's statements and the framework's records share.
type Shared = Mutex<Option<Transaction>>;

/// Where the tool's statements start: after the claim and the intent; on PostgreSQL, for a
/// keyed write, before them (taken with `BEGIN` in one round trip; a failed tool's rollback
/// then writes them again).
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
    /// PostgreSQL, keyed: the claim's statement (with the intent), written after the
    /// savepoint; a failed tool's rollback runs it again. The answer and the outcome are
    /// then one statement too.
    redo: Option<ClaimQuery>,
}

impl SqlWrite {
    pub(super) fn new(
        tx: Transaction,
        key: Option<(KeyScope, u64)>,
        redo: Option<ClaimQuery>,
    ) -> Self {
        Self {
            shared: Arc::new(Mutex::new(Some(tx))),
            key,
            redo,
        }
    }
}

/// How long a commit waits for the transaction's connection, which the tool's statements
/// may still hold (a clone of its `Tx` kept past the call): 10 s.
const LOCK_FOR_COMMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Dropped uncommitted (a rollback: the time limit, a cancellation, a question), the write
/// takes its transaction out of the handle, so it rolls back now and a `Tx` the tool kept
/// (a clone, a background task) finds none.
impl Drop for SqlWrite {
    fn drop(&mut self) {
        match self.shared.try_lock() {
            Ok(mut held) => drop(held.take()),
            Err(_) => {
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    let shared = self.shared.clone();
                    runtime.spawn(async move {
                        drop(shared.lock().await.take());
                    });
                }
            }
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
    ) -> CommitFuture<'a> {
        Box::pin(async move {
            let held = tokio::time::timeout(LOCK_FOR_COMMIT, self.shared.lock())
                .await
                .map(|mut held| held.take());
            let Ok(Some(mut tx)) = held else {
                return Err(CommitFailure::Before(StoreError::Invalid(
                    "SQL stores: the write's transaction was still in use by its tool, or \
                     taken, at its commit"
                        .into(),
                )));
            };
            let before = |error| CommitFailure::Before(error);
            if tool_failed {
                sqlx::query(&format!("ROLLBACK TO SAVEPOINT {SAVEPOINT}"))
                    .execute(&mut *tx)
                    .await
                    .map_err(failed("rolling a failed tool back"))
                    .map_err(before)?;
                if let Some(claim) = &self.redo {
                    // The savepoint came before the claim and the intent: both again (the
                    // key was free for the moment between; a call that took it meanwhile
                    // answers, and nothing of this write happened).
                    let again = claim
                        .query()
                        .fetch_optional(&mut *tx)
                        .await
                        .map_err(failed("claiming a failed write's key again"))
                        .map_err(before)?;
                    if again.is_none() {
                        return Err(before(StoreError::Invalid(
                            "SQL stores: the idempotency key was taken by another call while \
                             a failed tool's statements rolled back; nothing of this write \
                             happened"
                                .into(),
                        )));
                    }
                }
            }
            match (&self.key, &self.redo) {
                (Some((scope, token)), Some(_)) => {
                    // PostgreSQL: the answer and the outcome in one statement.
                    let text = serde_json::to_string(result).map_err(|e| before(e.into()))?;
                    let row = super::audit::row_of(outcome).map_err(before)?;
                    let sql = complete_with_outcome(super::Dialect::Postgres);
                    let query = keyed(&sql, scope, *token)
                        .bind(text)
                        .bind(&outcome.event_id);
                    super::statements::bind_row(query, row)
                        .execute(&mut *tx)
                        .await
                        .map_err(failed("storing a result with its outcome"))
                        .map_err(before)?;
                }
                (key, _) => {
                    if let Some((scope, token)) = key {
                        let text = serde_json::to_string(result).map_err(|e| before(e.into()))?;
                        keyed(COMPLETE, scope, *token)
                            .bind(text)
                            .execute(&mut *tx)
                            .await
                            .map_err(failed("storing a result"))
                            .map_err(before)?;
                    }
                    super::audit::insert(&mut *tx, outcome, None)
                        .await
                        .map_err(before)?;
                }
            }
            // A failure of the commit itself is ambiguous: the database may have committed
            // before the answer was lost.
            tx.commit()
                .await
                .map_err(failed("committing a write"))
                .map_err(CommitFailure::AtCommit)
        })
    }
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

impl crate::tool::tx::Tx {
    /// The transaction's connection, for the tool's statements (features `sqlite`,
    /// `postgres`); `None` when the write is served on stores that are not one SQL database
    /// (it then runs as any other write), or after the write ended.
    pub async fn connection(&self) -> Option<TxConnection<'_>> {
        let shared = self.handle()?.downcast_ref::<Shared>()?;
        let guard = shared.lock().await;
        MutexGuard::try_map(guard, |tx| tx.as_mut().map(|tx| &mut **tx))
            .ok()
            .map(TxConnection)
    }
}
