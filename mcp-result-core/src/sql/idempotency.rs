//! [`IdempotencyStore`] in SQL: one row per (tool, caller, key), the same states and rules
//! as [`MemoryIdempotencyStore`](crate::idempotency::MemoryIdempotencyStore).
//!
//! A claim is one upsert: it inserts the row, or takes over a row that expired or whose
//! never-started claim outlived its lease (same arguments only), and returns the new token;
//! the primary key and the database's row lock make exactly one of many concurrent claims
//! win. A claim that returns no row reads the row it met to say why. Tokens are 64 random
//! bits, so two instances never hold the same one.

use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::audit::COLUMNS as AUDIT_COLUMNS;
use super::statements::{bind_row, complete_with_outcome, ClaimQuery};
use super::{
    column, failed, int, keyed, placeholders,
    writer::{RELEASE, SAVEPOINT},
    Db, SqlAuditLog, Transaction, COMPLETE,
};
use crate::{
    store::{clock::unix_ms, StoreError, StoreFuture},
    write::{
        audit::{AuditRecord, AuditSink},
        idempotency::{
            claim_started_in_turn, complete_recorded_in_turn, Claim, IdempotencyStore, KeyLimits,
            KeyScope, Opened,
        },
    },
};

/// Idempotency records in the database (see [`super::SqlStores::idempotency`]). Completed
/// results survive restarts and are shared by every instance on the database; records
/// expire after their `ttl`.
#[derive(Debug, Clone)]
pub struct SqlIdempotencyStore {
    db: Db,
    limits: KeyLimits,
}

/// The longest pause between two looks of [`IdempotencyStore::wait`]: 250 ms.
const WAIT_POLL_MAX: Duration = Duration::from_millis(250);

/// How long a transactional claim waits for a key another running write holds before it
/// waits outside its transaction instead: 100 ms.
const LOCK_WAIT: Duration = Duration::from_millis(100);
// `POSTGRES_OPEN` spells it.
const _: () = assert!(LOCK_WAIT.as_millis() == 100);

/// How many times a claim that met a row changing under it looks again.
const CLAIM_ATTEMPTS: usize = 5;

impl SqlIdempotencyStore {
    pub(super) fn new(db: Db) -> Self {
        Self {
            db,
            limits: KeyLimits::default(),
        }
    }

    /// The same store, bounded by `limits`: a caller past `per_caller` live keys is refused a
    /// new one (`quota_exceeded`, the write does not run) until older keys expire, as in the
    /// memory store, counted in the claim's own statement (an index on caller and expiry,
    /// no extra round trip; claims of one caller running at once may pass it by as many).
    /// `total` is not applied: the database's size bounds the table.
    pub fn with_limits(mut self, limits: KeyLimits) -> Self {
        self.limits = limits;
        self
    }

    async fn purge(&self, now: u64) {
        self.db
            .purge(
                &self.db.purges.idempotency,
                now,
                "DELETE FROM mcp_result_idempotency WHERE expires_ms <= $1",
                int(now),
            )
            .await;
    }

