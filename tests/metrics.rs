//! Metrics on the application's own OpenTelemetry meter (issue 49 item 3, feature
//! `opentelemetry`): `State::with_meter`, a server written the way the guide teaches, over a
//! real transport with rmcp's client, the meter's provider exporting to OpenTelemetry's
//! in-memory exporter:
//!
//! - `mcp.server.operation.duration` (seconds) for each `tools/call`, with the conventions'
//!   attribute names, `error.type` for a protocol error, and no argument or id in them;
//! - a replayed key moves `mcp_result.idempotency.replays` by exactly one;
//! - an audit record the sink refuses moves `mcp_result.audit.refused` by exactly one.

use std::{collections::BTreeMap, sync::Arc};

use mcp_result::{
    audit::{AuditRecord, AuditSink, Phase},
    extract::WriteContext,
    mcp_handler, mcp_tools,
    rmcp::{
        model::{CallToolRequestParams, CallToolResult},
        service::{RoleClient, RunningService, ServiceExt},
        ServerHandler,
    },
    store::{StoreError, StoreFuture},
    AuditEventId, ServerServices, State, Status, ToolError, ToolResult,
};
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry_sdk::metrics::{
    data::{AggregatedMetrics, MetricData},
    InMemoryMetricExporter, PeriodicReader, SdkMeterProvider,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// An audit sink that keeps records, and refuses the outcome of a write keyed `refuse`.
#[derive(Clone, Default)]
struct Sink;

impl AuditSink for Sink {
    fn record<'a>(&'a self, record: &'a AuditRecord) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            if record.phase == Phase::Outcome && record.idempotency_key.as_deref() == Some("refuse")
            {
                return Err(StoreError::Invalid("the audit log is full".into()));
            }
            Ok(())
        })
    }
}

#[derive(Clone)]
struct Desk;

impl ServerServices for Desk {
    fn audit_sink(&self, _state: &State) -> Arc<dyn AuditSink> {
        Arc::new(Sink)
    }
}

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct AddArgs {
    /// The same for every retry of one write.
    request_id: String,
}

/// Added.
#[derive(Serialize, JsonSchema, ToolResult)]
#[serde(rename_all = "camelCase")]
struct Added {
    status: Status,
    retry_safe: bool,
    audit_event_id: AuditEventId,
}

#[mcp_tools(services)]
impl Desk {
    /// Looks something up.
    #[mcp_tool(read_only)]
    async fn lookup(&self, _args: NoArgs) -> Result<String, ToolError> {
        Ok("found".into())
    }

    /// Adds something, once per key.
    #[mcp_tool(idempotency_key = "requestId")]
    async fn add(&self, args: AddArgs, write: WriteContext) -> Result<Added, ToolError> {
        let _ = args.request_id;
        Ok(Added {
            status: Status::Succeeded,
            retry_safe: write.retry_safe(),
            audit_event_id: write.audit_event_id().clone(),
        })
    }
}

#[mcp_handler]
impl ServerHandler for Desk {}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name.to_owned())
        .with_arguments(arguments.as_object().unwrap().clone())
}

async fn serve(state: State) -> RunningService<RoleClient, ()> {
    let (server_io, client_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        if let Err(error) = mcp_result::serve_with_state(Desk, server_io, state).await {
            panic!("{error}");
        }
    });
    ().serve(client_io).await.expect("initialize")
}

