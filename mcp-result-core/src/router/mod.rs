//! The tools of one server and the order a call runs in: the registry built once per server
//! type ([`registry`]), a call's phases (`answer`, a write's in `write`) and a span per call
//! ([`telemetry`]).
//!
//! Beneath it: tools, paging, writes, results and schemas. Above it: [`crate::serve`], the
//! rmcp adapters.

mod answer;
mod arguments;
pub(crate) mod def;
pub(crate) mod in_flight;
pub(crate) mod listen;
pub(crate) mod registry;
pub(crate) mod set;
pub(crate) mod tasks;
pub(crate) mod telemetry;
// A client's trace continued into a call's span (feature `opentelemetry`).
#[cfg(feature = "opentelemetry")]
mod trace;
mod write;
