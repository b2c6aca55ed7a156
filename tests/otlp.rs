//! The example's own OpenTelemetry pipeline against a real OTLP receiver (issue 49): the
//! helpdesk over stdio, built with the feature `opentelemetry`, exports over OTLP/HTTP
//! (protobuf) to the endpoint `OTEL_EXPORTER_OTLP_ENDPOINT` names: a receiver in this test,
//! which decodes each export with the OpenTelemetry protocol's own types
//! (`opentelemetry-proto`). The TypeScript SDK client (`tests/clients/call-stdio.mjs`) calls:
//!
//! - a call carrying `_meta.traceparent` gets a server span in the client's trace, its
//!   parent the client's span, with the conventions' attributes;
//! - the duration histogram arrives in seconds with the conventions' attribute names and no
//!   argument or id among their values;
//! - a replayed idempotency key moves `mcp_result.idempotency.replays` by exactly one.

use std::{
    collections::BTreeMap,
    path::Path,
    sync::{Arc, Mutex},
    time::Duration,
};

use opentelemetry_proto::tonic::{
    collector::{metrics::v1::ExportMetricsServiceRequest, trace::v1::ExportTraceServiceRequest},
    common::v1::{any_value::Value as AnyValue, KeyValue},
    metrics::v1::metric::Data,
};
use prost::Message as _;
use serde_json::{json, Value};
use tokio::io::{AsyncWriteExt, BufReader};

use crate::common::{
    self, http1,
    pinned::{command, install_npm, run_ok, CLIENTS_DIR},
};

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT: &str = "00f067aa0ba902b7";

/// What the receiver was sent.
#[derive(Default)]
struct Received {
    traces: Vec<ExportTraceServiceRequest>,
    metrics: Vec<ExportMetricsServiceRequest>,
}

