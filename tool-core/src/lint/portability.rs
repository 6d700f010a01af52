//! Whether every dialect can send a tool's schema: what the narrowest targets refuse,
//! and an arguments object that accepts unknown properties.

use serde_json::Value;

use super::Out;
use super::view::View;
use crate::schema::lower::{Target, lower_schema};

/// Whether `schema` is an object of at most 100 plain arguments (a string, number,
/// integer or boolean with string enums and the common constraints, names every provider
/// takes), which every target expresses: lowering it would only cost time.
fn is_plain(schema: &Value) -> bool {
    const ROOT: &[&str] = &[
        "type",
        "properties",
        "required",
        "additionalProperties",
        "description",
        "title",
        "$schema",
    ];
    const ARGUMENT: &[&str] = &[
        "type",
        "description",
        "title",
        "enum",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "default",
        "format",
        "pattern",
        "examples",
    ];
    let Some(root) = schema.as_object() else {
        return false;
    };
    let properties = match root.get("properties") {
        None => return root.keys().all(|key| ROOT.contains(&key.as_str())),
        Some(Value::Object(properties)) => properties,
        Some(_) => return false,
    };
    root.get("type") == Some(&Value::from("object"))
        && root.keys().all(|key| ROOT.contains(&key.as_str()))
        && matches!(
            root.get("additionalProperties"),
            None | Some(Value::Bool(false))
        )
        && properties.len() <= 100
        && properties.iter().all(|(name, argument)| {
            let valid_name = !name.is_empty()
                && name.len() <= 64
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            let Some(argument) = argument.as_object() else {
                return false;
            };
            valid_name
                && argument.keys().all(|key| ARGUMENT.contains(&key.as_str()))
                && matches!(
                    argument.get("type").and_then(Value::as_str),
                    Some("string" | "integer" | "number" | "boolean")
                )
                && argument.get("enum").is_none_or(|values| {
                    values.as_array().is_some_and(|values| {
                        values.len() <= 100 && values.iter().all(Value::is_string)
                    })
                })
        })
}

/// Whether `schema` has a `$ref` anywhere.
fn has_ref(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.contains_key("$ref") || map.values().any(has_ref),
        Value::Array(items) => items.iter().any(has_ref),
        _ => false,
    }
}

/// The portability rules over one tool.
pub(super) fn check(view: &View<'_>, out: &mut Out) {
    strict_dropped(view, out);
    let schema = &view.spec.input_schema;
    if is_plain(schema) {
        return schema_open(view, out);
    }
    // The narrowest targets: OpenAI strict and Gemini `parameters`; Anthropic strict
    // refuses nothing OpenAI strict takes but a recursive type (it inlines `$ref`s).
    let anthropic = has_ref(schema).then_some((Target::AnthropicStrict, "Anthropic strict"));
    for (target, dialect) in [
        (Target::OpenAiStrict, "OpenAI strict"),
        (Target::GeminiParameters, "Gemini parameters"),
    ]
    .into_iter()
    .chain(anthropic)
    {
        if let Err(errors) = lower_schema(view.name, schema, target) {
            for error in errors.into_vec() {
                out.push(
                    "schema-refused-by-dialect",
                    view.name,
                    Some(dialect.to_owned()),
                    format!("{}: {}", error.path, error.reason),
                );
            }
        }
    }
    schema_open(view, out);
}

/// A tool offered to hosted code loses Anthropic's `strict`: hosted code cannot call a
/// strict tool.
fn strict_dropped(view: &View<'_>, out: &mut Out) {
    if view.spec.offered_via(crate::spec::Via::HostedCode) {
        out.push(
            "schema-strict-dropped",
            view.name,
            Some("Anthropic strict".to_owned()),
            "`hosted_code` offers the tool to Anthropic's code execution, which cannot call a strict tool: it is sent without \"strict\": true, and the model's arguments are checked only by toolwright's validation. Drop `hosted_code` if `run_code` is the program runner you meant".into(),
        );
    }
}

fn schema_open(view: &View<'_>, out: &mut Out) {
    let schema = &view.spec.input_schema;
    if schema.get("additionalProperties") != Some(&Value::Bool(false)) && !view.arguments.is_empty()
    {
        out.push(
            "schema-open-object",
            view.name,
            None,
            "set \"additionalProperties\": false, so a misspelt argument is an error the model sees".into(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcut is sound: every plain schema of the 524 MCP tools of the
    /// description-quality set (and the plain
    /// shapes below) lowers for every target without a refusal.
    #[test]
    fn a_plain_schema_lowers_for_every_target() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
        let read = |path: &str| -> Value {
            serde_json::from_str(&std::fs::read_to_string(root.join(path)).unwrap()).unwrap()
        };
        let mut schemas: Vec<Value> = read("description-quality/tools.json")["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["input_schema"].clone())
            .collect();
        schemas.push(serde_json::json!({"type": "object", "properties": {
            "a": {"type": "string", "enum": ["x", "y"], "default": "x", "format": "date", "pattern": "^x$", "minLength": 1},
            "b": {"type": "integer", "minimum": 0, "maximum": 9, "examples": [1]},
            "c": {"type": "boolean", "title": "C"}
        }, "required": ["a"], "additionalProperties": false}));
        let mut plain = 0;
        for schema in schemas.iter().filter(|schema| is_plain(schema)) {
            plain += 1;
            for target in [
                Target::OpenAiStrict,
                Target::OpenAi,
                Target::AnthropicStrict,
                Target::Anthropic,
                Target::GeminiParameters,
                Target::GeminiJsonSchema,
                Target::Mcp,
            ] {
                assert!(
                    lower_schema("t", schema, target).is_ok(),
                    "{target:?} refuses {schema}"
                );
            }
        }
        assert!(plain > 300, "{plain}");
    }
}
