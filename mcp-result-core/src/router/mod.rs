//! The tools of one server and the order a call runs in: the registry built once per server
//! type ([`registry`]) and a span per call ([`telemetry`]).
//!
//! Beneath it: tools, paging, writes, results and schemas. Above it: [`crate::serve`], the
//! rmcp adapters.

mod answer;
pub mod def;
pub(crate) mod in_flight;
pub mod registry;
pub mod set;
pub(crate) mod telemetry;
