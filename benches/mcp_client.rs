//! What importing a tool costs per call: one tool served by a toolwright MCP server over
//! Streamable HTTP on loopback, called (a) with rmcp's client directly, `call_tool_once`
//! with the arguments as JSON, the baseline; (b) as a tool `McpSource` imported, through
//! `Registry::dispatch`: the arguments checked against the server's schema here, the
//! result checked against its output schema, the span and events; trusted, so read-only
//! (no key); (c) the same untrusted, so `external`: an idempotency key claimed and
//! settled in the memory store, and sent in `_meta`. Same server, same protocol
//! (2025-11-25 sessions), same run.
//!
//! Run with `cargo bench --bench mcp_client --features mcp-http,mcp-client`.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

use criterion::Criterion;
use serde_json::json;
use toolwright::mcp::{HttpServer, McpServer};
use toolwright::mcp_client::McpSource;
use toolwright::mcp_client::rmcp::ServiceExt as _;
use toolwright::mcp_client::rmcp::model::{CallToolRequestParams, ProtocolVersion};
use toolwright::policy::AllowAll;
use toolwright::{Context, Registry, ToolCall, ToolSettings, tool};

/// An invoice's total and status.
#[derive(serde::Serialize, toolwright::ToolSchema)]
struct Invoice {
    /// The invoice's id.
    id: u32,
    /// Total in cents.
    total: u64,
    /// `open` or `paid`.
    status: String,
}

/// Look an invoice up by id.
#[tool(effect = "read_only")]
fn lookup_invoice(
    /// The invoice's id.
    #[arg(minimum = 1)]
    id: u32,
) -> Invoice {
    Invoice {
        id,
        total: u64::from(id) * 100,
        status: "open".into(),
    }
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let served = Registry::builder().with(LookupInvoice).build().unwrap();
    let server = McpServer::new(served, Context::new()).unwrap();
    runtime.spawn(HttpServer::new(server).serve(listener));

    let import = |trusted: bool| {
        let mut source = McpSource::http("invoices", url.as_str())
            .protocol_version(ProtocolVersion::V_2025_11_25);
        if trusted {
            source = source.trust_annotations();
        }
        let source = runtime.block_on(source.connect()).unwrap();
        Registry::builder()
            .with_toolset(source)
            .defaults(ToolSettings::new().policy(AllowAll))
            .build()
            .unwrap()
    };
    let (trusted, untrusted) = (import(true), import(false));
    // After a source connected: it installed the TLS provider reqwest needs.
    let raw = runtime
        .block_on(async {
            let transport =
                toolwright::mcp_client::rmcp::transport::StreamableHttpClientTransport::from_uri(
                    url.as_str(),
                );
            ().serve(transport).await
        })
        .unwrap();
    let ctx = Context::new();
    let ids = AtomicU64::new(0);

    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("imported tool call over HTTP loopback");
    group.bench_function("rmcp call_tool_once (baseline)", |b| {
        b.iter(|| {
            let params = CallToolRequestParams::new("lookup_invoice")
                .with_arguments(json!({"id": 7}).as_object().unwrap().clone());
            black_box(runtime.block_on(raw.call_tool_once(params)).unwrap())
        });
    });
    for (name, registry) in [
        ("McpSource via dispatch, trusted read_only", &trusted),
        (
            "McpSource via dispatch, untrusted external (keyed)",
            &untrusted,
        ),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let id = ids.fetch_add(1, Ordering::Relaxed);
                let call = ToolCall::new(format!("c{id}"), "lookup_invoice", json!({"id": 7}));
                let result = runtime.block_on(registry.dispatch(&ctx, call));
                assert!(result.outcome.is_ok(), "{:?}", result.outcome);
                black_box(result)
            });
        });
    }
    group.finish();
    criterion.final_summary();
}
