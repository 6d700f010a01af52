//! What journaling a call in Restate costs over dispatching it in process: the same
//! `external` call (its key claimed and settled in the registry's memory store),
//! dispatched by the registry (the baseline), and as runs of a Restate service invoked
//! through a real server's ingress on loopback, with 0, 1 and 16 journaled calls. The
//! run of 0 calls is the invocation's own cost; (16 calls − 1 call) / 15 is what each
//! further call adds: two journal entries (the marker and the result), each acknowledged
//! by the server before the run goes on.
//!
//! The server comes from `scripts/test/restate-server` (installed from npm the first
//! time). Run with `cargo bench --bench restate --features restate`.

#[path = "../tests/support/restate_server.rs"]
mod restate_server;

use std::hint::black_box;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::Criterion;
use restate_sdk::prelude::*;
use restate_server::{RestateServer, free_port, post};
use serde_json::json;
use toolwright::policy::AllowAll;
use toolwright::restate::Journal;
use toolwright::{Registry, ToolCall, ToolSettings, tool};

/// Pay an amount out (acts on the outside world: runs with a key).
#[tool(effect = "external")]
fn pay(
    /// Who is paid.
    recipient: String,
    /// Amount in cents.
    amount: u64,
) -> String {
    format!("paid {amount} to {recipient}")
}

fn registry() -> Registry {
    Registry::builder()
        .with(Pay)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap()
}

fn call(id: String) -> ToolCall {
    ToolCall::new(id, "pay", r#"{"recipient": "acct-42", "amount": 2500}"#)
}

/// A unique name (the run's, the baseline call's key).
fn unique(prefix: &str) -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}-{n}-{}", std::process::id())
}

struct BenchRun {
    registry: Arc<Registry>,
    context: Arc<toolwright::Context>,
}

#[restate_sdk::service]
impl BenchRun {
    /// Runs `calls` calls of `pay`, each a journaled step of the run named `run`.
    #[handler]
    async fn run(&self, ctx: Context<'_>, input: Json<(String, u32)>) -> HandlerResult<u32> {
        let (run, calls) = input.into_inner();
        let journal = Journal::new(self.registry.clone(), self.context.clone(), run);
        for index in 0..calls {
            let result = journal.dispatch(&ctx, call(format!("c{index}"))).await?;
            assert!(result.error().is_none(), "{}", result.for_model());
        }
        Ok(calls)
    }
}

fn restate_binary() -> Option<PathBuf> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/test/restate-server");
    let output = Command::new(script).output().ok()?;
    if !output.status.success() {
        eprintln!(
            "skipped: {script} could not install the Restate server (it needs npm and the npm registry the first time)"
        );
        return None;
    }
    Some(String::from_utf8(output.stdout).ok()?.trim().into())
}

fn main() {
    let Some(binary) = restate_binary() else {
        return;
    };
    let server = RestateServer::start(&binary);
    let endpoint: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let service = BenchRun {
        registry: Arc::new(registry()),
        context: Arc::new(toolwright::Context::new()),
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.spawn(HttpServer::new(Endpoint::builder().bind(service).build()).listen_and_serve(endpoint));
    let started = Instant::now();
    while std::net::TcpStream::connect(endpoint).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the endpoint listens"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    server.register(endpoint);
    let invoke = |calls: u32| {
        let input = json!([unique("run"), calls]).to_string();
        let (status, body) = post(&format!("{}/BenchRun/run", server.ingress), &input);
        assert_eq!(status, 200, "{body}");
        body
    };

    let baseline = registry();
    let ctx = toolwright::Context::new();
    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("external call");
    group.bench_function("dispatched in process (baseline)", |b| {
        b.iter(|| {
            let call = call("c".into()).with_idempotency_key(unique("key"));
            black_box(rt.block_on(baseline.dispatch(&ctx, call)))
        })
    });
    for calls in [0, 1, 16] {
        group.bench_function(format!("a Restate run of {calls} journaled calls"), |b| {
            b.iter(|| black_box(invoke(calls)))
        });
    }
    group.finish();
    criterion.final_summary();
}
