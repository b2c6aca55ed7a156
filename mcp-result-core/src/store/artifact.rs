//! Large payloads spilled into an artifact store and served through `resources/read`.
//!
//! A [`Payload`](crate::content::Payload) field (a long report, a log, a CSV, rows) is never inlined: when the tool's
//! result is built, the payload is stored in the server's [`ArtifactStore`] (a
//! [`MemoryStore`] by default) under a fresh random URI, owned by the caller's
//! [`Identity`]; `structuredContent` carries that URI, and `content` carries a
//! `resource_link` to it. A client then fetches it with `resources/read`, which checks the
//! reader's verified identity again through [`ArtifactAccess::may_read`]: a URI grants
//! nothing. An unknown URI and a denied one get the
//! same error, so a denial does not reveal that an artifact exists.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use crate::{
    store::{clock::unix_now, StoreError, StoreFuture},
    wire::{envelope::ToolError, identity::Identity},
};

/// The content of a stored artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArtifactContent {
    /// UTF-8 text (served as `text`).
    Text(String),
    /// Bytes (served base64-encoded as `blob`).
    Blob(Vec<u8>),
}

impl ArtifactContent {
    /// Size in bytes.
    pub fn len(&self) -> usize {
        match self {
            ArtifactContent::Text(text) => text.len(),
            ArtifactContent::Blob(bytes) => bytes.len(),
        }
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One artifact in a store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredArtifact {
    /// Its URI (what `structuredContent` and the `resource_link` carry):
    /// `mcp-result://artifacts/<32 hex digits>`, 128 bits from the operating system's
    /// random generator ([`new_artifact_uri`]): no counter, no content hash, so a URI can
    /// be neither guessed nor used to count other callers' artifacts.
    pub uri: String,
    /// Programmatic name, e.g. `import-report.csv`.
    pub name: String,
    /// MIME type, e.g. `text/csv`.
    pub mime_type: String,
    /// The [`Identity::key`] of the caller whose call made it. Never empty: a call without
    /// an identity never runs.
    pub owner: String,
    /// The content.
    pub content: ArtifactContent,
    /// When it expires, in seconds since the Unix epoch (set by the store's
    /// [`ArtifactLimits::ttl`] when it is put; `0` before).
    pub expires_at: u64,
}

/// A fresh artifact URI: `mcp-result://artifacts/` and 128 random bits in hex, from the
/// operating system's generator (`getrandom`).
pub fn new_artifact_uri() -> String {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).expect("the operating system's random generator failed");
    let hex = crate::wire::text::hex(&bytes);
    format!("{ARTIFACT_URI_PREFIX}{hex}")
}

/// The scheme and path every stored artifact's URI starts with.
pub const ARTIFACT_URI_PREFIX: &str = "mcp-result://artifacts/";

/// The bounds every [`ArtifactStore`] enforces, so memory (or a table) never grows
/// without limit. A put that would pass a bound is refused whole: nothing is stored, and
/// the call gets a `policy_blocked` error naming the bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArtifactLimits {
    /// Bytes of unexpired artifacts one identity may hold. Default 64 MiB.
    pub per_owner_bytes: u64,
    /// Unexpired artifacts one identity may hold. Default 1,000.
    pub max_artifacts_per_owner: u64,
    /// Bytes of unexpired artifacts in the whole store. Default 512 MiB.
    pub total_bytes: u64,
    /// How long an artifact can be read after it is made. Default 1 hour: long enough for
    /// a client to fetch what a result links, short enough that abandoned reports go.
    pub ttl: Duration,
}

impl Default for ArtifactLimits {
    fn default() -> Self {
        Self {
            per_owner_bytes: 64 * 1024 * 1024,
            max_artifacts_per_owner: 1_000,
            total_bytes: 512 * 1024 * 1024,
            ttl: Duration::from_secs(60 * 60),
        }
    }
}

/// Why a put was refused. Nothing of the put was stored.
#[derive(Debug)]
#[non_exhaustive]
pub enum ArtifactRefusal {
    /// The caller's own quota ([`ArtifactLimits::per_owner_bytes`] or
    /// [`ArtifactLimits::max_artifacts_per_owner`]) would be passed.
    OwnerQuota {
        /// The bound passed: bytes, or artifacts when `unit` is `"artifacts"`.
        limit: u64,
        /// What the owner holds now (same unit).
        used: u64,
        /// What the put asked for (same unit).
        requested: u64,
        /// `"bytes"` or `"artifacts"`.
        unit: &'static str,
    },
    /// The store's total ([`ArtifactLimits::total_bytes`]) would be passed.
    TotalCap {
        /// The bound, in bytes.
        limit: u64,
    },
    /// The store failed.
    Store(StoreError),
}

