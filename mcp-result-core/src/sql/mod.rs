//! The stores in SQL: idempotency keys, approval requests, the audit log and artifacts in
//! SQLite (feature `sqlite`) or PostgreSQL (feature `postgres`), so that what a server
//! promises survives a restart and holds across instances sharing one database.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_result_core::store::StoreError> {
//! use mcp_result_core::{sql::SqlStores, store::ArtifactLimits};
//!
//! // `sqlite:PATH` (created if missing, WAL) or `postgres://user:password@host/db`.
//! let stores = SqlStores::connect("sqlite:desk.db").await?; // runs the migrations
//! let idempotency = stores.idempotency(); // impl IdempotencyStore
//! let approvals = stores.approvals(); // impl ApprovalStore
//! let audit = stores.audit(); // impl AuditSink, plus archive_before and recover_dangling
//! let artifacts = stores.artifacts(ArtifactLimits::default()); // impl ArtifactStore
//! let tasks = stores.tasks(); // impl TaskStore
//! let pool = stores.pool(); // the application's own tables, same database
//! # Ok(()) }
//! ```
//!
//! # One library, one SQL text
//!
//! The stores run on [`sqlx`] (0.8, no macros) through its driver-neutral `Any` pool: both
//! databases accept the same statements (`$1` placeholders, `INSERT ... ON CONFLICT`,
//! `RETURNING`), so each store's logic is written once, in one SQL text, and a server picks
//! the database by its URL. What does differ lives in [`Dialect`] — how a transaction takes
//! the write lock, and how the audit log's retention deletes — and in the migrations
//! (`migrations/{sqlite,postgres}/`, column types and PostgreSQL's append-only trigger).
//! The `Any` driver only carries integers, text and bytes, which is all these tables hold:
//! JSON as text, times as Unix integers.
//!
//! # Time
//!
//! Expiry is judged by the application's clock (`SystemTime::now`), as in the in-memory
//! stores; instances sharing a database need clocks that agree to within the leases and
//! time-to-live they use. Expired rows are invisible at once and deleted by the store that
//! meets them, at most once a minute per store and table ([`PURGE_EVERY`]).
//!
//! # Round trips and commits
//!
//! On PostgreSQL each call is one statement in autocommit unless said otherwise, and one round
//! trip: sqlx prepares a statement once per connection and keeps it (its statement cache),
//! then sends bind, execute and sync together. On a SQLite
//! file the same statements of a write run as one job of the writer (next section), one
//! call to SQLite where they can: in a savepoint of its group's transaction, committed with
//! the group. Reads run on the pool, on both.
//!
//! | call | statements | commits, PostgreSQL | on a SQLite file |
//! |---|---|---|---|
//! | `claim` won | 1 (`INSERT ... ON CONFLICT DO UPDATE ... WHERE <retakable> RETURNING`) | 1 | a job |
//! | `claim_started` won, with this database's audit log | PostgreSQL 1 (a data-modifying `WITH`: the claim, made started, and the intent); SQLite, one call of 2 (the claim; the intent, inserted when the claim changed a row) in a savepoint of its own | 1 | a job |
//! | `complete_recorded`, with this database's audit log | PostgreSQL 1 (`WITH`: the result, the outcome); SQLite, one call of 2 in a savepoint | 1 | a job |
//! | `claim` replayed, refused or waiting | 2 (the upsert, then the row it met) | 1 | a job, then a read |
//! | `start`, `complete`, `release` | 1 | 1 | a job |
//! | `peek` | 1 | – | a read |
//! | `wait` | 1 per look, 20 ms apart backing off to 250 ms | – | reads |
//! | audit `record` (intent, outcome, replay) | 1 | 1 | a job |
//! | approval `consume` | 1; 3 when refused (then the request, to say why) | 1 | a job, then reads |
//! | approval `create` | 4 (a transaction: begin, the request, its fingerprints, commit) | 1 | a job of 2 statements |
//! | approval `get`, `decide` | 2, 3 (the request and its fingerprints; `decide` updates first) | –, 1 | reads; a job, then reads |
//! | artifact `put` | 5 in SQLite, 6 in PostgreSQL: begin, the lock (PostgreSQL), delete the expired, read usage, one insert of all, commit | 1 | the writer leased, alone |
//! | artifact `get` | 1 | – | a read |
//! | task `create` | 1 (the caller's count inside the insert) | 1 | a job |
//! | task `get`, `replace` | 1 (`replace`: `UPDATE ... WHERE version = `) | –, 1 | a read; a job |
//! | a keyed [`Tx`](crate::Tx) write, with this database's audit log | PostgreSQL 4 round trips besides the tool's statements: `BEGIN; SET LOCAL lock_timeout; SAVEPOINT` (one simple query), the claim with its intent (one `WITH`, which also restores the lock timeout), the answer with its outcome (one `WITH`), `COMMIT` (`tests/round_trips.rs` counts them on the wire; 9 before: each statement apart); a failed tool adds 2 (back to the savepoint, the claim again); SQLite: begin, the claim, the intent, the savepoint, the answer, the outcome, commit | 1 | the writer leased, alone |
//! | an unkeyed [`Tx`](crate::Tx) write; audit `archive_before` | one transaction (unkeyed: begin, the intent, the savepoint, the outcome, commit) | 1 | the writer leased, alone |
//!
//! A keyed write whose audit log is the same [`SqlStores`]' makes two commits on
//! PostgreSQL: the claim with its intent and start, then the answer with its outcome
//! (`tests/commits.rs` counts them); an unkeyed one two as well (intent, outcome); a write
//! gated by a human approval four (the claim comes before the question). On a SQLite file the
//! same write is two jobs, two calls to SQLite, each sharing one commit with the jobs queued
//! beside it: with `n` writes at once, about `2/n` commits a write, down to `2/`[`GROUP_MAX`]
//! (`tests/sqlite_writer.rs`). Plus, once a minute per store, one `DELETE` of expired rows (a
//! job on SQLite).
//!
//! # SQLite: one writer, group commits
//!
//! SQLite lets one connection write at a time. On a SQLite file the stores write through one
//! writer: a connection of its own, on a thread of its own, serving a queue of jobs in
//! arrival order. It takes the first waiting job and every job queued behind it, up to
//! [`GROUP_MAX`], opens one `BEGIN IMMEDIATE` transaction, runs each job in a `SAVEPOINT` of
//! its own — a job whose statement fails is rolled back to its savepoint, so it fails alone —
//! and commits once: one `fsync` (`synchronous = FULL` stays) for the whole group. A job that
//! is one call (one statement, or statements that open and release their savepoint
//! themselves) needs no call of the writer's around it; when it fails, its group ends there
//! and commits what ran before it (that commit also proves SQLite did not roll the whole
//! transaction back, as it may on some errors), and the jobs behind it make the next group.
//! Each caller is answered after its group's commit; when the commit fails, every caller of
//! the group gets the error. The stores' writes do not contend for the file's lock, they
//! queue, and never meet `database is locked`.
//!
//! A write that holds a transaction open across other code — a [`Tx`](crate::Tx) write,
//! [`SqlAuditLog::archive_before`], an artifact put — leases the writer's connection for its
//! transaction and runs alone: the queue waits, and resumes when it commits or rolls back
//! (dropped uncommitted, cancelled: rolled back). Reads (`peek`, `wait`'s looks, `get`, the
//! audit log's reads) run on the pool's connections, WAL readers, never behind the queue. An
//! in-memory database (`sqlite::memory:`) is one connection: it has no writer, its pool of
//! one serves all.
//!
//! # Migrations
//!
//! [`SqlStores::connect`] runs the shipped migrations (sqlx's migrator, tracked in
//! `_sqlx_migrations`, under its lock); [`SqlStores::open`] does not, and
//! [`SqlStores::migrate`] runs them explicitly. Their versions are timestamps, and the
//! migrator ignores versions it does not ship: an application that keeps its own tables in
//! the same database through its own sqlx migrator must likewise
//! `set_ignore_missing(true)` on it.

