//! [`AuditSink`] in SQL: one row per record, appended and never changed.
//!
//! The log is never evicted by a cap or an age: an `auditEventId` in an answer must keep
//! naming its record. Records leave only through an explicit retention policy,
//! [`SqlAuditLog::archive_before`], which writes them out before it deletes them. Both
//! migrations refuse an `UPDATE` of the table, and a `DELETE` anywhere but inside that
//! policy (PostgreSQL: a trigger, `TRUNCATE` too; SQLite: triggers).
//!
//! An intent without an outcome means its server stopped in between, or that the write is
//! still running on another instance: with several instances on one database the two
//! cannot be told apart when a server starts, so unlike
//! [`JsonLinesSink::open`](crate::audit::JsonLinesSink::open) nothing is recovered on
//! connect. [`SqlAuditLog::recover_dangling`] records the unknown outcome of intents older
//! than a bound the operator chooses (longer than any write's time limit, and than the
//! idempotency lease).

use std::{
    io::Write,
    time::{Duration, SystemTime},
};

use futures::TryStreamExt as _;

use super::{column, failed, int, Db, Dialect};
use crate::{
    store::{clock::unix_ms, StoreError, StoreFuture},
    write::audit::{AuditRecord, AuditSink, Phase},
};

/// The audit log in the database (see [`super::SqlStores::audit`]): every instance on the
/// database appends to one log. `record` returns once the row is committed (SQLite:
/// `synchronous = FULL`; PostgreSQL: its commit).
#[derive(Debug, Clone)]
pub struct SqlAuditLog {
    db: Db,
}

/// The records about one approval request (`$1`), oldest first, at most `$2`.
pub const APPROVAL_RECORDS: &str = "SELECT record FROM mcp_result_audit \
     WHERE approval_request_id = $1 ORDER BY seq LIMIT $2";

fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Intent => "intent",
        Phase::Outcome => "outcome",
        Phase::Replay => "replay",
        Phase::Approved => "approved",
        Phase::Rejected => "rejected",
    }
}

fn parse(row: &sqlx::any::AnyRow) -> Result<AuditRecord, StoreError> {
    let text: String = column(row, "record")?;
    serde_json::from_str(&text)
        .map_err(|e| StoreError::Invalid(format!("SQL stores: an audit row is no record: {e}")))
}

impl SqlAuditLog {
    pub(super) fn new(db: Db) -> Self {
        Self { db }
    }

    async fn insert(
        &self,
        record: &AuditRecord,
        recovery_of: Option<&str>,
    ) -> Result<u64, StoreError> {
        let record = record.clone();
        let recovery_of = recovery_of.map(str::to_owned);
        self.db
            .write(false, move |connection| {
                Box::pin(async move { insert(connection, &record, recovery_of.as_deref()).await })
            })
            .await
    }

    /// The log's database, for a store that writes records in its own transaction.
    pub(super) fn db(&self) -> &Db {
        &self.db
    }

    /// Every record, in the order they were appended.
    ///
    /// # Errors
    /// The query failed, or a row is no record.
    pub async fn records(&self) -> Result<Vec<AuditRecord>, StoreError> {
        sqlx::query("SELECT record FROM mcp_result_audit ORDER BY seq")
            .fetch_all(&self.db.pool)
            .await
            .map_err(failed("reading the audit log"))?
            .iter()
            .map(parse)
            .collect()
    }

    /// The records of event `event_id` (its `auditEventId`), in order.
    ///
    /// # Errors
    /// The query failed, or a row is no record.
    pub async fn records_for(&self, event_id: &str) -> Result<Vec<AuditRecord>, StoreError> {
        sqlx::query("SELECT record FROM mcp_result_audit WHERE event_id = $1 ORDER BY seq")
            .bind(event_id)
            .fetch_all(&self.db.pool)
            .await
            .map_err(failed("reading the audit log"))?
            .iter()
            .map(parse)
            .collect()
    }

