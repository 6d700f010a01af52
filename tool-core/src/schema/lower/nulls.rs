//! "Or null" for targets without a `null` type.

use serde_json::{Value, json};

use super::Lowering;

/// OpenAPI 3.0 has no `null` type: `["T", "null"]` and `anyOf [X, null]` become
/// `nullable: true`.
pub(super) fn to_openapi_nullable(lowering: &mut Lowering<'_>, schema: Value, path: &str) -> Value {
    let Value::Object(mut map) = schema else {
        return schema;
    };
    if let Some(Value::Array(types)) = map.get("type").cloned() {
        let non_null: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        if non_null.len() > 1 {
            lowering.error(
                path,
                "a value of several types cannot be expressed in Gemini `parameters`",
            );
        }
        if let Some(first) = non_null.first() {
            map.insert("type".into(), (*first).clone());
        }
        if non_null.len() < types.len() {
            map.insert("nullable".into(), Value::Bool(true));
        }
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            values.retain(|v| !v.is_null());
        }
    }
    if let Some(Value::Array(any_of)) = map.get("anyOf").cloned() {
        let is_null = |s: &Value| s.get("type") == Some(&json!("null"));
        if any_of.iter().any(is_null) {
            let rest: Vec<Value> = any_of.into_iter().filter(|s| !is_null(s)).collect();
            map.remove("anyOf");
            if let [single] = rest.as_slice()
                && let Value::Object(inner) = single
            {
                for (key, value) in inner {
                    map.entry(key.clone()).or_insert_with(|| value.clone());
                }
            } else {
                map.insert("anyOf".into(), Value::Array(rest));
            }
            map.insert("nullable".into(), Value::Bool(true));
        }
    }
    if map.get("type") == Some(&json!("null")) {
        lowering.error(
            path,
            "a value that can only be null cannot be expressed in Gemini `parameters`",
        );
    }
    Value::Object(map)
}
