//! A client's trace continued into a call's span (feature `opentelemetry`): the OpenTelemetry
//! MCP semantic conventions ("Context propagation": open-telemetry/semantic-conventions-genai
//! `docs/gen-ai/mcp.md`) say the server SHOULD use the context a client sends in
//! `params._meta` (W3C Trace Context `traceparent` and `tracestate`, W3C Baggage `baggage`)
//! as the parent of its server span, and link the transport's (ambient) context.

use opentelemetry::{
    propagation::{Extractor, TextMapCompositePropagator, TextMapPropagator},
    trace::TraceContextExt as _,
};
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use rmcp::{service::RequestContext, RoleServer};
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt as _;

/// `_meta` as the propagators read it: each string value by its key.
struct Meta<'a>(&'a serde_json::Map<String, serde_json::Value>);

impl Extractor for Meta<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(serde_json::Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

/// HTTP headers as the propagators read them.
#[cfg(feature = "http")]
struct Headers<'a>(&'a http::HeaderMap);

#[cfg(feature = "http")]
impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

fn propagator() -> TextMapCompositePropagator {
    TextMapCompositePropagator::new(vec![
        Box::new(TraceContextPropagator::new()),
        Box::new(BaggagePropagator::new()),
    ])
}

/// Makes the context in `context`'s `params._meta` the parent of `span`, and links the
/// context of the HTTP request that carried it, if any. A missing or invalid `traceparent`
/// changes nothing (the span starts its own trace); it is never an error.
pub(crate) fn continue_trace(span: &Span, context: &RequestContext<RoleServer>) {
    let propagator = propagator();
    let parent = propagator.extract(&Meta(&context.meta));
    if parent.span().span_context().is_valid() {
        let _ = span.set_parent(parent);
    }
    #[cfg(feature = "http")]
    if let Some(parts) = context.extensions.get::<http::request::Parts>() {
        let ambient = propagator.extract(&Headers(&parts.headers));
        let linked = ambient.span().span_context().clone();
        if linked.is_valid() {
            span.add_link(linked);
        }
    }
}
