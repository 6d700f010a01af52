//! Small builders of schema JSON that generated code and the std impls share. Not public
//! API: reached through `__private` by generated code.

use serde_json::{Map, Value};

/// `schema` with a `description`, written first (where a reader looks for it).
pub fn describe(schema: Value, description: &str) -> Value {
    let mut map = Map::new();
    map.insert("description".into(), Value::String(description.to_owned()));
    map.extend(
        into_object(schema)
            .into_iter()
            .filter(|(key, _)| key != "description"),
    );
    Value::Object(map)
}

/// A schema as a JSON object, to add keywords to: `true` is `{}`, and any other boolean
/// schema is kept whole inside `allOf`.
pub fn into_object(schema: Value) -> Map<String, Value> {
    match schema {
        Value::Object(map) => map,
        Value::Bool(true) => Map::new(),
        other => {
            let mut map = Map::new();
            map.insert("allOf".into(), Value::Array(vec![other]));
            map
        }
    }
}

/// `schema` widened to also accept `null`, in the simplest form that says so:
/// `"type": [T, "null"]` where the schema has one `type`, `anyOf` otherwise.
pub fn nullable(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        // `true` accepts null already; `false` becomes "only null".
        return if schema == Value::Bool(true) {
            schema
        } else {
            serde_json::json!({"type": "null"})
        };
    };
    if map.is_empty() {
        return Value::Object(map);
    }
    // An `anyOf` beside annotations only: already nullable when a branch is `null`,
    // else `null` joins its branches (no `anyOf` nested in another).
    let annotations_only = map.keys().all(|key| {
        matches!(
            key.as_str(),
            "anyOf" | "description" | "title" | "examples" | "default"
        )
    });
    if annotations_only && let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        if !branches
            .iter()
            .any(|b| b.get("type") == Some(&Value::from("null")))
        {
            branches.push(serde_json::json!({"type": "null"}));
        }
        return Value::Object(map);
    }
    let simple = !map.contains_key("$ref")
        && !map.contains_key("const")
        && !map.contains_key("anyOf")
        && !map.contains_key("oneOf")
        && !map.contains_key("allOf");
    match map.get("type") {
        Some(Value::String(ty)) if simple => {
            let ty = ty.clone();
            map.insert("type".into(), serde_json::json!([ty, "null"]));
            if let Some(Value::Array(values)) = map.get_mut("enum") {
                values.push(Value::Null);
            }
            Value::Object(map)
        }
        Some(Value::Array(types)) if simple && types.iter().any(|t| t == "null") => {
            Value::Object(map)
        }
        _ => serde_json::json!({"anyOf": [Value::Object(map), {"type": "null"}]}),
    }
}
