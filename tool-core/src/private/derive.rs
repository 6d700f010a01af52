//! What `#[derive(ToolSchema)]` expands to: flattening, generic names, enum variants.

use serde_json::{Map, Value};

use crate::schema::{ObjectSchema, ToolSchema};

/// Merges the schema of a `#[serde(flatten)]` field into the object being built: its
/// properties join ours (required only when the field itself is), anything else (a
/// flattened enum) goes into `allOf`.
pub fn flatten_into(object: &mut Map<String, Value>, inner: Value, optional: bool) {
    let Value::Object(mut inner) = inner else {
        return;
    };
    let plain_object = inner.keys().all(|key| {
        matches!(
            key.as_str(),
            "type" | "description" | "additionalProperties" | "properties" | "required"
        )
    });
    let has_properties = matches!(inner.get("properties"), Some(Value::Object(_)));
    if plain_object
        && has_properties
        && let Some(Value::Object(properties)) = inner.remove("properties")
    {
        if let Some(Value::Object(ours)) = object.get_mut("properties") {
            ours.extend(properties);
        }
        if let (Some(Value::Array(names)), false) = (inner.remove("required"), optional) {
            let ours = object
                .entry("required")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(ours) = ours {
                ours.extend(names);
            }
        }
        return;
    }
    // Not a plain object (a flattened enum): keep it whole, as a constraint on the same
    // value.
    let all_of = object
        .entry("allOf")
        .or_insert_with(|| Value::Array(Vec::new()));
    if let Value::Array(all_of) = all_of {
        all_of.push(Value::Object(inner));
    }
}

/// The `$defs` name of a generic type: `Page_for_Hit`.
pub fn generic_name(
    base: &'static str,
    params: &[std::borrow::Cow<'static, str>],
) -> std::borrow::Cow<'static, str> {
    if params.is_empty() {
        return std::borrow::Cow::Borrowed(base);
    }
    std::borrow::Cow::Owned(format!("{base}_for_{}", params.join("_and_")))
}

/// A short label for a type parameter in a `$defs` name: its schema name, or its Rust
/// name without module paths (`Vec_u8`).
pub fn type_label<T: ToolSchema + ?Sized>() -> std::borrow::Cow<'static, str> {
    if let Some(name) = T::schema_name() {
        return name;
    }
    let full = std::any::type_name::<T>();
    let mut label = String::new();
    for part in full.split(['<', '>', ',', ' ', '[', ']', ';', '&']) {
        if let Some(last) = part.rsplit("::").next().filter(|s| !s.is_empty()) {
            if !label.is_empty() {
                label.push('_');
            }
            label.push_str(last);
        }
    }
    std::borrow::Cow::Owned(label)
}

/// `{"type": "string", "const": value}`: a tag's value.
pub fn const_string(value: &str) -> Value {
    serde_json::json!({"type": "string", "const": value})
}

/// `{"type": "string", "enum": [...]}`: unit variants.
pub fn string_enum(names: &[&str]) -> Value {
    serde_json::json!({"type": "string", "enum": names})
}

/// An externally tagged variant with data: `{"Name": content}`.
pub fn external_variant(name: &str, content: Value) -> Value {
    let mut object = ObjectSchema::new();
    object.property(name, content, true);
    Value::Object(object.build(true))
}

/// An internally tagged newtype or unit variant: the tag object, merged with the inner
/// struct's own object schema (any other inner schema beside it in `allOf`; serde reads
/// both from one object).
pub fn internal_variant(tag: &str, name: &str, inner: Option<Value>) -> Value {
    let mut object = ObjectSchema::new();
    object.property(tag, const_string(name), true);
    let mut schema = object.build(false);
    match inner {
        // serde reads the inner struct from the object without its tag, so the tag is
        // one more property of the struct's own object: a closed struct
        // (`deny_unknown_fields`) still admits it.
        Some(Value::Object(inner)) if is_object_schema(&inner) => {
            for (key, value) in inner {
                match (key.as_str(), value, schema.get_mut(key.as_str())) {
                    ("type", _, _) => {}
                    ("properties", Value::Object(more), Some(Value::Object(ours))) => {
                        ours.extend(more);
                    }
                    ("required", Value::Array(more), Some(Value::Array(ours))) => ours.extend(more),
                    (_, value, _) => {
                        schema.insert(key, value);
                    }
                }
            }
        }
        Some(inner) => {
            schema.insert("allOf".into(), Value::Array(vec![inner]));
        }
        None => {}
    }
    Value::Object(schema)
}

/// An inline object schema with properties (a struct's own schema, not a `$ref`).
fn is_object_schema(schema: &serde_json::Map<String, Value>) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
        && schema.contains_key("properties")
}

/// An adjacently tagged variant: `{"t": "Name", "c": content}`.
pub fn adjacent_variant(
    tag: &str,
    content_key: &str,
    name: &str,
    content: Option<Value>,
    deny_unknown_fields: bool,
) -> Value {
    let mut object = ObjectSchema::new();
    object.property(tag, const_string(name), true);
    match content {
        Some(content) => object.property(content_key, content, true),
        // A unit variant: serde reads its content key, when sent, as `()`, so only `null`.
        None => object.property(content_key, serde_json::json!({"type": "null"}), false),
    };
    Value::Object(object.build(deny_unknown_fields))
}

/// The variants of an enum: tagged ones are exclusive (`oneOf`), untagged ones are tried
/// in order after them (`anyOf`).
pub fn alternatives(tagged: Vec<Value>, untagged: Vec<Value>) -> Value {
    let tagged = match tagged.len() {
        0 => None,
        1 => tagged.into_iter().next(),
        _ => Some(serde_json::json!({"oneOf": tagged})),
    };
    match (tagged, untagged.len()) {
        (Some(tagged), 0) => tagged,
        (None, 1) => untagged.into_iter().next().unwrap_or(Value::Bool(false)),
        (None, 0) => Value::Bool(false),
        (Some(tagged), _) => {
            let mut all = vec![tagged];
            all.extend(untagged);
            serde_json::json!({"anyOf": all})
        }
        (None, _) => serde_json::json!({"anyOf": untagged}),
    }
}
