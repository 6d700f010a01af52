//! `ArrayVec` (feature `arrayvec07`): an array of at most its capacity.

use serde_json::{Value, json};

use crate::schema::std_impls::array;
use crate::schema::{SchemaGenerator, ToolSchema};

/// At most `CAP` items: arrayvec refuses more.
impl<T: ToolSchema, const CAP: usize> ToolSchema for arrayvec::ArrayVec<T, CAP> {
    fn tool_schema(generator: &mut SchemaGenerator) -> Value {
        let mut schema = array(generator.subschema_for::<T>());
        schema["maxItems"] = json!(CAP);
        schema
    }
    fn meets_constraints(&self) -> bool {
        self.iter().all(T::meets_constraints)
    }
}
