//! The error of every store operation.

use std::{future::Future, pin::Pin};

/// A store's failure: the store could not be reached, a statement failed, a record did not
/// encode, or a stored record breaks the store's rules. The framework answers a call whose
/// store failed with a retry-safe `upstream_unavailable` (nothing ran) and logs this error.
///
/// Its `Debug` is its `Display` (what failed, then the cause), so a `main` that returns it
/// prints `Error: SQL stores: connecting to ...: ...` as it reads.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// A database statement or connection failed (`what` says which step).
    #[error("SQL stores: {what}: {source}")]
    Database {
        /// The step that failed, in words (`"claiming a key"`).
        what: &'static str,
        /// The driver's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// A record did not serialize to, or parse from, JSON.
    #[error(transparent)]
    Encoding(#[from] serde_json::Error),
    /// A file-backed store could not read or write its file (`what` names it).
    #[error("{what}: {source}")]
    Io {
        /// The file and the step, in words (`"audit file"`).
        what: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A remote service the answer depends on could not be asked or gave no usable answer
    /// (an authorization server's keys or introspection endpoint; `what` says which).
    #[error("{what}: {source}")]
    Remote {
        /// The service and the step, in words (`"JWKS https://auth.example.com/jwks"`).
        what: String,
        /// The client's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// A stored record, or a request to the store, breaks the store's rules; the message
    /// says which and what to do.
    #[error("{0}")]
    Invalid(String),
    /// A bound of the store refused the request (a caller's quota): nothing was stored. The
    /// message names the bound; the framework answers `policy_blocked`
    /// (status `blocked`, built by `ToolError::quota_exceeded`).
    #[error("{0}")]
    Refused(String),
}

/// The future a store method returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

impl std::fmt::Debug for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
