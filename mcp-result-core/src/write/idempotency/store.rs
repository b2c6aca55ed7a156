//! store

use std::time::Duration;

use serde_json::Value;

use crate::{
    store::StoreFuture,
    write::audit::{AuditRecord, AuditSink},
};

/// How long a completed key is kept by default: 24 hours.
pub const DEFAULT_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// How long a repeated call waits for a running one without a time limit: 30 s.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(30);

/// The longest key accepted (characters).
pub const MAX_KEY_CHARS: usize = 255;

/// What a key is scoped to: the tool, the caller's identity and the key itself.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeyScope {
    /// The tool name.
    pub tool: String,
    /// The caller's identity (over stdio: the process's one identity).
    pub caller: String,
    /// The idempotency key as the client sent it.
    pub key: String,
}

/// What claiming a key found.
#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// The key is ours: run the tool (after [`IdempotencyStore::start`]) and
    /// [`IdempotencyStore::complete`] it. The token proves the claim.
    Claimed(u64),
    /// A call with this key completed: its stored result (a `CallToolResult` as JSON).
    Completed(Value),
    /// The key names a call with other arguments.
    Conflict,
    /// A call with this key is running.
    InProgress,
    /// A call with this key started and its holder stopped before completing: the outcome
    /// is unknown and the key is never run again.
    Interrupted,
    /// The store is at a bound (the caller's quota or its total of live keys): nothing was
    /// claimed and the write does not run. The text names the bound.
    Refused(String),
}

/// Where idempotency records live. The in-memory [`MemoryIdempotencyStore`](super::MemoryIdempotencyStore) is the default;
/// a database store gives the same guarantees across processes: `claim` is atomic (one
/// caller wins), "started" is recorded before the tool body runs, and an expired claim
/// that never started is the only one claimed again.
pub trait IdempotencyStore: Send + Sync + 'static {
    /// Atomically claims `scope` for a call with `fingerprint`, or says what holds it.
    /// `lease` bounds how long an unfinished claim is honoured; `ttl` how long a completed
    /// one is kept.
    fn claim<'a>(
        &'a self,
        scope: &'a KeyScope,
        fingerprints: &'a [String],
        lease: Duration,
        ttl: Duration,
    ) -> StoreFuture<'a, Claim>;

    /// Records that the claimed call's tool body is about to run: from now on the write
    /// may have happened, and the claim is never given to another caller.
    fn start<'a>(&'a self, scope: &'a KeyScope, token: u64) -> StoreFuture<'a, ()>;

    /// Stores the claimed call's complete result (a `CallToolResult` as JSON).
    fn complete<'a>(
        &'a self,
        scope: &'a KeyScope,
        token: u64,
        result: &'a Value,
    ) -> StoreFuture<'a, ()>;

    /// Claims `scope` for a write that runs at once: when the claim wins
    /// ([`Claim::Claimed`]), `intent` is recorded in `audit` and the claim is marked started
    /// before this returns; when it does not, nothing is recorded here. A store that shares
    /// one database with `audit` does the three in one transaction (one commit: the SQL
    /// stores); this default does them in turn, and gives the claim back when the intent
    /// cannot be recorded.
    ///
    /// # Errors
    /// The store's or the sink's failure: then nothing stays claimed, and the write must not
    /// run.
    fn claim_started<'a>(
        &'a self,
        scope: &'a KeyScope,
        fingerprints: &'a [String],
        (lease, ttl): (Duration, Duration),
        audit: &'a dyn AuditSink,
        intent: &'a AuditRecord,
    ) -> StoreFuture<'a, Claim> {
        Box::pin(claim_started_in_turn(
            self,
            scope,
            fingerprints,
            (lease, ttl),
            audit,
            intent,
        ))
    }

    /// Records the claimed call's `outcome` in `audit` and stores its complete `result`: in
    /// one transaction where the store shares a database with `audit` (the SQL stores), else
    /// the outcome first, then the result.
    ///
    /// # Errors
    /// The store's or the sink's failure (the answer stands; the caller logs it).
    fn complete_recorded<'a>(
        &'a self,
        scope: &'a KeyScope,
        token: u64,
        result: &'a Value,
        audit: &'a dyn AuditSink,
        outcome: &'a AuditRecord,
    ) -> StoreFuture<'a, ()> {
        Box::pin(complete_recorded_in_turn(
            self, scope, token, result, audit, outcome,
        ))
    }

    /// Whether this store's database cannot hold the character U+0000 (NUL) in text
    /// (PostgreSQL: its `text` and `jsonb` refuse it). The router then refuses arguments
    /// holding it, as a `validation_error` naming each field, before anything runs. Not
    /// public API.
    #[doc(hidden)]
    fn refuses_nul(&self) -> bool {
        false
    }

    /// Opens a write whose tool's own statements go into the store's transaction (a tool
    /// taking `sql::Tx`): the claim of `key` (when the write has one), the `intent` and,
    /// after the tool, its statements, its outcome and its stored answer commit together,
    /// once. `None` (the default, and a store whose audit sink is elsewhere): the store
    /// cannot, and the write runs as any other.
    ///
    /// # Errors
    /// The store's failure: nothing was written.
    #[doc(hidden)]
    fn open_transaction<'a>(
        &'a self,
        _key: Option<(&'a KeyScope, &'a [String], Duration, Duration)>,
        _audit: &'a dyn AuditSink,
        _intent: &'a AuditRecord,
    ) -> StoreFuture<'a, Option<Opened>> {
        Box::pin(async { Ok(None) })
    }

    /// Gives back a claim whose tool body never ran (the call was refused first), or ran
    /// without acting (it answered a JSON-RPC error or asked its client first): the key is
    /// free again. Only the holder's `token` gives it back.
    fn release<'a>(&'a self, scope: &'a KeyScope, token: u64) -> StoreFuture<'a, ()>;

    /// Waits until the call holding `scope` completes, at most `limit`: its result, or
    /// `None` when it is still running. The default polls [`Self::claim`]'s view through
    /// `peek` every 25 ms; a store that can be notified does better.
    fn wait<'a>(&'a self, scope: &'a KeyScope, limit: Duration) -> StoreFuture<'a, Option<Value>> {
        Box::pin(async move {
            let deadline = tokio::time::Instant::now() + limit;
            loop {
                if let Some(result) = self.peek(scope).await? {
                    return Ok(Some(result));
                }
                if tokio::time::Instant::now() >= deadline {
                    return Ok(None);
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
        })
    }

    /// The stored result of a completed call under `scope`, if any.
    fn peek<'a>(&'a self, scope: &'a KeyScope) -> StoreFuture<'a, Option<Value>>;

    /// Whether what this store holds outlives the process (a database): `true` unless the
    /// store says otherwise; the in-memory stores say `false`. A server whose state mixes
    /// durable and in-memory stores starts only when the mix is explicit
    /// ([`State::allow_mixed_stores`](crate::State::allow_mixed_stores)).
    fn durable(&self) -> bool {
        true
    }
}

/// What [`IdempotencyStore::open_transaction`] found.
#[doc(hidden)]
pub enum Opened {
    /// The transaction, open: the key claimed (its token) and the intent written in it.
    Open(Box<dyn WriteTransaction>),
    /// The key is held (answered, in progress, another call's...): nothing was written.
    Held(Claim),
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Opened::Open(_) => f.write_str("Open"),
            Opened::Held(claim) => f.debug_tuple("Held").field(claim).finish(),
        }
    }
}

