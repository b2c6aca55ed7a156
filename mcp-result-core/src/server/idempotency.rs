//! Idempotency keys: a retried write never runs twice.
//!
//! A client sends a key with a write (`_meta["io.github.mcp-result/idempotencyKey"]` on
//! `tools/call`, or an argument the tool names with `#[mcp_tool(idempotency_key =
//! "field")]`, for hosts whose models cannot set `_meta`). The semantics follow the IETF
//! draft "The Idempotency-Key HTTP Header Field" (draft-ietf-httpapi-idempotency-key-header-07),
//! Stripe's idempotent requests and the AWS Lambda Powertools idempotency utility:
//!
//! - the first call with key K atomically claims K, runs, and stores its complete result
//!   (success or error), the argument fingerprint and an expiry (24 h by default);
//! - the same K with the same arguments gets the stored result back, identical, and runs
//!   nothing;
//! - the same K with other arguments is refused (`conflict`) and runs nothing;
//! - the same K while the first call runs waits for its outcome up to the tool's time limit
//!   (30 s without one), then answers `in_progress` with `retryAfterMs`;
//! - keys are scoped to the tool and to the caller's identity;
//! - a claim whose holder died expires: if the write never started it may be claimed again;
//!   if it had started, it is never run again under that key (`outcome_unknown`). A store
//!   therefore records "started" before the tool body runs.
//!
//! The fingerprint is SHA-256 over the tool name and the arguments canonicalized per
//! RFC 8785 (JCS, `serde_jcs`) after integral numbers are normalized (`100000.0` is
//! `100000`); a secret argument (`writeOnly`, [`crate::Secret`]) enters only as its
//! HMAC under the server key ([`crate::key::ServerKey`]), never as it is.

use std::{
    collections::HashMap,
    future::Future,
    pin::Pin,
    sync::Mutex,
    time::{Duration, SystemTime},
};

use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio::sync::Notify;

use crate::{
    server::{arguments::ArgumentSchema, key::ServerKey},
    wire::keys::{IDEMPOTENCY_KEY_META, IDEMPOTENCY_META},
};

/// How long a completed key is kept by default: 24 hours.
pub const DEFAULT_TTL: Duration = Duration::from_secs(24 * 60 * 60);

/// How long a repeated call waits for a running one without a time limit: 30 s.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(30);

/// The longest key accepted (characters).
pub const MAX_KEY_CHARS: usize = 255;

/// A store's failure (it could not be reached, a query failed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

/// The future a store method returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

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

/// Where idempotency records live. The in-memory [`MemoryIdempotencyStore`] is the default;
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

/// The fingerprints of a call: one per server key (the signing key's first), since a
/// secret argument enters as its keyed hash and a rotation must not turn a retry into a
/// conflict. See the module docs for what is hashed.
pub fn fingerprints(
    tool: &str,
    arguments: &Value,
    schema: &ArgumentSchema,
    key: &ServerKey,
) -> Vec<String> {
    let mut arguments = arguments.clone();
    crate::server::arguments::normalize_integers(&mut arguments);
    (0..key.len())
        .map(|index| {
            let mut keyed = arguments.clone();
            hash_secrets(&mut keyed, "", schema, key, index);
            let canonical = serde_jcs::to_vec(&keyed).unwrap_or_default();
            let mut hasher = Sha256::new();
            hasher.update(tool.as_bytes());
            hasher.update([0]);
            hasher.update(&canonical);
            hex(&hasher.finalize())
        })
        .collect()
}

fn hash_secrets(
    value: &mut Value,
    pointer: &str,
    schema: &ArgumentSchema,
    key: &ServerKey,
    index: usize,
) {
    if !pointer.is_empty() && schema.is_secret(pointer) {
        let data = serde_jcs::to_vec(&*value).unwrap_or_default();
        let tag = key.keyed_hashes(&data).nth(index).unwrap_or_default();
        *value = Value::String(format!("hmac-sha256:{}", hex(&tag)));
        return;
    }
    match value {
        Value::Object(map) => {
            for (name, child) in map.iter_mut() {
                let child_pointer =
                    format!("{pointer}/{}", name.replace('~', "~0").replace('/', "~1"));
                hash_secrets(child, &child_pointer, schema, key, index);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                hash_secrets(child, &format!("{pointer}/{i}"), schema, key, index);
            }
        }
        _ => {}
    }
}

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(DIGITS[usize::from(byte >> 4)] as char);
        text.push(DIGITS[usize::from(byte & 0xf)] as char);
    }
    text
}

