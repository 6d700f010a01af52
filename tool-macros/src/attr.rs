//! The grammar of `#[tool(...)]`, `#[arg(...)]` and `#[ctx]`, declared with darling so
//! unknown keys get "did you mean" for free.

use darling::FromMeta;
use darling::ast::NestedMeta;
use darling::util::SpannedValue;
use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, ExprUnary, Lit, Meta, UnOp};

use crate::errors::{Errors, closest};

/// `#[tool(...)]`.
#[derive(Default, FromMeta)]
pub struct ToolOptions {
    pub name: Option<SpannedValue<String>>,
    pub title: Option<String>,
    pub description: Option<SpannedValue<String>>,
    pub effect: Option<SpannedValue<String>>,
    pub idempotent: Option<bool>,
    pub open_world: Option<bool>,
    #[darling(rename = "crate")]
    pub krate: Option<syn::Path>,
    /// `companion = EventTool`: the name of the generated unit struct (default: the
    /// function's name in PascalCase).
    pub companion: Option<syn::Ident>,
    pub scopes: Option<SpannedValue<StringList>>,
    /// `callers = "direct" | "code" | "any"`: who may call the tool.
    pub callers: Option<SpannedValue<String>>,
    /// `hosted_code`: offered to the code a provider runs as well.
    pub hosted_code: Option<SpannedValue<bool>>,
    /// `stream_input`: the arguments are streamed as the model writes them.
    pub stream_input: Option<SpannedValue<bool>>,
    /// `task = "forbidden" | "optional" | "required"`: whether calls may run as tasks.
    pub task: Option<SpannedValue<String>>,
    pub classify: Option<syn::Path>,
    pub approval: Option<syn::Path>,
    pub describe: Option<syn::Path>,
    /// `reconcile = path`: asks the world whether a call whose outcome is unknown took
    /// effect.
    pub reconcile: Option<syn::Path>,
    /// `example = r#"{...}"#`, repeatable: a whole call's arguments.
    #[darling(multiple, rename = "example")]
    pub examples: Vec<SpannedValue<String>>,
}

/// `["a", "b"]`: a list of string literals.
#[derive(Default, Clone)]
pub struct StringList(pub Vec<String>);

impl FromMeta for StringList {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        let Expr::Array(array) = expr else {
            return Err(darling::Error::custom(
                "expected a list of strings, like `[\"payments:write\"]`",
            )
            .with_span(expr));
        };
        array
            .elems
            .iter()
            .map(|item| match item {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(text),
                    ..
                }) => Ok(text.value()),
                other => Err(darling::Error::custom("expected a string literal").with_span(other)),
            })
            .collect::<darling::Result<Vec<_>>>()
            .map(StringList)
    }
}

/// `#[arg(...)]` on a tool parameter or a `ToolSchema` field.
#[derive(Default, FromMeta)]
pub struct ArgOptions {
    pub description: Option<String>,
    pub rename: Option<SpannedValue<String>>,
    pub default: Option<ExprValue>,
    /// `minimum = 1`, `pattern = "..."`, ...: what the value itself must meet.
    #[darling(flatten)]
    pub constraints: Constraints,
    /// `items(format = "email")`: what each item of a list must meet.
    pub items: Option<SpannedValue<Constraints>>,
    #[darling(multiple, rename = "example")]
    pub examples: Vec<ExprValue>,
    pub resource: Option<SpannedValue<bool>>,
    /// `mcp_header = "Region"`: MCP 2026-07-28 mirrors the argument into the HTTP header
    /// `Mcp-Param-Region` (`x-mcp-header`).
    pub mcp_header: Option<SpannedValue<String>>,
    /// `schema_with = path`: a `fn(&mut SchemaGenerator) -> Value` gives the schema (for a
    /// type without `ToolSchema`, or whose wire form differs: `#[serde(with = ...)]`).
    pub schema_with: Option<syn::Path>,
    /// `schema_as = Type`: the schema of another type that deserializes alike.
    pub schema_as: Option<syn::Type>,
    /// `schemars`: the schema from the type's `schemars::JsonSchema` impl (feature
    /// `schemars1`).
    pub schemars: Option<SpannedValue<bool>>,
}

/// The constraint keys of `#[arg(...)]`, and of its `items(...)` group.
#[derive(Default, FromMeta)]
pub struct Constraints {
    pub minimum: Option<SpannedValue<Number>>,
    pub maximum: Option<SpannedValue<Number>>,
    pub exclusive_minimum: Option<SpannedValue<Number>>,
    pub exclusive_maximum: Option<SpannedValue<Number>>,
    pub multiple_of: Option<SpannedValue<Number>>,
    pub min_length: Option<SpannedValue<u64>>,
    pub max_length: Option<SpannedValue<u64>>,
    pub pattern: Option<SpannedValue<String>>,
    pub format: Option<SpannedValue<String>>,
    pub min_items: Option<SpannedValue<u64>>,
    pub max_items: Option<SpannedValue<u64>>,
}

