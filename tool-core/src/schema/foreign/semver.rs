//! `semver::Version` (feature `semver1`).

use serde_json::{Value, json};

use crate::schema::{SchemaGenerator, ToolSchema};

/// A SemVer 2.0 version, `1.4.0-rc.1+build.5`: semver.org's pattern, with the three
/// numbers limited to 19 digits so each fits the `u64` the crate stores.
impl ToolSchema for semver::Version {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({
            "type": "string",
            "pattern": concat!(
                "^(0|[1-9][0-9]{0,18})\\.(0|[1-9][0-9]{0,18})\\.(0|[1-9][0-9]{0,18})",
                "(-(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(\\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?",
                "(\\+[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*)?$"
            )
        })
    }
}
