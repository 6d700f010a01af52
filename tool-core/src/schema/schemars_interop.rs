//! Types that already derive `schemars::JsonSchema` (feature `schemars1`), as tool
//! arguments without a second derive: `#[arg(schemars)]` on a parameter or a field, or
//! `#[arg(schema_with = toolwright::schema::from_schemars::<T>)]`.
//!
//! schemars' schema is brought to toolwright's canonical form: its definitions join the
//! tool's `$defs` (renamed, with every `$ref` rewritten, when a name is taken by another
//! schema), `$schema` is dropped, and schemars' integer formats (`uint8`, `int32`, ...)
//! become the bounds they stand for, so the validator refuses what serde refuses (a
//! `u8` field admits 0 to 255, not any integer). The result goes through the same
//! lowerings and validator as a derived schema.

use std::collections::HashMap;

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use super::SchemaGenerator;

/// The schema of `T` from its `schemars::JsonSchema` impl, in toolwright's canonical
/// form, its definitions added to `generator`.
pub fn from_schemars<T: schemars::JsonSchema + ?Sized>(generator: &mut SchemaGenerator) -> Value {
    let mut theirs = SchemaSettings::draft2020_12().into_generator();
    let mut root = theirs.subschema_for::<T>().to_value();
    let definitions = theirs.take_definitions(true);
    let renames: HashMap<String, String> = definitions
        .iter()
        .filter_map(|(name, schema)| {
            let key = generator.key_for_import(name, &canonical(schema.clone()));
            (key != *name).then(|| (name.clone(), key))
        })
        .collect();
    for (name, schema) in definitions {
        let key = renames.get(&name).cloned().unwrap_or(name);
        let mut schema = canonical(schema);
        rewrite_refs(&mut schema, &renames);
        generator.import_definition(key, schema);
    }
    root = canonical(root);
    rewrite_refs(&mut root, &renames);
    root
}

/// schemars' output in toolwright's form, recursively: no `$schema`, integer formats as
/// bounds, number formats dropped.
fn canonical(mut schema: Value) -> Value {
    walk(&mut schema, &mut |map| {
        map.remove("$schema");
        let bounds: Option<(Option<i64>, Option<i64>)> =
            match map.get("format").and_then(Value::as_str) {
                Some("int8") => Some((Some(i8::MIN.into()), Some(i8::MAX.into()))),
                Some("int16") => Some((Some(i16::MIN.into()), Some(i16::MAX.into()))),
                Some("int32") => Some((Some(i32::MIN.into()), Some(i32::MAX.into()))),
                Some("uint8") => Some((Some(0), Some(u8::MAX.into()))),
                Some("uint16") => Some((Some(0), Some(u16::MAX.into()))),
                Some("uint32") => Some((Some(0), Some(u32::MAX.into()))),
                // Beyond 2^53 no bound is written, as for toolwright's own integers.
                Some("uint" | "uint64" | "uint128") => Some((Some(0), None)),
                Some("int" | "int64" | "int128" | "float" | "double") => Some((None, None)),
                _ => None,
            };
        if let Some((minimum, maximum)) = bounds {
            map.remove("format");
            tighten(map, "minimum", minimum, i64::max);
            tighten(map, "maximum", maximum, i64::min);
        }
    });
    schema
}

/// Sets `key` to `bound`, or to the tighter of the two when one is there already.
fn tighten(map: &mut Map<String, Value>, key: &str, bound: Option<i64>, pick: fn(i64, i64) -> i64) {
    let Some(bound) = bound else { return };
    let value = match map.get(key).and_then(Value::as_i64) {
        Some(existing) => pick(existing, bound),
        None if map.contains_key(key) => return,
        None => bound,
    };
    map.insert(key.to_owned(), json!(value));
}

/// `#/$defs/OLD` → `#/$defs/NEW` for every renamed definition.
fn rewrite_refs(schema: &mut Value, renames: &HashMap<String, String>) {
    if renames.is_empty() {
        return;
    }
    walk(schema, &mut |map| {
        let Some(Value::String(reference)) = map.get_mut("$ref") else {
            return;
        };
        if let Some(new) = reference
            .strip_prefix("#/$defs/")
            .and_then(|name| renames.get(name))
        {
            *reference = format!("#/$defs/{new}");
        }
    });
}

/// Calls `visit` on every object schema inside `schema` (itself included).
fn walk(schema: &mut Value, visit: &mut dyn FnMut(&mut Map<String, Value>)) {
    match schema {
        Value::Object(map) => {
            visit(map);
            for (key, value) in map.iter_mut() {
                // Values of these are data, not schemas.
                if !matches!(key.as_str(), "enum" | "const" | "default" | "examples") {
                    walk(value, visit);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| walk(item, visit)),
        _ => {}
    }
}
