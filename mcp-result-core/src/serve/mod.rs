//! The adapters to rmcp: what `#[mcp_handler]` answers with ([`handler`]), serving over stdio
//! and streamable HTTP ([`http`], feature `http`), and rmcp tool routers served beside the
//! framework's tools ([`rmcp_tools`]).
//!
//! Beneath it: the router and everything under it. Nothing in the crate imports it but the
//! face (`lib.rs`) and the docs.

pub(crate) mod handler;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "transport-io")]
pub(crate) mod lines;
pub(crate) mod logs;
#[cfg(feature = "oauth")]
pub mod oauth;
pub(crate) mod requests;
pub(crate) mod resources;
pub(crate) mod rmcp_tools;
pub(crate) mod transport;
