//! A [`State`](crate::State) on SQL stores in one call, and the [`Database`] extractor
//! that hands a tool their pool.

use std::sync::Arc;

use sqlx::AnyPool;

use super::{AppMigration, SqlStores};
use crate::{
    cancel::CancelBus,
    store::StoreError,
    tool::extract::{via, FromToolCall, ToolCall},
    wire::envelope::ToolError,
};

/// Durable state in one call: every store of a [`State`] in one database.
impl crate::State {
    /// A [`State`] whose every store is in the database at `url` (`sqlite:PATH` or
    /// `postgres://...`, as [`SqlStores::connect`], migrations run): idempotency keys,
    /// approval requests, the audit log and tasks, and the [`SqlStores`] themselves as a
    /// value of the state (`state.get::<SqlStores>()`, and the [`Database`] extractor, for the
    /// application's own tables and its artifact store, [`SqlStores::artifacts`]).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    /// let state = mcp_result_core::State::connect("sqlite:notes.db").await?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    /// As [`SqlStores::connect`].
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with(url, &[]).await
    }

    /// [`State::connect`], running the application's own `migrations` after the
    /// framework's ([`SqlStores::migrate_with`]).
    ///
    /// # Errors
    /// As [`SqlStores::connect_with`].
    pub async fn connect_with(url: &str, migrations: &[AppMigration]) -> Result<Self, StoreError> {
        let stores = SqlStores::connect_with(url, migrations).await?;
        Ok(Self::with_sql_stores(stores))
    }

    /// A fresh [`State`] whose every store is one of `stores` (and `stores` a value of it),
    /// for stores already connected.
    #[must_use]
    pub fn with_sql_stores(stores: SqlStores) -> Self {
        Self::new()
            .with_idempotency_store(Arc::new(stores.idempotency()))
            .with_approval_store(Arc::new(stores.approvals()))
            .with_audit_sink(Arc::new(stores.audit()))
            .with_task_store(Arc::new(stores.tasks()))
            .with(stores)
    }
}

/// A tool parameter: the pool of the server's SQL stores, for the application's own tables
/// (read or write tools). Its statements go through sqlx's `Any` driver: `$1` placeholders on
/// both databases, integers, text and bytes (as [`SqlStores::pool`] says).
///
/// The server's [`State`](crate::State) must hold [`SqlStores`]: [`State::connect`](crate::State::connect)
/// puts them there (or `State::with(stores)`). A write whose rows must commit with its
/// idempotency key and audit records takes [`Tx`](crate::Tx) instead.
///
/// ```
/// use mcp_result_core::{sql::{sqlx, Database}, ResultExt as _, ToolError};
///
/// async fn count_notes(Database(pool): Database) -> Result<i64, ToolError> {
///     sqlx::query_scalar("SELECT COUNT(*) FROM notes")
///         .fetch_one(&pool)
///         .await
///         .internal()
/// }
/// ```
///
/// # Errors
/// A server whose state holds no [`SqlStores`] answers the call `internal` (the cause,
/// logged under its correlation id, says to serve with `State::connect`).
#[derive(Debug, Clone)]
pub struct Database(pub AnyPool);

impl FromToolCall<via::Extractor> for Database {
    fn from_tool_call(call: &mut ToolCall) -> Result<Self, ToolError> {
        match call.state().get::<SqlStores>() {
            Some(stores) => Ok(Database(stores.pool().clone())),
            None => Err(ToolError::internal_logged(
                "a tool took a `Database` parameter and the server's State holds no SQL \
                 stores: serve with `State::connect(url)` (or `State::with(stores)`)",
            )),
        }
    }
}

impl SqlStores {
    /// The [`CancelBus`] of an instance on these stores, for
    /// [`State::with_cancel_bus`](crate::State::with_cancel_bus).
    ///
    /// On PostgreSQL, a bus that spans every instance on the database: it listens
    /// (`LISTEN mcp_result_cancel`, one connection of its own, reconnected when lost) before
    /// it is returned, and a client's cancel reaches its call on whichever instance runs it,
    /// within milliseconds. Call it once per instance. On SQLite, [`CancelBus::local`]: one
    /// file is one host, so serve its instances from one process and give them one bus.
    ///
    /// # Errors
    /// PostgreSQL: the listening connection cannot be opened.
    pub async fn cancel_bus(&self) -> Result<CancelBus, StoreError> {
        match self.dialect() {
            #[cfg(feature = "postgres")]
            super::Dialect::Postgres => CancelBus::on_postgres(self.pool()).await,
            _ => Ok(CancelBus::local()),
        }
    }
}