    /// The audit log `audit` is, when it writes to this store's database: then a write's
    /// claim and intent, and its outcome and result, commit together.
    fn same_log<'a>(&self, audit: &'a dyn AuditSink) -> Option<&'a SqlAuditLog> {
        audit
            .as_any()?
            .downcast_ref::<SqlAuditLog>()
            .filter(|log| log.db().same(&self.db))
    }

    /// One attempt: the upsert, then (when it did not win) the row it met. With `intent`, the
    /// claim is made started and the intent recorded in the same transaction (one commit).
    async fn try_claim(
        &self,
        scope: &KeyScope,
        fingerprints: &[String],
        lease: Duration,
        ttl: Duration,
        intent: Option<&AuditRecord>,
    ) -> Result<Option<Claim>, StoreError> {
        Ok(self
            .try_claim_in(scope, fingerprints, (lease, ttl), intent, false)
            .await?
            .map(|(claim, _)| claim))
    }

    /// [`Self::try_claim`]; with `keep` (and an intent), the won claim's transaction is not
    /// committed but handed back, a savepoint taken after the intent: the tool's statements
    /// go into it.
    async fn try_claim_in(
        &self,
        scope: &KeyScope,
        fingerprints: &[String],
        (lease, ttl): (Duration, Duration),
        intent: Option<&AuditRecord>,
        keep: bool,
    ) -> Result<Option<(Claim, Option<Kept>)>, StoreError> {
        let now = unix_ms(SystemTime::now());
        let token = random_token()?;
        let state = if intent.is_some() {
            "started"
        } else {
            "claimed"
        };
        // The claim and the intent in one call: PostgreSQL, one statement (a data-modifying
        // `WITH`), one round trip and one commit; SQLite, the two statements in a savepoint
        // (the intent inserted when the claim changed a row), one job of the writer. A
        // transactional write (`keep`) on PostgreSQL also claims in one statement, which
        // then lifts the claim's lock timeout for the tool's statements (`$15`).
        let postgres = self.db.dialect == super::Dialect::Postgres;
        let one_statement = intent.is_some() && (!keep || postgres);
        let fingerprints_at = match (one_statement, keep) {
            (true, true) => 16,
            (true, false) => 15,
            (false, _) => 10,
        };
        // The caller's quota is counted in the claim's own statement (its index: caller,
        // expiry), so a claim stays one round trip; concurrent claims of one caller may pass
        // it by as many as run at once. A live key of its own (a lapsed claim to retake) is
        // not a new key, as in the memory store.
        let claim = format!(
            "INSERT INTO mcp_result_idempotency \
                 (tool, caller, idem_key, fingerprint, token, state, lease_ms, expires_ms, result) \
             SELECT $1, $2, $3, $4, $5, '{state}', $6, $7, NULL \
             WHERE (SELECT COUNT(*) FROM (SELECT 1 FROM mcp_result_idempotency \
                    WHERE caller = $2 AND expires_ms > $8 LIMIT $9) AS held) < $9 \
                OR EXISTS (SELECT 1 FROM mcp_result_idempotency \
                    WHERE tool = $1 AND caller = $2 AND idem_key = $3 AND expires_ms > $8) \
             ON CONFLICT (tool, caller, idem_key) DO UPDATE SET \
                 fingerprint = excluded.fingerprint, token = excluded.token, state = '{state}', \
                 lease_ms = excluded.lease_ms, expires_ms = excluded.expires_ms, result = NULL \
             WHERE mcp_result_idempotency.expires_ms <= $8 \
                OR (mcp_result_idempotency.state = 'claimed' \
                    AND mcp_result_idempotency.lease_ms <= $8 \
                    AND mcp_result_idempotency.fingerprint IN ({})) \
             RETURNING token",
            placeholders(fingerprints_at, fingerprints.len())
        );
        let sql = match self.db.dialect {
            _ if !one_statement => claim,
            super::Dialect::Postgres => format!(
                "WITH claimed AS ({claim}), \
                 intent AS (INSERT INTO mcp_result_audit ({AUDIT_COLUMNS}) \
                            SELECT $10, $11, $12, $13, $14 FROM claimed) \
                 SELECT token{} FROM claimed",
                if keep {
                    ", set_config('lock_timeout', $15, true)"
                } else {
                    ""
                }
            ),
            super::Dialect::Sqlite => format!(
                "{SAVEPOINT}; {claim}; \
                 INSERT INTO mcp_result_audit ({AUDIT_COLUMNS}) \
                 SELECT $10, $11, $12, $13, $14 WHERE changes() = 1; {RELEASE}"
            ),
        };
        let intent_row = match (one_statement, intent) {
            (true, Some(intent)) => Some((intent.event_id.clone(), super::audit::row_of(intent)?)),
            _ => None,
        };
        let claim = ClaimQuery {
            sql,
            scope: scope.clone(),
            fingerprints: fingerprints.to_vec(),
            values: [
                int(token),
                int(now + lease.as_millis() as u64),
                int(now + ttl.as_millis() as u64),
                int(now),
                int(self.limits.per_caller as u64),
            ],
            intent: intent_row,
            lock_timeout: (keep && postgres).then(|| self.db.lock_timeout.clone()),
        };
        let mut kept = None;
        let won = match intent {
            Some(intent) if keep => {
                // PostgreSQL: a claim that meets the key locked by a running transactional
                // write does not wait in its own transaction, holding a connection the
                // running one may need: it gives up at once (`LOCK_WAIT`) and waits outside,
                // polling the answer. The transaction opens with that lock timeout and the
                // tool's savepoint in one round trip (the savepoint before the claim: a
                // failed tool's rollback takes the claim again, `super::tx`).
                let mut tx = match self.db.dialect {
                    super::Dialect::Postgres => self.db.begin(POSTGRES_OPEN).await?,
                    super::Dialect::Sqlite => self.begin_write().await?,
                };
                let won = match claim.query().fetch_optional(&mut *tx).await {
                    Ok(row) => row.is_some(),
                    Err(sqlx::Error::Database(error))
                        if error.code().as_deref() == Some("55P03") =>
                    {
                        // lock_not_available: held by a running write (rolls back on drop).
                        return Ok(Some((Claim::InProgress, None)));
                    }
                    Err(error) => return Err(failed("claiming an idempotency key")(error)),
                };
                if won && postgres {
                    // The claim and the intent are written, the tool's statements wait as
                    // long as they need (the claim's statement lifted the lock timeout).
                    kept = Some((tx, Some(claim)));
                } else if won {
                    super::tx::opened(&mut tx, intent).await?;
                    kept = Some((tx, None));
                }
                won
            }
            _ => {
                let what = if one_statement {
                    "claiming an idempotency key with its intent"
                } else {
                    "claiming an idempotency key"
                };
                // All rows: on SQLite the call is several statements, each run to its end.
                self.db
                    .write(false, move |connection| {
                        Box::pin(async move {
                            Ok(!claim
                                .query()
                                .fetch_all(connection)
                                .await
                                .map_err(failed(what))?
                                .is_empty())
                        })
                    })
                    .await?
            }
        };
        if won {
            return Ok(Some((Claim::Claimed(token), kept)));
        }
        let Some(row) = sqlx::query(
            "SELECT fingerprint, state, lease_ms, expires_ms, result \
             FROM mcp_result_idempotency WHERE tool = $1 AND caller = $2 AND idem_key = $3",
        )
        .bind(&scope.tool)
        .bind(&scope.caller)
        .bind(&scope.key)
        .fetch_optional(&self.db.pool)
        .await
        .map_err(failed("reading an idempotency key"))?
        else {
            // No row: the caller is at its quota, or the key was released between the two
            // statements (claim again).
            let held: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM mcp_result_idempotency WHERE caller = $1 AND expires_ms > $2",
            )
            .bind(&scope.caller)
            .bind(int(now))
            .fetch_one(&self.db.pool)
            .await
            .map_err(failed("counting a caller's keys"))?;
            if held >= int(self.limits.per_caller as u64) {
                return Ok(Some((
                    Claim::Refused(format!(
                        "this caller holds {held} live idempotency keys, its limit"
                    )),
                    None,
                )));
            }
            return Ok(None);
        };
        let fingerprint: String = column(&row, "fingerprint")?;
        let state: String = column(&row, "state")?;
        let lease_ms: i64 = column(&row, "lease_ms")?;
        let expires_ms: i64 = column(&row, "expires_ms")?;
        let (lease_over, expired) = (lease_ms <= int(now), expires_ms <= int(now));
        if expired {
            return Ok(None);
        }
        if !fingerprints.contains(&fingerprint) {
            return Ok(Some((Claim::Conflict, None)));
        }
        Ok(match state.as_str() {
            "completed" => {
                let result: Option<String> = column(&row, "result")?;
                Some(Claim::Completed(parse_result(result)?))
            }
            "claimed" if lease_over => None,
            "started" if lease_over => Some(Claim::Interrupted),
            _ => Some(Claim::InProgress),
        }
        .map(|claim| (claim, None)))
    }

    async fn begin_write(&self) -> Result<Transaction, StoreError> {
        self.db.begin(self.db.dialect.begin_write()).await
    }

    /// A write whose tool's statements go into the claim's transaction ([`super::Tx`]): the
    /// claim (when keyed) and the intent in an open transaction, or the held key's claim.
    async fn open_write(
        &self,
        key: Option<(&KeyScope, &[String], Duration, Duration)>,
        intent: &AuditRecord,
    ) -> Result<Opened, StoreError> {
        let Some((scope, fingerprints, lease, ttl)) = key else {
            let mut tx = self.begin_write().await?;
            super::tx::opened(&mut tx, intent).await?;
            return Ok(Opened::Open(Box::new(super::tx::SqlWrite::new(
                tx, None, None,
            ))));
        };
        if fingerprints.is_empty() {
            return Err(StoreError::Invalid(
                "SQL stores: a claim needs a fingerprint".into(),
            ));
        }
        self.purge(unix_ms(SystemTime::now())).await;
        for _ in 0..CLAIM_ATTEMPTS {
            match self
                .try_claim_in(scope, fingerprints, (lease, ttl), Some(intent), true)
                .await?
            {
                Some((Claim::Claimed(token), Some((tx, redo)))) => {
                    return Ok(Opened::Open(Box::new(super::tx::SqlWrite::new(
                        tx,
                        Some((scope.clone(), token)),
                        redo,
                    ))))
                }
                Some((claim, _)) => return Ok(Opened::Held(claim)),
                None => {}
            }
        }
        Err(StoreError::Invalid(format!(
            "SQL stores: the idempotency key of `{}` kept changing while it was claimed",
            scope.tool
        )))
    }
}

