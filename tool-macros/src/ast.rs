//! The model of one `#[tool]` function: what the checks read and the expansion writes
//! from. Spans are kept so every error lands on the user's token.

use proc_macro2::{Ident, Span};
use quote::format_ident;
use serde_json::Value;
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, ItemFn, Pat, PathArguments, ReturnType, Type};

use crate::attr::{ArgOptions, ToolOptions, parse_param_attrs, parse_param_serde};
use crate::docs::{self, Docs};
use crate::errors::Errors;

/// One annotated function.
pub struct ToolFn<'a> {
    pub item: &'a ItemFn,
    pub options: ToolOptions,
    pub docs: Docs,
    /// The name the model calls the tool by.
    pub name: String,
    pub name_span: Span,
    /// The companion unit struct: the function's name in PascalCase.
    pub companion: Ident,
    pub params: Vec<Param<'a>>,
    pub output: Output<'a>,
    /// Set when the function is a method of a `#[toolset]` impl block.
    pub method: Option<Method<'a>>,
}

/// A tool that is a method of a `#[toolset]` block: how the companion, which holds the
/// service in an `Arc`, calls it.
pub struct Method<'a> {
    /// The type the block implements.
    pub self_ty: &'a Type,
    pub receiver: Receiver,
}

/// What the method takes as `self`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Receiver {
    /// No `self`: an associated function.
    None,
    /// `&self`.
    Ref,
    /// `self: Arc<Self>`.
    Arc,
}

/// One parameter of the function.
pub struct Param<'a> {
    /// The parameter's name; `None` when its pattern is not a plain name.
    pub ident: Option<Ident>,
    pub pat: &'a Pat,
    pub ty: &'a Type,
    pub options: ArgOptions,
    pub ctx: Option<Span>,
    pub arg_attr: Option<Span>,
    /// How serde reads the parameter: its `deserialize_with`/`with` function and aliases.
    pub serde: crate::attr::ParamSerde,
    /// `///` on the parameter.
    pub docs: Docs,
    /// The name on the wire: `#[arg(rename)]`, or the identifier without `r#`.
    pub wire_name: String,
    pub wire_span: Span,
}

/// What the function returns, as the generated code converts it.
pub enum Output<'a> {
    /// `()`, or no return type.
    Unit,
    /// A `Result<T, E>` (any path ending in `Result`): `Ok` is the output, `Err` an error.
    Result { ok: &'a Type, span: Span },
    /// Any other type, serialized.
    Value(&'a Type),
}

impl<'a> ToolFn<'a> {
    pub fn from_item(item: &'a ItemFn, options: ToolOptions, errors: &Errors) -> Self {
        let fn_name = item.sig.ident.to_string();
        let fn_name = fn_name.strip_prefix("r#").unwrap_or(&fn_name).to_owned();
        let (name, name_span) = match &options.name {
            Some(name) => ((**name).clone(), name.span()),
            None => (fn_name.clone(), item.sig.ident.span()),
        };
        let params = item
            .sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                FnArg::Typed(typed) => Some(Param::from_pat_type(typed, errors)),
                FnArg::Receiver(_) => None,
            })
            .collect();
        ToolFn {
            item,
            docs: docs::parse(&item.attrs, errors),
            name,
            name_span,
            companion: options.companion.clone().unwrap_or_else(|| {
                format_ident!("{}", pascal_case(&fn_name), span = item.sig.ident.span())
            }),
            params,
            output: Output::from_return(&item.sig.output),
            options,
            method: None,
        }
    }

    pub fn is_async(&self) -> bool {
        self.item.sig.asyncness.is_some()
    }

    /// The description for the model: `#[tool(description)]`, else the doc comment.
    pub fn description(&self) -> &str {
        match &self.options.description {
            Some(description) => description.trim(),
            None => &self.docs.text,
        }
    }

    /// The parameters the model fills in (all but `#[ctx]`).
    pub fn args(&self) -> impl Iterator<Item = &Param<'a>> {
        self.params.iter().filter(|param| param.ctx.is_none())
    }

    /// A parameter's description: `#[arg(description)]`, then `///` on the parameter,
    /// then the function's `# Arguments` entry.
    pub fn arg_description(&self, param: &Param<'_>) -> Option<String> {
        if let Some(description) = &param.options.description {
            return Some(description.clone());
        }
        if !param.docs.text.is_empty() {
            return Some(param.docs.text.clone());
        }
        let ident = param.ident.as_ref()?.to_string();
        let ident = ident.strip_prefix("r#").unwrap_or(&ident);
        self.docs
            .args
            .iter()
            .find(|doc| doc.name == ident || doc.name == param.wire_name)
            .map(|doc| doc.text.clone())
            .filter(|text| !text.is_empty())
    }
}