/// Bounds compare by their fields; two store failures are equal when they say the same.
impl PartialEq for ArtifactRefusal {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (
                Self::OwnerQuota {
                    limit,
                    used,
                    requested,
                    unit,
                },
                Self::OwnerQuota {
                    limit: l,
                    used: u,
                    requested: r,
                    unit: n,
                },
            ) => (limit, used, requested, unit) == (l, u, r, n),
            (Self::TotalCap { limit }, Self::TotalCap { limit: other }) => limit == other,
            (Self::Store(a), Self::Store(b)) => a.to_string() == b.to_string(),
            _ => false,
        }
    }
}

impl ArtifactRefusal {
    /// The tool error a call gets: [`ToolError::quota_exceeded`] for a bound (the message
    /// names it and says that nothing was stored), `upstream_unavailable` for a failed
    /// store.
    pub fn to_tool_error(&self) -> ToolError {
        match self {
            ArtifactRefusal::OwnerQuota {
                limit,
                used,
                requested,
                unit,
            } => {
                let (what, bound) = match *unit {
                    "bytes" => ("bytes of artifacts", "per_owner_bytes"),
                    other => (other, "max_artifacts_per_owner"),
                };
                raise_advice(bound, *limit);
                ToolError::quota_exceeded(
                    format!(
                        "this caller holds {used} of its {limit} {what} \
                         (`ArtifactLimits::{bound}`) and the result needs {requested} more"
                    ),
                    RESULT_ADVICE,
                )
            }
            ArtifactRefusal::TotalCap { limit } => {
                raise_advice("total_bytes", *limit);
                ToolError::quota_exceeded(
                    format!(
                        "the artifact store holds its limit of {limit} bytes \
                         (`ArtifactLimits::total_bytes`)"
                    ),
                    RESULT_ADVICE,
                )
            }
            ArtifactRefusal::Store(error) => {
                tracing::error!(%error, "artifact store failed");
                ToolError::upstream_unavailable(
                    "The artifact store is unavailable; nothing was stored. Retry later.",
                    false,
                )
            }
        }
    }
}

/// Tells the operator (`warn`) which bound refused a result and where it is raised: the
/// caller reads the bound's name in the answer, the operator reads how to change it.
fn raise_advice(bound: &str, limit: u64) {
    tracing::warn!(
        bound,
        limit,
        "a result's artifacts were refused by `ArtifactLimits::{bound}` ({limit}); raise it \
         in the `ArtifactLimits` the server's artifact store is made with \
         (`MemoryStore::with_limits`, `SqlStores::artifacts`), e.g. \
         `ArtifactLimits {{ {bound}: ..., ..ArtifactLimits::default() }}`"
    );
}

const RESULT_ADVICE: &str = "Ask for a smaller result, or call again after earlier results expire.";

impl From<StoreError> for ArtifactRefusal {
    fn from(error: StoreError) -> Self {
        ArtifactRefusal::Store(error)
    }
}

/// Where spilled payloads live: [`MemoryStore`] in the process; the SQLite and PostgreSQL
/// stores (features `sqlite`, `postgres`) for a durable or shared one.
pub trait ArtifactStore: Send + Sync + 'static {
    /// Stores all of `artifacts` or none (atomically), after removing expired ones, with
    /// `expires_at` set from its [`ArtifactLimits::ttl`].
    ///
    /// # Errors
    /// The outer error: the store failed. `Ok(Err(_))`: a bound would be passed (nothing
    /// stored).
    fn put<'a>(
        &'a self,
        artifacts: &'a [StoredArtifact],
    ) -> StoreFuture<'a, Result<(), ArtifactRefusal>>;

    /// The unexpired artifact at `uri`, if any.
    ///
    /// # Errors
    /// The store failed.
    fn get<'a>(&'a self, uri: &'a str) -> StoreFuture<'a, Option<StoredArtifact>>;
}

/// The in-memory [`ArtifactStore`], bounded by its [`ArtifactLimits`]. Clones share the
/// same store (a server is cloned for every call).
#[derive(Debug, Default, Clone)]
pub struct MemoryStore {
    inner: Arc<Mutex<MemoryInner>>,
    limits: ArtifactLimits,
}

#[derive(Debug, Default)]
struct MemoryInner {
    artifacts: HashMap<String, Arc<StoredArtifact>>,
    /// Bytes and count per owner.
    usage: HashMap<String, (u64, u64)>,
    total: u64,
}

impl MemoryInner {
    fn purge_expired(&mut self, now: u64) {
        let expired: Vec<String> = self
            .artifacts
            .iter()
            .filter(|(_, a)| a.expires_at <= now)
            .map(|(uri, _)| uri.clone())
            .collect();
        for uri in expired {
            if let Some(artifact) = self.artifacts.remove(&uri) {
                let size = artifact.content.len() as u64;
                self.total -= size;
                if let Some(usage) = self.usage.get_mut(&artifact.owner) {
                    usage.0 -= size;
                    usage.1 -= 1;
                    if usage.1 == 0 {
                        self.usage.remove(&artifact.owner);
                    }
                }
            }
        }
    }
}

