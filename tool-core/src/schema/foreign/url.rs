//! `url::Url` (feature `url2`).

use serde_json::Value;

use super::formatted;
use crate::schema::{SchemaGenerator, ToolSchema};

/// An absolute URI, `https://example.com/path`: RFC 3986 syntax that the url crate's
/// own parser also accepts (the validator checks both with this feature on).
impl ToolSchema for url::Url {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        formatted("uri")
    }
}