mod approval;
mod artifact;
mod audit;
mod idempotency;
mod migrate;
mod state;
mod statements;
mod task;
mod tx;
mod writer;

/// The statement [`SqlAuditLog`]'s `approval_records` runs (its tests check that the
/// database answers it from an index). Not public API.
#[doc(hidden)]
pub use audit::APPROVAL_RECORDS;

use std::{
    sync::{
        atomic::{AtomicU64, Ordering},
        Arc,
    },
    time::Duration,
};

use futures::future::BoxFuture;
use sqlx::{
    any::{AnyPoolOptions, AnyRow},
    AnyConnection, AnyPool, Executor as _,
};

pub use self::migrate::AppMigration;
pub use self::state::Database;
pub use self::tx::TxConnection;
pub use self::writer::GROUP_MAX;
use self::writer::{Transaction, Writer};
pub use self::{
    approval::SqlApprovals, artifact::SqlArtifactStore, audit::SqlAuditLog,
    idempotency::SqlIdempotencyStore, task::SqlTasks,
};
use crate::store::StoreError;

pub use sqlx;

/// How often a store deletes the expired rows of its table, at most: once a minute.
pub const PURGE_EVERY: Duration = Duration::from_secs(60);

/// The connections of a pool: 32, as many as the concurrent callers a server expects to
/// keep busy (on PostgreSQL each keyed write holds one for each of its statements in turn;
/// sqlx's default, 10, queues callers behind the pool at 32 concurrent writes). On a SQLite
/// file they are the readers: the writes go through one writer ([`GROUP_MAX`]).
pub const POOL_SIZE: u32 = 32;

