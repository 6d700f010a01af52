//! Dispatches one call many times, for counting instructions under callgrind
//! (`scripts/measure/callgrind-dispatch` runs it; instruction counts are deterministic where
//! criterion's times are not):
//!
//! ```sh
//! cargo run --release --example dispatch_loop --features dispatch_loop -- toolwright 10000
//! cargo run --release --example dispatch_loop --features dispatch_loop -- hand-written 10000
//! ```
//!
//! The call is the criterion benchmark's (`benches/dispatch.rs`): `book_room` with
//! three valid arguments from JSON text, through `Registry::dispatch`, or through the
//! hand-written dispatcher of that one tool, or the floor (serde into a struct and a
//! direct call); `call-only` builds the call and nothing else, so it can be subtracted.
//! `invalid` and `jsonschema`: the benchmark's rejected call (four problems), through the
//! tool's reader or the jsonschema crate. With `--features otel`, `traced` dispatches
//! with OpenTelemetry's SDK behind the spans.
//!
//! Memory (resident set, from `/proc/self/status`):
//!
//! ```sh
//! cargo run --release --example dispatch_loop --features dispatch_loop -- catalog 10000  # a 10,000-tool registry
//! cargo run --release --example dispatch_loop --features dispatch_loop -- batch 1000     # 1,000 async calls at once
//! ```

#[path = "../benches/support/book_room.rs"]
mod book_room;

use std::hint::black_box;
use std::pin::pin;
use std::task::{Context as TaskContext, Poll, Waker};

use book_room::{BookRoom, BookRoomArgs, INVALID, VALID};
use toolwright::{Arguments, Context, Registry, Tool, ToolCall};

/// Wait, then answer: an async tool that holds its call in flight.
#[toolwright::tool(effect = "read_only")]
async fn wait_a_moment(
    /// How long, in milliseconds.
    millis: u64,
) -> String {
    tokio::time::sleep(std::time::Duration::from_millis(millis)).await;
    "done".into()
}

/// This process's resident memory now and at its peak, in KiB.
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| -> u64 {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "toolwright".into());
    let count: usize = args
        .next()
        .map_or(10_000, |n| n.parse().expect("a number of calls"));
    if mode == "catalog" {
        let (before, _) = memory();
        let started = std::time::Instant::now();
        let registry = book_room::registry_of(book_room::generated(count));
        let built = started.elapsed();
        let (after_build, _) = memory();
        let definitions = registry
            .all_definitions_shared(toolwright::Dialect::Mcp)
            .expect("expressible");
        let (after_definitions, peak) = memory();
        println!(
            "{count} tools: built in {built:?}, {} KiB ({} bytes a tool); with the MCP definitions kept, {} KiB ({} bytes a tool); peak {peak} KiB",
            after_build - before,
            (after_build - before) * 1024 / count as u64,
            after_definitions - before,
            (after_definitions - before) * 1024 / count as u64,
        );
        black_box(definitions);
        return;
    }
    if mode == "batch" {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let registry = Registry::builder()
            .with(WaitAMoment)
            .with_max_concurrency(count)
            .build()
            .unwrap();
        let calls: Vec<ToolCall> = (0..count)
            .map(|n| ToolCall::new(format!("call_{n}"), "wait_a_moment", r#"{"millis": 500}"#))
            .collect();
        let (before, _) = memory();
        let results = runtime.block_on(registry.dispatch_batch(&Context::new(), calls));
        let (_, peak) = memory();
        assert!(results.iter().all(|result| result.for_model() == "done"));
        println!(
            "{count} calls in flight at once through dispatch_batch: {} KiB over the start, {} bytes a call",
            peak.saturating_sub(before),
            peak.saturating_sub(before) * 1024 / count as u64
        );
        return;
    }
    // `traced` (feature `otel`): the same dispatch with OpenTelemetry's SDK behind the
    // call spans (every span built and ended; exported nowhere).
    #[cfg(feature = "otel")]
    if mode == "traced" {
        let tracer =
            toolwright::otel::opentelemetry_sdk::trace::SdkTracerProvider::builder().build();
        let meter =
            toolwright::otel::opentelemetry_sdk::metrics::SdkMeterProvider::builder().build();
        toolwright::otel::install(&tracer, meter).expect("installed once");
        std::mem::forget(tracer);
    }
    let registry = Registry::builder().with(BookRoom).build().unwrap();
    let ctx = Context::new();
    let by_name = book_room::by_name();
    // The rejected call of `benches/dispatch.rs`: every problem found and worded, by the
    // tool's reader (fast path, then the validator) or by the jsonschema crate.
    if mode == "invalid" || mode == "jsonschema" {
        let schema = BookRoom.spec().input_schema.clone();
        let baseline = jsonschema::draft202012::new(&schema).expect("a valid schema");
        for _ in 0..count {
            if mode == "invalid" {
                let error = BookRoom
                    .prepare(Arguments::Json(black_box(INVALID)))
                    .expect_err("four problems");
                assert_eq!(error.problems.len(), 4);
                black_box(error);
            } else {
                let instance: serde_json::Value = serde_json::from_str(black_box(INVALID)).unwrap();
                let messages: Vec<String> = baseline
                    .iter_errors(&instance)
                    .map(|e| e.to_string())
                    .collect();
                assert_eq!(messages.len(), 4);
                black_box(messages);
            }
        }
        return;
    }
    for n in 0..count {
        let call = ToolCall::new(format!("call_{n}"), "book_room", VALID);
        match mode.as_str() {
            "toolwright" | "traced" => {
                let mut future = pin!(registry.dispatch(&ctx, call));
                let Poll::Ready(result) = future
                    .as_mut()
                    .poll(&mut TaskContext::from_waker(Waker::noop()))
                else {
                    unreachable!("a synchronous tool finishes on the first poll")
                };
                assert!(!result.is_error());
                black_box(result);
            }
            "hand-written" => {
                let (id, outcome) = book_room::hand_written_dispatch(&by_name, call);
                assert!(outcome.is_ok());
                let _ = black_box((id, outcome));
            }
            "call-only" => {
                black_box(call);
            }
            "floor" => {
                let args: BookRoomArgs = serde_json::from_str(black_box(VALID)).unwrap();
                black_box(book_room::book_room(args.room, args.hour, args.minutes));
                black_box(call);
            }
            other => panic!(
                "unknown mode {other}: toolwright, hand-written, floor, call-only, invalid or jsonschema"
            ),
        }
    }
}
