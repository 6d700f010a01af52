//! The stubs as a Python module (3.12): `TypedDict`s, `Literal`s, `type` aliases and an
//! `async def` per tool.

use std::fmt::Write as _;

use serde_json::Value;

use super::model::{Api, Declared, Field, Function, Shape, Ty, identifier};
use crate::error::ErrorKind;

/// Python 3.12.
struct Python;

impl super::Language for Python {
    const JSON_VALUE: &'static str =
        "type JsonValue = None | bool | int | float | str | list[JsonValue] | dict[str, JsonValue]";

    fn error_types() -> String {
        error_types()
    }

    fn declaration(out: &mut String, declared: &Declared) {
        declaration(out, declared);
    }

    fn function(out: &mut String, function: &Function) {
        function_stub(out, function);
    }
}

pub(super) fn render(api: &Api) -> String {
    let out = <Python as super::Language>::body(api);
    // What the module imports is what it uses: a type checker in strict mode flags the
    // rest.
    let mut used = vec!["Literal"];
    if api.any_ty(&|ty| *ty == Ty::Never) {
        used.push("Never");
    }
    let optional_field = api.types.iter().any(|declared| {
        matches!(&declared.shape, Shape::Object { fields, .. } if fields.iter().any(|f| !f.required))
    });
    if optional_field {
        used.push("NotRequired");
    }
    used.push("TypedDict");
    format!(
        concat!(
            "\"\"\"The tools this program may call, one async function each: `await` a call, or\n",
            "run several at once with `asyncio.gather`. A call that fails raises `ToolError`.\n",
            "\"\"\"\n\n",
            "from __future__ import annotations\n\n",
            "from typing import {}\n\n{}"
        ),
        used.join(", "),
        out
    )
}

