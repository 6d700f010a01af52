//! Every call's `execute_tool` span and the tool metrics, as OpenTelemetry receives them:
//! the SDK's in-memory exporters behind `toolwright::otel::install`, the way a user's
//! OTLP pipeline would be. The span tree and attributes of a valid call, an invalid
//! one, a denied one, a duplicate, a cut output, a batch, a call arriving over MCP
//! with a `traceparent`, and a call to an imported tool carrying one to its server; and
//! no argument or result value anywhere unless opted in.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use opentelemetry::Value as OtelValue;
use opentelemetry::trace::Status;
use opentelemetry_sdk::metrics::in_memory_exporter::InMemoryMetricExporter;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::json;
use toolwright::mcp::{HttpServer, McpServer};
use toolwright::output::OutputBudget;
use toolwright::policy::AllowAll;
mod support;

use toolwright::{Context, Registry, Retry, Telemetry, ToolCall, ToolError, ToolSettings, tool};

/// Greet someone.
#[tool(effect = "read_only")]
fn greet(
    /// Who.
    name: String,
) -> String {
    format!("hello {name}, your code is s3cret-result")
}

/// Send money.
#[tool(effect = "external")]
fn pay(
    /// Cents.
    amount: u64,
) -> Result<String, ToolError> {
    Ok(format!("paid {amount}"))
}

/// Delete everything.
#[tool(effect = "destructive", scopes = ["admin"])]
fn wipe() -> String {
    "wiped".into()
}

/// Fetch a flaky page.
#[tool(effect = "read_only")]
fn flaky() -> Result<String, ToolError> {
    Err(ToolError::failed("the upstream is down").with_retryable(true))
}

/// A long report.
#[tool(effect = "read_only")]
fn report() -> String {
    "line of the report\n".repeat(2000)
}

struct Exporters {
    spans: InMemorySpanExporter,
    metrics: InMemoryMetricExporter,
    meter: SdkMeterProvider,
    _tracer: SdkTracerProvider,
}

fn exporters() -> &'static Exporters {
    static EXPORTERS: OnceLock<Exporters> = OnceLock::new();
    EXPORTERS.get_or_init(|| {
        let spans = InMemorySpanExporter::default();
        let tracer = SdkTracerProvider::builder()
            .with_simple_exporter(spans.clone())
            .build();
        let metrics = InMemoryMetricExporter::default();
        let meter = SdkMeterProvider::builder()
            .with_reader(PeriodicReader::builder(metrics.clone()).build())
            .build();
        toolwright::otel::install(&tracer, meter.clone()).expect("installed once");
        Exporters {
            spans,
            metrics,
            meter,
            _tracer: tracer,
        }
    })
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a OtelValue> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| &kv.value)
}

fn text(span: &SpanData, key: &str) -> Option<String> {
    attribute(span, key).map(|value| value.as_str().into_owned())
}

/// The exported span `span` is a child of.
fn parent_of(span: &SpanData) -> SpanData {
    exporters()
        .spans
        .get_finished_spans()
        .unwrap()
        .into_iter()
        .find(|parent| parent.span_context.span_id() == span.parent_span_id)
        .expect("the span's parent is exported")
}

