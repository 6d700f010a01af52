//! Dispatch costs, each beside its baseline in the same run:
//!
//! 1. a valid three-argument call from its raw JSON string, against the floor: serde
//!    into an equivalent struct plus a direct call (and, to read the ratio against, a
//!    hand-written dispatcher of this one tool: lookup, bounds, catch_unwind, id);
//! 2. an invalid call with four problems, against the `jsonschema` crate collecting all
//!    its error messages for the same schema and input;
//! 3. a 1,000-tool registry: building it, rendering every definition, looking one up
//!    (against a 10-tool registry, to show lookup does not grow with size).
//!
//! Run with `cargo bench --bench dispatch`; the ratios are in the closing notes.

use std::hint::black_box;
use std::pin::pin;
use std::task::{Context as TaskContext, Poll, Waker};

use criterion::{Criterion, criterion_group, criterion_main};

#[path = "support/book_room.rs"]
mod book_room;

use book_room::{BookRoom, BookRoomArgs, INVALID, VALID, book_room, generated, registry_of};
use serde::Deserialize;
use serde_json::Value;
use toolwright::{Arguments, Context, Registry, Tool, ToolCall};

/// Polls a future that is ready at once (the tools here are synchronous).
fn ready<F: std::future::Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut TaskContext::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => unreachable!("synchronous tools finish on the first poll"),
    }
}

fn valid_call(c: &mut Criterion) {
    let registry = Registry::builder().with(BookRoom).build().unwrap();
    let ctx = Context::new();
    let mut group = c.benchmark_group("valid_call");
    group.bench_function("floor: serde_json::from_str + direct call", |b| {
        b.iter(|| {
            let args: BookRoomArgs = serde_json::from_str(black_box(VALID)).unwrap();
            black_box(book_room(args.room, args.hour, args.minutes))
        })
    });
    group.bench_function("serde_json::Value then struct + direct call", |b| {
        b.iter(|| {
            let value: Value = serde_json::from_str(black_box(VALID)).unwrap();
            let args = BookRoomArgs::deserialize(&value).unwrap();
            black_box(book_room(args.room, args.hour, args.minutes))
        })
    });
    group.bench_function("toolwright: Tool::call", |b| {
        b.iter(|| black_box(ready(BookRoom.call(&ctx, Arguments::Json(black_box(VALID)))).unwrap()))
    });
    // The call arrives owned, from the provider's parsed response: building it is not
    // the dispatcher's cost.
    // A second baseline, for reading the ratio above: the floor plus only the duties
    // any dispatcher has (find the function by name, refuse unknown fields and values
    // out of the declared bounds, survive a panic, answer with the call's id), written
    // by hand for this one tool. Not the target's floor; the gap between it and
    // `Registry::dispatch` is what policy, effects, budget and the rest cost.
    let by_name = book_room::by_name();
    group.bench_function(
        "hand-written dispatch of this one tool (lookup, bounds, catch_unwind, id)",
        |b| {
            b.iter_batched(
                || ToolCall::new("call_1", "book_room", VALID),
                |call| black_box(book_room::hand_written_dispatch(&by_name, call)),
                criterion::BatchSize::SmallInput,
            )
        },
    );
    group.bench_function("toolwright: Registry::dispatch", |b| {
        b.iter_batched(
            || ToolCall::new("call_1", "book_room", VALID),
            |call| black_box(ready(registry.dispatch(&ctx, call))),
            criterion::BatchSize::SmallInput,
        )
    });
    group.finish();
}

