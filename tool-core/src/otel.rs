//! OpenTelemetry export (feature `otel`): every call's `execute_tool` span (see
//! [`Telemetry`](crate::Telemetry) for its attributes) and the tool metrics, over
//! OTLP/HTTP.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
//! // OTLP/HTTP to $OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318).
//! let _otel = toolwright::otel::init("payments-agent")?;
//! // ... serve or dispatch; spans and metrics are flushed when `_otel` drops.
//! # Ok(()) }
//! ```
//!
//! Metrics go through OpenTelemetry's own API rather than the `metrics` facade: the same
//! pipeline exports them beside the spans, and the conventions' histogram
//! (`gen_ai.execute_tool.duration`, in seconds) keeps its name and unit. Instruments are
//! made on the first call after [`init`] or [`install`] (before either, calls record no
//! metrics and pay nothing for them): install before the first dispatch.
//!
//! | metric | kind | attributes |
//! |---|---|---|
//! | `gen_ai.execute_tool.duration` (s) | histogram | `gen_ai.operation.name`, `gen_ai.tool.name`, `error.type` on failure |
//! | `toolwright.tool.denials` | counter | `gen_ai.tool.name` |
//! | `toolwright.tool.approvals_asked` | counter | `gen_ai.tool.name` |
//! | `toolwright.tool.duplicates` | counter | `gen_ai.tool.name` |
//! | `toolwright.tool.truncations` | counter | `gen_ai.tool.name` |
//!
//! No argument or result value is ever an attribute of a metric.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt as _;

use crate::error::ErrorKind;
use crate::tool::ToolOutcome;

/// The OpenTelemetry API and SDK this module is built on, for [`install`]'s providers.
pub use {opentelemetry, opentelemetry_sdk};

/// What [`init`] installed; dropping it flushes and stops the exporters.
#[must_use = "spans and metrics are flushed when this drops"]
pub struct OtelGuard {
    tracer: SdkTracerProvider,
    meter: SdkMeterProvider,
}

impl Drop for OtelGuard {
    fn drop(&mut self) {
        if let Err(error) = self.tracer.shutdown() {
            eprintln!("toolwright::otel: flushing spans failed: {error}");
        }
        if let Err(error) = self.meter.shutdown() {
            eprintln!("toolwright::otel: flushing metrics failed: {error}");
        }
    }
}

/// Exports spans and metrics as `service_name` over OTLP/HTTP (the endpoint from the
/// standard `OTEL_EXPORTER_OTLP_*` variables, `http://localhost:4318` by default):
/// installs the global tracing subscriber (its `execute_tool` spans become
/// OpenTelemetry spans), the global meter provider and the W3C trace-context
/// propagator, which the MCP server reads `traceparent` with.
pub fn init(service_name: &str) -> Result<OtelGuard, Box<dyn std::error::Error + Send + Sync>> {
    let resource = opentelemetry_sdk::Resource::builder()
        .with_service_name(service_name.to_owned())
        .build();
    let spans = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .build()?;
    let tracer = SdkTracerProvider::builder()
        .with_batch_exporter(spans)
        .with_resource(resource.clone())
        .build();
    let metrics = opentelemetry_otlp::MetricExporter::builder()
        .with_http()
        .build()?;
    let meter = SdkMeterProvider::builder()
        .with_periodic_exporter(metrics)
        .with_resource(resource)
        .build();
    install(&tracer, meter.clone())?;
    Ok(OtelGuard { tracer, meter })
}

/// Installs `tracer` and `meter` as [`init`] does, for providers you built (another
/// exporter, a sampler, a test's in-memory exporter). toolwright's spans are exported,
/// and other crates' spans and events at INFO and above: lower ones are left out, since
/// some carry message contents (rmcp logs every protocol message at DEBUG).
pub fn install(
    tracer: &SdkTracerProvider,
    meter: SdkMeterProvider,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    opentelemetry::global::set_meter_provider(meter);
    INSTALLED.store(true, Ordering::Release);
    // Other crates' DEBUG and TRACE events are not exported: rmcp's carry whole protocol
    // messages, tool results included, which would leak what Telemetry keeps out.
    let filter = tracing_subscriber::filter::Targets::new()
        .with_target("toolwright", tracing::Level::TRACE)
        .with_default(tracing::Level::INFO);
    // No source locations (`code.file.path`, `code.line.number`, ...): they are the
    // build machine's paths, noise in every trace and a leak of the build layout. A user
    // who wants them installs a layer of their own.
    let layer = tracing_opentelemetry::layer()
        .with_location(false)
        .with_tracer(tracer.tracer("toolwright"))
        .with_filter(filter);
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))?;
    Ok(())
}

