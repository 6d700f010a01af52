//! The rules over a tool's arguments: what each means, which values it takes, in which
//! unit and format, and whether its schema says so.

use serde_json::Value;

use super::Out;
use super::view::View;
use super::vocabulary::*;
use super::words::{Normal, content_stems, name_words, normalized, stem};

/// An argument's schema with a local `$ref` followed (one step), for reading its type.
fn resolved<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let Some(reference) = schema["$ref"].as_str() else {
        return schema;
    };
    let Some(pointer) = reference.strip_prefix('#') else {
        return schema;
    };
    root.pointer(pointer).unwrap_or(schema)
}

/// The JSON types `schema` allows (`type` as a string or a list; `anyOf`/`oneOf` members').
fn types(schema: &Value) -> Vec<&str> {
    match &schema["type"] {
        Value::String(name) => vec![name.as_str()],
        Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
        _ => ["anyOf", "oneOf"]
            .iter()
            .filter_map(|key| schema[*key].as_array())
            .flatten()
            .flat_map(types)
            .collect(),
    }
}

/// Whether `schema` names its values (`enum`, `const`, or a union of them).
fn is_enumerated(schema: &Value) -> bool {
    schema.get("enum").is_some()
        || schema.get("const").is_some()
        || ["anyOf", "oneOf"].iter().any(|key| {
            schema[*key].as_array().is_some_and(|members| {
                members
                    .iter()
                    .filter(|member| member["type"] != "null")
                    .all(is_enumerated)
            })
        })
}

