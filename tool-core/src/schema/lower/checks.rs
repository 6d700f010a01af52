//! Checks a rule cannot express as a rewrite: property names against a target's rule, and
//! documented size limits over the whole schema.

use serde_json::Value;

use super::Lowering;

/// OpenAI's documented limits for strict schemas: 5,000 properties, 10 levels of
/// nesting, 1,000 enum values, 120,000 characters of names, enum values and constants.
pub(crate) fn openai_limits(schema: &Value) -> Vec<String> {
    #[derive(Default)]
    struct Tally {
        properties: usize,
        enum_values: usize,
        chars: usize,
        depth: usize,
    }
    fn walk(schema: &Value, depth: usize, tally: &mut Tally) {
        let Value::Object(map) = schema else { return };
        tally.depth = tally.depth.max(depth);
        if let Some(Value::Object(properties)) = map.get("properties") {
            tally.properties += properties.len();
            for (name, property) in properties {
                tally.chars += name.chars().count();
                walk(property, depth + 1, tally);
            }
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            tally.enum_values += values.len();
            tally.chars += values
                .iter()
                .map(|v| v.as_str().map_or(0, |s| s.chars().count()))
                .sum::<usize>();
        }
        for key in ["items", "additionalProperties"] {
            if let Some(child) = map.get(key) {
                walk(child, depth + 1, tally);
            }
        }
        for key in ["anyOf", "prefixItems"] {
            if let Some(Value::Array(children)) = map.get(key) {
                children.iter().for_each(|child| walk(child, depth, tally));
            }
        }
        if let Some(Value::Object(defs)) = map.get("$defs") {
            for (name, def) in defs {
                tally.chars += name.chars().count();
                walk(def, 0, tally);
            }
        }
    }
    let mut tally = Tally::default();
    walk(schema, 0, &mut tally);
    let mut breaches = Vec::new();
    if tally.properties > 5000 {
        breaches.push(format!(
            "{} object properties; OpenAI strict allows 5,000",
            tally.properties
        ));
    }
    if tally.depth > 10 {
        breaches.push(format!(
            "{} levels of nesting; OpenAI strict allows 10",
            tally.depth
        ));
    }
    if tally.enum_values > 1000 {
        breaches.push(format!(
            "{} enum values; OpenAI strict allows 1,000",
            tally.enum_values
        ));
    }
    if tally.chars > 120_000 {
        breaches.push(format!(
            "{} characters of names and enum values; OpenAI strict allows 120,000",
            tally.chars
        ));
    }
    breaches
}

impl Lowering<'_> {
    /// Every property name, at any depth, against the target's rule.
    pub(super) fn check_property_names(&mut self, schema: &Value, path: &str) {
        let Some((rule, whose, pattern)) = self.rules.property_names else {
            return;
        };
        let Value::Object(map) = schema else { return };
        for (key, value) in map {
            let child = format!("{path}/{}", escape(key));
            if key == "properties"
                && let Value::Object(properties) = value
            {
                for (name, property) in properties {
                    let at = format!("{child}/{}", escape(name));
                    if !rule(name) {
                        self.error(&at, format!("the property name '{name}' is not accepted: {whose} wants {pattern} (rename it with #[serde(rename = \"...\")])"));
                    }
                    self.check_property_names(property, &at);
                }
                continue;
            }
            match value {
                Value::Object(_) => self.check_property_names(value, &child),
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        self.check_property_names(item, &format!("{child}/{i}"));
                    }
                }
                _ => {}
            }
        }
    }
}

/// Gemini's rule for parameter names: `^[A-Za-z_][A-Za-z0-9_]{0,63}$`.
pub(crate) fn is_gemini_parameter_name(name: &str) -> bool {
    name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A JSON pointer token.
pub(super) fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
