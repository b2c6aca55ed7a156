//! A client's trace continued into the server's span (issue 49 item 2, feature
//! `opentelemetry`): a server written the way the guide teaches, served over a real
//! transport to rmcp's client, its spans exported by the application's own
//! `tracing-opentelemetry` layer into OpenTelemetry's in-memory exporter:
//!
//! - a call whose `params._meta` carries a W3C `traceparent` (and `tracestate`) gets a
//!   server span in the client's trace, its parent the client's span, remote, its
//!   `tracestate` kept;
//! - a call with an invalid `traceparent` is answered as any other, its span under the
//!   server's own spans (never an error);
//! - a `tools/list` carrying one gets a `tools/list` span in the client's trace too (every
//!   request the framework answers has its span).

use mcp_result::{
    mcp_handler, mcp_tools,
    rmcp::{
        model::{CallToolRequestParams, RequestMetaObject},
        ServerHandler, ServiceExt,
    },
    ToolError,
};
use opentelemetry::trace::{SpanId, TraceId, TracerProvider as _};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use tracing_subscriber::layer::SubscriberExt as _;

#[derive(Clone)]
struct Clock;

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

#[mcp_tools]
impl Clock {
    /// Says it is there.
    #[mcp_tool(read_only)]
    async fn ping(&self, _args: NoArgs) -> Result<String, ToolError> {
        Ok("pong".into())
    }
}

#[mcp_handler]
impl ServerHandler for Clock {}

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT: &str = "00f067aa0ba902b7";
const LIST_PARENT: &str = "00f067aa0ba902b8";

fn ping(meta: serde_json::Value) -> CallToolRequestParams {
    let mut params =
        CallToolRequestParams::new("ping").with_arguments(json!({}).as_object().unwrap().clone());
    let mut object = RequestMetaObject::default();
    for (key, value) in meta.as_object().unwrap() {
        object.0.insert(key.clone(), value.clone());
    }
    params.meta = Some(object);
    params
}

#[tokio::test(flavor = "current_thread")]
async fn a_call_carrying_traceparent_continues_the_clients_trace() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("mcp-result-test")));
    let _default = tracing::subscriber::set_default(subscriber);

    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let _ = mcp_result::serve(Clock, server_io).await;
    });
    let client = ().serve(client_io).await.expect("initialize");
    let continued = client
        .call_tool(ping(json!({
            "traceparent": format!("00-{TRACE}-{PARENT}-01"),
            "tracestate": "vendor=opaque"
        })))
        .await
        .unwrap();
    assert_eq!(continued.is_error, Some(false));
    let invalid = client
        .call_tool(ping(json!({"traceparent": "00-not-a-trace-01"})))
        .await
        .unwrap();
    assert_eq!(
        invalid.is_error,
        Some(false),
        "an invalid traceparent is no error"
    );
    // Every request the framework answers continues its client's trace, not only a call.
    let mut listed = mcp_result::rmcp::model::PaginatedRequestParams::default();
    let mut meta = RequestMetaObject::default();
    meta.0.insert(
        "traceparent".into(),
        json!(format!("00-{TRACE}-{LIST_PARENT}-01")),
    );
    listed.meta = Some(meta);
    let tools = client.list_tools(Some(listed)).await.unwrap();
    assert_eq!(tools.tools.len(), 1);
    client.cancel().await.unwrap();
    tokio::task::yield_now().await;
    provider.force_flush().unwrap();

    let spans = exporter.get_finished_spans().unwrap();
    let calls: Vec<_> = spans
        .iter()
        .filter(|span| span.name == "tools/call ping")
        .collect();
    assert_eq!(calls.len(), 2, "{spans:?}");
    let first = calls
        .iter()
        .find(|span| span.span_context.trace_id() == TraceId::from_hex(TRACE).unwrap())
        .expect("a span in the client's trace");
    assert_eq!(first.parent_span_id, SpanId::from_hex(PARENT).unwrap());
    assert!(first.parent_span_is_remote);
    assert_eq!(
        first.span_context.trace_state().get("vendor"),
        Some("opaque")
    );
    let second = calls
        .iter()
        .find(|span| span.span_context.trace_id() != TraceId::from_hex(TRACE).unwrap())
        .expect("a span outside the client's trace");
    // Its parent is the server's own (rmcp's service span), not anything the call sent.
    assert_ne!(second.parent_span_id, SpanId::from_hex(PARENT).unwrap());
    assert!(!second.parent_span_is_remote);
    let list = spans
        .iter()
        .find(|span| span.name == "tools/list")
        .expect("a span for tools/list");
    assert_eq!(
        list.span_context.trace_id(),
        TraceId::from_hex(TRACE).unwrap()
    );
    assert_eq!(list.parent_span_id, SpanId::from_hex(LIST_PARENT).unwrap());
    assert!(list.parent_span_is_remote);
}