impl SqlIdempotencyStore {
    /// A claim, `intent` recorded with it when given: the attempts of [`Self::try_claim`].
    async fn claim_with(
        &self,
        scope: &KeyScope,
        fingerprints: &[String],
        (lease, ttl): (Duration, Duration),
        intent: Option<&AuditRecord>,
    ) -> Result<Claim, StoreError> {
        if fingerprints.is_empty() {
            return Err(StoreError::Invalid(
                "SQL stores: a claim needs a fingerprint".into(),
            ));
        }
        self.purge(unix_ms(SystemTime::now())).await;
        for _ in 0..CLAIM_ATTEMPTS {
            if let Some(claim) = self
                .try_claim(scope, fingerprints, lease, ttl, intent)
                .await?
            {
                return Ok(claim);
            }
        }
        Err(StoreError::Invalid(format!(
            "SQL stores: the idempotency key of `{}` kept changing while it was claimed",
            scope.tool
        )))
    }
}

/// A won transactional claim: its transaction, and on PostgreSQL the claim's statement (with
/// its intent), which a failed tool's rollback to the savepoint before it runs again.
type Kept = (Transaction, Option<ClaimQuery>);

/// How a transactional write's transaction opens on PostgreSQL, in one round trip (a simple
/// query of three statements): the claim's lock timeout ([`LOCK_WAIT`]), then the savepoint
/// a failed tool rolls back to (before the claim and the intent, which the claim's one
/// statement writes next).
const POSTGRES_OPEN: &str = "BEGIN; SET LOCAL lock_timeout = '100ms'; SAVEPOINT mcp_result_tool";

