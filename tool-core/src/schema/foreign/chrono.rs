//! chrono's dates and times, in the text forms their serde impls read (feature `chrono04`).

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
use serde_json::Value;

use super::formatted;
use crate::schema::{SchemaGenerator, ToolSchema};

/// `2026-11-30`.
impl ToolSchema for NaiveDate {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        formatted("date")
    }
}

/// `14:30:00`, with no offset (toolwright's `local-time` format).
impl ToolSchema for NaiveTime {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        formatted("local-time")
    }
}

/// `2026-11-30T14:30:00`, with no offset (toolwright's `local-date-time` format).
impl ToolSchema for NaiveDateTime {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        formatted("local-date-time")
    }
}

/// RFC 3339, `2026-11-30T14:30:00Z` or with an offset, for `Utc`, `FixedOffset` and
/// `Local` alike: each reads any offset and converts.
impl<Tz: TimeZone> ToolSchema for DateTime<Tz> {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        formatted("date-time")
    }
}