impl MemoryStore {
    /// An empty store with the default [`ArtifactLimits`].
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty store with `limits`.
    pub fn with_limits(limits: ArtifactLimits) -> Self {
        Self {
            inner: Arc::default(),
            limits,
        }
    }

    /// Bytes held now (unexpired or not yet purged).
    pub fn total_bytes(&self) -> u64 {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).total
    }
}

/// Checks a put of `artifacts` against `limits`, given what each owner and the store hold
/// (`usage(owner)` is `(bytes, count)`): the first bound passed, if any. Shared by every
/// store, so all enforce the same rule.
pub fn check_limits(
    limits: &ArtifactLimits,
    artifacts: &[StoredArtifact],
    total: u64,
    mut usage: impl FnMut(&str) -> (u64, u64),
) -> Option<ArtifactRefusal> {
    let mut asked: Vec<(&str, u64, u64)> = Vec::new();
    for artifact in artifacts {
        let size = artifact.content.len() as u64;
        match asked
            .iter_mut()
            .find(|(owner, ..)| *owner == artifact.owner)
        {
            Some(entry) => {
                entry.1 += size;
                entry.2 += 1;
            }
            None => asked.push((&artifact.owner, size, 1)),
        }
    }
    for (owner, bytes, count) in &asked {
        let (held_bytes, held_count) = usage(owner);
        if held_bytes + bytes > limits.per_owner_bytes {
            return Some(ArtifactRefusal::OwnerQuota {
                limit: limits.per_owner_bytes,
                used: held_bytes,
                requested: *bytes,
                unit: "bytes",
            });
        }
        if held_count + count > limits.max_artifacts_per_owner {
            return Some(ArtifactRefusal::OwnerQuota {
                limit: limits.max_artifacts_per_owner,
                used: held_count,
                requested: *count,
                unit: "artifacts",
            });
        }
    }
    let requested: u64 = asked.iter().map(|(_, bytes, _)| bytes).sum();
    (total + requested > limits.total_bytes).then_some(ArtifactRefusal::TotalCap {
        limit: limits.total_bytes,
    })
}

impl ArtifactStore for MemoryStore {
    fn put<'a>(
        &'a self,
        artifacts: &'a [StoredArtifact],
    ) -> StoreFuture<'a, Result<(), ArtifactRefusal>> {
        Box::pin(async move {
            let now = unix_now();
            let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            inner.purge_expired(now);
            let refusal = check_limits(&self.limits, artifacts, inner.total, |owner| {
                inner.usage.get(owner).copied().unwrap_or_default()
            });
            if let Some(refusal) = refusal {
                return Ok(Err(refusal));
            }
            for artifact in artifacts {
                let size = artifact.content.len() as u64;
                let mut stored = artifact.clone();
                stored.expires_at = now + self.limits.ttl.as_secs();
                inner.total += size;
                let usage = inner.usage.entry(stored.owner.clone()).or_default();
                usage.0 += size;
                usage.1 += 1;
                inner.artifacts.insert(stored.uri.clone(), Arc::new(stored));
            }
            Ok(Ok(()))
        })
    }

    fn get<'a>(&'a self, uri: &'a str) -> StoreFuture<'a, Option<StoredArtifact>> {
        Box::pin(async move {
            let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            Ok(inner
                .artifacts
                .get(uri)
                .filter(|a| a.expires_at > unix_now())
                .map(|a| StoredArtifact::clone(a)))
        })
    }
}

/// A server that stores payloads and serves them back: declare its tools with
/// `#[mcp_tools(artifacts)]` and implement this trait; `#[mcp_handler]` then answers
/// `resources/read` for the store's URIs and declares the `resources` capability.
///
/// The owner of an artifact is the [`Identity`] of the call that made it (from the
/// transport, never from `_meta`); `resources/read` checks the reader again with
/// [`Self::may_read`]: a URI returned in a result grants nothing by itself.
pub trait ArtifactAccess: Send + Sync {
    /// The store payloads are spilled into.
    fn artifact_store(&self) -> &dyn ArtifactStore;

    /// Whether `reader` may read `artifact`. Default: only its owner
    /// (`artifact.owner == reader.key()`). Override to share by tenant, role or scope, for
    /// example `artifact.owner.starts_with(...)` with [`Identity::has_scope`].
    fn may_read(&self, artifact: &StoredArtifact, reader: &Identity) -> bool {
        artifact.owner == reader.key()
    }
}
