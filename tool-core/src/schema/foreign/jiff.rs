//! jiff's instants and civil dates and times (feature `jiff02`).
//!
//! `Zoned` and `Span` have no impl: a `Zoned` must name a time zone that jiff finds in
//! its database (`[Europe/Paris]`), which no schema can check, and a `Span` has limits per
//! unit that `format: duration` does not carry. Take a `Timestamp` and a zone name, or
//! give a `Span` its schema with `#[arg(schema_with = ...)]`.

use jiff::Timestamp;
use jiff::civil::{Date, DateTime, Time};
use serde_json::{Value, json};

use super::formatted;
use crate::schema::{SchemaGenerator, ToolSchema};

/// RFC 3339 with an offset, `2026-11-30T14:30:00Z`. jiff's instants end at
/// 9999-12-30T22:00:00Z, so the pattern keeps years up to 9998.
impl ToolSchema for Timestamp {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({
            "type": "string",
            "format": "date-time",
            "pattern": "^([0-8][0-9]{3}|9[0-8][0-9]{2}|99[0-8][0-9]|999[0-8])-"
        })
    }
}

/// `2026-11-30`.
impl ToolSchema for Date {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        formatted("date")
    }
}

/// `2026-11-30T14:30:00`, no offset.
impl ToolSchema for DateTime {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        formatted("local-date-time")
    }
}

/// `14:30:00`, no offset.
impl ToolSchema for Time {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        formatted("local-time")
    }
}
