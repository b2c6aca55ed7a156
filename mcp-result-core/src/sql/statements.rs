//! The statements a keyed write sends that both the store (`idempotency.rs`) and the
//! transactional write (`tx.rs`) run: the claim with its intent, owned so it may run again
//! or on SQLite's writer ([`ClaimQuery`]), and the answer stored with its outcome
//! ([`complete_with_outcome`]).

use super::{
    audit::{Row, COLUMNS as AUDIT_COLUMNS},
    writer::{RELEASE, SAVEPOINT},
    COMPLETE,
};
use crate::write::idempotency::KeyScope;

/// The result stored and the outcome recorded in one call (each whether or not the other
/// matched a row): PostgreSQL, one statement, one round trip; SQLite, the two statements in a
/// savepoint, one job of the writer. `$1`..`$5` as [`COMPLETE`]'s, `$6` the outcome's event
/// id, `$7`..`$10` its [`Row`] ([`bind_row`]).
pub(super) fn complete_with_outcome(dialect: super::Dialect) -> String {
    let outcome =
        format!("INSERT INTO mcp_result_audit ({AUDIT_COLUMNS}) VALUES ($6, $7, $8, $9, $10)");
    match dialect {
        super::Dialect::Postgres => {
            format!("WITH done AS ({COMPLETE}), outcome AS ({outcome}) SELECT 1")
        }
        super::Dialect::Sqlite => format!("{SAVEPOINT}; {COMPLETE}; {outcome}; {RELEASE}"),
    }
}

/// A claim's statement and its values, owned: it may run on SQLite's writer.
pub(super) struct ClaimQuery {
    pub(super) sql: String,
    pub(super) scope: KeyScope,
    pub(super) fingerprints: Vec<String>,
    /// `$5`..`$9`: the token, the lease's end, the expiry, now, the caller's quota.
    pub(super) values: [i64; 5],
    /// `$10`..`$14` (the claim with its intent in one call): the intent's event id and its
    /// [`Row`].
    pub(super) intent: Option<(String, Row)>,
    /// `$15` (PostgreSQL, a transactional claim): the lock timeout the claim's statement
    /// restores for the tool's statements, the session's own.
    pub(super) lock_timeout: Option<std::sync::Arc<str>>,
}

/// `query` with an audit row's columns bound next, in [`AUDIT_COLUMNS`]' order after the
/// event id.
pub(super) fn bind_row<'q>(
    query: sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>>,
    (phase, at_ms, json, request): Row,
) -> sqlx::query::Query<'q, sqlx::Any, sqlx::any::AnyArguments<'q>> {
    query.bind(phase).bind(at_ms).bind(json).bind(request)
}

impl ClaimQuery {
    pub(super) fn query(&self) -> sqlx::query::Query<'_, sqlx::Any, sqlx::any::AnyArguments<'_>> {
        let mut query = sqlx::query(&self.sql)
            .bind(&self.scope.tool)
            .bind(&self.scope.caller)
            .bind(&self.scope.key)
            .bind(&self.fingerprints[0]);
        for value in self.values {
            query = query.bind(value);
        }
        if let Some((event_id, (phase, at_ms, json, request))) = &self.intent {
            query = query
                .bind(event_id)
                .bind(*phase)
                .bind(*at_ms)
                .bind(json)
                .bind(request.as_deref());
        }
        if let Some(lock_timeout) = &self.lock_timeout {
            query = query.bind(&**lock_timeout);
        }
        for fingerprint in &self.fingerprints {
            query = query.bind(fingerprint);
        }
        query
    }
}
