//! The words of a stub's docs from a schema: its description, then what it asks beyond
//! its type (ranges, lengths, patterns, formats, defaults).

use serde_json::{Map, Value};

pub(super) fn description_of(schema: &Value) -> Option<String> {
    schema
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// A property's description, followed by what its schema asks beyond its type.
pub(super) fn doc_of(schema: &Value) -> Option<String> {
    let mut doc = description_of(schema).unwrap_or_default();
    let notes = constraints(schema);
    if !notes.is_empty() {
        if !doc.is_empty() && !doc.ends_with('.') {
            doc.push('.');
        }
        if !doc.is_empty() {
            doc.push(' ');
        }
        let mut notes = notes.join(", ");
        if let Some(first) = notes.get(..1) {
            notes.replace_range(..1, &first.to_ascii_uppercase());
        }
        doc.push_str(&notes);
        doc.push('.');
    }
    (!doc.is_empty()).then_some(doc)
}

/// What a schema requires beyond its type, in words: ranges, lengths, patterns, formats,
/// defaults.
fn constraints(schema: &Value) -> Vec<String> {
    let Some(object) = schema.as_object() else {
        return Vec::new();
    };
    let words = [
        ("minimum", "at least"),
        ("exclusiveMinimum", "more than"),
        ("maximum", "at most"),
        ("exclusiveMaximum", "less than"),
        ("multipleOf", "a multiple of"),
        ("minLength", "at least {} character{s}"),
        ("maxLength", "at most {} character{s}"),
        ("minItems", "at least {} item{s}"),
        ("maxItems", "at most {} item{s}"),
        ("pattern", "matching the pattern"),
        ("format", "format"),
        ("default", "default"),
    ];
    let mut notes = Vec::new();
    for (key, phrase) in words {
        // Integer bounds that only restate the Rust type's range are left out.
        if matches!(key, "minimum" | "maximum") && is_type_bound(object, key) {
            continue;
        }
        if let Some(value) = object.get(key) {
            let value = match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            let plural = if value == "1" { "" } else { "s" };
            notes.push(match phrase.contains("{}") {
                true => phrase.replace("{}", &value).replace("{s}", plural),
                false if key == "pattern" => format!("{phrase} `{value}`"),
                false => format!("{phrase} {value}"),
            });
        }
    }
    notes
}

/// Whether `key` is an integer type's own bound (`u8`'s 255, `u32`'s 0), which says
/// nothing a reader needs.
fn is_type_bound(object: &Map<String, Value>, key: &str) -> bool {
    let integer = match object.get("type") {
        Some(Value::String(kind)) => kind == "integer",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "integer"),
        _ => false,
    };
    if !integer {
        return false;
    }
    let Some(bound) = object.get(key).and_then(Value::as_f64) else {
        return false;
    };
    const BOUNDS: [f64; 9] = [
        -128.0,
        127.0,
        255.0,
        -32768.0,
        32767.0,
        65535.0,
        -2147483648.0,
        2147483647.0,
        4294967295.0,
    ];
    (key == "minimum"
        && bound == 0.0
        && object
            .get("maximum")
            .is_none_or(|m| m.as_f64().is_some_and(|m| BOUNDS.contains(&m))))
        || BOUNDS.contains(&bound)
}
