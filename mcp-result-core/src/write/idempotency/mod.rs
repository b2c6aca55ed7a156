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
//! The fingerprint is SHA-256 over the tool name, a zero byte and the SHA-256 of the
//! arguments canonicalized per RFC 8785 (JCS) after integral numbers are normalized
//! (`100000.0` is `100000`); a secret argument (`writeOnly`, [`crate::Secret`]) enters only
//! as its HMAC under the server key ([`crate::key::ServerKey`]), never as it is. Without a
//! secret argument the inner hash is the audit records' argument digest, so the arguments
//! are hashed once, in place, however large.

mod advertised;
mod call;
mod fingerprint;
mod memory;
mod store;

pub use advertised::Advertised;
pub(crate) use call::{
    answer_held, claim, idempotency_key, lease_of, store_failed, Begin, Claimed,
};
pub(crate) use fingerprint::digest_and_fingerprints;
pub use fingerprint::fingerprints;
pub use memory::{KeyLimits, MemoryIdempotencyStore, MEMORY_PURGE_FLOOR};
pub use store::{
    check_key, Claim, CommitFailure, CommitFuture, IdempotencyStore, KeyScope, Opened, TxHandle,
    WriteTransaction, DEFAULT_TTL, DEFAULT_WAIT, MAX_KEY_CHARS,
};
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) use store::{claim_started_in_turn, complete_recorded_in_turn};

#[cfg(test)]
mod tests;
