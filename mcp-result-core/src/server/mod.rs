//! The server half: what generated code and a serving process need. Result building
//! ([`result`], [`summary`]), the registry of a server's tools ([`registry`]) and what
//! `#[mcp_handler]` answers with ([`handler`]), parameter extraction ([`extract`]),
//! schemas ([`schema`]), the result surface ([`content`], [`store`], [`meta`]), the
//! write contract ([`contract`]) and secrets ([`secret`]).

pub mod approval;
pub mod arguments;
pub mod audit;
mod collect;
pub mod content;
pub mod contract;
pub mod extract;
pub mod handler;
#[cfg(feature = "http")]
pub mod http;
pub mod idempotency;
pub mod identity;
pub mod impls;
pub mod key;
pub mod meta;
pub mod pagination;
mod panics;
pub(crate) mod probe;
pub mod progress;
pub(crate) mod receipt;
pub mod registry;
pub mod result;
pub(crate) mod result_ext;
pub(crate) mod rmcp_tools;
pub mod schema;
pub mod secret;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub mod sql;
pub mod store;
pub mod summary;
mod telemetry;
mod write;
