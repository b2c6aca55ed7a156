//! A tool call as a tool's parameters see it: the call ([`extract::ToolCall`]) and the
//! extractors that read it ([`extract::FromToolCall`]), progress reports
//! ([`crate::progress::Progress`]) among them.
//!
//! Beneath it: results and the write vocabulary ([`crate::write`]). Above it: paging and the
//! router, which builds a [`extract::ToolCall`] for each call.

#[cfg(feature = "elicitation")]
pub(crate) mod ask;
pub mod extract;
pub(crate) mod log;
pub(crate) mod panics;
pub(crate) mod tx;
