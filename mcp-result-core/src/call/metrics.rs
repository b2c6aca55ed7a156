//! Metrics of a served instance (feature `opentelemetry`), recorded on the application's
//! own OpenTelemetry meter ([`State::with_meter`](crate::State::with_meter)):
//!
//! | instrument | kind, unit | attributes | what |
//! |---|---|---|---|
//! | `mcp.server.operation.duration` | histogram, `s` | `mcp.method.name`, `gen_ai.tool.name` (the server's tools only), `error.type` (`tool_error`, or the JSON-RPC code), `mcp.protocol.version`, `network.transport` (`pipe`, `tcp`) | each request the framework answers (`tools/call`, `tools/list`, `resources/read`, `tasks/*`, `subscriptions/listen`: to its end), to its answer (the OpenTelemetry MCP semantic conventions' server metric) |
//! | `mcp.server.session.duration` | histogram, `s` | `mcp.protocol.version`, `network.transport` (`pipe`), `error.type` (`transport_error`) | each session of [`serve`](crate::serve) and [`serve_stdio`](crate::serve_stdio) (a connection is one), from its handshake to its end (streamable HTTP's sessions are not measured) |
//! | `mcp_result.idempotency.replays` | counter | `gen_ai.tool.name` | a keyed write answered from the store |
//! | `mcp_result.idempotency.in_progress` | counter | `gen_ai.tool.name` | a keyed write answered `in_progress` (its first call still runs) |
//! | `mcp_result.writes.outcome_unknown` | counter | `gen_ai.tool.name` | a write answered `outcome_unknown` |
//! | `mcp_result.approvals.requested` | counter | `gen_ai.tool.name` | a write answered `blocked` for a human |
//! | `mcp_result.approvals.decided` | counter | `gen_ai.tool.name`, `mcp_result.decision` (`approved`, `rejected`) | a decision recorded |
//! | `mcp_result.audit.refused` | counter | none | an audit record its sink refused |
//!
//! No attribute holds an argument, an id or a caller: every value comes from a short list.
//! The `mcp_result.*` counters read the audit records as they are recorded
//! ([`metered`]), so they count what the audit trail holds.

use std::{sync::Arc, time::Instant};

use opentelemetry::{
    metrics::{Counter, Histogram, Meter},
    KeyValue,
};
use rmcp::{model::CallToolResult, service::RequestContext, ErrorData, RoleServer};

use crate::{
    store::StoreFuture,
    wire::{envelope::ErrorKind, status::Status},
    write::audit::{AuditRecord, AuditSink, Phase},
};

/// The instruments of one instance, made once from its meter.
#[derive(Clone)]
pub(crate) struct Metrics(Arc<Instruments>);

struct Instruments {
    duration: Histogram<f64>,
    session: Histogram<f64>,
    replays: Counter<u64>,
    in_progress: Counter<u64>,
    outcome_unknown: Counter<u64>,
    requested: Counter<u64>,
    decided: Counter<u64>,
    refused: Counter<u64>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    pub(crate) fn new(meter: &Meter) -> Self {
        let counter = |name: &'static str, what: &'static str| {
            meter.u64_counter(name).with_description(what).build()
        };
        Self(Arc::new(Instruments {
            duration: meter
                .f64_histogram("mcp.server.operation.duration")
                .with_unit("s")
                .with_description("The duration of an MCP request, as the server saw it")
                .with_boundaries(vec![
                    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
                ])
                .build(),
            session: meter
                .f64_histogram("mcp.server.session.duration")
                .with_unit("s")
                .with_description("The duration of an MCP session, as the server saw it")
                .with_boundaries(vec![
                    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
                    600.0, 1800.0, 3600.0, 14400.0, 28800.0, 86400.0,
                ])
                .build(),
            replays: counter(
                "mcp_result.idempotency.replays",
                "Keyed writes answered from the idempotency store",
            ),
            in_progress: counter(
                "mcp_result.idempotency.in_progress",
                "Keyed writes answered in_progress: their first call still runs",
            ),
            outcome_unknown: counter(
                "mcp_result.writes.outcome_unknown",
                "Writes answered outcome_unknown",
            ),
            requested: counter(
                "mcp_result.approvals.requested",
                "Writes answered blocked, waiting for a human approval",
            ),
            decided: counter(
                "mcp_result.approvals.decided",
                "Approval decisions recorded",
            ),
            refused: counter(
                "mcp_result.audit.refused",
                "Audit records the audit sink refused",
            ),
        }))
    }

