//! "Or null" for targets without a `null` type, and for those that read only one type.

use serde_json::{Map, Value, json};

use super::Lowering;
use super::refs::DATA_KEYS;

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

/// Keys that describe a value rather than constrain it: they stay beside the `anyOf`.
const ANNOTATIONS: [&str; 9] = [
    "description",
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "x-mcp-header",
];

/// `"type": ["T", "null"]` becomes `"anyOf": [{"type": "T", ...}, {"type": "null"}]`,
/// at every depth: the same values, in the form clients that read `type` as one string
/// take (Cursor compares it as a string; clients that convert to Gemini's OpenAPI
/// subset reject a list; the MCP Inspector's portability report warns about it).
/// Constraints move into the typed branch; annotations stay beside the `anyOf`.
pub(super) fn type_arrays_as_any_of(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            for (key, child) in map.iter_mut() {
                if !DATA_KEYS.contains(&key.as_str()) {
                    type_arrays_as_any_of(child);
                }
            }
            split_nullable(map);
        }
        Value::Array(items) => items.iter_mut().for_each(type_arrays_as_any_of),
        _ => {}
    }
}

fn split_nullable(map: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = map.get("type") else {
        return;
    };
    let [first, second] = types.as_slice() else {
        return;
    };
    let typed = match (first.as_str(), second.as_str()) {
        (Some("null"), Some(other)) | (Some(other), Some("null")) if other != "null" => {
            other.to_owned()
        }
        _ => return,
    };
    if map.contains_key("anyOf") {
        return;
    }
    let mut branch = Map::new();
    branch.insert("type".into(), Value::String(typed));
    let moved: Vec<String> = map
        .keys()
        .filter(|key| *key != "type" && !ANNOTATIONS.contains(&key.as_str()))
        .cloned()
        .collect();
    for key in moved {
        if let Some(value) = map.shift_remove(&key) {
            branch.insert(key, value);
        }
    }
    if let Some(Value::Array(values)) = branch.get_mut("enum") {
        values.retain(|value| !value.is_null());
    }
    map.shift_remove("type");
    map.insert(
        "anyOf".into(),
        json!([Value::Object(branch), {"type": "null"}]),
    );
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::type_arrays_as_any_of;

    #[test]
    fn a_nullable_type_becomes_any_of_with_its_constraints_inside() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "limit": {"description": "Most to return.", "type": ["integer", "null"], "minimum": 1, "maximum": 50, "default": 10},
                "mode": {"type": ["string", "null"], "enum": ["fast", "slow", null]},
                "tags": {"type": ["array", "null"], "items": {"type": ["string", "null"], "maxLength": 9}},
                "either": {"type": ["string", "integer"]},
                "fixed": {"const": {"type": ["x", "null"]}}
            }
        });
        type_arrays_as_any_of(&mut schema);
        assert_eq!(
            schema["properties"],
            json!({
                "limit": {"description": "Most to return.", "default": 10, "anyOf": [{"type": "integer", "minimum": 1, "maximum": 50}, {"type": "null"}]},
                "mode": {"anyOf": [{"type": "string", "enum": ["fast", "slow"]}, {"type": "null"}]},
                "tags": {"anyOf": [{"type": "array", "items": {"anyOf": [{"type": "string", "maxLength": 9}, {"type": "null"}]}}, {"type": "null"}]},
                "either": {"type": ["string", "integer"]},
                "fixed": {"const": {"type": ["x", "null"]}}
            })
        );
    }
}
