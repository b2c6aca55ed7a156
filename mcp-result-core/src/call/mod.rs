//! The life of one call, apart from what it does: its progress reporter ([`progress`]) and
//! the requests it sends its client while it runs ([`client`]), both ended with the call.
//!
//! A call ends once: answered (its result, a time limit's answer, a JSON-RPC error),
//! cancelled by its client (`notifications/cancelled`) or cut off (its client went away).
//! From then on its progress reports are dropped and a question it still waits on is
//! withdrawn (`notifications/cancelled` for the server's request). What a write records at
//! each end is the router's (guide, "The life of a call").
//!
//! Beneath it: the wire vocabulary only. Above it: the tools' extractors ([`crate::tool`]),
//! the approval gate ([`crate::write`]) and the router, which makes and closes each call's
//! reporter.

pub(crate) mod client;
pub(crate) mod limits;
// Metrics on the application's meter (feature `opentelemetry`).
#[cfg(feature = "opentelemetry")]
pub(crate) mod metrics;
pub mod progress;