    /// Records a `tools/call` of `tool` (`None`: no tool of this server) answered with
    /// `answer`, started at `started`.
    pub(crate) fn record_call(
        &self,
        tool: Option<&str>,
        answer: Result<&CallToolResult, &ErrorData>,
        started: Instant,
        context: &RequestContext<RoleServer>,
    ) {
        let error = match answer {
            Ok(result) if result.is_error == Some(true) => Some("tool_error".to_owned()),
            Ok(_) => None,
            Err(error) => Some(error.code.0.to_string()),
        };
        self.record_operation("tools/call", tool, error, started, context);
    }

    /// Records a request of `method` (of `tool`, for a `tools/call` of one of the server's
    /// tools) started at `started`, answered with `error` (`tool_error`, a JSON-RPC code) or
    /// none.
    pub(crate) fn record_operation(
        &self,
        method: &'static str,
        tool: Option<&str>,
        error: Option<String>,
        started: Instant,
        context: &RequestContext<RoleServer>,
    ) {
        let mut attributes = vec![KeyValue::new("mcp.method.name", method)];
        if let Some(tool) = tool {
            attributes.push(KeyValue::new("gen_ai.tool.name", tool.to_owned()));
        }
        if let Some(error) = error {
            attributes.push(KeyValue::new("error.type", error));
        }
        if let Some(info) = context.peer.peer_info() {
            attributes.push(KeyValue::new(
                "mcp.protocol.version",
                info.protocol_version.to_string(),
            ));
        }
        #[cfg(feature = "http")]
        let over_http = context.extensions.get::<http::request::Parts>().is_some();
        #[cfg(not(feature = "http"))]
        let over_http = false;
        attributes.push(KeyValue::new(
            "network.transport",
            if over_http { "tcp" } else { "pipe" },
        ));
        self.0
            .duration
            .record(started.elapsed().as_secs_f64(), &attributes);
    }

    /// Records a session over a pipe (stdio, or any transport but streamable HTTP) that
    /// started at `started`, on protocol `version`, and ended well or not (`failed`).
    pub(crate) fn record_session(&self, started: Instant, version: Option<String>, failed: bool) {
        let mut attributes = vec![KeyValue::new("network.transport", "pipe")];
        if let Some(version) = version {
            attributes.push(KeyValue::new("mcp.protocol.version", version));
        }
        if failed {
            attributes.push(KeyValue::new("error.type", "transport_error"));
        }
        self.0
            .session
            .record(started.elapsed().as_secs_f64(), &attributes);
    }

    /// Counts what `record`, about to be recorded, says happened.
    fn count(&self, record: &AuditRecord) {
        let tool = || [KeyValue::new("gen_ai.tool.name", record.tool.clone())];
        match record.phase {
            Phase::Replay => self.0.replays.add(1, &tool()),
            Phase::Approved | Phase::Rejected => {
                let decision = if record.phase == Phase::Approved {
                    "approved"
                } else {
                    "rejected"
                };
                self.0.decided.add(
                    1,
                    &[
                        KeyValue::new("gen_ai.tool.name", record.tool.clone()),
                        KeyValue::new("mcp_result.decision", decision),
                    ],
                );
            }
            Phase::Outcome => match (record.error_kind, record.status) {
                (Some(ErrorKind::InProgress), _) => self.0.in_progress.add(1, &tool()),
                (Some(ErrorKind::OutcomeUnknown), _) => self.0.outcome_unknown.add(1, &tool()),
                (_, Some(Status::Blocked)) if record.requires_human_review == Some(true) => {
                    self.0.requested.add(1, &tool());
                }
                _ => {}
            },
            Phase::Intent => {}
        }
    }
}

/// `sink`, its records counted on `metrics` when the instance has some
/// ([`State::with_meter`](crate::State::with_meter)).
pub(crate) fn metered(sink: Arc<dyn AuditSink>, metrics: Option<&Metrics>) -> Arc<dyn AuditSink> {
    match metrics {
        Some(metrics) => Arc::new(Metered {
            inner: sink,
            metrics: metrics.clone(),
        }),
        None => sink,
    }
}

/// An audit sink whose records are counted ([`Metrics`]).
struct Metered {
    inner: Arc<dyn AuditSink>,
    metrics: Metrics,
}

impl AuditSink for Metered {
    fn record<'a>(&'a self, record: &'a AuditRecord) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.metrics.count(record);
            let recorded = self.inner.record(record).await;
            if recorded.is_err() {
                self.metrics.0.refused.add(1, &[]);
            }
            recorded
        })
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        self.inner.as_any()
    }

    fn approval_records<'a>(
        &'a self,
        approval_request_id: &'a str,
        limit: usize,
    ) -> StoreFuture<'a, Option<Vec<AuditRecord>>> {
        self.inner.approval_records(approval_request_id, limit)
    }

    fn durable(&self) -> bool {
        self.inner.durable()
    }
}
