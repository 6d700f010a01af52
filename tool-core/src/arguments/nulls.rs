//! Strict nulls decoded: the reading side of a lowering that made optional arguments
//! required and nullable (OpenAI strict).

use serde_json::{Map, Value};

use crate::schema::lower::refs::{defs_of, resolve_ref};

/// The decoder side of a lowering that made optional arguments required and nullable
/// (OpenAI strict): in `value`, a `null` for a property that is optional in the canonical
/// `schema` and does not itself accept `null` means "left out", and is removed, at any
/// depth. `Option<T>` arguments keep their `null` (it means `None` either way).
pub(crate) fn remove_absent_nulls(value: &mut Value, schema: &Value) {
    let defs = defs_of(schema);
    strip(value, schema, &defs, 0);
}

fn strip(value: &mut Value, schema: &Value, defs: &Map<String, Value>, depth: usize) {
    if depth > 64 {
        return;
    }
    let schema = resolve_ref(schema, defs);
    match value {
        Value::Object(object) => {
            if let Some(Value::Object(properties)) = schema.get("properties") {
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                object.retain(|key, item| {
                    let optional = !required.contains(&key.as_str());
                    let absent = item.is_null()
                        && optional
                        && properties.get(key).is_some_and(|p| !accepts_null(p, defs));
                    !absent
                });
                for (key, item) in object.iter_mut() {
                    if let Some(property) = properties.get(key) {
                        strip(item, property, defs, depth + 1);
                    }
                }
            }
            for key in ["anyOf", "oneOf", "allOf"] {
                if let Some(Value::Array(branches)) = schema.get(key) {
                    // The branch whose properties cover the object's keys.
                    let branch = branches.iter().map(|b| resolve_ref(b, defs)).find(|b| {
                        b.get("properties")
                            .and_then(Value::as_object)
                            .is_some_and(|p| object.keys().all(|k| p.contains_key(k)))
                    });
                    if let Some(branch) = branch {
                        let mut inner = Value::Object(std::mem::take(object));
                        strip(&mut inner, &branch, defs, depth + 1);
                        if let Value::Object(inner) = inner {
                            *object = inner;
                        }
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    strip(item, item_schema, defs, depth + 1);
                }
            }
        }
        _ => {}
    }
}

fn accepts_null(schema: &Value, defs: &Map<String, Value>) -> bool {
    let schema = resolve_ref(schema, defs);
    match &schema {
        Value::Bool(b) => *b,
        Value::Object(map) if map.is_empty() => true,
        Value::Object(map) => {
            let by_type = match map.get("type") {
                Some(Value::String(t)) => t == "null",
                Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
                None => {
                    !map.contains_key("anyOf")
                        && !map.contains_key("oneOf")
                        && !map.contains_key("enum")
                        && !map.contains_key("const")
                }
                _ => false,
            };
            let by_branch = ["anyOf", "oneOf"].iter().any(|key| {
                map.get(*key)
                    .and_then(Value::as_array)
                    .is_some_and(|bs| bs.iter().any(|b| accepts_null(b, defs)))
            });
            by_type || by_branch
        }
        _ => false,
    }
}