/// How a failed call shows in the program. The interpreter (monty) has no class
/// inheritance, so there is no `ToolError` class with fields: a failure raises the
/// builtin exception a Python programmer expects for its kind, and `ToolError` is the
/// tuple of them, for `except ToolError`.
fn error_types() -> String {
    let kinds: Vec<&str> = ErrorKind::ALL.iter().map(|kind| kind.as_str()).collect();
    format!(
        r#"# A failed call raises ValueError (invalid_arguments), PermissionError (denied),
# LookupError (not_found), TimeoutError (timeout) or RuntimeError (the others: {}).
# Its message starts with the kind ("denied: ..."), then lists every problem with the
# arguments (`$.path: what is wrong`) and a hint. `except ToolError` catches them all.
ToolError = (ValueError, PermissionError, LookupError, TimeoutError, RuntimeError)
"#,
        kinds
            .iter()
            .filter(|kind| !matches!(
                **kind,
                "invalid_arguments" | "denied" | "not_found" | "timeout"
            ))
            .copied()
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn declaration(out: &mut String, declared: &Declared) {
    match &declared.shape {
        Shape::Alias(ty) => {
            out.push('\n');
            if let Some(doc) = &declared.doc {
                comment(out, "", doc);
            }
            let _ = writeln!(out, "type {} = {}", declared.name, ty_of(ty));
        }
        Shape::Object { fields, others } => {
            let keywords = fields
                .iter()
                .all(|field| identifier(&field.name) == field.name);
            if keywords {
                let _ = writeln!(out, "\nclass {}(TypedDict):", declared.name);
                if let Some(doc) = &declared.doc {
                    docstring(out, "    ", doc);
                }
                if let Some(others) = others {
                    let _ = writeln!(
                        out,
                        "    # Other keys may appear, each with a value of type {}.",
                        ty_of(others)
                    );
                }
                if fields.is_empty() {
                    out.push_str("    pass\n");
                }
                for field in fields {
                    if let Some(doc) = &field.doc {
                        comment(out, "    ", doc);
                    }
                    let _ = writeln!(out, "    {}: {}", field.name, field_ty(field));
                }
            } else {
                // A field no identifier can name takes TypedDict's functional form.
                out.push('\n');
                if let Some(doc) = &declared.doc {
                    comment(out, "", doc);
                }
                for field in fields.iter().filter(|field| field.doc.is_some()) {
                    comment(
                        out,
                        "",
                        &format!("{}: {}", field.name, field.doc.as_deref().unwrap_or("")),
                    );
                }
                let entries: Vec<String> = fields
                    .iter()
                    .map(|field| format!("{}: {}", quoted(&field.name), field_ty(field)))
                    .collect();
                let _ = writeln!(
                    out,
                    "{} = TypedDict(\"{}\", {{{}}})",
                    declared.name,
                    declared.name,
                    entries.join(", ")
                );
            }
        }
    }
}

fn field_ty(field: &Field) -> String {
    match field.required {
        true => ty_of(&field.ty),
        false => format!("NotRequired[{}]", ty_of(&field.ty)),
    }
}

fn function_stub(out: &mut String, function: &Function) {
    let mut params: Vec<String> = Vec::new();
    for (i, param) in function.params.iter().enumerate() {
        if i == function.positional {
            params.push("*".to_owned());
        }
        let ty = ty_of(&param.ty);
        params.push(match param.required {
            true => format!("{}: {ty}", param.ident),
            false if param.ty.admits_null() => format!("{}: {ty} = None", param.ident),
            false => format!("{}: {ty} | None = None", param.ident),
        });
    }
    let _ = writeln!(
        out,
        "\nasync def {}({}) -> {}:",
        function.ident,
        params.join(", "),
        ty_of(&function.returns)
    );
    let mut doc = function.description.trim().to_owned();
    let documented: Vec<_> = function
        .params
        .iter()
        .filter(|param| param.doc.is_some() || param.ident != param.wire)
        .collect();
    if !documented.is_empty() {
        doc.push_str("\n\nArgs:");
        for param in documented {
            let _ = write!(doc, "\n    {}:", param.ident);
            if param.ident != param.wire {
                let _ = write!(doc, " (the argument \"{}\")", param.wire);
            }
            if let Some(text) = &param.doc {
                let _ = write!(doc, " {}", indent_after_first(text, "        "));
            }
        }
    }
    if let Some(returns) = &function.returns_doc {
        let _ = write!(
            doc,
            "\n\nReturns:\n    {}",
            indent_after_first(returns, "    ")
        );
    }
    let _ = write!(
        doc,
        "\n\nEffect: {} ({}).",
        function.effect.as_str(),
        super::effect_words(function.effect)
    );
    docstring(out, "    ", &doc);
    out.push_str("    ...\n");
}

fn ty_of(ty: &Ty) -> String {
    match ty {
        Ty::Str => "str".to_owned(),
        Ty::Int => "int".to_owned(),
        Ty::Float => "float".to_owned(),
        Ty::Bool => "bool".to_owned(),
        Ty::Null => "None".to_owned(),
        Ty::Never => "Never".to_owned(),
        Ty::Json => "JsonValue".to_owned(),
        Ty::List(item) => format!("list[{}]", ty_of(item)),
        Ty::Tuple(items) => format!(
            "tuple[{}]",
            items.iter().map(ty_of).collect::<Vec<_>>().join(", ")
        ),
        Ty::Map(value) => format!("dict[str, {}]", ty_of(value)),
        Ty::Literal(values) => {
            let (nulls, scalars): (Vec<&Value>, Vec<&Value>) =
                values.iter().partition(|value| value.is_null());
            let mut parts = Vec::new();
            if !scalars.is_empty() {
                let scalars: Vec<String> = scalars.iter().map(|v| literal(v)).collect();
                parts.push(format!("Literal[{}]", scalars.join(", ")));
            }
            if !nulls.is_empty() {
                parts.push("None".to_owned());
            }
            parts.join(" | ")
        }
        Ty::Union(types) => types.iter().map(ty_of).collect::<Vec<_>>().join(" | "),
        Ty::Named(name) => name.clone(),
    }
}

/// A JSON value as the Python literal a program would write.
pub(crate) fn literal(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::String(text) => quoted(text),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(literal).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(key, value)| format!("{}: {}", quoted(key), literal(value)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Number(number) => number.to_string(),
    }
}

/// A Python string literal.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_owned())
}

fn docstring(out: &mut String, indent: &str, text: &str) {
    let text = text.replace('\\', "\\\\").replace("\"\"\"", "\\\"\\\"\\\"");
    let _ = write!(out, "{indent}\"\"\"");
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            out.push('\n');
            if !line.is_empty() {
                out.push_str(indent);
            }
        }
        out.push_str(line);
    }
    if text.lines().count() > 1 {
        let _ = write!(out, "\n{indent}");
    }
    out.push_str("\"\"\"\n");
}

fn comment(out: &mut String, indent: &str, text: &str) {
    for line in text.lines() {
        let _ = writeln!(out, "{indent}# {line}");
    }
}

fn indent_after_first(text: &str, indent: &str) -> String {
    text.trim()
        .lines()
        .collect::<Vec<_>>()
        .join(&format!("\n{indent}"))
}
