//! `#[tool(example = r#"{...}"#)]`: a whole call, checked here against what the
//! signature says (JSON, an object, every name an argument, every required argument
//! present, each value of its argument's kind where the type says it plainly). What only
//! the built schema knows (patterns, bounds, the shapes of your own types) the registry
//! checks when the tool is registered, by reading the example as a call.

use serde_json::Value;

use crate::ast::{Param, ToolFn, kind_of, option_inner};
use crate::errors::Errors;

pub fn check_examples(tool: &ToolFn<'_>, errors: &Errors) {
    for example in &tool.options.examples {
        let span = example.span();
        let value: Value = match serde_json::from_str(example.as_str()) {
            Ok(value) => value,
            Err(error) => {
                errors.error_at(span, format!("this example is not JSON: {error}; write the whole call's arguments as a JSON object, like r#\"{{\"city\": \"Oslo\"}}\"#"));
                continue;
            }
        };
        let Value::Object(arguments) = value else {
            errors.error_at(span, "an example is the whole call's arguments: a JSON object, like r#\"{\"city\": \"Oslo\"}\"#");
            continue;
        };
        let params: Vec<&Param<'_>> = tool.args().collect();
        let wire: Vec<&str> = params
            .iter()
            .map(|param| param.wire_name.as_str())
            .collect();
        for (name, value) in &arguments {
            let Some(param) = params.iter().find(|param| {
                param.wire_name == *name || param.serde.aliases.iter().any(|alias| alias == name)
            }) else {
                let hint = match crate::errors::closest(name, wire.iter().copied()) {
                    Some(close) => format!("did you mean `{close}`?"),
                    None => format!("the arguments are {}", listed(&wire)),
                };
                errors.error_at(
                    span,
                    format!(
                        "this example names `{name}`, which is not an argument of `{}`: {hint}",
                        tool.name
                    ),
                );
                continue;
            };
            check_kind(param, name, value, span, errors);
        }
        for param in &params {
            let given = arguments.contains_key(&param.wire_name)
                || param
                    .serde
                    .aliases
                    .iter()
                    .any(|alias| arguments.contains_key(alias));
            if !given && always_required(param) {
                errors.error_at(
                    span,
                    format!(
                        "this example leaves out `{}`, which every call must give: add it, or make the argument an `Option` or give it `#[arg(default = ...)]`",
                        param.wire_name
                    ),
                );
            }
        }
    }
}

/// The value's kind against the parameter's, when its type says it plainly.
fn check_kind(
    param: &Param<'_>,
    name: &str,
    value: &Value,
    span: proc_macro2::Span,
    errors: &Errors,
) {
    if param.serde.deserialize_with.is_some()
        || param.options.schema_with.is_some()
        || param.options.schema_as.is_some()
    {
        return;
    }
    let (ty, optional) = match option_inner(param.ty) {
        Some(inner) => (inner, true),
        None => (param.ty, false),
    };
    if value.is_null() {
        if !optional {
            errors.error_at(span, format!("this example gives `{name}` as null, but it is not an `Option`: give it a value"));
        }
        return;
    }
    if let Some(kind) = kind_of(ty)
        && !kind.accepts(value)
    {
        errors.error_at(
            span,
            format!(
                "this example gives `{name}` as {value}, but it takes {}",
                kind.name()
            ),
        );
    }
}

/// Whether every call must give the parameter, whatever its type's schema says: a plain
/// type that is not an `Option` and has no default.
fn always_required(param: &Param<'_>) -> bool {
    param.options.default.is_none()
        && param.serde.deserialize_with.is_none()
        && param.options.schema_with.is_none()
        && param.options.schema_as.is_none()
        && option_inner(param.ty).is_none()
        && kind_of(param.ty).is_some()
}

fn listed(names: &[&str]) -> String {
    if names.is_empty() {
        return "none: the tool takes no arguments, so its example is `{}`".to_owned();
    }
    names
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
