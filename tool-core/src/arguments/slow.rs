//! The slow path of reading arguments: what went wrong, all of it, in words a model can
//! act on. Runs only after the fast path (serde into the tool's types) failed.

use serde_json::Value;

use crate::error::{Problem, ToolError};
use crate::spec::ToolSpec;
use crate::tool::Arguments;
use crate::validate::Validator;
use crate::validate::json::{message, show, type_name};

/// The error for arguments the fast path rejected: every problem the schema finds, or,
/// if it finds none, what `explain` says of the value (the type's own message).
pub(crate) fn invalid_arguments(
    spec: &ToolSpec,
    validator: &Validator,
    args: Arguments<'_>,
    explain: &dyn Fn(&Value) -> Option<String>,
) -> ToolError {
    let parsed;
    let value = match args {
        Arguments::Value(value) => value,
        Arguments::Json(json) => match serde_json::from_str::<Value>(json) {
            Ok(value) => {
                parsed = value;
                &parsed
            }
            Err(error) => return not_json(spec, &error),
        },
    };
    if let Err(error) = check_is_object(spec, value) {
        return error;
    }
    let mut problems = validator.validate(value);
    if problems.is_empty() {
        // The schema admits what a type's own `Deserialize` refuses (a hand-written one,
        // or a `schema_with` schema looser than its type): the type's own words.
        let message = explain(value).unwrap_or_else(|| "the arguments were rejected".to_owned());
        problems.push(Problem::new("$", message));
    }
    problems_with_arguments(spec, problems)
}

/// The one wording of arguments that do not meet the schema, for every kind of tool
/// (`#[tool]`, hand-written, imported): "2 problems with the arguments of 'x'".
pub(crate) fn problems_with_arguments(spec: &ToolSpec, problems: Vec<Problem>) -> ToolError {
    let count = problems.len();
    ToolError::invalid_arguments(
        message!(
            "{count} problem{} with the arguments of '{}'",
            if count == 1 { "" } else { "s" },
            spec.name
        ),
        problems,
    )
    .with_hint("fix every problem listed and call the tool again")
}

fn not_json(spec: &ToolSpec, error: &serde_json::Error) -> ToolError {
    ToolError::invalid_arguments(
        format!("the arguments of '{}' are not valid JSON", spec.name),
        vec![Problem::new("$", error.to_string())],
    )
    .with_hint("send the arguments as one JSON object, for example {\"name\": \"value\"}")
}

/// Arguments must be a JSON object; say what came instead, and what to do about it.
pub(crate) fn check_is_object(spec: &ToolSpec, value: &Value) -> Result<(), ToolError> {
    if value.is_object() {
        return Ok(());
    }
    let hint = match value {
        Value::String(text) if serde_json::from_str::<Value>(text).is_ok_and(|v| v.is_object()) => {
            "the object was sent as a string; send the JSON object itself, not a string containing it".to_owned()
        }
        Value::Null if no_parameters(spec) => "this tool takes no arguments: send {}".to_owned(),
        _ => "send the arguments as one JSON object with the tool's parameters as fields".to_owned(),
    };
    Err(ToolError::invalid_arguments(
        format!("the arguments of '{}' must be a JSON object", spec.name),
        vec![Problem::new(
            "$",
            match value {
                Value::Null => "expected object, got null".to_owned(),
                other => format!("expected object, got {} {}", type_name(other), show(other)),
            },
        )],
    )
    .with_hint(hint))
}

/// Whether the tool's schema declares no properties.
pub(crate) fn no_parameters(spec: &ToolSpec) -> bool {
    spec.input_schema
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(serde_json::Map::is_empty)
}

impl Validator {
    /// Reads the arguments of a hand-written tool (one whose schema is known only at run
    /// time): the JSON value when it meets the schema, else the same `invalid_arguments`
    /// error a `#[tool]` gives, listing every problem.
    pub fn read_arguments(&self, spec: &ToolSpec, args: Arguments<'_>) -> Result<Value, ToolError> {
        let value = match args {
            Arguments::Value(value) => value.clone(),
            Arguments::Json(json) => {
                serde_json::from_str(json).map_err(|error| not_json(spec, &error))?
            }
        };
        check_is_object(spec, &value)?;
        if self.is_valid(&value) {
            Ok(value)
        } else {
            Err(invalid_arguments(
                spec,
                self,
                Arguments::Value(&value),
                &|_| None,
            ))
        }
    }
}