/// An expression taken as written: `default = "text"` is the string `"text"` (darling's
/// own `Expr` would parse the string's contents as an expression).
pub struct ExprValue(pub Expr);

impl FromMeta for ExprValue {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        Ok(Self(expr.clone()))
    }
}

impl quote::ToTokens for ExprValue {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        self.0.to_tokens(tokens);
    }
}

/// The kind of value a constraint applies to; checked against the argument's type by
/// a trait bound in the generated code.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    Number,
    String,
    Array,
}

/// One JSON Schema keyword an `#[arg]` constraint writes.
pub struct Keyword {
    /// The JSON Schema keyword (`minimum`).
    pub keyword: &'static str,
    /// What the user wrote it as (`minimum`), for messages.
    pub key: &'static str,
    pub value: KeywordValue,
    pub kind: ValueKind,
    pub span: Span,
}

pub enum KeywordValue {
    Number(Number),
    Unsigned(u64),
    String(String),
}

impl Constraints {
    /// The constraint keywords, in a stable order.
    pub fn keywords(&self) -> Vec<Keyword> {
        let mut keywords = Vec::new();
        let numbers = [
            ("minimum", "minimum", &self.minimum),
            ("maximum", "maximum", &self.maximum),
            (
                "exclusiveMinimum",
                "exclusive_minimum",
                &self.exclusive_minimum,
            ),
            (
                "exclusiveMaximum",
                "exclusive_maximum",
                &self.exclusive_maximum,
            ),
            ("multipleOf", "multiple_of", &self.multiple_of),
        ];
        for (keyword, key, value) in numbers {
            if let Some(value) = value {
                keywords.push(Keyword {
                    keyword,
                    key,
                    value: KeywordValue::Number(**value),
                    kind: ValueKind::Number,
                    span: value.span(),
                });
            }
        }
        let counts = [
            (
                "minLength",
                "min_length",
                &self.min_length,
                ValueKind::String,
            ),
            (
                "maxLength",
                "max_length",
                &self.max_length,
                ValueKind::String,
            ),
            ("minItems", "min_items", &self.min_items, ValueKind::Array),
            ("maxItems", "max_items", &self.max_items, ValueKind::Array),
        ];
        for (keyword, key, value, kind) in counts {
            if let Some(value) = value {
                keywords.push(Keyword {
                    keyword,
                    key,
                    value: KeywordValue::Unsigned(**value),
                    kind,
                    span: value.span(),
                });
            }
        }
        let strings = [("pattern", &self.pattern), ("format", &self.format)];
        for (keyword, value) in strings {
            if let Some(value) = value {
                keywords.push(Keyword {
                    keyword,
                    key: keyword,
                    value: KeywordValue::String((**value).clone()),
                    kind: ValueKind::String,
                    span: value.span(),
                });
            }
        }
        keywords
    }
}

/// A number literal in an attribute: `1`, `-5`, `0.5`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Int(i128),
    Float(f64),
}

impl Number {
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(n) => n as f64,
            Number::Float(n) => n,
        }
    }
}

impl FromMeta for Number {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        let (negative, lit) = match expr {
            Expr::Unary(ExprUnary {
                op: UnOp::Neg(_),
                expr,
                ..
            }) => (true, &**expr),
            other => (false, other),
        };
        let sign = if negative { -1 } else { 1 };
        let number = match lit {
            Expr::Lit(ExprLit {
                lit: Lit::Int(int), ..
            }) => int.base10_parse::<i128>().map(|n| Number::Int(sign * n)),
            Expr::Lit(ExprLit {
                lit: Lit::Float(float),
                ..
            }) => float
                .base10_parse::<f64>()
                .map(|n| Number::Float(sign as f64 * n)),
            Expr::Group(group) => return Self::from_expr(&group.expr),
            _ => {
                return Err(
                    darling::Error::custom("expected a number literal, like `1` or `0.5`")
                        .with_span(expr),
                );
            }
        };
        number.map_err(|error| darling::Error::custom(error).with_span(expr))
    }
}

/// The keys `#[tool(...)]` takes, as the user writes them.
pub const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "effect",
    "idempotent",
    "open_world",
    "crate",
    "companion",
    "scopes",
    "callers",
    "hosted_code",
    "stream_input",
    "task",
    "classify",
    "approval",
    "describe",
    "reconcile",
    "example",
];