fn random_token() -> Result<u64, StoreError> {
    getrandom::u64()
        .map_err(|e| StoreError::Invalid(format!("SQL stores: random claim token: {e}")))
}

fn parse_result(text: Option<String>) -> Result<Value, StoreError> {
    let text = text
        .ok_or_else(|| StoreError::Invalid("SQL stores: a completed key has no result".into()))?;
    serde_json::from_str(&text)
        .map_err(|e| StoreError::Invalid(format!("SQL stores: a stored result is not JSON: {e}")))
}

impl IdempotencyStore for SqlIdempotencyStore {
    fn refuses_nul(&self) -> bool {
        self.db.dialect == super::Dialect::Postgres
    }

    fn claim<'a>(
        &'a self,
        scope: &'a KeyScope,
        fingerprints: &'a [String],
        lease: Duration,
        ttl: Duration,
    ) -> StoreFuture<'a, Claim> {
        Box::pin(async move {
            self.claim_with(scope, fingerprints, (lease, ttl), None)
                .await
        })
    }

    /// One transaction when `audit` is this database's log: the claim made started and the
    /// intent recorded, one commit.
    fn claim_started<'a>(
        &'a self,
        scope: &'a KeyScope,
        fingerprints: &'a [String],
        (lease, ttl): (Duration, Duration),
        audit: &'a dyn AuditSink,
        intent: &'a AuditRecord,
    ) -> StoreFuture<'a, Claim> {
        Box::pin(async move {
            if self.same_log(audit).is_none() {
                return claim_started_in_turn(
                    self,
                    scope,
                    fingerprints,
                    (lease, ttl),
                    audit,
                    intent,
                )
                .await;
            }
            self.claim_with(scope, fingerprints, (lease, ttl), Some(intent))
                .await
        })
    }

    /// One transaction when `audit` is this database's log: the result stored and the
    /// outcome recorded, one commit.
    fn complete_recorded<'a>(
        &'a self,
        scope: &'a KeyScope,
        token: u64,
        result: &'a Value,
        audit: &'a dyn AuditSink,
        outcome: &'a AuditRecord,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if self.same_log(audit).is_none() {
                return complete_recorded_in_turn(self, scope, token, result, audit, outcome).await;
            }
            let text = serde_json::to_string(result)?;
            let scope = scope.clone();
            let row = super::audit::row_of(outcome)?;
            let event_id = outcome.event_id.clone();
            let sql = complete_with_outcome(self.db.dialect);
            self.db
                .write(false, move |connection| {
                    Box::pin(async move {
                        bind_row(keyed(&sql, &scope, token).bind(text).bind(event_id), row)
                            .execute(connection)
                            .await
                            .map_err(failed("storing a result with its outcome"))?;
                        Ok(())
                    })
                })
                .await
        })
    }

    /// Unlike the in-memory store, a claim that is no longer this token's (its lease ran
    /// out and another caller took it) is an error: the tool body must not run.
    fn start<'a>(&'a self, scope: &'a KeyScope, token: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let owned = scope.clone();
            let started = self
                .db
                .write(false, move |connection| {
                    Box::pin(async move {
                        keyed(
                            "UPDATE mcp_result_idempotency SET state = 'started' \
                             WHERE tool = $1 AND caller = $2 AND idem_key = $3 AND token = $4 \
                               AND state = 'claimed'",
                            &owned,
                            token,
                        )
                        .execute(connection)
                        .await
                        .map_err(failed("starting a claimed call"))
                        .map(|done| done.rows_affected())
                    })
                })
                .await?;
            if started == 0 {
                return Err(StoreError::Invalid(format!(
                    "SQL stores: the claim on this idempotency key of `{}` was lost (its lease \
                     ran out); the call did not run",
                    scope.tool
                )));
            }
            Ok(())
        })
    }

    fn complete<'a>(
        &'a self,
        scope: &'a KeyScope,
        token: u64,
        result: &'a Value,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let text = serde_json::to_string(result)?;
            let scope = scope.clone();
            self.db
                .write(false, move |connection| {
                    Box::pin(async move {
                        keyed(COMPLETE, &scope, token)
                            .bind(text)
                            .execute(connection)
                            .await
                            .map_err(failed("storing a result"))?;
                        Ok(())
                    })
                })
                .await
        })
    }

    fn release<'a>(&'a self, scope: &'a KeyScope, token: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let scope = scope.clone();
            self.db
                .write(false, move |connection| {
                    Box::pin(async move {
                        keyed(
                            "DELETE FROM mcp_result_idempotency \
                             WHERE tool = $1 AND caller = $2 AND idem_key = $3 AND token = $4 \
                               AND state IN ('claimed', 'started')",
                            &scope,
                            token,
                        )
                        .execute(connection)
                        .await
                        .map_err(failed("releasing a claim"))?;
                        Ok(())
                    })
                })
                .await
        })
    }

    fn open_transaction<'a>(
        &'a self,
        key: Option<(&'a KeyScope, &'a [String], Duration, Duration)>,
        audit: &'a dyn AuditSink,
        intent: &'a AuditRecord,
    ) -> StoreFuture<'a, Option<Opened>> {
        Box::pin(async move {
            if self.same_log(audit).is_none() {
                return Ok(None);
            }
            self.open_write(key, intent).await.map(Some)
        })
    }

    /// Polls [`Self::peek`], 20 ms apart at first and backing off to 250 ms: the
    /// holder may be another instance, which cannot notify this one.
    fn wait<'a>(&'a self, scope: &'a KeyScope, limit: Duration) -> StoreFuture<'a, Option<Value>> {
        Box::pin(async move {
            let deadline = tokio::time::Instant::now() + limit;
            let mut pause = Duration::from_millis(20);
            loop {
                if let Some(result) = self.peek(scope).await? {
                    return Ok(Some(result));
                }
                let now = tokio::time::Instant::now();
                if now >= deadline {
                    return Ok(None);
                }
                tokio::time::sleep(pause.min(deadline - now)).await;
                pause = (pause * 2).min(WAIT_POLL_MAX);
            }
        })
    }

    fn peek<'a>(&'a self, scope: &'a KeyScope) -> StoreFuture<'a, Option<Value>> {
        Box::pin(async move {
            let row = sqlx::query(
                "SELECT result FROM mcp_result_idempotency \
                 WHERE tool = $1 AND caller = $2 AND idem_key = $3 \
                   AND state = 'completed' AND expires_ms > $4",
            )
            .bind(&scope.tool)
            .bind(&scope.caller)
            .bind(&scope.key)
            .bind(int(unix_ms(SystemTime::now())))
            .fetch_optional(&self.db.pool)
            .await
            .map_err(failed("reading a result"))?;
            row.map(|row| parse_result(column(&row, "result")?))
                .transpose()
        })
    }
}