/// Whether [`install`] ran: until then no call pays for metrics.
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Whether calls record metrics (after [`init`] or [`install`]).
#[inline]
pub(crate) fn metrics_on() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}

/// The instruments, made on first use from the global meter provider.
struct Instruments {
    duration: Histogram<f64>,
    denials: Counter<u64>,
    approvals: Counter<u64>,
    duplicates: Counter<u64>,
    truncations: Counter<u64>,
}

fn instruments() -> &'static Instruments {
    static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();
    INSTRUMENTS.get_or_init(|| {
        let meter = opentelemetry::global::meter("toolwright");
        Instruments {
            duration: meter
                .f64_histogram("gen_ai.execute_tool.duration")
                .with_unit("s")
                .with_description("Duration of tool execution")
                .build(),
            denials: meter
                .u64_counter("toolwright.tool.denials")
                .with_description("Calls denied by scopes or policy")
                .build(),
            approvals: meter
                .u64_counter("toolwright.tool.approvals_asked")
                .with_description("Calls paused for a person's approval")
                .build(),
            duplicates: meter
                .u64_counter("toolwright.tool.duplicates")
                .with_description(
                    "Calls answered with an earlier call's result (same idempotency key)",
                )
                .build(),
            truncations: meter
                .u64_counter("toolwright.tool.truncations")
                .with_description("Results cut to their output budget")
                .build(),
        }
    })
}

/// Records one finished call's metrics.
pub(crate) fn record_call(
    tool: &str,
    started: Instant,
    outcome: &ToolOutcome,
    duplicate: bool,
    truncated: bool,
) {
    let instruments = instruments();
    let tool = KeyValue::new("gen_ai.tool.name", tool.to_owned());
    let mut attributes = vec![
        KeyValue::new("gen_ai.operation.name", "execute_tool"),
        tool.clone(),
    ];
    if let Err(error) = outcome {
        attributes.push(KeyValue::new("error.type", error.kind.as_str()));
    }
    instruments
        .duration
        .record(started.elapsed().as_secs_f64(), &attributes);
    let one = std::slice::from_ref(&tool);
    match outcome {
        Err(error) if error.kind == ErrorKind::Denied => instruments.denials.add(1, one),
        Err(error) if error.kind == ErrorKind::AwaitingApproval => {
            instruments.approvals.add(1, one);
        }
        _ => {}
    }
    if duplicate {
        instruments.duplicates.add(1, one);
    }
    if truncated {
        instruments.truncations.add(1, one);
    }
}

/// The W3C trace context a request carries, as the parent of `span`: `traceparent` and
/// `tracestate` from `meta` (MCP's `_meta`, SEP-414), or else from the HTTP headers
/// `header` reads.
#[cfg(feature = "mcp")]
pub(crate) fn adopt_parent<'a>(
    span: &tracing::Span,
    meta: &serde_json::Map<String, serde_json::Value>,
    header: &dyn Fn(&str) -> Option<&'a str>,
) {
    use opentelemetry::propagation::Extractor;
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;
    struct Carrier<'m, 'a> {
        meta: &'m serde_json::Map<String, serde_json::Value>,
        header: &'m dyn Fn(&str) -> Option<&'a str>,
        from_meta: bool,
    }
    impl Extractor for Carrier<'_, '_> {
        fn get(&self, key: &str) -> Option<&str> {
            if self.from_meta {
                self.meta.get(key).and_then(serde_json::Value::as_str)
            } else {
                (self.header)(key)
            }
        }
        fn keys(&self) -> Vec<&str> {
            vec!["traceparent", "tracestate"]
        }
    }
    let from_meta = meta.contains_key("traceparent");
    if !from_meta && header("traceparent").is_none() {
        return;
    }
    let carrier = Carrier {
        meta,
        header,
        from_meta,
    };
    let parent =
        opentelemetry::global::get_text_map_propagator(|propagator| propagator.extract(&carrier));
    if let Err(error) = span.set_parent(parent) {
        tracing::debug!(%error, "the request's trace context could not be adopted");
    }
}

/// `span`'s W3C trace context (`traceparent`, and `tracestate` when set), to hand back
/// to the client, or to send to a server.
#[cfg(any(feature = "mcp", feature = "mcp-client"))]
pub(crate) fn trace_context(span: &tracing::Span) -> Vec<(String, String)> {
    use opentelemetry::propagation::Injector;
    use tracing_opentelemetry::OpenTelemetrySpanExt as _;
    struct Fields(Vec<(String, String)>);
    impl Injector for Fields {
        fn set(&mut self, key: &str, value: String) {
            self.0.push((key.to_owned(), value));
        }
    }
    let mut fields = Fields(Vec::new());
    let context = span.context();
    opentelemetry::global::get_text_map_propagator(|propagator| {
        propagator.inject_context(&context, &mut fields);
    });
    fields.0
}