impl<'a> Param<'a> {
    fn from_pat_type(typed: &'a syn::PatType, errors: &Errors) -> Self {
        let attrs = parse_param_attrs(&typed.attrs, errors);
        let serde = parse_param_serde(&typed.attrs, errors);
        let options = &attrs.options;
        if let Some(with) = &serde.deserialize_with
            && options.schema_with.is_none()
            && options.schema_as.is_none()
            && options.schemars.is_none()
        {
            errors.error_spanned_by(
                with,
                "this parameter is read by another function than its type's `Deserialize`, so its type's schema may not describe what it reads: give the schema of the wire form with `#[arg(schema_with = path)]` or `#[arg(schema_as = Type)]`",
            );
        }
        let ident = match &*typed.pat {
            Pat::Ident(pat) if pat.subpat.is_none() && pat.by_ref.is_none() => {
                Some(pat.ident.clone())
            }
            _ => None,
        };
        let (wire_name, wire_span) = match (&attrs.options.rename, &ident) {
            (Some(rename), _) => ((**rename).clone(), rename.span()),
            (None, Some(ident)) => {
                let name = ident.to_string();
                (
                    name.strip_prefix("r#").unwrap_or(&name).to_owned(),
                    ident.span(),
                )
            }
            (None, None) => (String::new(), typed.pat.span()),
        };
        Param {
            ident,
            pat: &typed.pat,
            ty: &typed.ty,
            options: attrs.options,
            ctx: attrs.ctx,
            arg_attr: attrs.arg,
            serde,
            docs: docs::parse(&typed.attrs, errors),
            wire_name,
            wire_span,
        }
    }
}

impl<'a> Output<'a> {
    fn from_return(output: &'a ReturnType) -> Self {
        let ty = match output {
            ReturnType::Default => return Output::Unit,
            ReturnType::Type(_, ty) => &**ty,
        };
        match ty {
            Type::Tuple(tuple) if tuple.elems.is_empty() => Output::Unit,
            Type::Path(path) if path.qself.is_none() => {
                let last = path.path.segments.last();
                match last.map(|segment| (&segment.ident, &segment.arguments)) {
                    Some((ident, PathArguments::AngleBracketed(args))) if ident == "Result" => {
                        match args.args.first() {
                            Some(GenericArgument::Type(ok)) => Output::Result {
                                ok,
                                span: ty.span(),
                            },
                            _ => Output::Value(ty),
                        }
                    }
                    _ => Output::Value(ty),
                }
            }
            _ => Output::Value(ty),
        }
    }
}

/// `search_files` → `SearchFiles`.
pub fn pascal_case(snake: &str) -> String {
    snake
        .split('_')
        .filter(|word| !word.is_empty())
        .map(|word| {
            let mut chars = word.chars();
            let first = chars.next().map(|c| c.to_ascii_uppercase());
            first.into_iter().chain(chars).collect::<String>()
        })
        .collect()
}

/// The JSON kinds a parameter's type accepts, when its type says them plainly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::String => "a string",
            Kind::Integer => "an integer",
            Kind::Number => "a number",
            Kind::Boolean => "true or false",
            Kind::Array => "an array",
            Kind::Object => "an object",
        }
    }

    pub fn accepts(self, value: &Value) -> bool {
        match self {
            Kind::String => value.is_string(),
            Kind::Integer => value.is_i64() || value.is_u64(),
            Kind::Number => value.is_number(),
            Kind::Boolean => value.is_boolean(),
            Kind::Array => value.is_array(),
            Kind::Object => value.is_object(),
        }
    }
}

/// `T` of `Option<T>`.
pub fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    match (&last.arguments, last.ident == "Option") {
        (PathArguments::AngleBracketed(args), true) => match args.args.first() {
            Some(GenericArgument::Type(inner)) => Some(inner),
            _ => None,
        },
        _ => None,
    }
}

/// The kind of a type written plainly: std's scalars, strings and collections.
pub fn kind_of(ty: &Type) -> Option<Kind> {
    match ty {
        Type::Reference(reference) => kind_of(&reference.elem),
        Type::Array(_) | Type::Slice(_) => Some(Kind::Array),
        Type::Path(path) if path.qself.is_none() => {
            let ident = path.path.segments.last()?.ident.to_string();
            Some(match ident.as_str() {
                "String" | "str" | "char" | "PathBuf" => Kind::String,
                "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64"
                | "i128" | "isize" => Kind::Integer,
                "f32" | "f64" => Kind::Number,
                "bool" => Kind::Boolean,
                "Vec" | "VecDeque" | "HashSet" | "BTreeSet" => Kind::Array,
                "HashMap" | "BTreeMap" => Kind::Object,
                _ => return None,
            })
        }
        _ => None,
    }
}
