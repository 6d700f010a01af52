//! Ready schemas for `#[arg(schema_with = ...)]`, for values read in a standard text form
//! by a function of their own rather than by their type's `Deserialize`, as
//! `#[serde(with = "time::serde::rfc3339")]` reads a `time::OffsetDateTime`:
//!
//! ```
//! use toolwright::{ToolError, tool};
//!
//! mod stamp {
//!     // Reads a Unix time from its RFC 3339 text (a stand-in for `time::serde::rfc3339`).
//!     pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
//!         serde::Deserialize::deserialize(d)
//!     }
//! }
//!
//! /// Schedule a reminder.
//! #[tool(effect = "write")]
//! fn remind(
//!     /// When to remind.
//!     #[serde(deserialize_with = "stamp::deserialize")]
//!     #[arg(schema_with = toolwright::schema::formats::date_time)]
//!     at: String,
//! ) -> Result<String, ToolError> {
//!     Ok(at)
//! }
//! ```
//!
//! Each is `{"type": "string", "format": ...}` with a format the validator checks. The
//! schema is your promise about the wire form: make sure the function reads every value
//! of the format (a parser that reads more is fine, one that reads less is not).

use serde_json::Value;

use super::SchemaGenerator;
use super::foreign::formatted;

macro_rules! formats {
    ($($(#[$doc:meta])* $name:ident => $format:literal;)*) => {$(
        $(#[$doc])*
        pub fn $name(_: &mut SchemaGenerator) -> Value {
            formatted($format)
        }
    )*};
}

formats! {
    /// `format: date-time`, RFC 3339 with an offset: `time::serde::rfc3339`.
    date_time => "date-time";
    /// `format: date`, `2026-11-30`.
    date => "date";
    /// `format: time`, RFC 3339 `full-time` with an offset.
    time => "time";
    /// toolwright's `format: local-date-time`, a date and time without an offset.
    local_date_time => "local-date-time";
    /// toolwright's `format: local-time`, a time without an offset.
    local_time => "local-time";
    /// `format: duration`, ISO 8601 as in RFC 3339 appendix A, `PT1H30M`.
    duration => "duration";
    /// `format: email`.
    email => "email";
    /// `format: hostname`.
    hostname => "hostname";
    /// `format: ipv4`.
    ipv4 => "ipv4";
    /// `format: ipv6`.
    ipv6 => "ipv6";
    /// `format: uuid`, hyphenated.
    uuid => "uuid";
    /// `format: uri`, an absolute URI.
    uri => "uri";
}