/// How long a pooled PostgreSQL connection may have been idle and still be handed out
/// without a ping (one round trip): 1 s. sqlx pings every connection as it goes back to the
/// pool; one idle longer is pinged again when taken, so a connection the server closed
/// meanwhile is replaced, not handed to a write.
pub const PING_IDLE: Duration = Duration::from_secs(1);

/// How long a SQLite connection waits for another writer before failing: 10 s. The stores'
/// own writes never wait for each other (they go through one writer, [`GROUP_MAX`]); this
/// bounds the wait for another process on the file, or the application's own writes through
/// [`SqlStores::pool`]. It also bounds a store write's wait for its turn at the writer: one
/// that waited that long (a transactional write held the writer all the while) fails, and
/// nothing of it ran.
pub const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The pragmas of every SQLite connection: WAL, `synchronous = FULL` (a write the store
/// reported is on disk), foreign keys, [`SQLITE_BUSY_TIMEOUT`].
fn sqlite_pragmas() -> [String; 4] {
    [
        format!("PRAGMA busy_timeout = {}", SQLITE_BUSY_TIMEOUT.as_millis()),
        "PRAGMA journal_mode = WAL".to_owned(),
        "PRAGMA synchronous = FULL".to_owned(),
        "PRAGMA foreign_keys = ON".to_owned(),
    ]
}

/// Which database a URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// `sqlite:PATH`: one file, one writer at a time (write transactions
    /// `BEGIN IMMEDIATE`).
    Sqlite,
    /// `postgres://` or `postgresql://`: row locks (`SELECT ... FOR UPDATE`).
    Postgres,
}

impl Dialect {
    /// The dialect of `url`, if it is a SQLite or PostgreSQL URL this build supports.
    ///
    /// # Errors
    /// The scheme is neither, or its feature (`sqlite`, `postgres`) is off in this build.
    pub fn of(url: &str) -> Result<Self, StoreError> {
        let (dialect, feature) = if url.starts_with("sqlite:") {
            (Dialect::Sqlite, "sqlite")
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            (Dialect::Postgres, "postgres")
        } else {
            return Err(StoreError::Invalid(format!(
                "SQL stores: `{}` is no SQLite (`sqlite:PATH`) or PostgreSQL \
                 (`postgres://...`) URL",
                redact(url)
            )));
        };
        let built = match dialect {
            Dialect::Sqlite => cfg!(feature = "sqlite"),
            Dialect::Postgres => cfg!(feature = "postgres"),
        };
        if !built {
            return Err(StoreError::Invalid(format!(
                "SQL stores: this build has no {dialect:?} driver: enable mcp-result's \
                 feature `{feature}`"
            )));
        }
        Ok(dialect)
    }

    /// The statement that opens a transaction which writes after it reads: SQLite takes
    /// its write lock at once (a deferred transaction that upgrades later fails with
    /// `SQLITE_BUSY` instead of waiting); PostgreSQL locks rows as it reads them.
    fn begin_write(self) -> &'static str {
        match self {
            Dialect::Sqlite => "BEGIN IMMEDIATE",
            Dialect::Postgres => "BEGIN",
        }
    }
}

