//! What every store shares: the error and future of store operations ([`StoreError`],
//! [`StoreFuture`]), the artifact store and its limits ([`artifact`]), and the server key
//! that seals cursors, fingerprints and approval state ([`key`]).
//!
//! Beneath it: the wire vocabulary. Above it: results (artifacts), writes (idempotency,
//! approval, audit stores) and the SQL stores.

pub mod artifact;
pub(crate) mod clock;
mod error;
pub mod key;

pub use artifact::{
    check_limits, new_artifact_uri, ArtifactAccess, ArtifactContent, ArtifactLimits,
    ArtifactRefusal, ArtifactStore, MemoryStore, StoredArtifact, ARTIFACT_URI_PREFIX,
};
pub use error::{StoreError, StoreFuture};
