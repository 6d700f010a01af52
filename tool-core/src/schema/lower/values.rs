//! The values side of a lowering: arguments valid for a tool's canonical schema, written
//! as its lowered schema wants them (a map as an array of `{"key", "value"}` entries
//! where objects must list their fields; an optional argument left out as `null` where
//! every property is required; a field an open object's type ignores left out where
//! objects are closed). The dispatcher's decoder (`arguments/lowered.rs`) turns
//! them back.

use serde_json::{Map, Value, json};

use super::Target;
use super::refs::{defs_of, resolve_ref};
use super::rules::Objects;

/// `value` (valid or not for `schema`) as `target`'s lowering of `schema` encodes it.
pub(crate) fn encode_value(value: &Value, schema: &Value, target: Target) -> Value {
    let objects = target.rules().objects;
    if objects == Objects::AsEmitted {
        return value.clone();
    }
    let defs = defs_of(schema);
    encode(value, schema, &defs, objects, 0)
}

fn encode(
    value: &Value,
    schema: &Value,
    defs: &Map<String, Value>,
    objects: Objects,
    depth: usize,
) -> Value {
    if depth > 64 {
        return value.clone();
    }
    let schema = resolve_ref(schema, defs);
    let map_values = schema.as_object().and_then(super::objects::map_values);
    match value {
        Value::Object(object) if map_values.is_some() => {
            let item = map_values.cloned().unwrap_or(Value::Bool(true));
            Value::Array(
                object
                    .iter()
                    .map(|(key, inner)| json!({"key": key, "value": encode(inner, &item, defs, objects, depth + 1)}))
                    .collect(),
            )
        }
        Value::Object(object) => {
            let mut encoded = Map::new();
            let properties = schema.get("properties").and_then(Value::as_object);
            let closed = matches!(objects, Objects::Closed { .. });
            for (key, inner) in object {
                // A closed object cannot carry a field its schema does not list; one the
                // tool's type ignores anyway is left out.
                if closed
                    && properties.is_some_and(|listed| !listed.contains_key(key))
                    && schema.get("additionalProperties").is_none()
                {
                    continue;
                }
                let child = properties
                    .and_then(|p| p.get(key))
                    .or_else(|| branch_property(&schema, key));
                let inner = match child {
                    Some(child) => encode(inner, &child.clone(), defs, objects, depth + 1),
                    None => inner.clone(),
                };
                encoded.insert(key.clone(), inner);
            }
            if objects == (Objects::Closed { all_required: true })
                && let Some(properties) = properties
            {
                for name in properties.keys() {
                    encoded.entry(name.clone()).or_insert(Value::Null);
                }
            }
            Value::Object(encoded)
        }
        Value::Array(items) => match schema.get("items") {
            Some(item) => Value::Array(
                items
                    .iter()
                    .map(|inner| encode(inner, item, defs, objects, depth + 1))
                    .collect(),
            ),
            None => value.clone(),
        },
        _ => value.clone(),
    }
}

/// The schema of `key` in an `anyOf`/`oneOf` branch listing it (a tagged enum's variant).
fn branch_property<'s>(schema: &'s Value, key: &str) -> Option<&'s Value> {
    ["anyOf", "oneOf"].iter().find_map(|keyword| {
        schema
            .get(*keyword)?
            .as_array()?
            .iter()
            .find_map(|branch| branch.get("properties")?.get(key))
    })
}