/// The rules over one tool's arguments (`views`: every tool, for references).
pub(super) fn check(view: &View<'_>, views: &[View<'_>], out: &mut Out) {
    let root = &view.spec.input_schema;
    let tool = view.name;
    let (mut camel, mut snake) = (false, false);
    for &(argument, schema, required) in &view.arguments {
        camel |= argument.chars().any(|c| c.is_ascii_uppercase()) && !argument.contains('_');
        snake |= argument.contains('_');
        let at = || Some(format!("argument '{argument}'"));
        let target = resolved(root, schema);
        let description = schema["description"]
            .as_str()
            .or(target["description"].as_str())
            .unwrap_or_default()
            .trim();
        let normal = Normal::of(description);
        let kinds = types(target);
        let words = name_words(argument);
        let last = words.last().map(String::as_str).unwrap_or_default();
        let first = words.first().map(String::as_str).unwrap_or_default();
        let english = super::words::is_english_readable(description);

        if target.get("type").is_none()
            && !is_enumerated(target)
            && ["anyOf", "oneOf", "allOf", "$ref", "not"]
                .iter()
                .all(|key| target.get(*key).is_none())
        {
            out.push(
                "schema-untyped-argument",
                tool,
                at(),
                "give it a type (or an enum): without one any value passes and the model must guess".into(),
            );
        }
        if description.is_empty() {
            out.push(
                "arg-undocumented",
                tool,
                at(),
                format!("describe '{argument}': what it means, which values it takes, an example"),
            );
        } else if english {
            let own: Vec<&str> = words.iter().map(|word| stem(word)).collect();
            let stems = content_stems(description);
            let type_words = [
                "string", "str", "text", "integer", "int", "number", "float", "boolean", "bool",
                "array", "list", "object", "value", "the", "a", "an", "optional", "required",
            ];
            if !stems.is_empty() && stems.iter().all(|word| own.contains(&word.as_str())) {
                out.push(
                    "arg-restates-name",
                    tool,
                    at(),
                    format!("'{description}' repeats the name: say what it means, its valid values and an example"),
                );
            } else if normalized(description)
                .split(' ')
                .all(|word| type_words.contains(&word) || own.contains(&stem(word)))
            {
                out.push(
                    "arg-restates-type",
                    tool,
                    at(),
                    format!("'{description}' only names the type, which the schema says: say what it means"),
                );
            }
            if description.chars().count() > 400 {
                out.push(
                    "arg-description-long",
                    tool,
                    at(),
                    format!(
                        "{} characters: keep what the model needs to fill it in",
                        description.chars().count()
                    ),
                );
            }
        }
        let is_string = kinds.contains(&"string");
        let is_number = kinds
            .iter()
            .any(|kind| matches!(*kind, "integer" | "number"));
        let enumerated = is_enumerated(target);
        if is_string
            && !enumerated
            && CHOICE_NAMES.contains(&last)
            && target.get("format").is_none()
            && target.get("pattern").is_none()
        {
            out.push(
                "arg-free-text-choice",
                tool,
                at(),
                format!("'{argument}' picks one of a few values: make it an enum, so the schema lists them"),
            );
        }
        if is_string && !enumerated && english && lists_values(description) {
            out.push(
                "arg-enum-in-prose",
                tool,
                at(),
                "the description lists the allowed values: put them in the schema as an enum, where they are checked".into(),
            );
        }
        if kinds.contains(&"integer")
            && (COUNT_NAMES.contains(&argument.to_lowercase().as_str())
                || COUNT_NAMES.contains(&last)
                || first == "max"
                || first == "num")
            && target.get("maximum").is_none()
            && target.get("exclusiveMaximum").is_none()
        {
            out.push(
                "arg-count-unbounded",
                tool,
                at(),
                format!("set a maximum on '{argument}' (#[arg(maximum = ...)]): an unbounded count invites a huge answer"),
            );
        }
        if kinds.contains(&"boolean")
            && [
                "no", "not", "disable", "disabled", "skip", "dont", "without", "never", "ignore",
                "hide",
            ]
            .contains(&first)
            && words.len() > 1
        {
            out.push(
                "arg-negative-boolean",
                tool,
                at(),
                format!("name it for the positive ('include_...', 'enable_...'): with '{argument}', true means not"),
            );
        }
        if is_number
            && words
                .iter()
                .any(|word| QUANTITY_NAMES.contains(&word.as_str()))
        {
            let named = words
                .iter()
                .skip(1)
                .any(|word| UNIT_WORDS.contains(&word.as_str()));
            if !named && !normal.says(UNIT_WORDS) {
                out.push(
                    "arg-unit-missing",
                    tool,
                    at(),
                    format!("say the unit of '{argument}' in its name or description ('timeout_ms', 'in cents')"),
                );
            }
        }
        let dated = words.iter().any(|word| {
            matches!(
                word.as_str(),
                "date"
                    | "time"
                    | "datetime"
                    | "timestamp"
                    | "deadline"
                    | "birthday"
                    | "since"
                    | "until"
                    | "before"
                    | "after"
            )
        }) || (words.len() > 1 && last == "at");
        if is_string
            && dated
            && target.get("format").is_none()
            && target.get("pattern").is_none()
            && !normal.says(FORMAT_WORDS)
        {
            out.push(
                "arg-date-format-missing",
                tool,
                at(),
                format!("say the format of '{argument}': 'format: date-time' in the schema, or 'ISO 8601, e.g. 2026-12-01' in words"),
            );
        }
        let is_id =
            last == "id" || last == "ids" || argument.ends_with("Id") || argument.ends_with("ID");
        if is_id && english && !description.is_empty() {
            let names_source = normal.says(&[
                "from", "returned", "given", "listed", "as", "by", "of", "shown", "see",
                "obtained", "found", "uuid", "e g", "eg", "example",
            ]) || views.iter().any(|other| description.contains(other.name));
            if !names_source {
                out.push(
                    "arg-id-source-unstated",
                    tool,
                    at(),
                    format!("say where '{argument}' comes from ('as returned by list_orders')"),
                );
            }
        }
        if !required
            && english
            && target.get("default").is_none()
            && schema.get("default").is_none()
            && !normal.says(&[
                "default",
                "defaults",
                "omitted",
                "omit",
                "unset",
                "not set",
                "not given",
                "absent",
                "if none",
                "none",
                "optional",
                "otherwise",
                "when missing",
                "if missing",
                "all",
                "every",
                "unless",
                "leave",
            ])
        {
            out.push(
                "arg-optional-default-unstated",
                tool,
                at(),
                format!("say what happens when '{argument}' is left out ('default: 10', 'all when omitted')"),
            );
        }
        let pathlike = matches!(
            last,
            "path" | "file" | "dir" | "directory" | "folder" | "filename" | "filepath"
        );
        if is_string
            && pathlike
            && english
            && !normal.says(&[
                "relative",
                "absolute",
                "root",
                "workspace",
                "under",
                "within",
                "inside",
                "from",
                "in the",
                "cwd",
                "current",
                "directory",
                "home",
                "e g",
                "example",
            ])
        {
            out.push(
                "arg-path-base-unstated",
                tool,
                at(),
                format!("say what '{argument}' is relative to ('relative to the workspace root') or that it must be absolute"),
            );
        }
        if target.get("pattern").is_some()
            && (description.is_empty()
                || !normal.says(&[
                    "e g",
                    "eg",
                    "example",
                    "like",
                    "such as",
                    "format",
                    "digits",
                    "letters",
                    "characters",
                    "starting",
                    "starts",
                    "ending",
                    "ends",
                    "form",
                ]))
        {
            out.push(
                "arg-pattern-unexplained",
                tool,
                at(),
                "say the shape in words with an example ('two letters and four digits, e.g. AB1234'): a model reads words better than regexes".into(),
            );
        }
    }
    if camel && snake {
        out.push(
            "arg-style-mixed",
            tool,
            None,
            "its argument names mix camelCase and snake_case: pick one".into(),
        );
    }
}

/// Whether `description` lists a handful of allowed values in words: "one of a, b, c",
/// "either 'x' or 'y'", "'a' | 'b'", "must be asc or desc".
fn lists_values(description: &str) -> bool {
    let lower = description.to_lowercase();
    let quoted = lower.matches(['\'', '"', '`']).count() >= 4;
    lower.contains("one of")
        || lower.contains("either ")
        || lower.contains("possible values")
        || lower.contains("allowed values")
        || lower.contains("valid values")
        || lower.contains("options:")
        || lower.contains(" | ") && quoted
        || (lower.contains("must be") || lower.contains("can be")) && quoted
}
