//! `uuid::Uuid` (feature `uuid1`).

use serde_json::Value;

use super::formatted;
use crate::schema::{SchemaGenerator, ToolSchema};

/// The hyphenated form, `67e55044-10b1-426f-9247-bb680e5fe0c8`. uuid also reads the
/// braced, URN and unhyphenated forms; the schema shows (and the validator checks) the
/// standard one.
impl ToolSchema for uuid::Uuid {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        formatted("uuid")
    }
}
