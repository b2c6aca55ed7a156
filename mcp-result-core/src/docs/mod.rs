//! Documentation of every tool a server exposes, rendered from its `tools/list` payload.
//!
//! The source is the data clients get: each rmcp [`Tool`](rmcp::model::Tool) (`name`,
//! `title`, `description`, `inputSchema`, `outputSchema`, `annotations`, `_meta`), as
//! [`ToolRegistry::tools`](crate::ToolRegistry::tools) serves it, plus what `tools/list`
//! does not carry and the registry knows: each tool's time limit and the error kinds the
//! framework itself answers its calls with. Nothing is read from Rust types directly, so the
//! docs say what a client sees: a `#[secret]` field is absent from every schema by
//! construction ([`crate::Secret`]), hence from the docs too.
//!
//! | part | what | source |
//! |---|---|---|
//! | model | [`ServerDocs`], [`ToolDoc`], [`FieldDoc`], [`ErrorKindDoc`], [`Hints`], [`Wrap`] | `model.rs` |
//! | extraction | [`ServerDocs::for_tool_set`], [`ServerDocs::from_registry`], [`ServerDocs::from_tools`]: each `outputSchema` read back by [`crate::schema::ToolOutputSchema::read`] | `extract.rs` |
//! | schema walker | fields of a schema as rows, through the one [`crate::schema::Resolver`] | `walk.rs` |
//! | renderers | [`ServerDocs::to_markdown`], [`ServerDocs::to_json`] | `markdown.rs`, `json.rs` |
//!
//! Two renderings of one [`ServerDocs`] value:
//!
//! - [`ServerDocs::to_markdown`]: a table of contents, then per tool its title, description,
//!   annotations (MCP defaults applied where a hint is absent), the write contract, input
//!   parameters, output fields, error kinds and artifacts; then the error envelope.
//! - [`ServerDocs::to_json`]: `{"server", "tools", "docs", "errorEnvelope"}` where `tools` is
//!   the `tools/list` payload and `docs` maps each tool name to its [`ToolDoc`].
//!
//! Both are deterministic, and the same whatever serde_json's map order (its
//! `preserve_order` feature, which any crate of a binary may turn on): tools are sorted by
//! name; the properties of each object by name (its own, then those of its `allOf`
//! branches), constraints in a fixed keyword order, and the keys of every JSON object in name
//! order; `$ref`s are resolved inside each schema (schemas are self-contained, MCP
//! 2025-11-25 "JSON Schema Usage").
//!
//! ```
//! use std::sync::Arc;
//! use mcp_result_core::{docs::ServerDocs, rmcp::model::{Tool, ToolAnnotations}, serde_json::json};
//!
//! let input = json!({
//!     "type": "object",
//!     "properties": {"query": {"type": "string", "minLength": 1, "description": "Words to find."}},
//!     "required": ["query"]
//! });
//! let tool = Tool::new("search", "Search things.", Arc::new(input.as_object().unwrap().clone()))
//!     .with_annotations(ToolAnnotations::new().read_only(true));
//! let docs = ServerDocs::from_tools("demo", &[tool]);
//! let markdown = docs.to_markdown();
//! assert!(markdown.contains("| `query` | string | yes | minLength: `1` | Words to find. |"));
//! assert_eq!(docs.to_json()["docs"]["search"]["hints"]["destructive"]["declared"], false);
//! ```

mod extract;
mod json;
mod markdown;
mod model;
mod walk;

pub use model::{ErrorKindDoc, FieldDoc, Hint, Hints, ServerDocs, ToolDoc, Wrap};