    /// Records the unknown outcome (`status: unknown`, `errorKind: outcome_unknown`,
    /// [`AuditRecord::unknown_outcome_of`]) of every intent made more than `older_than`
    /// ago that has no outcome; how many it recorded. Each such outcome is written once,
    /// however many instances recover at the same time.
    ///
    /// Choose `older_than` longer than any write takes (its time limit) and than the
    /// idempotency lease: a write still running when its intent is older gets an unknown
    /// outcome and, later, its real one.
    ///
    /// # Errors
    /// A query failed.
    pub async fn recover_dangling(&self, older_than: Duration) -> Result<u64, StoreError> {
        let cutoff = SystemTime::now()
            .checked_sub(older_than)
            .unwrap_or(SystemTime::UNIX_EPOCH);
        let intents = sqlx::query(
            "SELECT i.record FROM mcp_result_audit i \
             WHERE i.phase = 'intent' AND i.at_ms < $1 AND NOT EXISTS ( \
                 SELECT 1 FROM mcp_result_audit o \
                 WHERE o.event_id = i.event_id AND o.phase = 'outcome') \
             ORDER BY i.seq",
        )
        .bind(int(unix_ms(cutoff)))
        .fetch_all(&self.db.pool)
        .await
        .map_err(failed("finding intents without outcome"))?;
        let mut recorded = 0;
        for row in &intents {
            let intent = parse(row)?;
            let outcome = AuditRecord::unknown_outcome_of(&intent);
            recorded += self.insert(&outcome, Some(&intent.event_id)).await?;
        }
        if recorded > 0 {
            tracing::warn!(
                events = recorded,
                "audit: writes whose server stopped before their outcome: recorded as outcome unknown"
            );
        }
        Ok(recorded)
    }

    /// The retention policy: writes every record made before `cutoff` to `out` as JSON Lines
    /// (one [`AuditRecord`] per line, in order, the format of
    /// [`JsonLinesSink`](crate::audit::JsonLinesSink)), flushes `out`, and then deletes
    /// exactly those records, in one transaction; how many it archived.
    ///
    /// Nothing is deleted unless every line was written and flushed: when `out` fails, the
    /// transaction rolls back and the records stay. Make `out` durable before it returns
    /// from `flush` (a `File` needs `sync_all` after this call to be on disk; records
    /// deleted meanwhile exist only in the OS's cache). Records appended meanwhile are
    /// neither archived nor deleted (SQLite: the write lock; PostgreSQL: one repeatable-read
    /// snapshot for both steps).
    ///
    /// # Errors
    /// A query failed, or writing to `out` did (nothing is deleted then).
    pub async fn archive_before(
        &self,
        cutoff: SystemTime,
        out: &mut impl Write,
    ) -> Result<u64, StoreError> {
        let cutoff = int(unix_ms(cutoff));
        let begin = match self.db.dialect {
            Dialect::Sqlite => "BEGIN IMMEDIATE",
            Dialect::Postgres => "BEGIN ISOLATION LEVEL REPEATABLE READ",
        };
        // SQLite: the writer's connection, leased; the writes queued meanwhile wait.
        let mut tx = self.db.begin(begin).await?;
        let mut archived = 0u64;
        {
            let mut rows =
                sqlx::query("SELECT record FROM mcp_result_audit WHERE at_ms < $1 ORDER BY seq")
                    .bind(cutoff)
                    .fetch(&mut *tx);
            while let Some(row) = rows
                .try_next()
                .await
                .map_err(failed("archiving the audit log"))?
            {
                let text: String = column(&row, "record")?;
                writeln!(out, "{text}").map_err(|source| StoreError::Io {
                    what: "SQL stores: writing the archive".into(),
                    source,
                })?;
                archived += 1;
            }
        }
        out.flush().map_err(|source| StoreError::Io {
            what: "SQL stores: writing the archive".into(),
            source,
        })?;
        let deleted = match self.db.dialect {
            Dialect::Postgres => {
                let row = sqlx::query("SELECT mcp_result_audit_purge($1) AS deleted")
                    .bind(cutoff)
                    .fetch_one(&mut *tx)
                    .await
                    .map_err(failed("deleting archived audit records"))?;
                column::<i64>(&row, "deleted")? as u64
            }
            Dialect::Sqlite => {
                sqlx::query("INSERT INTO mcp_result_audit_retention (active) VALUES (1)")
                    .execute(&mut *tx)
                    .await
                    .map_err(failed("deleting archived audit records"))?;
                let done = sqlx::query("DELETE FROM mcp_result_audit WHERE at_ms < $1")
                    .bind(cutoff)
                    .execute(&mut *tx)
                    .await
                    .map_err(failed("deleting archived audit records"))?;
                sqlx::query("DELETE FROM mcp_result_audit_retention")
                    .execute(&mut *tx)
                    .await
                    .map_err(failed("deleting archived audit records"))?;
                done.rows_affected()
            }
        };
        if deleted != archived {
            // Rolled back when `tx` drops.
            return Err(StoreError::Invalid(format!(
                "SQL stores: archiving the audit log: {archived} records written but {deleted} \
                 would be deleted; nothing was deleted"
            )));
        }
        tx.commit()
            .await
            .map_err(failed("archiving the audit log"))?;
        Ok(archived)
    }
}