/// A connection pool to one database and the stores over it. Clones share the pool.
#[derive(Debug, Clone)]
pub struct SqlStores {
    db: Db,
}

/// What every store holds: the pool, its dialect, SQLite's writer, and when each table is
/// next purged.
#[derive(Debug, Clone)]
struct Db {
    /// Reads; every write too, but on a SQLite file (see `writer`).
    pool: AnyPool,
    dialect: Dialect,
    /// A SQLite file's one writer (none for PostgreSQL, nor for an in-memory SQLite
    /// database, whose pool is its one connection).
    writer: Option<Writer>,
    purges: Arc<Purges>,
    /// PostgreSQL: the sessions' own `lock_timeout` (`pg_settings.reset_val`, read once),
    /// which a transactional claim restores for the tool's statements after its own short
    /// one, in its statement; empty on SQLite.
    lock_timeout: Arc<str>,
}

impl Db {
    /// Whether `other` is this database as the same [`SqlStores`] opened it (its clones
    /// share one pool): then one transaction can write both stores' rows.
    fn same(&self, other: &Db) -> bool {
        Arc::ptr_eq(&self.purges, &other.purges)
    }
}

/// The next purge time (Unix ms) of each table with expiring rows, shared by the clones of
/// one [`SqlStores`].
#[derive(Debug, Default)]
struct Purges {
    idempotency: AtomicU64,
    approvals: AtomicU64,
    tasks: AtomicU64,
}

