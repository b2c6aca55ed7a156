#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs, unreachable_pub, missing_debug_implementations)]
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

mod call;
mod cancel;
mod error_text;
mod result;
mod router;
mod serve;
mod state;
mod tool;
mod wire;
mod write;

#[cfg(feature = "docs")]
pub mod docs;
pub mod lint;
pub mod pagination;
pub mod schema;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub mod sql;
pub mod store;
pub mod subscriptions;
pub mod task;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "client")]
pub mod view;

pub use call::limits::{CallLimits, Limit, CONCURRENCY_RETRY_AFTER};
pub use cancel::CancelBus;
pub use error_text::ErrorText;
pub use result::{
    build::{build_result, ContentMode, ToolResult},
    content,
    ext::ResultExt,
    impls::Structured,
    meta,
    output::{IntoToolError, IntoToolOutput},
    summary::{Summary, SummaryPart},
    unstructured::Unstructured,
};
pub use router::{
    def::RegistryError,
    registry::ToolRegistry,
    set::{ServerServices, ToolSet},
};
pub use serve::handler::{serve, serve_with_state, SHUTDOWN_GRACE};
pub use serve::logs::DEFAULT_LOG_LEVEL;
pub use state::State;
pub use subscriptions::Subscriptions;

/// What `#[mcp_handler]` answers with, for a server that writes some `ServerHandler`
/// methods itself and hands the rest to the framework: its `get_info` extended with the
/// server's own capabilities, its `read_resource` for the framework's URIs beside the
/// server's own (guide, "Beside the framework").
pub mod handler {
    pub use crate::serve::handler::{
        call_tool, is_framework_uri, list_tools, read_resource, server_info, CallFuture,
    };
}
pub use call::{
    client::AskPolicy,
    progress::{self, Progress},
};
#[cfg(feature = "transport-io")]
pub use serve::handler::{serve_stdio, serve_stdio_with_state};
#[cfg(feature = "http")]
pub use serve::http;
#[cfg(feature = "oauth")]
pub use serve::oauth;
pub use store::key;
#[cfg(feature = "elicitation")]
pub use tool::ask::{Ask, Elicited, Question};
pub use tool::{extract, log::Log, tx::Tx};
pub use wire::{
    audience::Audience,
    envelope::{ErrorKind, FieldError, ToolError, ToolErrorEnvelope},
    identity::{self, Identity},
    keys,
    number::{DecimalInteger, DecimalString, MAX_SAFE_INTEGER},
    secret::{NoSecrets, Redacts, Secret},
    status::{AuditEventId, Status},
};
pub use write::{approval, audit, contract, idempotency, receipt::WriteReceipt};

/// Re-exports of the crates the generated code and users need, so a server needs only
/// `mcp-result` in its `Cargo.toml` to match versions.
pub use rmcp;
pub use schemars;
pub use serde;
pub use serde_json;

/// Items used by macro-generated code. Not public API: no semver guarantees.
#[doc(hidden)]
pub mod __private {
    pub use crate::result::answer::ToolAnswer;
    pub use crate::result::build::error_result;
    pub use crate::result::build::ResultScope;
    pub use crate::result::probe::{
        assert_tool_output, assert_tool_result, ConvertsIntoToolError, ErrorProbe,
        ErrorViaAnything, ErrorViaBoxed, ErrorViaConversion, ErrorViaProtocol, ErrorViaText, Probe,
        ResultParts, ToolErrorInsteadOfBoxedError, ToolErrorInsteadOfProtocolError,
        ToolErrorInsteadOfText, ViaFallback, ViaToolOutput,
    };
    pub use crate::router::def::{ToolBlock, ToolDef};
    pub use crate::router::set::{assert_included, IncludesBlock, ServerClone, ToolBlockOf};
    pub use crate::router::{def::ToolFuture, registry::registry_per_type};
    pub use crate::serve::handler::{
        accepted_subscription_filter, call_tool, cancel_task, custom_request, discover, empty_list,
        get_task, initialize, list_tools, list_tools_observed, listen, read_resource, server_info,
        server_info_of, set_level, subscribe, tool_for, unsubscribe, update_task,
    };
    pub use crate::serve::rmcp_tools::{
        call_tool_with_rmcp, initialize_with_rmcp, list_tools_with_rmcp, tool_with_rmcp,
    };
    pub use crate::tool::extract::{
        assert_one_arguments, run_blocking, tool_extensions, tool_input_schema, FromToolCall,
        ToolCall, ToolExtension,
    };
    pub use crate::wire::secret::{RedactsProbe, ViaNoRedacts, ViaRedacts};
    pub use crate::write::contract::{markers, WriteProbe, WriteViaContract, WriteViaNothing};
    pub use ::core;
    pub use ::futures::future::FutureExt;
    pub use ::rmcp;
    pub use ::schemars;
    pub use ::serde;
    pub use ::serde_json;
    pub use ::std;
}
