//! One `tracing` span per `tools/call`, named and filled so that an OpenTelemetry exporter
//! (`tracing-opentelemetry`) maps it onto the MCP server span of the OpenTelemetry GenAI
//! semantic conventions ("Semantic conventions for Model Context Protocol (MCP)", server
//! span, status Development; open-telemetry/semantic-conventions-genai `docs/gen-ai/mcp.md`).
//!
//! | field | value | source |
//! |---|---|---|
//! | `otel.name` | `tools/call {tool}` (`tools/call` for an unknown tool: a span name stays low-cardinality) | MCP span name `{mcp.method.name} {target}` |
//! | `otel.kind` | `server` | MCP server span kind `SERVER` |
//! | `mcp.method.name` | `tools/call` | required |
//! | `gen_ai.operation.name` | `execute_tool` | recommended for tool calls |
//! | `gen_ai.tool.name` | the tool (known tools only) | conditionally required |
//! | `jsonrpc.request.id` | the JSON-RPC request id | conditionally required |
//! | `mcp.protocol.version` | the version the client initialized with | recommended |
//! | `error.type` | `tool_error` for an `isError` result, the JSON-RPC code (`-32602`) for a protocol error | conditionally required; "`tool_error`" when `isError` is `true` |
//! | `rpc.response.status_code` | the JSON-RPC error code, for a protocol error | conditionally required |
//! | `otel.status_code` | `ERROR` when `error.type` is set | "Span status SHOULD be set to `ERROR` when `error.type` is present" |
//! | `otel.status_description` | the JSON-RPC error's message, for a protocol error | "The status description SHOULD match the `JSONRPCError.message`" |
//! | `mcp_result.is_error` | the result's `isError` | this crate |
//! | `mcp_result.error_kind` | the envelope's `errorKind` (`not_found`, `upstream_timeout`, ...) | this crate |
//! | `mcp_result.status` | `structuredContent.status` (`succeeded`, `failed`, `unknown`, ...) | this crate |
//! | `mcp_result.audit_event_id` | a write's `auditEventId` | this crate |
//! | `mcp_result.correlation_id` | the id a logged cause is under (`internal`, errors from [`ResultExt`](crate::ResultExt)) | this crate |
//! | `mcp_result.duration_ms` | milliseconds until the answer | this crate (the span's own duration is the same, to its close) |
//!
//! Every other request the framework answers (`tools/list`, `resources/read`, `tasks/get`,
//! `tasks/update`, `tasks/cancel`, `subscriptions/listen`, `resources/subscribe` and
//! `unsubscribe`) gets a span of its own ([`observe`]): named after its method, with
//! `mcp.method.name`, `jsonrpc.request.id`, `mcp.protocol.version`, `mcp.resource.uri` (for
//! a resource's request), and for a JSON-RPC error `error.type`, `rpc.response.status_code`
//! and an `ERROR` status; its client's trace continued as a call's is, and its duration in
//! `mcp.server.operation.duration` when the instance has a meter.
//!
//! The span is at `INFO` level with target `mcp_result`; every log line of the call (a
//! panic's cause, a cause logged by [`ResultExt`](crate::ResultExt), a write's task) is
//! inside it, so its correlation id and the tool are on the same trace. A write that outlives
//! its answer (past its time limit) keeps the span open until it ends.

use std::{future::Future, time::Instant};

use rmcp::{model::CallToolResult, service::RequestContext, ErrorData, RoleServer};
use serde_json::Value;
use tracing::{field::Empty, Instrument as _, Span};

use crate::state::State;

/// The span of one `tools/call` of `tool` (`known`: a tool of this server).
pub(crate) fn call_span(tool: &str, known: bool, context: &RequestContext<RoleServer>) -> Span {
    let span = tracing::info_span!(
        target: "mcp_result",
        "tools/call",
        "otel.name" = Empty,
        "otel.kind" = "server",
        "otel.status_code" = Empty,
        "otel.status_description" = Empty,
        "mcp.method.name" = "tools/call",
        "gen_ai.operation.name" = "execute_tool",
        "gen_ai.tool.name" = Empty,
        "jsonrpc.request.id" = %context.id,
        "mcp.protocol.version" = Empty,
        "error.type" = Empty,
        "rpc.response.status_code" = Empty,
        "mcp_result.is_error" = Empty,
        "mcp_result.error_kind" = Empty,
        "mcp_result.status" = Empty,
        "mcp_result.audit_event_id" = Empty,
        "mcp_result.correlation_id" = Empty,
        "mcp_result.duration_ms" = Empty,
    );
    if span.is_disabled() {
        return span;
    }
    if known {
        span.record("otel.name", format!("tools/call {tool}"));
        span.record("gen_ai.tool.name", tool);
    } else {
        span.record("otel.name", "tools/call");
    }
    of_client(&span, context);
    span
}

