//! The idempotency steps of a write: the key of a call, its claim (which may answer the
//! call from the store), and the claim's start, completion or release.

use std::{sync::Arc, time::Duration};

use rmcp::{model::CallToolResult, service::RequestContext, RoleServer};
use serde_json::Value;

use crate::{
    result::build::error_result,
    wire::{
        envelope::{FieldError, ToolError},
        keys::IDEMPOTENCY_KEY_META,
    },
    write::{
        audit::attempt::Audit,
        idempotency::{check_key, Claim, IdempotencyStore, KeyScope, DEFAULT_TTL, DEFAULT_WAIT},
    },
};

/// The idempotency key of a call: `_meta`'s, else the argument `key_field` names.
///
/// # Errors
/// A `validation_error` at the key's place when it is not 1 to 255 printable characters.
pub(crate) fn idempotency_key(
    key_field: Option<&str>,
    context: &RequestContext<RoleServer>,
    arguments: &Value,
) -> Result<Option<String>, ToolError> {
    let from_meta = context.meta.get(IDEMPOTENCY_KEY_META);
    let (value, pointer) = match (from_meta, key_field) {
        (Some(value), _) => (value, format!("_meta/{IDEMPOTENCY_KEY_META}")),
        (None, Some(field)) => match arguments.get(field) {
            Some(Value::Null) | None => return Ok(None),
            Some(value) => (value, format!("/{field}")),
        },
        (None, None) => return Ok(None),
    };
    let key = value.as_str().ok_or_else(|| {
        ToolError::validation(vec![FieldError::new(
            pointer.clone(),
            "an idempotency key is a string",
        )])
    })?;
    check_key(key)
        .map(|()| Some(key.to_owned()))
        .map_err(|message| ToolError::validation(vec![FieldError::new(pointer, message)]))
}

pub(crate) fn store_failed(error: &dyn std::fmt::Display) -> CallToolResult {
    tracing::error!(%error, "idempotency store failed");
    error_result(
        &ToolError::upstream_unavailable(
            "The idempotency store or the audit log is unavailable; nothing ran. Retry later \
             with the same key.",
            true,
        )
        .with_retry_after(Duration::from_secs(1)),
    )
}

/// A key this call holds: the store, the key's scope and the claim's token.
pub(crate) struct Claimed {
    store: Arc<dyn IdempotencyStore>,
    scope: KeyScope,
    token: u64,
}

/// How a write claims its key: alone (a gated write, which asks its human before it runs),
/// or with its intent recorded and the claim started (every other write: one unit,
/// [`IdempotencyStore::claim_started`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Begin {
    /// The claim only; the intent and the start follow later.
    Claim,
    /// The claim, the intent and the start.
    Started,
}

/// Claims the key of a keyed write. A repeat of a write that ran (or runs) is answered here,
/// from the store, before any approval is asked for or used again: the stored answer
/// (replayed), `idempotency_key_reused`, `outcome_unknown`, `policy_blocked` (a store bound,
/// [`ToolError::quota_exceeded`]), or, after waiting up to `limit` (the tool's time limit, else [`DEFAULT_WAIT`]) for a running one,
/// its answer or `in_progress`. The claim's lease is `limit` × 4 + 60 s.
pub(crate) async fn claim(
    store: Arc<dyn IdempotencyStore>,
    scope: KeyScope,
    fingerprints: &[String],
    limit: Option<Duration>,
    audit: &Audit,
    begin: Begin,
) -> Result<Claimed, CallToolResult> {
    let (limit, lease) = lease_of(limit);
    let claim = match begin {
        Begin::Claim => store.claim(&scope, fingerprints, lease, DEFAULT_TTL).await,
        Begin::Started => {
            let intent = audit.record_of(crate::write::audit::Phase::Intent, None);
            store
                .claim_started(
                    &scope,
                    fingerprints,
                    (lease, DEFAULT_TTL),
                    audit.sink.as_ref(),
                    &intent,
                )
                .await
        }
    }
    .map_err(|error| store_failed(&error))?;
    if let Claim::Claimed(token) = claim {
        return Ok(Claimed {
            store,
            scope,
            token,
        });
    }
    Err(answer_held(claim, store.as_ref(), &scope, limit, audit).await)
}

/// The lease of a claim for a write whose time limit is `limit`: `limit` × 4 + 60 s.
pub(crate) fn lease_of(limit: Option<Duration>) -> (Duration, Duration) {
    let limit = limit.unwrap_or(DEFAULT_WAIT);
    (limit, limit * 4 + Duration::from_secs(60))
}

/// The answer of a call whose key another call holds or held: the stored answer (replayed),
/// `idempotency_key_reused`, `outcome_unknown`, `policy_blocked` (a store bound), or, after
/// waiting up to `limit` for a running one, its answer or `in_progress`.
pub(crate) async fn answer_held(
    claim: Claim,
    store: &dyn IdempotencyStore,
    scope: &KeyScope,
    limit: Duration,
    audit: &Audit,
) -> CallToolResult {
    match claim {
        Claim::Claimed(_) => error_result(&ToolError::internal_logged(
            "a won claim was answered as a held one",
        )),
        Claim::Completed(stored) => audit.replay(stored).await,
        Claim::Conflict => audit.refuse(ToolError::idempotency_key_reused()).await,
        Claim::Interrupted => audit.refuse(ToolError::outcome_unknown()).await,
        Claim::Refused(reason) => {
            let advice = "The write did not run; call again once earlier keys expire \
                          (24 hours after their call).";
            audit
                .refuse(ToolError::quota_exceeded(reason, advice))
                .await
        }
        Claim::InProgress => match store.wait(scope, limit).await {
            Ok(Some(stored)) => audit.replay(stored).await,
            Ok(None) => audit.refuse(ToolError::in_progress(limit)).await,
            Err(error) => store_failed(&error),
        },
    }
}

impl Claimed {
    /// Marks the write started, before the tool body runs: from now on an interrupted
    /// write is never run again under this key.
    pub(crate) async fn start(&self) -> Result<(), CallToolResult> {
        self.store
            .start(&self.scope, self.token)
            .await
            .map_err(|error| store_failed(&error))
    }

    /// Gives the claim back: the write does not run now (it never started).
    pub(crate) async fn release(self) {
        let _ = self.store.release(&self.scope, self.token).await;
    }

    /// Records the write's `outcome` and stores its answer under its key, together where
    /// the stores can ([`IdempotencyStore::complete_recorded`]; a failure is logged: the
    /// answer stands).
    pub(crate) async fn complete(
        self,
        tool: &str,
        result: &CallToolResult,
        audit: &Audit,
        outcome: &crate::write::audit::AuditRecord,
    ) {
        let stored = serde_json::to_value(result).unwrap_or(Value::Null);
        if let Err(error) = self
            .store
            .complete_recorded(
                &self.scope,
                self.token,
                &stored,
                audit.sink.as_ref(),
                outcome,
            )
            .await
        {
            tracing::error!(tool, %error, "failed to record a write's outcome or store its answer");
        }
    }
}
