//! The application's own OpenTelemetry pipeline (feature `opentelemetry`): with
//! `OTEL_EXPORTER_OTLP_ENDPOINT` set (`http://collector:4318`), the desk's spans (each MCP
//! request's server span, a client's trace continued) and its metrics
//! (`mcp.server.operation.duration`, the `mcp_result.*` counters) go to that collector over
//! OTLP/HTTP (protobuf), the standard `OTEL_*` variables applying. Unset, nothing is
//! exported and nothing is paid.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::{metrics::SdkMeterProvider, trace::SdkTracerProvider};

/// The providers, flushed and shut down by [`Telemetry::shutdown`].
pub(crate) struct Telemetry {
    tracer: SdkTracerProvider,
    meter: SdkMeterProvider,
}

impl Telemetry {
    /// The pipeline `OTEL_EXPORTER_OTLP_ENDPOINT` asks for, if it is set.
    ///
    /// # Errors
    /// An exporter that cannot be built (an endpoint that is no URL, say).
    pub(crate) fn from_env() -> Result<Option<Self>, Box<dyn std::error::Error + Send + Sync>> {
        if std::env::var_os("OTEL_EXPORTER_OTLP_ENDPOINT").is_none() {
            return Ok(None);
        }
        let spans = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .build()?;
        let metrics = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .build()?;
        let resource = opentelemetry_sdk::Resource::builder()
            .with_service_name("helpdesk")
            .build();
        Ok(Some(Self {
            tracer: SdkTracerProvider::builder()
                .with_resource(resource.clone())
                .with_batch_exporter(spans)
                .build(),
            meter: SdkMeterProvider::builder()
                .with_resource(resource)
                .with_periodic_exporter(metrics)
                .build(),
        }))
    }

    /// The `tracing` layer that turns the framework's spans into OpenTelemetry spans.
    pub(crate) fn layer<S>(&self) -> impl tracing_subscriber::Layer<S>
    where
        S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
    {
        tracing_opentelemetry::layer().with_tracer(self.tracer.tracer("helpdesk"))
    }

    /// The meter the desk's state records on (`State::with_meter`).
    pub(crate) fn meter(&self) -> opentelemetry::metrics::Meter {
        use opentelemetry::metrics::MeterProvider as _;
        self.meter.meter("helpdesk")
    }

    /// Exports what is left and stops the exporters (when the server stops).
    pub(crate) fn shutdown(&self) {
        if let Err(error) = self.tracer.shutdown() {
            eprintln!("exporting the last spans failed: {error}");
        }
        if let Err(error) = self.meter.shutdown() {
            eprintln!("exporting the last metrics failed: {error}");
        }
    }
}
