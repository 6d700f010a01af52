//! Whole floats read as the integers the schema asks for, where serde cannot be told to.
//!
//! JSON Schema calls `5.0` an integer, so a client that validated its call against the
//! published schema may send it, and a model may write it. `Strict` reads such a value
//! into a Rust integer; serde's buffered content (internally tagged and untagged enums,
//! flattened fields) does not go through `Strict`, so for a tool that reads buffered the
//! value itself is rewritten first, guided by the schema: only where some schema for
//! that place says `integer` and none says `number` (a `serde_json::Value` field, whose
//! schema names no type, keeps what the model wrote).

use serde_json::{Number, Value};

/// Whether `value` holds a float anywhere (a cheap test before a copy is made).
pub(crate) fn has_float(value: &Value) -> bool {
    match value {
        Value::Number(number) => number.is_f64(),
        Value::Array(items) => items.iter().any(has_float),
        Value::Object(map) => map.values().any(has_float),
        _ => false,
    }
}

/// Rewrites, in `value`, every whole float that `root` (a root schema, with its `$defs`)
/// wants as an integer into that integer.
pub(crate) fn whole_floats_as_integers(value: &mut Value, root: &Value) {
    rewrite(value, root, root, 0);
}

/// References followed at most this deep (a recursive schema ends here).
const MAX_DEPTH: usize = 64;

fn rewrite(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let Value::Object(map) = schema else { return };
    if let Some(reference) = map.get("$ref").and_then(Value::as_str)
        && let Some(target) = reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer))
    {
        rewrite(value, target, root, depth + 1);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            for branch in branches {
                rewrite(value, branch, root, depth + 1);
            }
        }
    }
    match value {
        Value::Number(number) if wants_integer(map.get("type")) => {
            if let Some(integer) = whole(number) {
                *number = integer;
            }
        }
        Value::Object(fields) => {
            let properties = map.get("properties").and_then(Value::as_object);
            let additional = map.get("additionalProperties");
            for (name, field) in fields.iter_mut() {
                match properties.and_then(|properties| properties.get(name)) {
                    Some(property) => rewrite(field, property, root, depth + 1),
                    None => {
                        if let Some(additional) = additional {
                            rewrite(field, additional, root, depth + 1);
                        }
                    }
                }
            }
        }
        Value::Array(items) => {
            let prefix = map.get("prefixItems").and_then(Value::as_array);
            let rest = map.get("items");
            for (index, item) in items.iter_mut().enumerate() {
                match prefix.and_then(|prefix| prefix.get(index)) {
                    Some(schema) => rewrite(item, schema, root, depth + 1),
                    None => {
                        if let Some(rest) = rest {
                            rewrite(item, rest, root, depth + 1);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// `"integer"`, or a list with `"integer"` and without `"number"`.
fn wants_integer(types: Option<&Value>) -> bool {
    match types {
        Some(Value::String(ty)) => ty == "integer",
        Some(Value::Array(types)) => {
            types.iter().any(|ty| ty == "integer") && !types.iter().any(|ty| ty == "number")
        }
        _ => false,
    }
}

/// `number` as an integer, when it is a whole float within 64 bits.
fn whole(number: &Number) -> Option<Number> {
    let float = number.as_f64().filter(|_| number.is_f64())?;
    if float.fract() != 0.0 || !float.is_finite() {
        return None;
    }
    if (0.0..18_446_744_073_709_551_616.0).contains(&float) {
        Some(Number::from(float as u64))
    } else if (-9_223_372_036_854_775_808.0..0.0).contains(&float) {
        Some(Number::from(float as i64))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{has_float, whole_floats_as_integers};

    #[test]
    fn whole_floats_become_integers_only_where_the_schema_wants_integers() {
        let schema = json!({
            "type": "object",
            "properties": {
                "shape": {"$ref": "#/$defs/Shape"},
                "ratio": {"type": "number"},
                "free": true,
                "counts": {"type": "array", "items": {"type": ["integer", "null"]}}
            },
            "$defs": {
                "Shape": {"oneOf": [
                    {"type": "object", "properties": {"kind": {"const": "move"}, "x": {"type": "integer"}}},
                    {"type": "object", "properties": {"kind": {"const": "scale"}, "by": {"type": "number"}}}
                ]}
            }
        });
        let mut value = json!({
            "shape": {"kind": "move", "x": -3.0},
            "ratio": 2.0,
            "free": 4.0,
            "counts": [1.0, null, 2.5, 7]
        });
        assert!(has_float(&value));
        whole_floats_as_integers(&mut value, &schema);
        assert_eq!(value["shape"]["x"], json!(-3));
        assert!(value["shape"]["x"].is_i64());
        assert!(value["ratio"].is_f64(), "a number stays as written");
        assert!(
            value["free"].is_f64(),
            "a value of any type stays as written"
        );
        assert!(value["counts"][0].is_u64());
        assert!(
            value["counts"][2].is_f64(),
            "a fraction is left for the validator"
        );
        assert!(!has_float(&json!({"a": [1, "2.0"]})));
    }
}