/// Each data point of the exported metrics: (instrument, its attributes) → its count (a
/// histogram's) or value (a counter's).
fn points(exporter: &InMemoryMetricExporter) -> BTreeMap<(String, BTreeMap<String, String>), u64> {
    let mut points = BTreeMap::new();
    for resource in exporter.get_finished_metrics().unwrap() {
        for scope in resource.scope_metrics() {
            for metric in scope.metrics() {
                let name = metric.name().to_owned();
                let attributes = |kvs: &mut dyn Iterator<Item = &opentelemetry::KeyValue>| {
                    kvs.map(|kv| (kv.key.to_string(), kv.value.to_string()))
                        .collect::<BTreeMap<_, _>>()
                };
                match metric.data() {
                    AggregatedMetrics::F64(MetricData::Histogram(histogram)) => {
                        for point in histogram.data_points() {
                            points.insert(
                                (name.clone(), attributes(&mut point.attributes())),
                                point.count(),
                            );
                        }
                    }
                    AggregatedMetrics::U64(MetricData::Sum(sum)) => {
                        for point in sum.data_points() {
                            points.insert(
                                (name.clone(), attributes(&mut point.attributes())),
                                point.value(),
                            );
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    points
}

fn attributes(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[tokio::test]
async fn calls_replays_and_refused_records_are_measured_on_the_applications_meter() {
    let exporter = InMemoryMetricExporter::default();
    let provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(exporter.clone()).build())
        .build();
    let state = State::new()
        .with_meter(provider.meter("mcp-result-test"))
        .allow_mixed_stores();
    let client = serve(state).await;
    for _ in 0..2 {
        let found: CallToolResult = client.call_tool(call("lookup", json!({}))).await.unwrap();
        assert_eq!(found.is_error, Some(false));
    }
    for _ in 0..2 {
        let added = client
            .call_tool(call("add", json!({"requestId": "k-1"})))
            .await
            .unwrap();
        assert_eq!(added.is_error, Some(false), "{added:?}");
    }
    let refused = client
        .call_tool(call("add", json!({"requestId": "refuse"})))
        .await
        .unwrap();
    // Answered: the write ran; its outcome record's failure is logged, and counted.
    assert_eq!(refused.is_error, Some(false), "{refused:?}");
    let unknown = client.call_tool(call("no_such_tool", json!({}))).await;
    assert!(unknown.is_err());
    // Every request the framework answers is measured, not only tools/call.
    client.list_all_tools().await.unwrap();
    // The session ends with its connection: its duration is measured.
    client.cancel().await.unwrap();
    let ended = std::time::Instant::now();
    loop {
        provider.force_flush().unwrap();
        let sessions = points(&exporter)
            .keys()
            .filter(|(name, _)| name == "mcp.server.session.duration")
            .count();
        if sessions > 0 || ended.elapsed() > std::time::Duration::from_secs(10) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    provider.force_flush().unwrap();

    let points = points(&exporter);
    let base = [
        ("mcp.method.name", "tools/call"),
        ("mcp.protocol.version", "2025-11-25"),
        ("network.transport", "pipe"),
    ];
    let with = |extra: &[(&str, &str)]| {
        let mut all: Vec<(&str, &str)> = base.to_vec();
        all.extend_from_slice(extra);
        attributes(&all)
    };
    let duration = "mcp.server.operation.duration".to_owned();
    assert_eq!(
        points.get(&(duration.clone(), with(&[("gen_ai.tool.name", "lookup")]))),
        Some(&2),
        "{points:#?}"
    );
    assert_eq!(
        points.get(&(duration.clone(), with(&[("gen_ai.tool.name", "add")]))),
        Some(&3),
        "{points:#?}"
    );
    assert_eq!(
        points.get(&(duration.clone(), with(&[("error.type", "-32602")]))),
        Some(&1),
        "an unknown tool's name is no attribute: {points:#?}"
    );
    assert_eq!(
        points.get(&(
            duration.clone(),
            attributes(&[
                ("mcp.method.name", "tools/list"),
                ("mcp.protocol.version", "2025-11-25"),
                ("network.transport", "pipe"),
            ])
        )),
        Some(&1),
        "{points:#?}"
    );
    assert_eq!(
        points.get(&(
            "mcp.server.session.duration".to_owned(),
            attributes(&[
                ("mcp.protocol.version", "2025-11-25"),
                ("network.transport", "pipe"),
            ])
        )),
        Some(&1),
        "{points:#?}"
    );
    assert_eq!(
        points.get(&(
            "mcp_result.idempotency.replays".to_owned(),
            attributes(&[("gen_ai.tool.name", "add")])
        )),
        Some(&1),
        "{points:#?}"
    );
    assert_eq!(
        points.get(&("mcp_result.audit.refused".to_owned(), BTreeMap::new())),
        Some(&1),
        "{points:#?}"
    );
    // No attribute holds an argument or an id.
    for ((_, attributes), _) in &points {
        for value in attributes.values() {
            assert!(
                !value.contains("k-1") && !value.contains("refuse"),
                "{value}"
            );
        }
    }
}
