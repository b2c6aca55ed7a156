//! What a write needs to be safe: the compile-time contract ([`contract`], [`receipt`]),
//! idempotency keys ([`idempotency`]), human approval ([`approval`]) and the audit log
//! ([`audit`]), each with its trait and in-memory store, and the
//! steps the router runs for each, next to its state.
//!
//! Beneath it: results, schemas and the shared store vocabulary ([`crate::store`]). Above it:
//! the SQL stores ([`crate::sql`]) implement its traits, and the router runs its steps in
//! order.

pub mod approval;
pub mod audit;
pub(crate) mod context;
pub mod contract;
pub mod idempotency;
pub(crate) mod receipt;