/// The keys `#[arg(...)]` takes.
pub const ARG_KEYS: &[&str] = &[
    "description",
    "rename",
    "default",
    "minimum",
    "maximum",
    "exclusive_minimum",
    "exclusive_maximum",
    "multiple_of",
    "min_length",
    "max_length",
    "pattern",
    "format",
    "min_items",
    "max_items",
    "items",
    "example",
    "resource",
    "mcp_header",
    "schema_with",
    "schema_as",
    "schemars",
];

/// The items of an attribute's list with unknown keys reported (in toolwright's words,
/// naming the attribute and the closest key) and left out.
fn known_items(tokens: TokenStream, keys: &[&str], attr: &str, errors: &Errors) -> Vec<NestedMeta> {
    let items = match NestedMeta::parse_meta_list(tokens) {
        Ok(items) => items,
        Err(error) => {
            errors.push(error);
            return Vec::new();
        }
    };
    items
        .into_iter()
        .filter(|item| {
            let NestedMeta::Meta(meta) = item else {
                return true;
            };
            let path = meta.path();
            let key = path.get_ident().map(|ident| ident.to_string());
            let key = key.as_deref().unwrap_or("");
            let key = key.strip_prefix("r#").unwrap_or(key);
            if keys.contains(&key) || (key.is_empty() && path.is_ident("crate")) {
                return true;
            }
            let shown = quote::quote!(#path).to_string().replace(' ', "");
            let hint = match closest(&shown, keys.iter().copied()) {
                Some(close) => format!("did you mean `{close}`?"),
                None => format!(
                    "the keys are {}",
                    keys.iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            errors.error_spanned_by(path, format!("unknown key `{shown}` in `{attr}`: {hint}"));
            false
        })
        .collect()
}

/// Parses `#[tool(...)]`'s arguments.
pub fn parse_tool_options(args: TokenStream, errors: &Errors) -> ToolOptions {
    let items = known_items(args, TOOL_KEYS, "#[tool(...)]", errors);
    ToolOptions::from_list(&items).unwrap_or_else(|error| {
        errors.push_darling(error);
        ToolOptions::default()
    })
}

/// `#[toolset(...)]`.
#[derive(Default, FromMeta)]
pub struct ToolsetOptions {
    #[darling(rename = "crate")]
    pub krate: Option<syn::Path>,
    /// `part = name`: this block is one part of a service split over several blocks; it
    /// generates `fn name(self: Arc<Self>) -> Vec<Arc<dyn Tool>>` instead of `Toolset`.
    pub part: Option<syn::Ident>,
    /// `parts = [a, b]`: the parts whose tools the main block's `Toolset` adds.
    pub parts: Option<IdentList>,
}

/// The keys `#[toolset(...)]` knows.
pub const TOOLSET_KEYS: &[&str] = &["crate", "part", "parts"];

/// `[a, b]`: a list of identifiers.
#[derive(Default, Clone)]
pub struct IdentList(pub Vec<syn::Ident>);

impl FromMeta for IdentList {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        let Expr::Array(array) = expr else {
            return Err(darling::Error::custom(
                "expected a list of the parts' names, like `[admin_tools, report_tools]`",
            )
            .with_span(expr));
        };
        array
            .elems
            .iter()
            .map(|item| match item {
                Expr::Path(path) if path.qself.is_none() => {
                    path.path.get_ident().cloned().ok_or_else(|| {
                        darling::Error::custom("expected a part's name").with_span(item)
                    })
                }
                other => Err(darling::Error::custom("expected a part's name").with_span(other)),
            })
            .collect::<darling::Result<Vec<_>>>()
            .map(IdentList)
    }
}

pub fn parse_toolset_options(args: TokenStream, errors: &Errors) -> ToolsetOptions {
    let items = known_items(args, TOOLSET_KEYS, "#[toolset(...)]", errors);
    ToolsetOptions::from_list(&items).unwrap_or_else(|error| {
        errors.push_darling(error);
        ToolsetOptions::default()
    })
}

/// What toolwright reads from a parameter's or a field's attributes.
#[derive(Default)]
pub struct ParamAttrs {
    pub options: ArgOptions,
    /// The `#[ctx]` attribute, when present.
    pub ctx: Option<Span>,
    /// Span of the `#[arg]` attribute, when present.
    pub arg: Option<Span>,
}

/// A tool parameter's `#[serde(with = ..)]`, `#[serde(deserialize_with = ..)]` and
/// `#[serde(alias = ..)]`, passed on to the field the arguments are read into.
#[derive(Default)]
pub struct ParamSerde {
    /// The function that reads the value: `path` of `deserialize_with = "path"`, or
    /// `module::deserialize` of `with = "module"`.
    pub deserialize_with: Option<syn::Path>,
    /// The names of `alias = "..."`, read as the parameter's own.
    pub aliases: Vec<String>,
}

/// Reads `#[arg(...)]` and `#[ctx]` from `attrs`.
pub fn parse_param_attrs(attrs: &[Attribute], errors: &Errors) -> ParamAttrs {
    let mut parsed = ParamAttrs::default();
    for attr in attrs {
        if attr.path().is_ident("ctx") {
            match &attr.meta {
                Meta::Path(_) => parsed.ctx = Some(attr.span()),
                other => errors.error_spanned_by(
                    other,
                    "`#[ctx]` takes no arguments: write `#[ctx] name: &Type`",
                ),
            }
        } else if attr.path().is_ident("arg") {
            if parsed.arg.is_some() {
                errors.error_spanned_by(attr, "more than one `#[arg(...)]`: merge them into one");
                continue;
            }
            parsed.arg = Some(attr.span());
            let Meta::List(list) = &attr.meta else {
                errors.error_spanned_by(attr, "write the options inside: `#[arg(minimum = 1)]`");
                continue;
            };
            let items = known_items(list.tokens.clone(), ARG_KEYS, "#[arg(...)]", errors);
            match ArgOptions::from_list(&items) {
                Ok(options) => parsed.options = options,
                Err(error) => errors.push_darling(error.with_span(attr)),
            }
        }
    }
    parsed
}

/// The serde keys a tool's parameter may carry: how its value is read. The others have a
/// toolwright spelling (`#[arg(rename)]`, `#[arg(default)]`) or no meaning for a parameter.
const PARAM_SERDE_KEYS: [&str; 3] = ["with", "deserialize_with", "alias"];

/// A tool parameter's `#[serde(...)]` attributes, kept for its field in the arguments
/// struct; keys that would make the schema and serde disagree are refused.
pub fn parse_param_serde(attrs: &[Attribute], errors: &Errors) -> ParamSerde {
    let mut parsed = ParamSerde::default();
    for attr in attrs.iter().filter(|attr| attr.path().is_ident("serde")) {
        read_serde_attr(attr, &mut parsed, errors);
    }
    parsed
}

fn read_serde_attr(attr: &Attribute, parsed: &mut ParamSerde, errors: &Errors) {
    let result = attr.parse_nested_meta(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        if !PARAM_SERDE_KEYS.contains(&key.as_str()) {
            let instead = match key.as_str() {
                "rename" => "write `#[arg(rename = \"...\")]`, which the schema follows too",
                "default" => "write `#[arg(default = expr)]`, which the schema shows too",
                _ => "a parameter takes only `with`, `deserialize_with` and `alias`",
            };
            return Err(meta.error(format!("`#[serde({key})]` on a tool parameter: {instead}")));
        }
        let value: syn::LitStr = meta.value()?.parse()?;
        match key.as_str() {
            "alias" => parsed.aliases.push(value.value()),
            _ => {
                let mut path: syn::Path = value.parse()?;
                if key == "with" {
                    path.segments.push(syn::parse_quote!(deserialize));
                }
                parsed.deserialize_with = Some(path);
            }
        }
        Ok(())
    });
    if let Err(error) = result {
        errors.push(error);
    }
}

/// Whether `attr` is one toolwright reads from a parameter (and so removes from the
/// function it re-emits).
pub fn is_param_attr(attr: &Attribute) -> bool {
    ["arg", "ctx", "doc", "serde"]
        .iter()
        .any(|name| attr.path().is_ident(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key lists above and the darling structs must name the same keys.
    #[test]
    fn every_listed_key_is_parsed() {
        for key in ARG_KEYS {
            let key = syn::Ident::new(key, Span::call_site());
            let items = NestedMeta::parse_meta_list(quote::quote!(#key = 1)).unwrap();
            if let Err(error) = ArgOptions::from_list(&items) {
                assert!(
                    !error.to_string().contains("Unknown field"),
                    "{key}: {error}"
                );
            }
        }
        for key in TOOL_KEYS {
            let tokens: TokenStream = format!("{key} = 1").parse().unwrap();
            let items = NestedMeta::parse_meta_list(tokens).unwrap();
            if let Err(error) = ToolOptions::from_list(&items) {
                assert!(
                    !error.to_string().contains("Unknown field"),
                    "{key}: {error}"
                );
            }
        }
    }
}
