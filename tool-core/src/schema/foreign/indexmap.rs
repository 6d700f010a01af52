//! `IndexMap` and `IndexSet` (feature `indexmap2`), as the std map and set.

use serde_json::Value;

use crate::schema::std_impls::{map, set};
use crate::schema::{MapKey, SchemaGenerator, ToolSchema};

impl<K: MapKey, V: ToolSchema, S> ToolSchema for indexmap::IndexMap<K, V, S> {
    fn tool_schema(generator: &mut SchemaGenerator) -> Value {
        map(generator.subschema_for::<V>())
    }
    fn meets_constraints(&self) -> bool {
        self.values().all(V::meets_constraints)
    }
}

/// Like `HashSet`: `uniqueItems`, and a duplicate is merged by serde, not refused.
impl<T: ToolSchema, S> ToolSchema for indexmap::IndexSet<T, S> {
    fn tool_schema(generator: &mut SchemaGenerator) -> Value {
        set(generator.subschema_for::<T>())
    }
    fn meets_constraints(&self) -> bool {
        self.iter().all(T::meets_constraints)
    }
}