/// The finished span of call `id`, waiting for it a little (an MCP request's span ends
/// after its answer is sent).
fn call_span(id: &str) -> SpanData {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let spans = exporters().spans.get_finished_spans().unwrap();
        if let Some(span) = spans.into_iter().find(|span| {
            span.name.starts_with("execute_tool")
                && text(span, "gen_ai.tool.call.id").as_deref() == Some(id)
        }) {
            return span;
        }
        assert!(
            Instant::now() < deadline,
            "no execute_tool span for call {id}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A toolwright MCP server offering `greet`, over Streamable HTTP on loopback in
/// `runtime`: its URL.
fn serve_greet(runtime: &tokio::runtime::Runtime) -> String {
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let server = McpServer::new(
        Registry::builder().with(Greet).build().unwrap(),
        Context::new(),
    )
    .unwrap();
    runtime.spawn(HttpServer::new(server).serve(listener));
    url
}

fn children(parent: &SpanData) -> Vec<String> {
    let mut names: Vec<String> = exporters()
        .spans
        .get_finished_spans()
        .unwrap()
        .into_iter()
        .filter(|span| span.parent_span_id == parent.span_context.span_id())
        .map(|span| span.name.into_owned())
        .collect();
    names.sort();
    names
}

fn everything_recorded() -> String {
    let spans = exporters().spans.get_finished_spans().unwrap();
    exporters().meter.force_flush().unwrap();
    let metrics = exporters().metrics.get_finished_metrics().unwrap();
    format!("{spans:?}\n{metrics:?}")
}

#[test]
fn every_call_is_a_span_by_the_genai_conventions_with_toolwrights_attributes() {
    exporters();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let registry = Registry::builder()
        .with(Greet)
        .with(Pay)
        .with(Wipe)
        .with(Report)
        .with(Flaky)
        .configure(
            "flaky",
            ToolSettings::new().retries(Retry {
                attempts: 3,
                backoff: Duration::from_millis(1),
            }),
        )
        .defaults(
            ToolSettings::new()
                .budget(OutputBudget::chars(2000))
                .policy(AllowAll),
        )
        .build()
        .unwrap();
    let ctx = Context::new();
    let dispatch = |call: ToolCall| runtime.block_on(registry.dispatch(&ctx, call));

    // A valid call: the conventions' attributes, the effect and the policy's decision,
    // and one child span per phase.
    dispatch(ToolCall::new(
        "ok-1",
        "greet",
        json!({"name": "s3cret-arg"}),
    ));
    let span = call_span("ok-1");
    assert_eq!(span.name, "execute_tool greet");
    assert_eq!(span.span_kind, opentelemetry::trace::SpanKind::Internal);
    for (key, value) in [
        ("gen_ai.operation.name", "execute_tool"),
        ("gen_ai.tool.name", "greet"),
        ("gen_ai.tool.type", "function"),
        ("toolwright.effect", "read_only"),
        ("toolwright.effect.classified", "read_only"),
        ("toolwright.policy.decision", "allow"),
    ] {
        assert_eq!(
            text(&span, key).as_deref(),
            Some(value),
            "{key} on {span:?}"
        );
    }
    assert_eq!(attribute(&span, "error.type"), None);
    assert_eq!(span.status, Status::Unset);
    // No source locations: they are the build machine's paths.
    let located: Vec<&str> = span
        .attributes
        .iter()
        .map(|kv| kv.key.as_str())
        .filter(|key| key.starts_with("code."))
        .collect();
    assert!(located.is_empty(), "{located:?} on {span:?}");
    assert_eq!(
        children(&span),
        ["fit_output", "policy", "read_arguments", "run"]
    );

    // An invalid call: error.type is its category, the status is Error and its
    // description carries no argument value.
    dispatch(ToolCall::new("bad-1", "greet", json!({"name": 7})));
    let span = call_span("bad-1");
    assert_eq!(
        text(&span, "error.type").as_deref(),
        Some("invalid_arguments")
    );
    assert_eq!(span.status, Status::error("invalid_arguments"));

    // A denied call (the caller lacks the tool's scope).
    dispatch(ToolCall::new("denied-1", "wipe", json!({})));
    let span = call_span("denied-1");
    assert_eq!(text(&span, "error.type").as_deref(), Some("denied"));
    assert_eq!(
        text(&span, "toolwright.policy.decision").as_deref(),
        Some("deny")
    );
    assert_eq!(
        text(&span, "toolwright.effect").as_deref(),
        Some("destructive")
    );

    // The same key twice: claimed, then a duplicate.
    let mut first = ToolCall::new("pay-1", "pay", json!({"amount": 5}));
    first.idempotency_key = Some("order-7".into());
    let mut again = ToolCall::new("pay-2", "pay", json!({"amount": 5}));
    again.idempotency_key = Some("order-7".into());
    dispatch(first);
    dispatch(again);
    assert_eq!(
        text(&call_span("pay-1"), "toolwright.idempotency.outcome").as_deref(),
        Some("claimed")
    );
    assert_eq!(
        text(&call_span("pay-2"), "toolwright.idempotency.outcome").as_deref(),
        Some("duplicate")
    );

    // An output over its budget.
    dispatch(ToolCall::new("long-1", "report", json!({})));
    let span = call_span("long-1");
    assert_eq!(
        attribute(&span, "toolwright.output.truncated"),
        Some(&OtelValue::Bool(true))
    );
    assert!(
        text(&span, "toolwright.output.cut").is_some_and(|cut| cut.contains("lines")),
        "{span:?}"
    );
    let shown = attribute(&span, "toolwright.output.shown_bytes");
    assert!(
        matches!(shown, Some(OtelValue::I64(n)) if *n > 0),
        "{shown:?}"
    );

    // A retried call: how many retries, and its last error.
    dispatch(ToolCall::new("flaky-1", "flaky", json!({})));
    let span = call_span("flaky-1");
    assert_eq!(
        attribute(&span, "toolwright.retries"),
        Some(&OtelValue::I64(2))
    );
    assert_eq!(text(&span, "error.type").as_deref(), Some("failed"));
    assert_eq!(span.status, Status::error("failed"));

    // A batch: two reads share turn 0, the payment runs alone in turn 1.
    let mut payment = ToolCall::new("b-3", "pay", json!({"amount": 9}));
    payment.idempotency_key = Some("order-8".into());
    runtime.block_on(registry.dispatch_batch(
        &ctx,
        vec![
            ToolCall::new("b-1", "greet", json!({"name": "a"})),
            ToolCall::new("b-2", "greet", json!({"name": "b"})),
            payment,
        ],
    ));
    let turn = |id: &str| attribute(&call_span(id), "toolwright.batch.turn").cloned();
    assert_eq!(turn("b-1"), Some(OtelValue::I64(0)));
    assert_eq!(turn("b-2"), Some(OtelValue::I64(0)));
    assert_eq!(turn("b-3"), Some(OtelValue::I64(1)));

    // Metrics: the conventions' duration histogram and toolwright's counters.
    let recorded = everything_recorded();
    for metric in [
        "gen_ai.execute_tool.duration",
        "toolwright.tool.denials",
        "toolwright.tool.duplicates",
        "toolwright.tool.truncations",
    ] {
        assert!(recorded.contains(metric), "no {metric} in the metrics");
    }

    // Nothing above asked for contents: no argument or result value anywhere.
    assert!(
        !recorded.contains("s3cret-arg"),
        "an argument was recorded without opting in"
    );
    if let Some(at) = recorded.find("s3cret-result") {
        panic!(
            "a result was recorded without opting in: ...{}...",
            &recorded[at.saturating_sub(700)..at + 40]
        );
    }

    // Opted in, through the redaction hook and cut to size.
    let telemetry = Telemetry::default()
        .max_recorded_bytes(40)
        .with_contents()
        .with_redaction(|text| text.replace("s3cret", "[redacted]"));
    let open = Registry::builder()
        .with(Greet)
        .with_telemetry(telemetry)
        .build()
        .unwrap();
    runtime.block_on(open.dispatch(
        &ctx,
        ToolCall::new("open-1", "greet", json!({"name": "s3cret-arg"})),
    ));
    let span = call_span("open-1");
    assert_eq!(
        text(&span, "gen_ai.tool.call.arguments").as_deref(),
        Some(r#"{"name":"[redacted]-arg"}"#)
    );
    assert_eq!(
        text(&span, "gen_ai.tool.call.result").as_deref(),
        Some("hello [redacted]-arg, your code is [reda…")
    );
}

#[test]
fn a_call_over_mcp_joins_the_clients_trace() {
    exporters();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let url = serve_greet(&runtime);

    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let parent_id = "00f067aa0ba902b7";
    let body = json!({
        "jsonrpc": "2.0", "id": 41, "method": "tools/call",
        "params": {
            "name": "greet", "arguments": {"name": "over-mcp"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "trace-test", "version": "1"},
                "traceparent": format!("00-{trace_id}-{parent_id}-01"),
            },
        },
    });
    let version = ("MCP-Protocol-Version", "2026-07-28");
    let answer = support::post_to(&url, &body.to_string(), &[version]).message;
    assert_eq!(answer["result"]["isError"], false, "{answer}");

    // The server's span of the request is a child of the client's span, in its trace.
    let execute = call_span("41");
    let server = parent_of(&execute);
    assert_eq!(server.name, "tools/call greet");
    assert_eq!(server.span_kind, opentelemetry::trace::SpanKind::Server);
    assert_eq!(server.parent_span_id.to_string(), parent_id);
    assert!(server.parent_span_is_remote);
    assert_eq!(server.span_context.trace_id().to_string(), trace_id);
    assert_eq!(execute.span_context.trace_id().to_string(), trace_id);
    assert_eq!(
        text(&server, "mcp.method.name").as_deref(),
        Some("tools/call")
    );

    // The same from the HTTP headers, for a client that traces HTTP rather than MCP.
    let parent_id = "b7ad6b7169203331";
    let mut body = body;
    body["id"] = json!(42);
    body["params"]["_meta"]
        .as_object_mut()
        .unwrap()
        .remove("traceparent");
    let traceparent = format!("00-{trace_id}-{parent_id}-01");
    let reply = support::post_to(
        &url,
        &body.to_string(),
        &[version, ("traceparent", &traceparent)],
    );
    assert_eq!(reply.status, 200, "{}", reply.message);
    let execute = call_span("42");
    let from_headers = parent_of(&execute);
    assert_eq!(from_headers.parent_span_id.to_string(), parent_id);
    assert_eq!(from_headers.span_context.trace_id().to_string(), trace_id);

    // The result hands the server's trace context back.
    let traceparent = answer["result"]["_meta"]["traceparent"]
        .as_str()
        .expect("a traceparent in the result's _meta");
    assert_eq!(
        traceparent,
        format!("00-{trace_id}-{}-01", server.span_context.span_id())
    );
}

/// A program's calls are spans of their own, children of `run_code`'s span: a trace runs
/// from the model's call through the program into each tool.
#[test]
fn a_programs_calls_are_children_of_its_run_code_span() {
    exporters();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let registry = Registry::builder()
        .with(Greet)
        .with_code_mode(toolwright::code::CodeMode::new())
        .build()
        .unwrap();
    let program =
        "a, b = await asyncio.gather(greet('Ada'), greet('Bob'))\nc = await greet('Cy')\n[a, b, c]";
    let result = runtime.block_on(registry.dispatch(
        &Context::new(),
        ToolCall::new("program-1", "run_code", json!({ "code": program })),
    ));
    assert!(!result.is_error(), "{:?}", result.outcome);
    let run = call_span("program-1");
    assert_eq!(run.name, "execute_tool run_code");
    for n in 0..3 {
        let nested = call_span(&format!("program-1/{n}"));
        assert_eq!(nested.name, "execute_tool greet");
        assert_eq!(nested.span_context.trace_id(), run.span_context.trace_id());
        // Under the run's `run` phase, itself under the run's span.
        let phase = parent_of(&nested);
        let owner = if phase.span_context.span_id() == run.span_context.span_id() {
            phase
        } else {
            parent_of(&phase)
        };
        assert_eq!(
            owner.span_context.span_id(),
            run.span_context.span_id(),
            "{nested:?}"
        );
    }
}

/// A call to a tool imported from another MCP server is one trace from the model's call
/// into the remote server: the local `execute_tool` span, under it the client span of
/// the remote call, and the remote server's span a child of that one (the
/// `traceparent` went in the request's `_meta`).
#[test]
fn a_call_to_an_imported_tool_runs_one_trace_into_the_remote_server() {
    exporters();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let url = serve_greet(&runtime);
    let source = runtime
        .block_on(
            toolwright::mcp_client::McpSource::http("greeter", &url)
                .prefix("remote")
                .trust_annotations()
                .connect(),
        )
        .unwrap();
    let registry = Registry::builder().with_toolset(source).build().unwrap();
    let call = ToolCall::new("imported-1", "remote_greet", json!({"name": "traced"}));
    let result = runtime.block_on(registry.dispatch(&Context::new(), call));
    assert!(result.outcome.is_ok(), "{:?}", result.outcome);

    let local = call_span("imported-1");
    let trace = local.span_context.trace_id();
    let deadline = Instant::now() + Duration::from_secs(10);
    let (client, remote) = loop {
        let spans = exporters().spans.get_finished_spans().unwrap();
        let client = spans.iter().find(|span| {
            span.name == "tools/call greet"
                && span.span_kind == opentelemetry::trace::SpanKind::Client
                && span.span_context.trace_id() == trace
        });
        let remote = client.and_then(|client| {
            spans.iter().find(|span| {
                span.span_kind == opentelemetry::trace::SpanKind::Server
                    && span.parent_span_id == client.span_context.span_id()
            })
        });
        if let (Some(client), Some(remote)) = (client, remote) {
            break (client.clone(), remote.clone());
        }
        assert!(Instant::now() < deadline, "{}", everything_recorded());
        std::thread::sleep(Duration::from_millis(20));
    };
    // The client span sits under the local call's span.
    let mut ancestor = parent_of(&client);
    while ancestor.span_context.span_id() != local.span_context.span_id() {
        ancestor = parent_of(&ancestor);
    }
    assert_eq!(
        text(&client, "toolwright.mcp.server").as_deref(),
        Some("greeter")
    );
    // The remote server's span joined it, in the same trace, its parent remote.
    assert_eq!(remote.name, "tools/call greet");
    assert!(remote.parent_span_is_remote);
    assert_eq!(remote.span_context.trace_id(), trace);
}