impl AuditSink for SqlAuditLog {
    fn record<'a>(&'a self, record: &'a AuditRecord) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.insert(record, None).await.map(|_| ()) })
    }

    /// One query on the index of the `approval_request_id` column (migration
    /// `20261216000001`), on the pool: reads do not wait for writes.
    fn approval_records<'a>(
        &'a self,
        approval_request_id: &'a str,
        limit: usize,
    ) -> StoreFuture<'a, Option<Vec<AuditRecord>>> {
        Box::pin(async move {
            sqlx::query(APPROVAL_RECORDS)
                .bind(approval_request_id)
                .bind(i64::try_from(limit).unwrap_or(i64::MAX))
                .fetch_all(&self.db.pool)
                .await
                .map_err(failed("reading the audit log"))?
                .iter()
                .map(parse)
                .collect::<Result<Vec<_>, _>>()
                .map(Some)
        })
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

/// The columns of `record`'s row besides its event id, in the order every statement that
/// appends a record binds them: its phase, its time (Unix ms), the record as JSON and the
/// approval request it is about. The record's own time orders retention; a time that does
/// not parse (never made by the framework) counts as now.
pub(super) fn row_of(record: &AuditRecord) -> Result<Row, StoreError> {
    let json = serde_json::to_string(record)?;
    let at_ms = chrono::DateTime::parse_from_rfc3339(&record.time)
        .map(|time| time.timestamp_millis())
        .unwrap_or_else(|_| int(unix_ms(SystemTime::now())));
    Ok((
        phase_name(record.phase),
        at_ms,
        json,
        record.approval_request_id.clone(),
    ))
}

/// An audit row's columns besides its event id ([`row_of`]): `phase`, `at_ms`, `record`,
/// `approval_request_id`.
pub(super) type Row = (&'static str, i64, String, Option<String>);

/// The columns a statement that appends a record names, in [`Row`]'s order after the event
/// id.
pub(super) const COLUMNS: &str = "event_id, phase, at_ms, record, approval_request_id";

/// Appends `record` through `executor` (the pool, or a transaction of another store that
/// commits it with its own rows): how many rows it added (0 for a recovery already made).
pub(super) async fn insert<'e, E>(
    executor: E,
    record: &AuditRecord,
    recovery_of: Option<&str>,
) -> Result<u64, StoreError>
where
    E: sqlx::Executor<'e, Database = sqlx::Any>,
{
    let (phase, at_ms, json, request) = row_of(record)?;
    let done = sqlx::query(
        "INSERT INTO mcp_result_audit \
             (event_id, phase, at_ms, record, approval_request_id, recovery_of) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (recovery_of) DO NOTHING",
    )
    .bind(&record.event_id)
    .bind(phase)
    .bind(at_ms)
    .bind(json)
    .bind(request)
    .bind(recovery_of)
    .execute(executor)
    .await
    .map_err(failed("recording an audit record"))?;
    Ok(done.rows_affected())
}
