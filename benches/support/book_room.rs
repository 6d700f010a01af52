//! The tool the dispatch benchmarks call, with its baselines (the same function called
//! directly, and a hand-written dispatcher of this one tool), and the generated tools of
//! large catalogs. Shared by `benches/dispatch.rs` (criterion) and
//! `examples/dispatch_loop.rs` (callgrind, memory).

#![allow(dead_code)] // each user takes a part

use std::collections::HashMap;

use serde::Deserialize;
use toolwright::{
    Arguments, CallArguments, Context, Prepared, Registry, Tool, ToolCall, ToolError, ToolFuture,
    ToolSpec, tool,
};

/// Book a meeting room.
#[tool(effect = "write")]
pub fn book_room(
    /// Room name.
    room: String,
    /// Start hour, 0-23.
    #[arg(minimum = 0, maximum = 23)]
    hour: u8,
    /// Length in minutes.
    #[arg(minimum = 15, maximum = 240)]
    minutes: u16,
) -> String {
    format!("{room}@{hour}+{minutes}")
}

#[derive(Deserialize)]
pub struct BookRoomArgs {
    pub room: String,
    pub hour: u8,
    pub minutes: u16,
}

/// `BookRoomArgs` as the tool reads them: unknown fields refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StrictArgs {
    room: String,
    hour: u8,
    minutes: u16,
}

pub fn book_room_direct(args: BookRoomArgs) -> String {
    book_room(args.room, args.hour, args.minutes)
}

pub const VALID: &str = r#"{"room": "Aalto", "hour": 9, "minutes": 30}"#;

/// Four problems: `room` is a number, `hour` is over 23, `minutes` is missing, and
/// `minute` is not a parameter.
pub const INVALID: &str = r#"{"room": 7, "hour": 25, "minute": 30}"#;

/// The hand-written dispatcher's table: this one tool, by name.
pub type Table = HashMap<&'static str, fn(BookRoomArgs) -> String>;

pub fn by_name() -> Table {
    [("book_room", book_room_direct as fn(BookRoomArgs) -> String)].into()
}

/// The floor plus only the duties any dispatcher has (find the function by name, refuse
/// unknown fields and values out of the declared bounds, survive a panic, answer with
/// the call's id), written by hand for this one tool. Not the target's floor; the gap
/// between it and `Registry::dispatch` is what policy, effects, budget and the rest cost.
pub fn hand_written_dispatch(by_name: &Table, call: ToolCall) -> (String, Result<String, String>) {
    let CallArguments::Json(json) = &call.arguments else {
        unreachable!("the call carries JSON text")
    };
    let outcome = match (
        by_name.get(call.name.as_str()),
        serde_json::from_str::<StrictArgs>(json),
    ) {
        (
            Some(function),
            Ok(StrictArgs {
                room,
                hour,
                minutes,
            }),
        ) if hour <= 23 && (15..=240).contains(&minutes) => std::panic::catch_unwind(|| {
            function(BookRoomArgs {
                room,
                hour,
                minutes,
            })
        })
        .map_err(|_| "panicked".to_owned()),
        _ => Err("invalid".to_owned()),
    };
    (call.id, outcome)
}

/// A tool whose contract is known only at run time: the shape of a 1,000-tool registry
/// built from configuration.
pub struct Generated {
    spec: ToolSpec,
}

impl Tool for Generated {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    fn prepare(&self, _: Arguments<'_>) -> Result<Prepared, ToolError> {
        Ok(Prepared::new(()))
    }
    fn run<'a>(&'a self, _: &'a Context, _: Prepared) -> ToolFuture<'a> {
        ToolFuture::ready(Ok(toolwright::ToolOutput::Empty))
    }
}

pub fn generated(count: usize) -> Vec<Generated> {
    let template = BookRoom.spec().clone();
    (0..count)
        .map(|i| {
            let mut spec = template.clone();
            spec.name = format!("tool_{i:04}");
            Generated { spec }
        })
        .collect()
}

pub fn registry_of(tools: Vec<Generated>) -> Registry {
    tools
        .into_iter()
        .fold(Registry::builder(), |builder, tool| builder.with(tool))
        .build()
        .unwrap()
}
