//! store

use std::time::Duration;

use serde_json::Value;

use crate::store::StoreFuture;

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

    /// Gives back a claim whose tool body never ran (the call was refused first).
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
