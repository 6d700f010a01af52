//! `ToolSchema` for types of other crates, each behind a cargo feature named after its
//! crate (`chrono`, `jiff`, `uuid`, `url`, `rust_decimal`, `semver`, `indexmap`,
//! `smallvec`, `arrayvec`, `ordered-float`), and for the standard library's network
//! addresses and `Duration`.
//!
//! Each schema describes the type's serde form, and the validator asserts its `format`,
//! so a value the schema admits is one the type's `Deserialize` reads. Where a parser
//! takes more than the format's RFC (uuid's braced and unhyphenated forms, chrono's
//! single-digit months), the schema is the stricter one: the model is shown the standard
//! form and a value outside it is reported with the shape it should have.

#[cfg(feature = "arrayvec07")]
mod arrayvec;
#[cfg(feature = "chrono04")]
mod chrono;
#[cfg(feature = "indexmap2")]
mod indexmap;
#[cfg(feature = "jiff02")]
mod jiff;
#[cfg(feature = "ordered-float5")]
mod ordered_float;
#[cfg(feature = "rust_decimal1")]
mod rust_decimal;
#[cfg(feature = "semver1")]
mod semver;
#[cfg(feature = "smallvec1")]
mod smallvec;
#[cfg(feature = "url2")]
mod url;
#[cfg(feature = "uuid1")]
mod uuid;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::time::Duration;

use serde_json::{Value, json};

use super::{SchemaGenerator, ToolSchema};

/// `{"type": "string", "format": format}`.
pub(crate) fn formatted(format: &str) -> Value {
    json!({"type": "string", "format": format})
}

impl ToolSchema for Ipv4Addr {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        formatted("ipv4")
    }
}

impl ToolSchema for Ipv6Addr {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        formatted("ipv6")
    }
}

/// Either form; serde reads `IpAddr` from its text.
impl ToolSchema for IpAddr {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({"anyOf": [formatted("ipv4"), formatted("ipv6")]})
    }
}

/// serde's form of a `Duration`: `{"secs": 90, "nanos": 0}`, both required, nothing
/// else. serde would carry `nanos` beyond a second into `secs`; the schema keeps each in
/// its range (and `secs` within 2^53, where JSON numbers stay exact).
impl ToolSchema for Duration {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({
            "type": "object",
            "properties": {
                "secs": {"type": "integer", "minimum": 0, "maximum": 9_007_199_254_740_991_u64},
                "nanos": {"type": "integer", "minimum": 0, "maximum": 999_999_999}
            },
            "required": ["secs", "nanos"],
            "additionalProperties": false
        })
    }
}
