//! What a strict lowering encoded, decoded before the tool reads the arguments: a
//! `null` for an optional argument the lowering made required (OpenAI strict) means it
//! was left out, and a map the target could not express arrives as an array of
//! `{"key", "value"}` entries (OpenAI strict, Anthropic strict, Gemini `parameters`).

use serde_json::{Map, Value};

use crate::dialect::Dialect;
use crate::error::Problem;
use crate::schema::lower::objects::map_values;
use crate::schema::lower::refs::{defs_of, resolve_ref};

/// What a dialect's lowering encoded, to decode.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Decoding {
    /// Optional arguments were made required and nullable.
    nulls: bool,
    /// Maps were sent as arrays of entries.
    entries: bool,
}

impl Decoding {
    /// What `dialect`'s lowering encoded, if anything.
    pub(crate) fn of(dialect: Dialect) -> Option<Self> {
        let (nulls, entries) = crate::schema::lower::encodings(dialect.target());
        (nulls || entries).then_some(Self { nulls, entries })
    }

    /// Decodes `value` in place against the canonical `schema`; a map's entries naming
    /// one key twice are a problem (which of the two the model meant is not known).
    pub(crate) fn decode(self, value: &mut Value, schema: &Value) -> Result<(), Vec<Problem>> {
        let defs = defs_of(schema);
        let mut problems = Vec::new();
        if self.entries {
            entries(value, schema, &defs, "$", 0, &mut problems);
        }
        if self.nulls {
            strip(value, schema, &defs, 0);
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }
}

/// The schema of a map's values, when `schema` is a map.
fn is_map(schema: &Value) -> Option<&Value> {
    schema.as_object().and_then(map_values)
}

/// Turns every map sent as entries back into an object, at any depth.
fn entries(
    value: &mut Value,
    schema: &Value,
    defs: &Map<String, Value>,
    path: &str,
    depth: usize,
    problems: &mut Vec<Problem>,
) {
    if depth > 64 {
        return;
    }
    let schema = resolve_ref(schema, defs);
    if let Some(value_schema) = is_map(&schema) {
        if let Value::Array(items) = value
            && items.iter().all(is_entry)
        {
            let mut object = Map::new();
            for item in std::mem::take(items) {
                let Value::Object(mut entry) = item else {
                    continue;
                };
                let key = entry
                    .remove("key")
                    .and_then(|key| key.as_str().map(str::to_owned))
                    .unwrap_or_default();
                let inner = entry.remove("value").unwrap_or(Value::Null);
                if object.contains_key(&key) {
                    problems.push(Problem::new(
                        path,
                        format!("the key '{key}' is given twice; give each key once"),
                    ));
                }
                object.insert(key, inner);
            }
            *value = Value::Object(object);
        }
        if let Value::Object(object) = value {
            for (key, item) in object.iter_mut() {
                entries(
                    item,
                    value_schema,
                    defs,
                    &format!("{path}.{key}"),
                    depth + 1,
                    problems,
                );
            }
        }
        return;
    }
    match value {
        Value::Object(object) => {
            if let Some(Value::Object(properties)) = schema.get("properties") {
                for (key, item) in object.iter_mut() {
                    if let Some(property) = properties.get(key) {
                        entries(
                            item,
                            property,
                            defs,
                            &format!("{path}.{key}"),
                            depth + 1,
                            problems,
                        );
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (index, item) in items.iter_mut().enumerate() {
                    entries(
                        item,
                        item_schema,
                        defs,
                        &format!("{path}[{index}]"),
                        depth + 1,
                        problems,
                    );
                }
            }
        }
        _ => {}
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            for branch in branches {
                // Only a branch that is itself a map, or an object holding maps, changes
                // anything; trying each is cheap and the first that applies wins.
                if is_map(&resolve_ref(branch, defs)).is_some() && value.is_array() {
                    entries(value, branch, defs, path, depth + 1, problems);
                }
            }
        }
    }
}

/// `{"key": "...", "value": ...}` and nothing else.
fn is_entry(item: &Value) -> bool {
    item.as_object().is_some_and(|entry| {
        entry.len() == 2
            && entry.get("key").is_some_and(Value::is_string)
            && entry.contains_key("value")
    })
}

// The decoder side of a lowering that made optional arguments required and nullable
// (OpenAI strict): in `value`, a `null` for a property that is optional in the canonical
// `schema` and does not itself accept `null` means "left out", and is removed, at any
// depth. `Option<T>` arguments keep their `null` (it means `None` either way).
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