/// What a write tool's `tools/list` entry advertises under `_meta`
/// `io.github.mcp-result/idempotency`: where the key goes and how long it is kept
/// (`{"keyIn": ["_meta/io.github.mcp-result/idempotencyKey", "arguments/requestId"],
/// "ttlSeconds": 86400}`). Written by the registry and read back by the docs through this
/// one type.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Advertised {
    /// Where the key may go: `_meta/<key>` or `arguments/<field>`.
    pub key_in: Vec<String>,
    /// How long a completed key is kept, in seconds.
    pub ttl_seconds: u64,
}

impl Advertised {
    /// The advertisement of a write tool whose key may also come from `key_field`.
    pub fn new(key_field: Option<&str>) -> Self {
        let mut key_in = vec![format!("_meta/{IDEMPOTENCY_KEY_META}")];
        if let Some(field) = key_field {
            key_in.push(format!("arguments/{field}"));
        }
        Self {
            key_in,
            ttl_seconds: DEFAULT_TTL.as_secs(),
        }
    }

    /// Writes it into `tool`'s `_meta`.
    pub fn write(&self, tool: &mut rmcp::model::Tool) {
        let mut meta = tool.meta.take().unwrap_or_default();
        meta.0.insert(
            IDEMPOTENCY_META.into(),
            serde_json::to_value(self).unwrap_or(Value::Null),
        );
        tool.meta = Some(meta);
    }

    /// Reads it from a listed tool (`None`: the tool advertises no idempotency support).
    pub fn read(tool: &rmcp::model::Tool) -> Option<Self> {
        let value = tool.meta.as_ref()?.0.get(IDEMPOTENCY_META)?;
        serde_json::from_value(value.clone()).ok()
    }
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

#[derive(Debug)]
enum State {
    Claimed { token: u64, lease_until: SystemTime },
    Started { token: u64, lease_until: SystemTime },
    Completed(Value),
}

#[derive(Debug)]
struct Record {
    fingerprint: String,
    state: State,
    expires: SystemTime,
}

/// The in-memory [`IdempotencyStore`]: one process. Records expire after their `ttl` and
/// are then forgotten: a claim deletes the expired ones whenever the store has doubled
/// since it last did (at least [`MEMORY_PURGE_FLOOR`] records), so memory stays within
/// twice what is live, and the live keys are bounded by [`KeyLimits`] (a new key past a
/// bound is [`Claim::Refused`]). Waiters are woken as soon as the running call completes.
#[derive(Debug, Default)]
pub struct MemoryIdempotencyStore {
    records: Mutex<HashMap<KeyScope, Record>>,
    next: std::sync::atomic::AtomicU64,
    completed: Notify,
    purge_at: std::sync::atomic::AtomicUsize,
    limits: KeyLimits,
}

/// How many live idempotency keys the in-memory store keeps: a new key past a bound is
/// refused (`quota_exceeded`, the write does not run) until older keys expire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyLimits {
    /// Live keys of one caller identity. Default 10,000 (a day of a write every 9 s).
    pub per_caller: usize,
    /// Live keys in all. Default 100,000 (a completed record holds its answer: at a few
    /// KB each, some hundreds of MB at most).
    pub total: usize,
}

impl Default for KeyLimits {
    fn default() -> Self {
        Self {
            per_caller: 10_000,
            total: 100_000,
        }
    }
}

/// The in-memory idempotency store deletes expired records once it holds this many (and
/// again each time it has doubled since).
pub const MEMORY_PURGE_FLOOR: usize = 1024;

