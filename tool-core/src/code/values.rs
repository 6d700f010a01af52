//! Values across the sandbox's edge: a program's arguments to JSON for a tool call, a
//! tool's result into the program, a failed call as the exception the program catches,
//! and what the program returns as JSON for the model.

use monty_types::{ExcType, MontyException, MontyObject};
use serde_json::{Map, Number, Value};

use crate::error::{ErrorKind, Problem, ToolError};
use crate::tool::ToolOutput;
use crate::validate::JsonPath;

/// The exception a failed call raises in the program: a builtin class a Python
/// programmer expects for the kind (the interpreter has no class inheritance, so no
/// `ToolError` class of its own), its message `kind: message`, then the problems and
/// the hint. The prelude binds `ToolError` to the tuple of these classes.
pub(super) fn exception_of(error: &ToolError) -> MontyException {
    let class = match error.kind {
        ErrorKind::InvalidArguments => ExcType::ValueError,
        ErrorKind::Denied => ExcType::PermissionError,
        ErrorKind::NotFound => ExcType::LookupError,
        ErrorKind::Timeout => ExcType::TimeoutError,
        ErrorKind::UnknownTool
        | ErrorKind::Conflict
        | ErrorKind::Cancelled
        | ErrorKind::AwaitingApproval
        | ErrorKind::OutcomeUnknown
        | ErrorKind::Failed
        | ErrorKind::Internal => ExcType::RuntimeError,
    };
    let mut message = format!("{}: {}", error.kind.as_str(), error.message);
    for problem in &error.problems {
        message.push_str(&format!("\n  {}: {}", problem.path, problem.message));
    }
    if let Some(hint) = &error.hint {
        message.push_str(&format!("\n  hint: {hint}"));
    }
    MontyException::new(class, Some(message))
}

/// The classes `exception_of` raises, as the prelude binds them to `ToolError`.
pub(super) const TOOL_ERROR_CLASSES: &str =
    "(ValueError, PermissionError, LookupError, TimeoutError, RuntimeError)";

/// A tool's result as the program receives it: the JSON value when the tool has an
/// output schema, the text the model would read when it has none (what the stubs say).
pub(super) fn result_of(output: &ToolOutput, typed: bool) -> MontyObject {
    if !typed {
        return MontyObject::String(output.to_text());
    }
    match output {
        ToolOutput::Text(text) => MontyObject::String(text.clone()),
        ToolOutput::Json(value) => to_python(value),
        ToolOutput::Empty => MontyObject::None,
        ToolOutput::Observation { data, .. } => to_python(data),
        ToolOutput::Content(_) => MontyObject::String(output.to_text()),
    }
}

/// A JSON value as a Python one.
pub(super) fn to_python(value: &Value) -> MontyObject {
    match value {
        Value::Null => MontyObject::None,
        Value::Bool(b) => MontyObject::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => MontyObject::Int(i),
            (None, Some(u), _) => MontyObject::BigInt(u.into()),
            (_, _, Some(f)) => MontyObject::Float(f),
            _ => MontyObject::None,
        },
        Value::String(s) => MontyObject::String(s.clone()),
        Value::Array(items) => MontyObject::List(items.iter().map(to_python).collect()),
        Value::Object(map) => MontyObject::dict(
            map.iter()
                .map(|(k, v)| (MontyObject::String(k.clone()), to_python(v)))
                .collect::<Vec<_>>(),
        ),
    }
}

