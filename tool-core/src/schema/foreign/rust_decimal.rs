//! `rust_decimal::Decimal` (feature `rust_decimal1`).

use rust_decimal::Decimal;
use serde_json::{Value, json};

use crate::schema::{SchemaGenerator, ToolSchema};

/// A decimal string, `"-12.50"`: what `Decimal` serializes to by default, and what it
/// reads under every serde feature of rust_decimal (it also reads JSON numbers, unless
/// `serde-str`; the schema shows the exact form). At most 28 digits before the point
/// and 28 after (its largest scale).
impl ToolSchema for Decimal {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({
            "type": "string",
            "pattern": "^-?(0|[1-9][0-9]{0,27})(\\.[0-9]{1,28})?$"
        })
    }
}
