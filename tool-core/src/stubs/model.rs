//! The types both stub languages share: functions with their parameters, object types
//! with their fields, aliases, unions and literals; and the names both accept. The
//! schemas are read into them in `read.rs`.

use std::collections::HashMap;

use serde_json::Value;

use super::Loose;
use crate::effect::Effect;

/// Every function and every named type of a set of tools.
#[derive(Debug, Clone, Default)]
pub(crate) struct Api {
    /// Named types, each after the types it uses (a recursive one refers to itself).
    pub(crate) types: Vec<Declared>,
    pub(crate) functions: Vec<Function>,
    pub(crate) loose: Vec<Loose>,
    /// Whether some type is any JSON value (`JsonValue` is declared only then).
    pub(crate) uses_json: bool,
    /// Names taken, with the schema each was taken for (the same schema shares it).
    pub(super) taken: HashMap<String, String>,
}

/// One tool, as a function.
#[derive(Debug, Clone)]
pub(crate) struct Function {
    /// The tool's name.
    #[cfg_attr(not(feature = "code"), allow(dead_code))]
    pub(crate) name: String,
    /// The name a program calls it by (the tool's, unless a language reserves it).
    pub(crate) ident: String,
    pub(crate) description: String,
    pub(crate) effect: Effect,
    pub(crate) params: Vec<Param>,
    /// How many leading parameters may be passed by position (the required ones before
    /// the first optional one).
    pub(crate) positional: usize,
    pub(crate) returns: Ty,
    /// The output schema's description.
    pub(crate) returns_doc: Option<String>,
}

/// A parameter of a function: a property of the tool's arguments object.
#[derive(Debug, Clone)]
pub(crate) struct Param {
    /// The property's name in the arguments.
    pub(crate) wire: String,
    /// The keyword a Python program passes it by (`wire`, unless Python reserves it).
    pub(crate) ident: String,
    pub(crate) ty: Ty,
    pub(crate) required: bool,
    pub(crate) doc: Option<String>,
}

/// A named type.
#[derive(Debug, Clone)]
pub(crate) struct Declared {
    pub(crate) name: String,
    pub(crate) doc: Option<String>,
    pub(crate) shape: Shape,
}

#[derive(Debug, Clone)]
pub(crate) enum Shape {
    /// An object with known fields, and the type of any others (`additionalProperties`).
    Object {
        fields: Vec<Field>,
        others: Option<Ty>,
    },
    /// Another name for a type (a union, a literal, a recursive definition).
    Alias(Ty),
}

/// A field of an object type.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    pub(crate) name: String,
    pub(crate) ty: Ty,
    pub(crate) required: bool,
    pub(crate) doc: Option<String>,
}

/// A type, in terms both languages have.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Ty {
    Str,
    Int,
    Float,
    Bool,
    Null,
    /// No value at all (the schema `false`).
    Never,
    /// Any JSON value: `JsonValue`.
    Json,
    List(Box<Ty>),
    Tuple(Vec<Ty>),
    /// An object with any keys, each value of the type.
    Map(Box<Ty>),
    /// One of these JSON scalars.
    Literal(Vec<Value>),
    Union(Vec<Ty>),
    /// A declared type.
    Named(String),
}

impl Api {
    /// Whether some type anywhere, or a type inside it, meets `test`.
    pub(crate) fn any_ty(&self, test: &dyn Fn(&Ty) -> bool) -> bool {
        let functions = self.functions.iter().any(|function| {
            function.returns.any(test) || function.params.iter().any(|param| param.ty.any(test))
        });
        let types = self.types.iter().any(|declared| match &declared.shape {
            Shape::Alias(ty) => ty.any(test),
            Shape::Object { fields, others } => {
                fields.iter().any(|field| field.ty.any(test))
                    || others.as_ref().is_some_and(|ty| ty.any(test))
            }
        });
        functions || types
    }
}

impl Ty {
    /// Whether the type, or a type inside it, meets `test`.
    fn any(&self, test: &dyn Fn(&Ty) -> bool) -> bool {
        test(self)
            || match self {
                Ty::List(inner) | Ty::Map(inner) => inner.any(test),
                Ty::Tuple(types) | Ty::Union(types) => types.iter().any(|ty| ty.any(test)),
                _ => false,
            }
    }

    /// Whether `null` is a value of the type.
    pub(crate) fn admits_null(&self) -> bool {
        match self {
            Ty::Null | Ty::Json => true,
            Ty::Literal(values) => values.iter().any(Value::is_null),
            Ty::Union(types) => types.iter().any(Ty::admits_null),
            _ => false,
        }
    }
}

/// Words Python reserves: a parameter or function so named gets a trailing `_`.
const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Words TypeScript reserves as a function's name.
const TYPESCRIPT_KEYWORDS: &[&str] = &[
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "null",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "let",
    "static",
    "yield",
    "await",
    "implements",
    "interface",
    "package",
    "private",
    "protected",
    "public",
];

/// A name both languages accept: letters, digits and `_`, not starting with a digit,
/// reserved words followed by `_`.
pub(crate) fn identifier(name: &str) -> String {
    let mut ident: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if ident.is_empty() || ident.starts_with(|c: char| c.is_ascii_digit()) {
        ident.insert(0, '_');
    }
    if PYTHON_KEYWORDS.contains(&ident.as_str()) || TYPESCRIPT_KEYWORDS.contains(&ident.as_str()) {
        ident.push('_');
    }
    ident
}
