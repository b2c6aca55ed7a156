// README.md links its names to files, for reading it in the repository; in the crate docs
// the same names link to the items (the first definition of a link wins: CommonMark, link
// reference definitions).
#![doc = "[guide]: crate::guide"]
#![doc = "[tutorial]: crate::guide::tutorial"]
#![doc = "[contract]: crate::guide::contract"]
#![doc = "[errors]: crate::guide::errors"]
#![doc = "[writes]: crate::guide::writes"]
#![doc = "[retries]: crate::guide::retries"]
#![doc = "[audit]: crate::guide::audit_approval"]
#![doc = "[identity]: crate::guide::identity_state"]
#![doc = "[oauth]: crate::guide::oauth"]
#![doc = "[return-types]: crate::guide::return_types"]
#![doc = "[secrets]: crate::guide::secrets"]
#![doc = "[artifacts]: crate::guide::artifacts"]
#![doc = "[paging]: crate::guide::paging"]
#![doc = "[long-tools]: crate::guide::long_tools"]
#![doc = "[clients]: crate::guide::clients"]
#![doc = "[hosts]: crate::guide::hosts_lint"]
#![doc = "[check]: crate::guide::check"]
#![doc = "[tool-docs]: crate::guide::tool_docs"]
#![doc = "[client-side]: crate::guide::client_side"]
#![doc = "[testing]: crate::guide::testing"]
#![doc = "[migration]: crate::guide::migration"]
#![doc = "[blocks]: crate::guide::blocks"]
#![doc = "[cost]: crate::guide::cost"]
#![doc = "[state-extractors]: crate::guide::state_extractors"]
#![doc = "[beside]: crate::guide::beside"]
#![doc = "[asking]: crate::guide::asking"]
#![doc = "[lifecycle]: crate::guide::lifecycle"]
#![doc = "[tasks]: crate::guide::tasks"]
#![doc = "[subscriptions]: crate::guide::subscriptions"]
#![doc = "[mcp_tool]: crate::mcp_tool"]
#![doc = "[mcp_tools]: crate::mcp_tools"]
#![doc = "[mcp_handler]: crate::mcp_handler"]
#![doc = "[ToolResult]: derive@crate::ToolResult"]
#![doc = "[benchmarks]: https://github.com/mcp-result/mcp-result/blob/main/BENCHMARKS.md"]
#![doc = "[contributing]: https://github.com/mcp-result/mcp-result/blob/main/CONTRIBUTING.md"]
#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs, unreachable_pub, missing_debug_implementations)]

pub mod guide;

// The surface, chosen here: every public item once, by name (serde's `lib.rs`).

// The macros.
pub use mcp_result_derive::{mcp_handler, mcp_tool, mcp_tools, Redact, ToolResult};

// A tool's result and errors.
pub use mcp_result_core::{
    build_result, Audience, AuditEventId, ContentMode, DecimalInteger, DecimalString, ErrorKind,
    FieldError, IntoToolError, IntoToolOutput, NoSecrets, Redacts, ResultExt, Secret, Status,
    Structured, Summary, SummaryPart, ToolError, ToolErrorEnvelope, ToolResult, Unstructured,
    WriteReceipt, MAX_SAFE_INTEGER,
};

// A server: its tools, its state and serving it.
pub use mcp_result_core::{
    serve, serve_with_state, CallLimits, CancelBus, ErrorText, Identity, Limit, Log, Progress,
    RegistryError, ServerServices, State, Subscriptions, ToolRegistry, ToolSet, Tx,
    CONCURRENCY_RETRY_AFTER, DEFAULT_LOG_LEVEL, SHUTDOWN_GRACE,
};
#[cfg(feature = "transport-io")]
pub use mcp_result_core::{serve_stdio, serve_stdio_with_state};
// A tool's own questions to its client, and how long a call waits for their answers.
pub use mcp_result_core::AskPolicy;
#[cfg(feature = "elicitation")]
pub use mcp_result_core::{Ask, Elicited, Question};
// For a server that writes some `ServerHandler` methods itself.
pub use mcp_result_core::handler;

// The rooms users name by path.
#[cfg(feature = "docs")]
pub use mcp_result_core::docs;
#[cfg(feature = "http")]
pub use mcp_result_core::http;
#[cfg(feature = "oauth")]
pub use mcp_result_core::oauth;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub use mcp_result_core::sql;
#[cfg(feature = "testing")]
pub use mcp_result_core::testing;
#[cfg(feature = "client")]
pub use mcp_result_core::view;
pub use mcp_result_core::{
    approval, audit, content, contract, extract, idempotency, identity, key, keys, lint, meta,
    pagination, progress, schema, store, subscriptions, task,
};

// The crates generated code and users need, at the versions this crate uses.
pub use mcp_result_core::{rmcp, schemars, serde, serde_json};

// `meta_key!`, the compile-time `_meta` key check; the harness's snapshot macros.
pub use mcp_result_core::meta_key;
#[cfg(feature = "testing")]
pub use mcp_result_core::{assert_result_snapshot, assert_tools_snapshot};

#[doc(hidden)]
pub use mcp_result_core::__private;