/// What a request's span takes from its client: the protocol version, and the trace its
/// `params._meta` carries (feature `opentelemetry`).
fn of_client(span: &Span, context: &RequestContext<RoleServer>) {
    if let Some(info) = context.peer.peer_info() {
        span.record("mcp.protocol.version", info.protocol_version.to_string());
    }
    #[cfg(feature = "opentelemetry")]
    super::trace::continue_trace(span, context);
}

/// A JSON-RPC error answered: `error.type` and `rpc.response.status_code` its code, the
/// span's status `ERROR` with the error's message.
fn record_protocol_error(span: &Span, error: &ErrorData) {
    let code = error.code.0.to_string();
    span.record("error.type", code.as_str());
    span.record("rpc.response.status_code", code.as_str());
    span.record("otel.status_code", "ERROR");
    span.record("otel.status_description", &*error.message);
}

/// Records the answer of the call on `span`: its outcome and how long it took.
pub(crate) fn record_answer(
    span: &Span,
    answer: Result<&CallToolResult, &ErrorData>,
    started: Instant,
) {
    if span.is_disabled() {
        return;
    }
    span.record(
        "mcp_result.duration_ms",
        u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    );
    let result = match answer {
        Ok(result) => result,
        Err(error) => {
            record_protocol_error(span, error);
            return;
        }
    };
    let is_error = result.is_error == Some(true);
    span.record("mcp_result.is_error", is_error);
    if is_error {
        span.record("error.type", "tool_error");
        span.record("otel.status_code", "ERROR");
    }
    let Some(Value::Object(structured)) = &result.structured_content else {
        return;
    };
    let text = |key: &str| structured.get(key).and_then(Value::as_str);
    if is_error {
        if let Some(kind) = text("errorKind") {
            span.record("mcp_result.error_kind", kind);
        }
    }
    for (key, field) in [
        ("status", "mcp_result.status"),
        ("auditEventId", "mcp_result.audit_event_id"),
        ("correlationId", "mcp_result.correlation_id"),
    ] {
        if let Some(value) = text(key) {
            span.record(field, value);
        }
    }
}

/// The span of one request of `method`, not a `tools/call` (see the module's docs).
fn request_span(method: &'static str, context: &RequestContext<RoleServer>) -> Span {
    let span = tracing::info_span!(
        target: "mcp_result",
        "mcp.request",
        "otel.name" = method,
        "otel.kind" = "server",
        "otel.status_code" = Empty,
        "otel.status_description" = Empty,
        "mcp.method.name" = method,
        "jsonrpc.request.id" = %context.id,
        "mcp.protocol.version" = Empty,
        "mcp.resource.uri" = Empty,
        "error.type" = Empty,
        "rpc.response.status_code" = Empty,
    );
    if !span.is_disabled() {
        of_client(&span, context);
    }
    span
}

/// Runs `answer`, the framework's answer to a request of `method` (about the resource `uri`,
/// for a resource's request), in the request's span, and records its outcome there and its
/// duration on the instance's meter ([`State::with_meter`]).
pub(crate) async fn observe<T>(
    method: &'static str,
    uri: Option<&str>,
    state: &State,
    context: &RequestContext<RoleServer>,
    answer: impl Future<Output = Result<T, ErrorData>>,
) -> Result<T, ErrorData> {
    let span = request_span(method, context);
    if let Some(uri) = uri {
        span.record("mcp.resource.uri", uri);
    }
    let started = Instant::now();
    let answer = answer.instrument(span.clone()).await;
    if let Err(error) = &answer {
        if !span.is_disabled() {
            record_protocol_error(&span, error);
        }
    }
    #[cfg(feature = "opentelemetry")]
    if let Some(metrics) = state.metrics() {
        let error = answer.as_ref().err().map(|error| error.code.0.to_string());
        metrics.record_operation(method, None, error, started, context);
    }
    #[cfg(not(feature = "opentelemetry"))]
    let _ = (state, started);
    answer
}
