#![cfg_attr(docsrs, feature(doc_cfg))]
//! Runtime half of **mcp-result**: the types and traits that `#[derive(ToolResult)]`,
//! `#[mcp_tools]`, `#[mcp_tool]` and `#[mcp_handler]` generate code against. Depend on the
//! `mcp-result` crate, which re-exports everything here together with the macros.
//!
//! This file is the face: it names the rooms and gives every public item one path.
//!
//! | room | job | source |
//! |---|---|---|
//! | wire vocabulary | the names and shapes on the wire: [`Status`], [`AuditEventId`], [`ToolError`] and its envelope, [`ErrorKind`], [`FieldError`], [`Audience`], [`keys`], the `_meta` key rules | `wire/` |
//! | server half | [`ToolResult`] and [`build_result`] (the one place a result is built), [`ToolRegistry`] and [`ToolSet`], [`extract`]ors, [`pagination`], [`schema`], [`content`], [`store`], [`meta`], [`contract`], [`Secret`] | `server/` |
//! | client half | [`view`]: a received result split into the checked structured value, the model context, the user display and the error view (feature `client`) | `view/` |
//! | docs | [`docs`]: Markdown and JSON docs of every tool (feature `docs`) | `docs/` |
//! | host lint | [`lint`]: what each MCP host rejects in a `tools/list` payload, as data, with the findings of a server's tools | `lint/` |
//! | test harness | [`testing`]: a server in-process with rmcp's client, every answer checked, `insta` snapshots (feature `testing`) | `testing.rs` |

mod server;
mod wire;

#[cfg(feature = "docs")]
pub mod docs;
pub mod lint;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "client")]
pub mod view;

#[cfg(feature = "transport-io")]
pub use server::handler::serve_stdio;
#[cfg(feature = "http")]
pub use server::http;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub use server::sql;
pub use server::{
    approval, audit, content, contract, extract,
    handler::{serve, ServerServices, ToolSet, SHUTDOWN_GRACE},
    idempotency,
    identity::{self, Identity},
    impls::Structured,
    key, meta, pagination,
    probe::SuccessOutput,
    progress::{self, Progress},
    receipt::WriteReceipt,
    registry::{RegistryError, ToolBlock, ToolDef, ToolRegistry},
    result::{build_result, ContentMode, IntoToolError, IntoToolOutput, ResultScope, ToolResult},
    result_ext::ResultExt,
    schema,
    secret::{Redacts, Secret, SecretField},
    store,
    summary::{Summary, SummaryPart},
};
pub use wire::{
    audience::Audience,
    envelope::{ErrorKind, FieldError, ToolError, ToolErrorEnvelope},
    keys,
    status::{AuditEventId, Status},
};

/// Re-exports of the crates the generated code and users need, so a server needs only
/// `mcp-result` in its `Cargo.toml` to match versions.
pub use rmcp;
pub use schemars;
pub use serde;
pub use serde_json;

/// Items used by macro-generated code. Not public API: no semver guarantees.
#[doc(hidden)]
pub mod __private {
    pub use crate::server::contract::{markers, WriteProbe, WriteViaContract, WriteViaNothing};
    pub use crate::server::extract::{
        assert_one_arguments, run_blocking, tool_extensions, tool_input_schema, FromToolCall,
        ToolCall, ToolExtension,
    };
    pub use crate::server::handler::{
        assert_included, call_tool, custom_request, initialize, list_tools, read_resource,
        server_info, tool_for, IncludesBlock, ServerClone, ToolBlockOf,
    };
    pub use crate::server::probe::{
        assert_tool_output, assert_tool_result, ConvertsIntoToolError, ErrorProbe,
        ErrorViaAnything, ErrorViaBoxed, ErrorViaConversion, ErrorViaProtocol, ErrorViaText, Probe,
        ResultParts, ToolErrorInsteadOfBoxedError, ToolErrorInsteadOfProtocolError,
        ToolErrorInsteadOfText, ViaFallback, ViaToolOutput,
    };
    pub use crate::server::registry::{registry_per_type, ToolFuture};
    pub use crate::server::result::error_result;
    pub use crate::server::rmcp_tools::{
        call_tool_with_rmcp, initialize_with_rmcp, list_tools_with_rmcp, tool_with_rmcp,
    };
    pub use crate::server::secret::{RedactsProbe, ViaNoRedacts, ViaRedacts};
    pub use ::core;
    pub use ::futures::future::FutureExt;
    pub use ::rmcp;
    pub use ::schemars;
    pub use ::serde;
    pub use ::serde_json;
    pub use ::std;
}