/// An OTLP/HTTP receiver on a free loopback port: each `POST /v1/traces` and
/// `POST /v1/metrics` decoded and kept, answered `200` with an empty (protobuf) response.
async fn receiver() -> (u16, Arc<Mutex<Received>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let received = Arc::new(Mutex::new(Received::default()));
    let kept = Arc::clone(&received);
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let kept = Arc::clone(&kept);
            tokio::spawn(async move {
                let (read, mut write) = stream.into_split();
                let mut read = BufReader::new(read);
                // One request after another on the connection.
                while let Some(request) = http1::read_request(&mut read).await {
                    {
                        let mut kept = kept.lock().unwrap();
                        let body = &*request.body;
                        match request.path.as_str() {
                            "/v1/traces" => kept
                                .traces
                                .push(ExportTraceServiceRequest::decode(body).unwrap()),
                            "/v1/metrics" => kept
                                .metrics
                                .push(ExportMetricsServiceRequest::decode(body).unwrap()),
                            other => panic!("an export to {other}"),
                        }
                    }
                    let head = http1::response_head(200, "application/x-protobuf", 0);
                    if write.write_all(head.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (port, received)
}

/// The attributes as text, by key.
fn attributes(pairs: &[KeyValue]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|pair| {
            let value = match pair.value.as_ref().and_then(|v| v.value.as_ref()) {
                Some(AnyValue::StringValue(text)) => text.clone(),
                Some(AnyValue::IntValue(number)) => number.to_string(),
                Some(AnyValue::BoolValue(flag)) => flag.to_string(),
                Some(AnyValue::DoubleValue(number)) => number.to_string(),
                other => format!("{other:?}"),
            };
            (pair.key.clone(), value)
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_examples_spans_and_metrics_reach_a_real_otlp_receiver() {
    tokio::task::spawn_blocking(install_npm)
        .await
        .unwrap()
        .expect("npm ci in tests/clients");
    let (port, received) = receiver().await;
    let helpdesk = common::example_path("helpdesk");
    let calls = json!([
        ["get_ticket", {"ticketId": "T-1001"},
            {"traceparent": format!("00-{TRACE}-{PARENT}-01"), "tracestate": "vendor=opaque"}],
        ["add_internal_note", {"ticketId": "T-1001", "body": "Exported.", "requestId": "otlp-1"}],
        ["add_internal_note", {"ticketId": "T-1001", "body": "Exported.", "requestId": "otlp-1"}],
    ]);
    let mut node = command(
        "node",
        &[
            "call-stdio.mjs",
            helpdesk.to_str().unwrap(),
            &calls.to_string(),
        ],
        Path::new(CLIENTS_DIR),
    );
    node.env(
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        format!("http://127.0.0.1:{port}"),
    )
    .env_remove("RUST_LOG");
    let done = tokio::task::spawn_blocking(move || {
        run_ok("node call-stdio.mjs", node, Duration::from_secs(120))
    })
    .await
    .unwrap()
    .unwrap_or_else(|e| panic!("{e}"));
    let results: Vec<Value> = done
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(results.len(), 3, "{}", done.stderr);
    assert_eq!(results[0]["isError"], false, "{}", results[0]);
    assert_eq!(
        results[1]["structuredContent"],
        results[2]["structuredContent"]
    );

    // The server flushed its exporters when its client closed stdin, before it exited.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        {
            let got = received.lock().unwrap();
            if !got.traces.is_empty() && !got.metrics.is_empty() {
                break;
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "nothing exported within 20 s; the server said:\n{}",
            done.stderr
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let got = received.lock().unwrap();

    // The call's server span, in the client's trace.
    let spans: Vec<_> = got
        .traces
        .iter()
        .flat_map(|export| &export.resource_spans)
        .flat_map(|resource| &resource.scope_spans)
        .flat_map(|scope| &scope.spans)
        .collect();
    let call = spans
        .iter()
        .find(|span| span.name == "tools/call get_ticket")
        .unwrap_or_else(|| {
            panic!(
                "no span of the call among {:?}",
                spans.iter().map(|s| &s.name).collect::<Vec<_>>()
            )
        });
    assert_eq!(hex(&call.trace_id), TRACE);
    assert_eq!(hex(&call.parent_span_id), PARENT);
    assert_eq!(call.trace_state, "vendor=opaque");
    assert_eq!(
        call.kind,
        opentelemetry_proto::tonic::trace::v1::span::SpanKind::Server as i32
    );
    let span_attributes = attributes(&call.attributes);
    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "get_ticket"),
        ("gen_ai.operation.name", "execute_tool"),
        ("mcp.protocol.version", "2025-11-25"),
    ] {
        assert_eq!(
            span_attributes.get(key).map(String::as_str),
            Some(value),
            "{span_attributes:?}"
        );
    }

    // The duration histogram, in seconds, with the conventions' attributes; the replay
    // counted once.
    let metrics: Vec<_> = got
        .metrics
        .iter()
        .flat_map(|export| &export.resource_metrics)
        .flat_map(|resource| &resource.scope_metrics)
        .flat_map(|scope| &scope.metrics)
        .collect();
    let duration = metrics
        .iter()
        .rev()
        .find(|metric| metric.name == "mcp.server.operation.duration")
        .expect("the duration histogram");
    assert_eq!(duration.unit, "s");
    let Some(Data::Histogram(histogram)) = &duration.data else {
        panic!("a histogram: {duration:?}");
    };
    let mut counted: BTreeMap<String, u64> = BTreeMap::new();
    for point in &histogram.data_points {
        let point_attributes = attributes(&point.attributes);
        for value in point_attributes.values() {
            assert!(
                !value.contains("otlp-1") && !value.contains("T-1001"),
                "{value}"
            );
        }
        if point_attributes.get("mcp.method.name").map(String::as_str) == Some("tools/call") {
            assert_eq!(
                point_attributes
                    .get("network.transport")
                    .map(String::as_str),
                Some("pipe")
            );
            let tool = point_attributes
                .get("gen_ai.tool.name")
                .cloned()
                .unwrap_or_default();
            *counted.entry(tool).or_default() += point.count;
        }
    }
    assert_eq!(counted.get("get_ticket"), Some(&1), "{counted:?}");
    assert_eq!(counted.get("add_internal_note"), Some(&2), "{counted:?}");
    let replays = metrics
        .iter()
        .rev()
        .find(|metric| metric.name == "mcp_result.idempotency.replays")
        .expect("the replay counter");
    let Some(Data::Sum(sum)) = &replays.data else {
        panic!("a sum: {replays:?}");
    };
    let total: i64 = sum
        .data_points
        .iter()
        .map(|point| match point.value {
            Some(opentelemetry_proto::tonic::metrics::v1::number_data_point::Value::AsInt(n)) => n,
            ref other => panic!("{other:?}"),
        })
        .sum();
    assert_eq!(total, 1, "one replay: {sum:?}");
}