impl SqlStores {
    /// Connects to `url` and runs the shipped migrations ([`Self::migrate`]).
    ///
    /// `sqlite:PATH` creates the file if it is missing and puts it in WAL mode, with
    /// `synchronous = FULL` (a write the store reported is on disk), foreign keys on and a
    /// [`SQLITE_BUSY_TIMEOUT`]; `sqlite::memory:` is one private in-memory database (a
    /// pool of one connection). `postgres://user:password@host:port/database` connects
    /// over TCP without TLS unless the application enables one of sqlx's TLS features.
    ///
    /// # Errors
    /// The URL is not supported ([`Dialect::of`]), the database cannot be reached, or a
    /// migration fails.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with(url, &[]).await
    }

    /// [`Self::connect`], running the application's `migrations` too, after the framework's
    /// ([`Self::migrate_with`]).
    ///
    /// # Errors
    /// As [`Self::connect`]; an [`AppMigration`] whose version is refused.
    pub async fn connect_with(url: &str, migrations: &[AppMigration]) -> Result<Self, StoreError> {
        let stores = Self::open(url).await?;
        stores.migrate_with(migrations).await?;
        Ok(stores)
    }

    /// Connects to `url` like [`Self::connect`], without running migrations (for a process
    /// whose role may not change the schema; run [`Self::migrate`] elsewhere first).
    ///
    /// # Errors
    /// The URL is not supported, or the database cannot be reached.
    pub async fn open(url: &str) -> Result<Self, StoreError> {
        let dialect = Dialect::of(url)?;
        sqlx::any::install_default_drivers();
        let mut options = AnyPoolOptions::new().max_connections(POOL_SIZE);
        let mut url = url.to_owned();
        if dialect == Dialect::Sqlite {
            if url.contains(":memory:") || url.contains("mode=memory") {
                options = options
                    .max_connections(1)
                    .idle_timeout(None)
                    .max_lifetime(None);
            } else if !url.contains("mode=") {
                url.push(if url.contains('?') { '&' } else { '?' });
                url.push_str("mode=rwc");
            }
            options = options.after_connect(|connection, _| {
                Box::pin(async move {
                    for pragma in sqlite_pragmas() {
                        connection.execute(pragma.as_str()).await?;
                    }
                    Ok(())
                })
            });
        }
        if dialect == Dialect::Postgres {
            // sqlx pings a connection when it goes back to the pool (off the caller's path);
            // pinging it again when taken, by default, is one more round trip on the
            // caller's path of every call. Only a connection idle for a while is pinged.
            options = options
                .test_before_acquire(false)
                .before_acquire(|connection, meta| {
                    Box::pin(async move {
                        if meta.idle_for >= PING_IDLE {
                            sqlx::Connection::ping(connection).await?;
                        }
                        Ok(true)
                    })
                });
        }
        let pool = options.connect(&url).await.map_err(|e| {
            StoreError::Invalid(format!("SQL stores: connecting to {}: {e}", redact(&url)))
        })?;
        let in_memory = url.contains(":memory:") || url.contains("mode=memory");
        let writer = match dialect {
            Dialect::Sqlite if !in_memory => Some(Writer::start(&url).await?),
            _ => None,
        };
        let lock_timeout: String = match dialect {
            Dialect::Postgres => {
                sqlx::query_scalar("SELECT reset_val FROM pg_settings WHERE name = 'lock_timeout'")
                    .fetch_one(&pool)
                    .await
                    .map_err(failed("reading the lock timeout"))?
            }
            Dialect::Sqlite => String::new(),
        };
        Ok(Self {
            db: Db {
                pool,
                dialect,
                writer,
                purges: Arc::default(),
                lock_timeout: lock_timeout.into(),
            },
        })
    }

    /// The pool, for the application's own tables in the same database. Its statements go
    /// through sqlx's `Any` driver: `$1` placeholders, integers, text and bytes.
    ///
    /// On a SQLite file the stores read through this pool and write through their one
    /// writer; the application's writes here take the file's write lock between the
    /// writer's groups (waiting up to [`SQLITE_BUSY_TIMEOUT`]). Rows that must commit with a
    /// write's records go through [`Tx`](crate::Tx).
    pub fn pool(&self) -> &AnyPool {
        &self.db.pool
    }

    /// Which database this is.
    pub fn dialect(&self) -> Dialect {
        self.db.dialect
    }

    /// The idempotency store.
    pub fn idempotency(&self) -> SqlIdempotencyStore {
        SqlIdempotencyStore::new(self.db.clone())
    }

    /// The approval store.
    pub fn approvals(&self) -> SqlApprovals {
        SqlApprovals::new(self.db.clone())
    }

    /// The audit log.
    pub fn audit(&self) -> SqlAuditLog {
        SqlAuditLog::new(self.db.clone())
    }

    /// The task store (MCP tasks extension): tasks every instance on this database reads,
    /// feeds and cancels.
    pub fn tasks(&self) -> SqlTasks {
        SqlTasks::new(self.db.clone())
    }

    /// The artifact store, enforcing `limits`.
    pub fn artifacts(&self, limits: crate::store::artifact::ArtifactLimits) -> SqlArtifactStore {
        SqlArtifactStore::new(self.db.clone(), limits)
    }

    /// Closes the pool: waits for the connections in use to come back, then closes all
    /// (on a SQLite file, the writer first, after the writes queued before).
    pub async fn close(&self) {
        if let Some(writer) = &self.db.writer {
            writer.close().await;
        }
        self.db.pool.close().await;
    }
}

