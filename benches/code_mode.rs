//! What a program's isolation costs, beside a direct call in the same run: one
//! `run_code` call whose program makes one tool call, in this process and in a worker
//! process (the default), against the same tool call dispatched directly. The
//! difference between the two runs is the worker's cost per run (a process started
//! ahead, the program and each stop sent over a pipe, the worker ended after).
//!
//! Run with `cargo bench --bench code_mode --features code`; the ratios are in the
//! closing notes. Instructions per nested call are `scripts/measure/callgrind-code-mode`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolwright::code::{CodeMode, Isolation};
use toolwright::{Context, Registry, ToolCall, tool};

/// How many invoices a customer has overdue.
#[tool(effect = "read_only")]
fn overdue_count(
    /// Customer id, like `C-4`.
    customer: String,
) -> u32 {
    customer.len() as u32
}

fn registry(isolation: Isolation) -> Registry {
    Registry::builder()
        .with(OverdueCount)
        .with_code_mode(CodeMode::new().isolation(isolation))
        .build()
        .unwrap()
}

fn one_run(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let ctx = Context::new();
    let mut group = c.benchmark_group("one program, one nested call");
    let direct = registry(Isolation::InProcess);
    group.bench_function("baseline: the call dispatched directly", |b| {
        b.iter(|| {
            let call = ToolCall::new("c", "overdue_count", json!({ "customer": "C-4" }));
            black_box(runtime.block_on(direct.dispatch(&ctx, call)))
        })
    });
    let program = json!({ "code": "await overdue_count('C-4')" });
    for (name, isolation) in [
        ("run_code in process", Isolation::InProcess),
        ("run_code in a worker process", Isolation::Workers),
    ] {
        let registry = registry(isolation);
        group.bench_function(name, |b| {
            b.iter(|| {
                let call = ToolCall::new("r", "run_code", program.clone());
                let result = runtime.block_on(registry.dispatch(&ctx, call));
                assert!(!result.is_error(), "{:?}", result.outcome);
                black_box(result)
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = one_run
}
criterion_main!(benches);
