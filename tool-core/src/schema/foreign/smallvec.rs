//! `SmallVec` (feature `smallvec1`), as a `Vec`.

use serde_json::Value;

use crate::schema::std_impls::array;
use crate::schema::{SchemaGenerator, ToolSchema};

impl<A: smallvec::Array> ToolSchema for smallvec::SmallVec<A>
where
    A::Item: ToolSchema,
{
    fn tool_schema(generator: &mut SchemaGenerator) -> Value {
        array(generator.subschema_for::<A::Item>())
    }
    fn meets_constraints(&self) -> bool {
        self.iter().all(A::Item::meets_constraints)
    }
}