impl MemoryIdempotencyStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty store bounded by `limits`.
    pub fn with_limits(limits: KeyLimits) -> Self {
        Self {
            limits,
            ..Self::default()
        }
    }

    fn records(&self) -> std::sync::MutexGuard<'_, HashMap<KeyScope, Record>> {
        self.records.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl IdempotencyStore for MemoryIdempotencyStore {
    fn claim<'a>(
        &'a self,
        scope: &'a KeyScope,
        fingerprints: &'a [String],
        lease: Duration,
        ttl: Duration,
    ) -> StoreFuture<'a, Claim> {
        Box::pin(async move {
            let now = SystemTime::now();
            let mut records = self.records();
            let purge_at = self.purge_at.load(std::sync::atomic::Ordering::Relaxed);
            if records.len() >= purge_at.max(MEMORY_PURGE_FLOOR) {
                records.retain(|_, record| record.expires > now);
                self.purge_at
                    .store(records.len() * 2, std::sync::atomic::Ordering::Relaxed);
            }
            let claim = |records: &mut HashMap<KeyScope, Record>| {
                let token = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                records.insert(
                    scope.clone(),
                    Record {
                        fingerprint: fingerprints[0].clone(),
                        state: State::Claimed {
                            token,
                            lease_until: now + lease,
                        },
                        expires: now + ttl,
                    },
                );
                Claim::Claimed(token)
            };
            let live = |record: Option<&Record>| record.is_some_and(|r| r.expires > now);
            if !live(records.get(scope)) {
                // A new key: within the bounds, counting only live keys.
                if records.len() >= self.limits.total {
                    records.retain(|_, record| record.expires > now);
                }
                if records.len() >= self.limits.total {
                    return Ok(Claim::Refused(format!(
                        "the idempotency store holds its limit of {} live keys",
                        self.limits.total
                    )));
                }
                let held = records
                    .iter()
                    .filter(|(key, record)| key.caller == scope.caller && record.expires > now)
                    .take(self.limits.per_caller)
                    .count();
                if held >= self.limits.per_caller {
                    return Ok(Claim::Refused(format!(
                        "this caller holds {held} live idempotency keys, its limit"
                    )));
                }
                return Ok(claim(&mut records));
            }
            let Some(record) = records.get(scope) else {
                return Ok(claim(&mut records));
            };
            if !fingerprints.contains(&record.fingerprint) {
                return Ok(Claim::Conflict);
            }
            Ok(match &record.state {
                State::Completed(result) => Claim::Completed(result.clone()),
                State::Claimed { lease_until, .. } if *lease_until <= now => claim(&mut records),
                State::Claimed { .. } => Claim::InProgress,
                State::Started { lease_until, .. } if *lease_until <= now => Claim::Interrupted,
                State::Started { .. } => Claim::InProgress,
            })
        })
    }

    fn start<'a>(&'a self, scope: &'a KeyScope, token: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if let Some(record) = self.records().get_mut(scope) {
                if let State::Claimed {
                    token: held,
                    lease_until,
                } = record.state
                {
                    if held == token {
                        record.state = State::Started { token, lease_until };
                    }
                }
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
            if let Some(record) = self.records().get_mut(scope) {
                let held = match record.state {
                    State::Claimed { token, .. } | State::Started { token, .. } => Some(token),
                    State::Completed(_) => None,
                };
                if held == Some(token) {
                    record.state = State::Completed(result.clone());
                }
            }
            self.completed.notify_waiters();
            Ok(())
        })
    }

    fn release<'a>(&'a self, scope: &'a KeyScope, token: u64) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut records = self.records();
            if matches!(records.get(scope), Some(Record { state: State::Claimed { token: held, .. }, .. }) if *held == token)
            {
                records.remove(scope);
            }
            drop(records);
            self.completed.notify_waiters();
            Ok(())
        })
    }

    fn wait<'a>(&'a self, scope: &'a KeyScope, limit: Duration) -> StoreFuture<'a, Option<Value>> {
        Box::pin(async move {
            let deadline = tokio::time::Instant::now() + limit;
            loop {
                let notified = self.completed.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if let Some(result) = self.peek(scope).await? {
                    return Ok(Some(result));
                }
                if tokio::time::timeout_at(deadline, notified).await.is_err() {
                    return self.peek(scope).await;
                }
            }
        })
    }

    fn peek<'a>(&'a self, scope: &'a KeyScope) -> StoreFuture<'a, Option<Value>> {
        Box::pin(async move {
            Ok(match self.records().get(scope) {
                Some(Record {
                    state: State::Completed(result),
                    expires,
                    ..
                }) if *expires > SystemTime::now() => Some(result.clone()),
                _ => None,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn scope(key: &str) -> KeyScope {
        KeyScope {
            tool: "add_note".into(),
            caller: "process".into(),
            key: key.into(),
        }
    }

    #[tokio::test]
    async fn one_claim_wins_and_the_rest_replay_or_conflict() {
        let store = MemoryIdempotencyStore::new();
        let k = scope("k1");
        let fp = vec!["a".to_owned()];
        let other = vec!["b".to_owned()];
        let lease = Duration::from_secs(60);
        let Claim::Claimed(token) = store.claim(&k, &fp, lease, DEFAULT_TTL).await.unwrap() else {
            panic!("first claim wins")
        };
        assert_eq!(
            store.claim(&k, &fp, lease, DEFAULT_TTL).await.unwrap(),
            Claim::InProgress
        );
        assert_eq!(
            store.claim(&k, &other, lease, DEFAULT_TTL).await.unwrap(),
            Claim::Conflict
        );
        store.start(&k, token).await.unwrap();
        let waiter = store.wait(&k, Duration::from_secs(5));
        let result = json!({"structuredContent": {"noteId": "n-1"}});
        let (waited, ()) = tokio::join!(waiter, async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            store.complete(&k, token, &result).await.unwrap();
        });
        assert_eq!(waited.unwrap(), Some(result.clone()));
        assert_eq!(
            store.claim(&k, &fp, lease, DEFAULT_TTL).await.unwrap(),
            Claim::Completed(result)
        );
    }

    #[tokio::test]
    async fn an_expired_claim_is_retaken_only_if_it_never_started() {
        let store = MemoryIdempotencyStore::new();
        let fp = vec!["a".to_owned()];
        let short = Duration::from_millis(1);
        let (never, started) = (scope("never"), scope("started"));
        assert!(matches!(
            store.claim(&never, &fp, short, DEFAULT_TTL).await.unwrap(),
            Claim::Claimed(_)
        ));
        let Claim::Claimed(token) = store
            .claim(&started, &fp, short, DEFAULT_TTL)
            .await
            .unwrap()
        else {
            panic!()
        };
        store.start(&started, token).await.unwrap();
        tokio::time::sleep(Duration::from_millis(5)).await;
        assert!(matches!(
            store.claim(&never, &fp, short, DEFAULT_TTL).await.unwrap(),
            Claim::Claimed(_)
        ));
        assert_eq!(
            store
                .claim(&started, &fp, short, DEFAULT_TTL)
                .await
                .unwrap(),
            Claim::Interrupted
        );
    }

    #[tokio::test]
    async fn expired_records_are_forgotten_once_the_store_has_grown() {
        let store = MemoryIdempotencyStore::new();
        let fp = vec!["a".to_owned()];
        let short = Duration::from_millis(1);
        for i in 0..MEMORY_PURGE_FLOOR {
            let k = scope(&format!("k{i}"));
            store.claim(&k, &fp, short, short).await.unwrap();
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
        store
            .claim(&scope("last"), &fp, DEFAULT_TTL, DEFAULT_TTL)
            .await
            .unwrap();
        assert_eq!(store.records().len(), 1);
    }

    #[test]
    fn fingerprints_normalize_numbers_and_hide_secrets() {
        let schema = ArgumentSchema::new(json!({"type": "object", "properties": {
            "rows": {"type": "integer"}, "token": {"type": "string", "writeOnly": true}}}))
        .unwrap();
        let key = ServerKey::new("a server key of at least thirty-two bytes", []).unwrap();
        let a = fingerprints(
            "t",
            &json!({"rows": 100000.0, "token": "s3cret"}),
            &schema,
            &key,
        );
        let b = fingerprints(
            "t",
            &json!({"token": "s3cret", "rows": 100000}),
            &schema,
            &key,
        );
        let c = fingerprints(
            "t",
            &json!({"token": "other", "rows": 100000}),
            &schema,
            &key,
        );
        let d = fingerprints(
            "u",
            &json!({"token": "s3cret", "rows": 100000}),
            &schema,
            &key,
        );
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, d);
        assert_eq!(a[0].len(), 64);
        assert!(check_key("order-42").is_ok());
        assert!(check_key("").is_err());
        assert!(check_key("a\nb").is_err());
        assert!(check_key(&"x".repeat(256)).is_err());
    }
}
