//! What an idempotency key costs: the same call through `Registry::dispatch`, once as an
//! `external` tool (a fresh key claimed and settled in the store on every call) and once
//! as a `write` tool (no key), in the same run, for each store: memory, redb, and, when
//! their servers run (`scripts/test/services up`), PostgreSQL and Redis on loopback.
//!
//! Besides criterion's means, the bench prints p50 and p99 of the latency each store adds,
//! from 2,000 timed calls of each kind, interleaved.
//!
//! Run with `cargo bench --bench idempotency --features redb,postgres,redis`.

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::Criterion;
use toolwright::ToolSettings;
use toolwright::idempotency::{Idempotency, IdempotencyStore};
use toolwright::policy::AllowAll;
use toolwright::{Context, Registry, ToolCall, tool};

/// Pay an amount out (acts on the outside world: runs with a key).
#[tool(effect = "external")]
fn pay_keyed(
    /// Who is paid.
    recipient: String,
    /// Amount in cents.
    amount: u64,
) -> String {
    format!("paid {amount} to {recipient}")
}

/// Pay an amount out (declared a local write: no key).
#[tool(effect = "write")]
fn pay_plain(
    /// Who is paid.
    recipient: String,
    /// Amount in cents.
    amount: u64,
) -> String {
    format!("paid {amount} to {recipient}")
}

const ARGUMENTS: &str = r#"{"recipient": "acct-42", "amount": 2500}"#;

#[path = "support/stores.rs"]
mod stores;

use stores::percentile;

fn registry(store: impl IdempotencyStore + 'static) -> Registry {
    // A short retention keeps the memory store's map small over millions of calls.
    let idempotency = Idempotency::new(store)
        .lease(Duration::from_secs(5))
        .retention(Duration::from_secs(5));
    Registry::builder()
        .with(PayKeyed)
        .with(PayPlain)
        .defaults(ToolSettings::new().policy(AllowAll))
        .with_idempotency(idempotency)
        .build()
        .unwrap()
}

/// A call with a key never used before.
fn keyed_call() -> ToolCall {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    ToolCall::new("c", "pay_keyed", ARGUMENTS).with_idempotency_key(format!("bench-{n}"))
}

fn plain_call() -> ToolCall {
    ToolCall::new("c", "pay_plain", ARGUMENTS)
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let ctx = Context::new();
    let stores = stores::stores(&rt, registry);
    let mut criterion = Criterion::default().configure_from_args();
    for (name, registry) in &stores {
        let mut group = criterion.benchmark_group(format!("external call, {name} store"));
        group.bench_function("unkeyed (baseline)", |b| {
            b.iter(|| black_box(rt.block_on(registry.dispatch(&ctx, plain_call()))))
        });
        group.bench_function("keyed", |b| {
            b.iter(|| black_box(rt.block_on(registry.dispatch(&ctx, keyed_call()))))
        });
        group.finish();
    }
    criterion.final_summary();

    println!("\nlatency added by the key (2,000 calls of each kind, interleaved):");
    println!(
        "| store | unkeyed p50 | keyed p50 | added p50 | unkeyed p99 | keyed p99 | added p99 |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, registry) in &stores {
        let (mut plain, mut keyed) = (Vec::new(), Vec::new());
        for _ in 0..2_000 {
            let started = Instant::now();
            black_box(rt.block_on(registry.dispatch(&ctx, plain_call())));
            plain.push(started.elapsed());
            let started = Instant::now();
            let result = rt.block_on(registry.dispatch(&ctx, keyed_call()));
            keyed.push(started.elapsed());
            assert!(!result.is_error(), "{}", result.for_model());
        }
        plain.sort();
        keyed.sort();
        let row = |p| (percentile(&plain, p), percentile(&keyed, p));
        let ((p50, k50), (p99, k99)) = (row(0.5), row(0.99));
        println!(
            "| {name} | {p50:.1?} | {k50:.1?} | {:.1?} | {p99:.1?} | {k99:.1?} | {:.1?} |",
            k50.saturating_sub(p50),
            k99.saturating_sub(p99)
        );
    }
}
