//! Runtime half of **mcp-result**: the types and traits that `#[derive(ToolResult)]`,
//! `#[mcp_tools]` and `#[mcp_tool]` generate code against.
//!
//! Depend on the `mcp-result` crate, which re-exports everything here together with the
//! macros. The pieces:
//!
//! - [`ToolResult`]: a type that can be a tool's success result. It knows its
//!   `outputSchema` ([`ToolResult::output_schema`]), how to summarise itself for the model
//!   ([`Summary`]) and which text blocks to emit ([`ContentMode`]).
//! - [`build_result`]: the one place a `CallToolResult` is built: `structuredContent` is
//!   serialized once, and the summary and JSON-compat text blocks derive from that value.
//! - [`ToolError`]: a tool execution error (`isError: true`) with structured details, kept
//!   apart from protocol errors (JSON-RPC `error`), per MCP 2025-11-25 "Error Handling".
//! - [`ToolRouter`] / [`ToolSet`]: the tools of a server, built once and stored.
//! - [`Status`], [`AuditEventId`]: the write-tool contract vocabulary.
//! - [`Secret`]: a value no serialization path can carry (`#[secret]` fields).
//! - [`content`]: [`Artifact`] (`resource_link`), [`EmbeddedText`], [`Image`], [`Audio`]
//!   and block annotations; [`store`]: [`Payload`]s spilled to an [`ArtifactStore`] and
//!   served by `resources/read`; [`meta`]: checked `_meta` ([`WithMeta`]).
//! - [`schema`]: portable, cached schemas; non-object results wrapped under `"result"`.
//! - [`docs`]: Markdown and JSON docs of every tool, from the `tools/list` payload.
//! - [`view`]: the client half, a received result split into the checked structured value,
//!   the model context, the user display and the error view.

pub mod content;
pub mod contract;
pub mod docs;
mod error;
mod impls;
pub mod meta;
mod result;
mod router;
pub mod schema;
mod secret;
mod status;
pub mod store;
mod summary;
pub mod view;

pub use content::{
    Artifact, Audience, Audio, BlockAnnotations, BlockStyle, ContentSource, EmbeddedText, Image,
    InvalidPriority,
};
pub use contract::{HasAuditEventId, HasRetrySafe, HasStatus, WriteCompanions};
pub use error::{ErrorKind, FieldError, IntoToolError, ToolError, ToolErrorEnvelope};
pub use impls::Structured;
pub use meta::{MetaError, MetaKey, MetaKeyRule, ResultMeta, WithMeta};
pub use result::{build_result, ContentMode, IntoToolOutput, SuccessOutput, ToolResult};
pub use router::{RouterError, ToolDef, ToolRouter, ToolSet};
pub use secret::{Secret, SecretField};
pub use status::{AuditEventId, Status};
pub use store::{
    ArtifactAccess, ArtifactContent, ArtifactStore, MemoryStore, Payload, SpillScope,
    StoredArtifact,
};
pub use summary::{Summary, SummaryPart};

/// Re-exports of the crates the generated code and users need, so a server needs only
/// `mcp-result` in its `Cargo.toml` to match versions.
pub use rmcp;
pub use schemars;
pub use serde;
pub use serde_json;

/// Items used by macro-generated code. Not public API: no semver guarantees.
#[doc(hidden)]
pub mod __private {
    pub use crate::content::{Collect, CollectBlocks, CollectNothing};
    pub use crate::contract::{assert_write_output, assert_write_result, markers};
    pub use crate::result::{
        assert_tool_output, assert_tool_result, error_result, Probe, ViaFallback, ViaToolOutput,
    };
    pub use crate::router::{
        call_tool, custom_request, list_tools, read_resource, tool_for, ToolFuture,
    };
    pub use crate::store::{SpillField, SpillNothing, SpillPayloads};
    pub use ::core;
    pub use ::futures::future::FutureExt;
    pub use ::rmcp;
    pub use ::schemars;
    pub use ::serde;
    pub use ::serde_json;
    pub use ::std;

    /// Deserializes validated tool arguments into the tool's argument type.
    ///
    /// # Errors
    /// A [`crate::ToolError`] of kind `validation_error` naming the field serde rejected,
    /// for values the `inputSchema` accepted but the type did not.
    pub fn deserialize_arguments<A: ::serde::de::DeserializeOwned>(
        arguments: ::serde_json::Value,
    ) -> ::core::result::Result<A, crate::ToolError> {
        ::serde_json::from_value(arguments).map_err(|error| {
            crate::ToolError::validation(::std::vec![
                crate::FieldError::new("", error.to_string(),)
            ])
        })
    }
}
