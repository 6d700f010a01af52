//! `ToolSchema` for types of other crates, each behind a cargo feature named after its
//! crate (`chrono`, `uuid`, `url`), and for the standard library's network addresses.
//!
//! Each schema describes the type's serde form, and the validator asserts its `format`,
//! so a value the schema admits is one the type's `Deserialize` reads. Where a parser
//! takes more than the format's RFC (uuid's braced and unhyphenated forms, chrono's
//! single-digit months), the schema is the stricter one: the model is shown the standard
//! form and a value outside it is reported with the shape it should have.

#[cfg(feature = "chrono")]
mod chrono;
#[cfg(feature = "url")]
mod url;
#[cfg(feature = "uuid")]
mod uuid;

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

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
