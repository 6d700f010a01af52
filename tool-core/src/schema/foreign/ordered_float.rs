//! `OrderedFloat` and `NotNan` (feature `ordered-float5`), as the float they wrap.

use serde_json::Value;

use crate::schema::{SchemaGenerator, ToolSchema};

impl<T: ToolSchema + ordered_float::FloatCore> ToolSchema for ordered_float::OrderedFloat<T> {
    fn tool_schema(generator: &mut SchemaGenerator) -> Value {
        T::tool_schema(generator)
    }
}

/// JSON has no NaN, so every JSON number is one.
impl<T: ToolSchema + ordered_float::FloatCore> ToolSchema for ordered_float::NotNan<T> {
    fn tool_schema(generator: &mut SchemaGenerator) -> Value {
        T::tool_schema(generator)
    }
}
