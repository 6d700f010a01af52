//! The stubs as TypeScript declarations (`.d.ts`): interfaces, unions and an `async`
//! function per tool that takes one arguments object.

use std::fmt::Write as _;

use serde_json::Value;

use super::model::{Api, Declared, Field, Function, Shape, Ty};
use crate::error::ErrorKind;

/// TypeScript declarations.
struct TypeScript;

impl super::Language for TypeScript {
    const JSON_VALUE: &'static str = "export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };";

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
    let mut out = String::from(concat!(
        "/**\n",
        " * The tools this program may call, one async function each: `await` a call, or run\n",
        " * several at once with `Promise.all`. A call that fails throws `ToolError`.\n",
        " */\n\n",
    ));
    out.push_str(&<TypeScript as super::Language>::body(api));
    out
}

fn error_types() -> String {
    let kinds: Vec<String> = ErrorKind::ALL
        .iter()
        .map(|kind| format!("\"{}\"", kind.as_str()))
        .collect();
    format!(
        r#"/** One problem with a call's arguments. */
export interface Problem {{
  /** Where: `$` is the arguments object, `$.items[2].name` a value inside it. */
  path: string;
  /** What was expected and what came. */
  message: string;
}}

/**
 * A tool call that failed. Catch it to handle the failure in the program, or let it end
 * the program: the error then goes back to the model.
 */
export declare class ToolError extends Error {{
  kind: {};
  /** Whether the same call, corrected or repeated, may succeed. */
  retryable: boolean;
  /** What to do instead. */
  hint: string | null;
  /** For `invalid_arguments`: every problem with the arguments at once. */
  problems: Problem[];
}}
"#,
        kinds.join(" | ")
    )
}

fn declaration(out: &mut String, declared: &Declared) {
    if let Some(doc) = &declared.doc {
        jsdoc(out, "", doc);
    }
    match &declared.shape {
        Shape::Alias(ty) => {
            let _ = writeln!(out, "export type {} = {};", declared.name, ty_of(ty));
        }
        Shape::Object { fields, others } => {
            let _ = writeln!(out, "export interface {} {{", declared.name);
            members(out, "  ", fields);
            if let Some(others) = others {
                // An index signature must admit every named field's type too.
                let mut all = vec![ty_of(others)];
                for field in fields {
                    let ty = ty_of(&field.ty);
                    if !all.contains(&ty) {
                        all.push(ty);
                    }
                }
                let _ = writeln!(out, "  [key: string]: {};", all.join(" | "));
            }
            out.push_str("}\n");
        }
    }
}

fn members(out: &mut String, indent: &str, fields: &[Field]) {
    for field in fields {
        if let Some(doc) = &field.doc {
            jsdoc(out, indent, doc);
        }
        let optional = if field.required { "" } else { "?" };
        let _ = writeln!(
            out,
            "{indent}{}{optional}: {};",
            key(&field.name),
            ty_of(&field.ty)
        );
    }
}

fn function_stub(out: &mut String, function: &Function) {
    let mut doc = function.description.trim().to_owned();
    for param in function.params.iter().filter(|param| param.doc.is_some()) {
        let _ = write!(
            doc,
            "\n@param args.{} {}",
            param.wire,
            param.doc.as_deref().unwrap_or("").trim()
        );
    }
    if let Some(returns) = &function.returns_doc {
        let _ = write!(doc, "\n@returns {}", returns.trim());
    }
    let _ = write!(
        doc,
        "\n@effect {} ({}).\n@throws {{ToolError}} when the call fails.",
        function.effect.as_str(),
        super::effect_words(function.effect)
    );
    jsdoc(out, "", &doc);
    let fields: Vec<String> = function
        .params
        .iter()
        .map(|param| {
            let optional = if param.required { "" } else { "?" };
            format!("{}{optional}: {}", key(&param.wire), ty_of(&param.ty))
        })
        .collect();
    let args = if fields.is_empty() {
        "args?: Record<string, never>".to_owned()
    } else {
        let optional = if function.params.iter().any(|param| param.required) {
            ""
        } else {
            "?"
        };
        format!("args{optional}: {{ {} }}", fields.join("; "))
    };
    let _ = writeln!(
        out,
        "export declare function {}({args}): Promise<{}>;",
        function.ident,
        ty_of(&function.returns)
    );
}

fn ty_of(ty: &Ty) -> String {
    match ty {
        Ty::Str => "string".to_owned(),
        Ty::Int | Ty::Float => "number".to_owned(),
        Ty::Bool => "boolean".to_owned(),
        Ty::Null => "null".to_owned(),
        Ty::Never => "never".to_owned(),
        Ty::Json => "JsonValue".to_owned(),
        Ty::List(item) => match **item {
            Ty::Union(_) | Ty::Literal(_) => format!("({})[]", ty_of(item)),
            _ => format!("{}[]", ty_of(item)),
        },
        Ty::Tuple(items) => format!(
            "[{}]",
            items.iter().map(ty_of).collect::<Vec<_>>().join(", ")
        ),
        Ty::Map(value) => format!("{{ [key: string]: {} }}", ty_of(value)),
        Ty::Literal(values) => values
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(" | "),
        Ty::Union(types) => types.iter().map(ty_of).collect::<Vec<_>>().join(" | "),
        Ty::Named(name) => name.clone(),
    }
}

/// A property name, quoted unless it is an identifier.
fn key(name: &str) -> String {
    let identifier = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    match identifier {
        true => name.to_owned(),
        false => serde_json::to_string(name).unwrap_or_default(),
    }
}

fn jsdoc(out: &mut String, indent: &str, text: &str) {
    let text = text.replace("*/", "*\\/");
    let lines: Vec<&str> = text.trim().lines().collect();
    if lines.len() == 1 {
        let _ = writeln!(out, "{indent}/** {} */", lines[0]);
        return;
    }
    let _ = writeln!(out, "{indent}/**");
    for line in lines {
        if line.is_empty() {
            let _ = writeln!(out, "{indent} *");
        } else {
            let _ = writeln!(out, "{indent} * {line}");
        }
    }
    let _ = writeln!(out, "{indent} */");
}
