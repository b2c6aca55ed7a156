//! Building a result: the one place a `CallToolResult` is made ([`build`]), what a tool
//! may return to make one and how it answers ([`output`], [`answer`]), the content blocks a
//! value yields while it serializes ([`collect`] and [`content`]), the summary text
//! ([`summary`]), `_meta` ([`meta`]), the types that are results as they are ([`impls`]),
//! and the compile-time probes of a tool's return type ([`probe`]).
//!
//! Beneath it: the wire vocabulary, [`crate::schema`] and [`crate::store`]. Above it: tools,
//! writes and the router, which call [`build::build_result_in`] and [`build::error_result`].

pub(crate) mod answer;
pub(crate) mod build;
pub(crate) mod collect;
pub mod content;
pub(crate) mod ext;
pub(crate) mod impls;
mod io;
pub mod meta;
pub(crate) mod output;
pub(crate) mod probe;
pub(crate) mod summary;
pub(crate) mod unstructured;