impl Db {
    /// Deletes the rows of a table that expired, when its turn has come (at most once per
    /// [`PURGE_EVERY`] per [`SqlStores`]); `sql` takes the cutoff as `$1`.
    async fn purge(&self, next: &AtomicU64, now: u64, sql: &'static str, cutoff: i64) {
        let due = next.load(Ordering::Relaxed);
        if now < due
            || next
                .compare_exchange(
                    due,
                    now + PURGE_EVERY.as_millis() as u64,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_err()
        {
            return;
        }
        let purged = self
            .write(false, move |connection| {
                Box::pin(async move {
                    sqlx::query(sql)
                        .bind(cutoff)
                        .execute(connection)
                        .await
                        .map_err(failed("purging expired rows"))
                })
            })
            .await;
        if let Err(error) = purged {
            // Expired rows are invisible anyway; the next turn tries again.
            tracing::warn!(%error, "SQL stores: purging expired rows failed");
        }
    }

    /// One write: `job`'s statements, committed when this returns. On a SQLite file, a job
    /// of the writer's next group (in a savepoint, so that its error undoes its statements
    /// and no one else's); elsewhere on a pool connection, in a transaction when `atomic`
    /// (the job makes several calls that must commit together), else in autocommit. A job
    /// that is not atomic is one statement, or one call of several statements that wraps
    /// them in `SAVEPOINT mcp_result_job` ... `RELEASE mcp_result_job` itself (SQLite).
    async fn write<T, F>(&self, atomic: bool, job: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(&'c mut AnyConnection) -> BoxFuture<'c, Result<T, StoreError>>
            + Send
            + 'static,
    {
        if let Some(writer) = &self.writer {
            return writer.run(atomic, job).await;
        }
        if atomic {
            let mut tx = Transaction::on_pool(&self.pool, self.dialect.begin_write())
                .await
                .map_err(failed("beginning a write"))?;
            let value = job(&mut tx).await?;
            tx.commit().await.map_err(failed("committing a write"))?;
            return Ok(value);
        }
        let mut connection = self
            .pool
            .acquire()
            .await
            .map_err(failed("acquiring a connection"))?;
        let done = job(&mut connection).await;
        if done.is_err() && self.dialect == Dialect::Sqlite {
            // A call that wrapped its statements in a savepoint and failed in between leaves
            // it open: undone (an error when there is none).
            let _ = connection.execute(writer::UNDO).await;
        }
        done
    }

    /// A write transaction opened with `begin` (SQLite: the writer's connection, leased
    /// until it commits or drops; the writes queued meanwhile wait).
    async fn begin(&self, begin: &'static str) -> Result<Transaction, StoreError> {
        match &self.writer {
            Some(writer) => Transaction::on_writer(writer, begin).await,
            None => Transaction::on_pool(&self.pool, begin)
                .await
                .map_err(failed("beginning a write")),
        }
    }
}

/// A `u64` (a token, a size, a time) as the `BIGINT` the `Any` driver carries; times and
/// sizes never reach 2^63, tokens are stored bit for bit.
fn int(value: u64) -> i64 {
    value as i64
}

/// A failed query as a [`StoreError`] naming what was being done.
fn failed(what: &'static str) -> impl FnOnce(sqlx::Error) -> StoreError {
    move |error| StoreError::Database {
        what,
        source: Box::new(error),
    }
}

/// Reads column `name` of `row`.
fn column<'r, T>(row: &'r AnyRow, name: &str) -> Result<T, StoreError>
where
    T: sqlx::Decode<'r, sqlx::Any> + sqlx::Type<sqlx::Any>,
{
    sqlx::Row::try_get(row, name)
        .map_err(|e| StoreError::Invalid(format!("SQL stores: column `{name}`: {e}")))
}

/// `url` without its password, for messages.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            match userinfo.find(':') {
                Some(colon) => format!(
                    "{}{}:***{}",
                    &url[..scheme + 3],
                    &userinfo[..colon],
                    &url[at..]
                ),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

/// Completes a claimed key: `$5` the result as JSON text.
const COMPLETE: &str = "UPDATE mcp_result_idempotency SET state = 'completed', result = $5 \
                        WHERE tool = $1 AND caller = $2 AND idem_key = $3 AND token = $4 \
                          AND state IN ('claimed', 'started')";

/// A statement on one claimed key: `$1`..`$4` bound to the scope's tool, caller and key and
/// the claim's token (further parameters are bound by the caller).
fn keyed<'q>(
    sql: &'q str,
    scope: &'q crate::write::idempotency::KeyScope,
    token: u64,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    sqlx::query(sql)
        .bind(&scope.tool)
        .bind(&scope.caller)
        .bind(&scope.key)
        .bind(int(token))
}

/// `$first, $first+1, ...` for `count` values.
fn placeholders(first: usize, count: usize) -> String {
    (first..first + count)
        .map(|n| format!("${n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_their_dialect_and_messages_hide_passwords() {
        assert_eq!(Dialect::of("sqlite:a.db").unwrap(), Dialect::Sqlite);
        assert_eq!(
            Dialect::of("postgresql://u:p@h/d").unwrap(),
            Dialect::Postgres
        );
        assert!(Dialect::of("mysql://u:p@h/d").is_err());
        assert_eq!(
            redact("postgres://app:s3cret@127.0.0.1:5432/db"),
            "postgres://app:***@127.0.0.1:5432/db"
        );
        assert_eq!(placeholders(3, 2), "$3, $4");
    }
}
