//! `$defs` and `$ref`: the definitions of a schema, a reference resolved, and the
//! definitions a schema still refers to (a real walk, not a search of its text).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// The `$defs` of a root schema.
pub(crate) fn defs_of(schema: &Value) -> Map<String, Value> {
    schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

/// The name a `{"$ref": "#/$defs/NAME"}` schema points to.
pub(crate) fn def_name(schema: &Value) -> Option<&str> {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix("#/$defs/"))
}

/// `schema`, or the definition it refers to (one level); an unknown name is `true`.
pub(crate) fn resolve_ref(schema: &Value, defs: &Map<String, Value>) -> Value {
    match def_name(schema) {
        Some(name) => defs.get(name).cloned().unwrap_or(Value::Bool(true)),
        None => schema.clone(),
    }
}

/// Every definition name `schema` refers to with `$ref`, at any depth.
pub(crate) fn referenced(schema: &Value) -> BTreeSet<String> {
    fn walk(value: &Value, names: &mut BTreeSet<String>) {
        match value {
            Value::Object(map) => {
                if let Some(name) = def_name(value) {
                    names.insert(name.to_owned());
                }
                map.values().for_each(|child| walk(child, names));
            }
            Value::Array(items) => items.iter().for_each(|child| walk(child, names)),
            _ => {}
        }
    }
    let mut names = BTreeSet::new();
    walk(schema, &mut names);
    names
}
