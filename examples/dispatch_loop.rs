//! Dispatches one call many times, for counting instructions under callgrind
//! (`scripts/callgrind-dispatch` runs it; instruction counts are deterministic where
//! criterion's times are not):
//!
//! ```sh
//! cargo run --release --example dispatch_loop -- toolwright 10000
//! cargo run --release --example dispatch_loop -- hand-written 10000
//! ```
//!
//! The call is the criterion benchmark's (`benches/dispatch.rs`): `book_room` with
//! three valid arguments from JSON text, through `Registry::dispatch`, or through the
//! hand-written dispatcher of that one tool, or the floor (serde into a struct and a
//! direct call). With `--features otel`, `traced` dispatches with OpenTelemetry's SDK
//! behind the spans.

#[path = "../benches/support/book_room.rs"]
mod book_room;

use std::hint::black_box;
use std::pin::pin;
use std::task::{Context as TaskContext, Poll, Waker};

use book_room::{BookRoom, BookRoomArgs, VALID};
use toolwright::{Context, Registry, ToolCall};

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_else(|| "toolwright".into());
    let count: usize = args
        .next()
        .map_or(10_000, |n| n.parse().expect("a number of calls"));
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
    let registry = Registry::new().with(BookRoom);
    let ctx = Context::new();
    let by_name = book_room::by_name();
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
            "floor" => {
                let args: BookRoomArgs = serde_json::from_str(black_box(VALID)).unwrap();
                black_box(book_room::book_room(args.room, args.hour, args.minutes));
                black_box(call);
            }
            other => panic!("unknown mode {other}: toolwright, hand-written or floor"),
        }
    }
}
