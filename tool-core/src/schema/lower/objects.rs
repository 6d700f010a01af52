//! Objects as a target wants them (closed, all required, or open), `allOf` parts merged
//! into one object, and the keywords a target does not take moved into the description.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::Lowering;
use super::rules::Objects;
use crate::validate::format::Format;

impl Lowering<'_> {
    /// Objects as the target wants them; maps refused where it cannot say "any key".
    pub(super) fn lower_object(&mut self, map: &mut Map<String, Value>, path: &str) {
        let is_object = map.get("type").is_some_and(|t| {
            t == "object" || t.as_array().is_some_and(|a| a.contains(&json!("object")))
        }) || map.contains_key("properties");
        if !is_object {
            return;
        }
        let map_schema = !matches!(
            map.get("additionalProperties"),
            None | Some(Value::Bool(false))
        );
        if self.rules.objects != Objects::AsEmitted && map_values(map).is_some() {
            // A target that must list every field cannot say "any key": the map goes as
            // an array of entries, decoded back before the tool reads it.
            entries(map, self.rules.objects);
            return;
        }
        match self.rules.objects {
            Objects::Closed { all_required } => {
                if map_schema {
                    self.error(path, "an object that admits extra fields cannot be expressed; add #[serde(deny_unknown_fields)] or use a struct");
                }
                map.insert("additionalProperties".into(), Value::Bool(false));
                map.entry("properties")
                    .or_insert_with(|| Value::Object(Map::new()));
                if all_required {
                    let names: Vec<Value> = map
                        .get("properties")
                        .and_then(Value::as_object)
                        .map(|p| p.keys().cloned().map(Value::String).collect())
                        .unwrap_or_default();
                    map.insert("required".into(), Value::Array(names));
                }
            }
            Objects::Open => {
                if map_schema {
                    self.error(path, "an object that admits extra fields cannot be expressed in Gemini `parameters`; add #[serde(deny_unknown_fields)], use a struct, or parametersJsonSchema");
                }
                map.remove("additionalProperties");
            }
            Objects::AsEmitted => {}
        }
    }

    /// Keywords the target does not take, moved into the description.
    pub(super) fn move_unsupported(&mut self, map: &mut Map<String, Value>) {
        let mut moved: BTreeMap<&str, Value> = BTreeMap::new();
        for key in self.rules.unsupported {
            if let Some(value) = map.remove(*key) {
                moved.insert(key, value);
            }
        }
        if self.rules.min_items_up_to_one
            && let Some(min_items) = map.get("minItems").and_then(Value::as_u64)
            && min_items > 1
        {
            moved.insert("minItems", map.remove("minItems").unwrap_or(Value::Null));
        }
        if let Some(formats) = self.rules.formats
            && let Some(format) = map.get("format").and_then(Value::as_str)
            && !formats.contains(&format)
        {
            moved.insert("format", map.remove("format").unwrap_or(Value::Null));
        }
        if moved.is_empty() {
            return;
        }
        let constraints: Vec<String> = moved
            .iter()
            .map(
                |(key, value)| match (*key, value.as_str().and_then(Format::from_name)) {
                    // A format the target cannot take still tells the model the shape.
                    ("format", Some(format)) => format!("format: {value}, {}", format.expected()),
                    _ => format!("{key}: {value}"),
                },
            )
            .collect();
        let note = format!("({})", constraints.join(", "));
        let description = match map.get("description").and_then(Value::as_str) {
            Some(text) => format!("{text} {note}"),
            None => note,
        };
        map.insert("description".into(), Value::String(description));
    }
}

/// The schema of a map's values, when `schema` is a map: it lists no field and admits
/// any key (`additionalProperties` a schema, or `true`).
pub(crate) fn map_values(schema: &Map<String, Value>) -> Option<&Value> {
    let values = schema.get("additionalProperties")?;
    (!schema.contains_key("properties") && *values != Value::Bool(false)).then_some(values)
}

/// What a map's schema says its entries are, for the reader of the description.
pub(crate) const ENTRIES_NOTE: &str =
    "(a map, sent as a list of {\"key\", \"value\"} entries, one per key)";

/// Rewrites a map's (already lowered) schema as an array of `{"key", "value"}` entries,
/// both required: `propertyNames` become the key's schema, `minProperties` and
/// `maxProperties` the array's bounds, and a map that may be `null` stays nullable.
fn entries(map: &mut Map<String, Value>, objects: Objects) {
    let value = map
        .remove("additionalProperties")
        .unwrap_or(Value::Bool(true));
    let mut key = Map::new();
    key.insert("type".into(), json!("string"));
    if let Some(Value::Object(names)) = map.remove("propertyNames") {
        for keyword in ["enum", "pattern", "minLength", "maxLength", "format"] {
            if let Some(constraint) = names.get(keyword) {
                key.insert(keyword.into(), constraint.clone());
            }
        }
    }
    let nullable = map
        .get("type")
        .and_then(Value::as_array)
        .is_some_and(|types| types.contains(&json!("null")));
    let mut array = Map::new();
    let description = match map
        .remove("description")
        .and_then(|d| d.as_str().map(str::to_owned))
    {
        Some(text) => format!("{text} {ENTRIES_NOTE}"),
        None => ENTRIES_NOTE.to_owned(),
    };
    array.insert("description".into(), Value::String(description));
    array.insert(
        "type".into(),
        if nullable {
            json!(["array", "null"])
        } else {
            json!("array")
        },
    );
    let mut entry = json!({
        "type": "object",
        "properties": {"key": Value::Object(key), "value": value},
        "required": ["key", "value"],
    });
    if objects != Objects::Open {
        entry["additionalProperties"] = Value::Bool(false);
    }
    array.insert("items".into(), entry);
    for (from, to) in [("minProperties", "minItems"), ("maxProperties", "maxItems")] {
        if let Some(bound) = map.remove(from) {
            array.insert(to.into(), bound);
        }
    }
    *map = array;
}

/// Merges the properties and required names of `part` into `map` (an `allOf` entry).
pub(super) fn merge_object_schema(map: &mut Map<String, Value>, part: &Map<String, Value>) {
    if let Some(Value::Object(properties)) = part.get("properties") {
        let ours = map
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(ours) = ours {
            for (name, property) in properties {
                ours.entry(name.clone()).or_insert_with(|| property.clone());
            }
        }
    }
    if let Some(Value::Array(required)) = part.get("required") {
        let ours = map
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(ours) = ours {
            for name in required {
                if !ours.contains(name) {
                    ours.push(name.clone());
                }
            }
        }
    }
    for (key, value) in part {
        if !matches!(key.as_str(), "properties" | "required" | "description") {
            map.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
}
