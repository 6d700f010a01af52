//! What a task costs over a plain call on the same store: the same `external` call (its
//! key claimed and settled in the store), once dispatched within its request and once as
//! a task (created, run, polled with `Tasks::get` until completed, its result read), for
//! each store: memory, redb, and, when their servers run (`scripts/test/services up`),
//! PostgreSQL and Redis on loopback. The poller yields to the runtime 32 times between
//! reads, so it does not crowd out (nor, on Redis, queue before) the task it polls.
//!
//! Run with `cargo bench --bench tasks --features mcp,redb,postgres,redis`.

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use criterion::Criterion;
use serde_json::{Value, json};
use toolwright::idempotency::{Idempotency, IdempotencyStore};
use toolwright::policy::{AllowAll, Caller};
use toolwright::task::{TaskSettings, TaskStatus, Tasks};
use toolwright::{Context, Registry, ToolCall, ToolResult, ToolSettings, tool};

#[path = "support/stores.rs"]
mod stores;

/// Pay an amount out (acts on the outside world: runs with a key).
#[tool(effect = "external", task = "optional")]
fn pay(
    /// Who is paid.
    recipient: String,
    /// Amount in cents.
    amount: u64,
) -> String {
    format!("paid {amount} to {recipient}")
}

fn tasks(store: Box<dyn IdempotencyStore>) -> Tasks {
    let idempotency = Idempotency::new(store)
        .lease(Duration::from_secs(5))
        .retention(Duration::from_secs(5));
    let registry = Registry::builder()
        .with(Pay)
        .defaults(ToolSettings::new().policy(AllowAll))
        .with_idempotency(idempotency)
        .build()
        .unwrap();
    let settings = TaskSettings::new().ttl(Duration::from_secs(30));
    Tasks::new(Arc::new(registry), settings, render).unwrap()
}

fn render(result: &ToolResult) -> Result<Value, Value> {
    Ok(json!({"text": result.for_model()}))
}

/// A call with a key never used before.
fn call() -> ToolCall {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    ToolCall::new("c", "pay", r#"{"recipient": "acct-42", "amount": 2500}"#)
        .with_idempotency_key(format!("bench-{n}-{}", std::process::id()))
}

/// A caller of its own for each call, as many clients would be (a caller's live tasks
/// are limited, 100 by default).
fn caller() -> Arc<Context> {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    Arc::new(Context::new().with(Caller::new(format!("caller-{n}"), Vec::<String>::new())))
}

/// A task from start to its result.
async fn round_trip(tasks: &Tasks) -> Value {
    let ctx = caller();
    let started = tasks.start(ctx.clone(), call()).await.unwrap();
    loop {
        let view = tasks.get(ctx.clone(), &started.id).await.unwrap();
        if view.status == TaskStatus::Completed {
            return view.result.unwrap();
        }
        assert_eq!(view.status, TaskStatus::Working, "{view:?}");
        // A client polls at the server's interval; here, after letting the runtime run
        // a while, so the poller does not crowd out the task it polls.
        for _ in 0..32 {
            tokio::task::yield_now().await;
        }
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let stores = stores::stores(&rt, tasks);
    let mut criterion = Criterion::default().configure_from_args();
    for (name, tasks) in &stores {
        let mut group = criterion.benchmark_group(format!("external call, {name} store"));
        group.bench_function("within the request (baseline)", |b| {
            b.iter(|| black_box(rt.block_on(tasks.registry().dispatch(&caller(), call()))))
        });
        group.bench_function("as a task: create, poll, result", |b| {
            b.iter(|| black_box(rt.block_on(round_trip(tasks))))
        });
        group.finish();
    }
    criterion.final_summary();
}