/// An open write transaction of a store: the tool's statements go into it through the
/// handle its `Tx` parameter reads; dropped, it rolls back (nothing of the write stays).
#[doc(hidden)]
pub trait WriteTransaction: Send + Sync {
    /// What a `Tx` parameter reads (the store's own transaction type, behind `Any`).
    fn handle(&self) -> std::sync::Arc<dyn std::any::Any + Send + Sync>;

    /// Ends the write: the tool's statements rolled back when `tool_failed` (to the point
    /// taken before the tool ran; the claim and intent stay), then the stored answer
    /// (`result`, for a keyed write) and the `outcome`, and one commit.
    ///
    /// # Errors
    /// [`CommitFailure::Before`]: nothing of the write was committed;
    /// [`CommitFailure::AtCommit`]: the commit itself failed, and whether it happened is
    /// unknown.
    fn commit<'a>(
        self: Box<Self>,
        result: &'a Value,
        outcome: &'a AuditRecord,
        tool_failed: bool,
    ) -> CommitFuture<'a>;
}

/// How a [`WriteTransaction::commit`] failed.
#[doc(hidden)]
#[derive(Debug)]
pub enum CommitFailure {
    /// Before the commit: the transaction rolled back, nothing of the write happened.
    Before(crate::store::StoreError),
    /// The commit itself: the database may have committed before its answer was lost.
    AtCommit(crate::store::StoreError),
}

/// The future of [`WriteTransaction::commit`].
#[doc(hidden)]
pub type CommitFuture<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), CommitFailure>> + Send + 'a>>;

/// The handle of an open write transaction, in a call's extensions for its `Tx` parameter.
#[doc(hidden)]
#[derive(Clone)]
pub struct TxHandle(pub std::sync::Arc<dyn std::any::Any + Send + Sync>);

impl std::fmt::Debug for TxHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TxHandle")
    }
}

/// [`IdempotencyStore::claim_started`] in three steps: the claim, the intent, the start
/// (the claim given back when a later step fails). For stores that cannot do it in one.
pub(crate) async fn claim_started_in_turn<S: IdempotencyStore + ?Sized>(
    store: &S,
    scope: &KeyScope,
    fingerprints: &[String],
    (lease, ttl): (Duration, Duration),
    audit: &dyn AuditSink,
    intent: &AuditRecord,
) -> Result<Claim, crate::store::StoreError> {
    let claim = store.claim(scope, fingerprints, lease, ttl).await?;
    let Claim::Claimed(token) = claim else {
        return Ok(claim);
    };
    if let Err(error) = audit.record(intent).await {
        let _ = store.release(scope, token).await;
        return Err(error);
    }
    if let Err(error) = store.start(scope, token).await {
        let _ = store.release(scope, token).await;
        return Err(error);
    }
    Ok(Claim::Claimed(token))
}

/// [`IdempotencyStore::complete_recorded`] in two steps: the outcome, then the result.
pub(crate) async fn complete_recorded_in_turn<S: IdempotencyStore + ?Sized>(
    store: &S,
    scope: &KeyScope,
    token: u64,
    result: &Value,
    audit: &dyn AuditSink,
    outcome: &AuditRecord,
) -> Result<(), crate::store::StoreError> {
    let recorded = audit.record(outcome).await;
    store.complete(scope, token, result).await?;
    recorded
}

/// Checks a key's form: 1 to [`MAX_KEY_CHARS`] printable characters.
///
/// # Errors
/// What is wrong with it, for a `validation_error`.
pub fn check_key(key: &str) -> Result<(), String> {
    let count = key.chars().count();
    if count == 0 || count > MAX_KEY_CHARS {
        return Err(format!(
            "an idempotency key has 1 to {MAX_KEY_CHARS} characters; this one has {count}"
        ));
    }
    if key.chars().any(char::is_control) {
        return Err("an idempotency key holds only printable characters".into());
    }
    Ok(())
}
