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

/// Keys whose values are data, not schemas: a `$ref` (or a `type`) there is not one.
pub(super) const DATA_KEYS: [&str; 4] = ["const", "enum", "default", "examples"];

/// Inlines, in a root schema, every `$ref` to a definition that is not recursive (the
/// reference's own keywords win over the definition's, but for a description, where
/// both are kept); references to recursive definitions stay, and `$defs` keeps only
/// those.
pub(crate) fn inline_unless_recursive(root: &mut Value) {
    let Some(Value::Object(defs)) = root.as_object_mut().and_then(|map| map.remove("$defs")) else {
        return;
    };
    let recursive: BTreeSet<String> = defs
        .keys()
        .filter(|name| reaches_itself(name, &defs))
        .cloned()
        .collect();
    inline_into(root, &defs, &recursive);
    let mut kept: Map<String, Value> = defs
        .iter()
        .filter(|(name, _)| recursive.contains(*name))
        .map(|(name, def)| (name.clone(), def.clone()))
        .collect();
    for def in kept.values_mut() {
        inline_into(def, &defs, &recursive);
    }
    if !kept.is_empty()
        && let Value::Object(map) = root
    {
        map.insert("$defs".into(), Value::Object(kept));
    }
}

/// Whether definition `name` refers to itself, directly or through others.
fn reaches_itself(name: &str, defs: &Map<String, Value>) -> bool {
    let mut seen = BTreeSet::new();
    let mut next: Vec<String> = defs
        .get(name)
        .map(referenced)
        .unwrap_or_default()
        .into_iter()
        .collect();
    while let Some(current) = next.pop() {
        if current == name {
            return true;
        }
        if seen.insert(current.clone())
            && let Some(def) = defs.get(&current)
        {
            next.extend(referenced(def));
        }
    }
    false
}

fn inline_into(value: &mut Value, defs: &Map<String, Value>, recursive: &BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                && !recursive.contains(name)
                && let Some(Value::Object(target)) = defs.get(name)
            {
                let mut inlined = target.clone();
                map.remove("$ref");
                // Both descriptions are kept, the property's first: the type's may be the
                // only place its values are explained (an enum's variant docs).
                if let (Some(Value::String(own)), Some(Value::String(type_words))) =
                    (map.get("description"), inlined.get("description"))
                    && own != type_words
                {
                    let both = format!("{own}\n\n{type_words}");
                    map.insert("description".into(), Value::String(both));
                }
                inlined.extend(std::mem::take(map));
                *map = inlined;
            }
            for (key, child) in map.iter_mut() {
                if !DATA_KEYS.contains(&key.as_str()) {
                    inline_into(child, defs, recursive);
                }
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| inline_into(item, defs, recursive)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::inline_unless_recursive;

    #[test]
    fn references_are_inlined_except_to_recursive_types() {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "note": {"$ref": "#/$defs/Note"},
                "tree": {"description": "A tree.", "$ref": "#/$defs/Tree"},
                "default_note": {"$ref": "#/$defs/Note", "description": "Own words first.", "default": {"$ref": "#/$defs/Note"}}
            },
            "$defs": {
                "Note": {"type": "object", "description": "A note.", "properties": {"tag": {"$ref": "#/$defs/Tag"}}},
                "Tag": {"type": "string", "enum": ["a", "b"]},
                "Tree": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}, "tag": {"$ref": "#/$defs/Tag"}}}
            }
        });
        inline_unless_recursive(&mut schema);
        assert_eq!(
            schema,
            json!({
                "type": "object",
                "properties": {
                    "note": {"type": "object", "description": "A note.", "properties": {"tag": {"type": "string", "enum": ["a", "b"]}}},
                    "tree": {"description": "A tree.", "$ref": "#/$defs/Tree"},
                    "default_note": {"type": "object", "description": "Own words first.\n\nA note.", "properties": {"tag": {"type": "string", "enum": ["a", "b"]}}, "default": {"$ref": "#/$defs/Note"}}
                },
                "$defs": {
                    "Tree": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}}, "tag": {"type": "string", "enum": ["a", "b"]}}}
                }
            })
        );
    }
}