/// A Python value as JSON, or why it has no JSON form (a function, a cycle).
pub(super) fn to_json(object: &MontyObject) -> Result<Value, String> {
    Ok(match object {
        MontyObject::None => Value::Null,
        MontyObject::Bool(b) => Value::Bool(*b),
        MontyObject::Int(i) => Value::from(*i),
        MontyObject::BigInt(big) => {
            let text = big.to_string();
            match text.parse::<u64>() {
                Ok(u) => Value::from(u),
                Err(_) => Value::String(text),
            }
        }
        // NaN and the infinities have no JSON form: refused, never turned into `null`.
        MontyObject::Float(f) => match Number::from_f64(*f) {
            Some(number) => Value::Number(number),
            None => {
                let shown = if f.is_nan() {
                    "float('nan')"
                } else if *f > 0.0 {
                    "float('inf')"
                } else {
                    "float('-inf')"
                };
                return Err(format!("{shown} has no JSON form: pass a finite number"));
            }
        },
        MontyObject::String(s) | MontyObject::Path(s) => Value::String(s.clone()),
        MontyObject::List(items)
        | MontyObject::Tuple(items)
        | MontyObject::Set(items)
        | MontyObject::FrozenSet(items) => {
            Value::Array(items.iter().map(to_json).collect::<Result<_, _>>()?)
        }
        MontyObject::NamedTuple { values, .. } => {
            Value::Array(values.iter().map(to_json).collect::<Result<_, _>>()?)
        }
        MontyObject::Dict(pairs) => {
            let mut map = Map::new();
            for (key, value) in pairs {
                let key = match key {
                    MontyObject::String(s) => s.clone(),
                    other => match to_json(other)? {
                        Value::String(s) => s,
                        json => json.to_string(),
                    },
                };
                map.insert(key, to_json(value)?);
            }
            Value::Object(map)
        }
        MontyObject::Bytes(bytes) => Value::String(String::from_utf8_lossy(bytes).into_owned()),
        MontyObject::Date(_)
        | MontyObject::DateTime(_)
        | MontyObject::Time(_)
        | MontyObject::TimeDelta(_)
        | MontyObject::TimeZone(_) => Value::String(object.to_string()),
        MontyObject::Exception { exc_type, arg } => Value::String(match arg {
            Some(arg) => format!("{exc_type}: {arg}"),
            None => exc_type.to_string(),
        }),
        MontyObject::Ellipsis | MontyObject::NotImplemented => Value::String(object.to_string()),
        MontyObject::Repr(text) | MontyObject::Cycle(_, text) => {
            return Err(format!("{text} is not data"));
        }
        other => return Err(format!("a value of type {} is not data", other.type_name())),
    })
}

/// A call's arguments as the JSON object the tool reads: positional ones by the
/// stub's order, keywords by name (`from_` for `from`), `None` for an optional one
/// left out. `Err` holds every way the call does not fit the signature (too many
/// positional arguments, an unknown or repeated keyword, a value with no JSON form),
/// each at the argument's path, with the object read from the rest: the gate's
/// validation of that object adds what else is wrong (a missing argument, a bound).
pub(super) fn arguments_of<'k>(
    function: &crate::stubs::Function,
    args: &[MontyObject],
    kwargs: impl IntoIterator<Item = &'k (MontyObject, MontyObject)>,
) -> Result<Value, (Value, Vec<Problem>)> {
    let name = &function.ident;
    let mut problems = Vec::new();
    let mut object = Map::new();
    let at = |wire: &str| {
        let mut path = JsonPath::root();
        path.push_key(wire);
        path.text()
    };
    if args.len() > function.positional {
        problems.push(Problem::new(
            "$",
            format!(
                "{name}() takes {} positional argument{} but {} were given; pass the others by keyword",
                function.positional,
                if function.positional == 1 { "" } else { "s" },
                args.len()
            ),
        ));
    }
    for (param, value) in function.params.iter().zip(args) {
        match to_json(value) {
            Ok(json) => {
                object.insert(param.wire.clone(), json);
            }
            Err(why) => problems.push(Problem::new(at(&param.wire), why)),
        }
    }
    for (key, value) in kwargs {
        let MontyObject::String(key) = key else {
            problems.push(Problem::new(
                "$",
                format!("{name}() keywords must be strings"),
            ));
            continue;
        };
        let Some(param) = function
            .params
            .iter()
            .find(|param| param.ident == *key || param.wire == *key)
        else {
            let known: Vec<&str> = function.params.iter().map(|p| p.ident.as_str()).collect();
            problems.push(Problem::new(
                at(key),
                format!(
                    "{name}() has no argument '{key}'; it takes {}",
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                ),
            ));
            continue;
        };
        if object.contains_key(&param.wire) {
            problems.push(Problem::new(
                at(&param.wire),
                format!("{name}() got multiple values for argument '{key}'"),
            ));
            continue;
        }
        // An optional argument given as None is left out, as the stub's default says.
        if !param.required && matches!(value, MontyObject::None) {
            continue;
        }
        match to_json(value) {
            Ok(json) => {
                object.insert(param.wire.clone(), json);
            }
            Err(why) => problems.push(Problem::new(at(&param.wire), why)),
        }
    }
    if problems.is_empty() {
        Ok(Value::Object(object))
    } else {
        Err((Value::Object(object), problems))
    }
}