fn invalid_call(c: &mut Criterion) {
    let schema = BookRoom.spec().input_schema.clone();
    let baseline = jsonschema::draft202012::new(&schema).unwrap();
    let registry = Registry::builder().with(BookRoom).build().unwrap();
    let ctx = Context::new();
    // Same inputs, same answers: four problems each.
    let instance: Value = serde_json::from_str(INVALID).unwrap();
    assert_eq!(baseline.iter_errors(&instance).count(), 4);
    assert_eq!(
        BookRoom
            .prepare(Arguments::Json(INVALID))
            .unwrap_err()
            .problems
            .len(),
        4
    );

    let mut group = c.benchmark_group("invalid_call_four_problems");
    group.bench_function("jsonschema: parse + iter_errors, all messages", |b| {
        b.iter(|| {
            let instance: Value = serde_json::from_str(black_box(INVALID)).unwrap();
            let messages: Vec<String> = baseline
                .iter_errors(&instance)
                .map(|e| e.to_string())
                .collect();
            black_box(messages)
        })
    });
    group.bench_function(
        "toolwright: Tool::prepare (fast path, then every problem)",
        |b| {
            b.iter(|| {
                black_box(
                    BookRoom
                        .prepare(Arguments::Json(black_box(INVALID)))
                        .unwrap_err(),
                )
            })
        },
    );
    group.bench_function(
        "toolwright: Registry::dispatch (model view included)",
        |b| {
            b.iter_batched(
                || ToolCall::new("call_1", "book_room", INVALID),
                |call| black_box(ready(registry.dispatch(&ctx, call))),
                criterion::BatchSize::SmallInput,
            )
        },
    );
    group.finish();
}

fn large_registry(c: &mut Criterion) {
    let mut group = c.benchmark_group("registry_1000_tools");
    group.bench_function("build", |b| {
        b.iter_batched(
            || generated(1000),
            |tools| black_box(registry_of(tools)),
            criterion::BatchSize::LargeInput,
        )
    });
    let large = registry_of(generated(1000));
    let small = registry_of(generated(10));
    group.bench_function("render every definition (JSON text)", |b| {
        b.iter(|| {
            let definitions: Vec<Value> = large
                .specs()
                .map(|spec| serde_json::json!({"name": spec.name, "description": spec.description, "parameters": spec.input_schema}))
                .collect();
            black_box(serde_json::to_string(&definitions).unwrap())
        })
    });
    group.bench_function("lookup in 1,000 tools", |b| {
        b.iter(|| black_box(large.get(black_box("tool_0500")).is_some()))
    });
    group.bench_function("lookup in 10 tools", |b| {
        b.iter(|| black_box(small.get(black_box("tool_0005")).is_some()))
    });
    group.finish();
}

/// Issue 14's scale figures: 10,000 tools built, looked up and rendered for a provider
/// (definitions are lowered on every call today; a cache per dialect is not built yet),
/// beside the same work for 100 tools in the same run.
fn huge_registry(c: &mut Criterion) {
    let mut group = c.benchmark_group("registry_10000_tools");
    group.sample_size(10);
    group.bench_function("build", |b| {
        b.iter_batched(
            || generated(10_000),
            |tools| black_box(registry_of(tools)),
            criterion::BatchSize::LargeInput,
        )
    });
    let huge = registry_of(generated(10_000));
    let hundred = registry_of(generated(100));
    group.bench_function("lookup in 10,000 tools", |b| {
        b.iter(|| black_box(huge.get(black_box("tool_5000")).is_some()))
    });
    for dialect in [
        toolwright::Dialect::OpenAiChat { strict: true },
        toolwright::Dialect::Anthropic { strict: false },
        toolwright::Dialect::Mcp,
    ] {
        group.bench_function(
            format!("definitions, 10,000 tools, {}", dialect.slug()),
            |b| b.iter(|| black_box(huge.all_definitions(dialect).unwrap().len())),
        );
        group.bench_function(
            format!("all_definitions_shared, 10,000 tools, {}", dialect.slug()),
            |b| b.iter(|| black_box(huge.all_definitions_shared(dialect).unwrap().len())),
        );
        group.bench_function(format!("definitions, 100 tools, {}", dialect.slug()), |b| {
            b.iter(|| black_box(hundred.all_definitions(dialect).unwrap().len()))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    valid_call,
    invalid_call,
    large_registry,
    huge_registry
);
criterion_main!(benches);
