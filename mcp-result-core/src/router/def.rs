//! One tool as `#[mcp_tool]` describes it, and the blocks of tools a server is made of.

use std::{fmt, future::Future, pin::Pin, sync::Arc, time::Duration};

use rmcp::model::{JsonObject, ToolAnnotations};

use crate::{
    schema::OutputShape,
    tool::extract::{ToolCall, ToolExtension},
};

/// The future a tool's generated call glue returns: it owns its clone of the server, so it
/// can outlive the request (a write runs to its end).
pub type ToolFuture =
    Pin<Box<dyn Future<Output = crate::result::answer::ToolAnswer> + Send + 'static>>;

/// The call glue `#[mcp_tools]` generates for one tool: extracts the parameters from the
/// call, runs the method on `server` (a synchronous one on a blocking thread) and builds its
/// result.
pub(crate) type CallFn<S> = fn(S, ToolCall) -> ToolFuture;

/// One tool as `#[mcp_tool]` describes it: the static facts plus the call glue. Built by
/// generated code; [`ToolRegistry::new`](crate::ToolRegistry::new) turns the schema thunks into schemas once.
pub struct ToolDef<S> {
    /// Tool name (checked at compile time: `^[a-zA-Z0-9_-]{1,64}$`, or with
    /// `#[mcp_tool(spec_name)]` 1 to 128 of `A-Z a-z 0-9 _ - .`).
    pub name: &'static str,
    /// The method that implements the tool (`search_tickets`), for messages that must tell
    /// two tools of one name apart.
    pub method: &'static str,
    /// Human-readable title, if any.
    pub title: Option<&'static str>,
    /// Description (the method's doc comment or `description = "..."`).
    pub description: &'static str,
    /// Tool annotations (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
    /// `openWorldHint`).
    pub annotations: ToolAnnotations,
    /// The full input schema of the argument type: the one calls are validated against.
    /// `tools/list` advertises its portable profile ([`crate::schema::portable_input`]).
    pub input_schema: fn() -> Arc<JsonObject>,
    /// What the other parameters add to the tool: arguments they read themselves and
    /// `_meta` entries ([`crate::extract::ToolExtension`]; a `Pager`'s `cursor` and
    /// `pageSize`).
    pub extensions: fn() -> Vec<ToolExtension>,
    /// The success type's `structuredContent` schema and wrapping; `None` for a tool whose
    /// results are plain content ([`Unstructured`](crate::Unstructured)): no
    /// `outputSchema`.
    pub output: fn() -> Option<Arc<OutputShape>>,
    /// The result's keys marked `#[mcp_result(bytes_as_numbers)]`: byte sequences there are
    /// meant as numbers; any other in the result (or any in the arguments) stops the server
    /// from starting ([`crate::schema::byte_sequences`]).
    pub bytes_as_numbers: &'static [&'static str],
    /// `#[mcp_tool(timeout_ms = N)]`: past this a read-only call is abandoned and answered
    /// `upstream_timeout`; a write is answered with an unknown outcome and runs to its end.
    pub timeout: Option<Duration>,
    /// `#[mcp_tool(idempotency_key = "field")]`: the argument that carries the idempotency
    /// key, for hosts whose models cannot set `_meta` (a top-level string property).
    pub idempotency_key: Option<&'static str>,
    /// `#[mcp_tool(requires_approval)]` (`Some("")`) or `approval = "Close {ticketId}"`: the
    /// write needs a human decision first ([`crate::approval`]); the approval text.
    pub approval: Option<&'static str>,
    /// `#[mcp_tool(scopes = "tickets:write")]`: the OAuth scopes (RFC 6749 §3.3) a caller
    /// needs, all of them; empty for none. Checked before the arguments: over HTTP a `403`
    /// `insufficient_scope` challenge (MCP "Authorization", Scope Challenge Handling), over
    /// stdio a `permission_denied` result naming `requiredScope`.
    pub scopes: &'static [&'static str],
    /// `#[mcp_tool(full_input_schema)]`: `tools/list` advertises the full input schema (JSON
    /// Schema 2020-12, compositions at the root included) instead of its host-portable
    /// profile ([`crate::schema::portable_input`]), for servers whose clients take full
    /// schemas. The lint still reports what each host would reject.
    pub full_input_schema: bool,
    /// `#[mcp_tool(task = "optional" | "required")]`: a call may be answered with a task
    /// (MCP tasks extension, SEP-2663; [`crate::task`]).
    pub task: Option<crate::task::TaskSupport>,
    /// Extracts the parameters, runs the method and builds its result.
    pub call: CallFn<S>,
}

/// The tools of one `#[mcp_tools]` impl block: the server's main block (`#[mcp_tools]`, the
/// one that implements [`ToolSet`](crate::ToolSet)) or a named block it includes
/// (`#[mcp_tools(block = billing)]`, listed in `#[mcp_tools(include(billing))]` on the main
/// block). Built by generated code; [`ToolRegistry::from_blocks`](crate::ToolRegistry::from_blocks) makes one registry of all
/// of a server's blocks.
pub struct ToolBlock<S> {
    /// The server type as written (`Desk`), for messages.
    pub server: &'static str,
    /// `None` for the main block, `Some("billing")` for `#[mcp_tools(block = billing)]`.
    pub block: Option<&'static str>,
    /// The block's tools, in declaration order.
    pub tools: Vec<ToolDef<S>>,
}

impl<S> ToolBlock<S> {
    /// Where a tool of this block comes from, as messages name it:
    /// `` `Desk::refund` (`#[mcp_tools(block = billing)]`) ``.
    pub(crate) fn origin(&self, method: &str) -> String {
        match self.block {
            None => format!("`{}::{method}` (`#[mcp_tools]`)", self.server),
            Some(block) => format!(
                "`{}::{method}` (`#[mcp_tools(block = {block})]`)",
                self.server
            ),
        }
    }
}

/// A problem with a server's tool definitions found when its registry is built (at server
/// start, on the first `tools/list` or `tools/call`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool `{tool}`: {message}")]
#[non_exhaustive]
pub struct RegistryError {
    /// The tool whose definition is broken.
    pub tool: &'static str,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl<S> fmt::Debug for ToolDef<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolDef")
            .field("name", &self.name)
            .field("method", &self.method)
            .field("timeout", &self.timeout)
            .field("idempotency_key", &self.idempotency_key)
            .field("approval", &self.approval)
            .finish_non_exhaustive()
    }
}

impl<S> fmt::Debug for ToolBlock<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolBlock")
            .field("server", &self.server)
            .field("block", &self.block)
            .field("tools", &self.tools)
            .finish()
    }
}

/// A broken tool definition as a JSON-RPC `-32603` (the request cannot be served).
pub(crate) fn registry_error(error: &RegistryError) -> rmcp::ErrorData {
    rmcp::ErrorData::internal_error(error.to_string(), None)
}
