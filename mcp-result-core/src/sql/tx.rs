//! The SQL side of [`Tx`](crate::Tx): the write transaction its tool's statements share with the
//! framework's records, and the connection it hands the tool.

use std::{
    ops::{Deref, DerefMut},
    sync::Arc,
};

use serde_json::Value;
use tokio::sync::{MappedMutexGuard, Mutex, MutexGuard};

use super::{failed, keyed, Transaction, COMPLETE};
use crate::{
    store::{StoreError, StoreFuture},
    write::{
        audit::AuditRecord,
        idempotency::{KeyScope, WriteTransaction},
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
