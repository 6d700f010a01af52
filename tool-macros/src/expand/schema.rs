//! `Tool::spec`: the arguments' schema, one generated line per parameter, and the rest
//! of the contract. Built once, on first use, and cached in a `static`.

use proc_macro2::{Group, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Output, Param, ToolFn};
use crate::attr::{ArgOptions, Constraints, KeywordValue, Number, ValueKind};

/// The spec's `static` and the function that builds it (items beside the `Tool` impl,
/// so `prepare` reaches the spec without calling `Tool::spec`), and `Tool::spec`.
pub struct Spec {
    pub items: TokenStream,
    pub method: TokenStream,
}

pub fn expand_spec(tool: &ToolFn<'_>) -> Spec {
    let params = tool.args().map(|param| expand_param(tool, param));
    let name = &tool.name;
    let description = tool.description();
    let effect = effect_tokens(tool.options.effect.as_ref().map(|e| e.as_str()));
    let title = option_str(tool.options.title.as_deref());
    let output_schema =
        output_schema(&tool.output).unwrap_or_else(|| quote!(::core::option::Option::None));
    let idempotent = match tool.options.idempotent {
        Some(value) => quote!(::core::option::Option::Some(#value)),
        None => quote!(::core::option::Option::None),
    };
    let open_world = tool.options.open_world.unwrap_or(false);
    let hosted_code = tool.options.hosted_code.is_some_and(|flag| *flag);
    let scopes = tool
        .options
        .scopes
        .as_ref()
        .map(|s| s.0.clone())
        .unwrap_or_default();
    let examples = tool.options.examples.iter().map(|example| example.as_str());
    let callers = match tool.options.callers.as_ref().map(|c| c.as_str()) {
        Some("direct") => quote!(Direct),
        Some("code") => quote!(Code),
        Some("any") => quote!(Any),
        // Anything else is reported by `check`.
        _ => quote!(Undeclared),
    };
    let items = quote! {
        static __TW_SPEC: ::std::sync::OnceLock<_tw::ToolSpec> = ::std::sync::OnceLock::new();

        fn __tw_spec() -> _tw::ToolSpec {
            static __TW_PARTS: _tw::__private::SpecParts = _tw::__private::SpecParts {
                name: #name,
                title: #title,
                description: #description,
                effect: #effect,
                idempotent: #idempotent,
                open_world: #open_world,
                scopes: &[#(#scopes),*],
                callers: _tw::Callers::#callers,
                hosted_code: #hosted_code,
                examples: &[#(#examples),*],
            };
            let mut __tw_params = _tw::__private::Params::new();
            #(#params)*
            _tw::__private::tool_spec(&__TW_PARTS, __tw_params.into_schema(), #output_schema)
        }
    };
    let method = quote! {
        fn spec(&self) -> &_tw::ToolSpec {
            _tw::__private::spec_once(&__TW_SPEC, __tw_spec)
        }
    };
    Spec { items, method }
}

/// One line per parameter: `__tw_params.arg_of("name", Some("doc"), &[keywords], <T's items>);`,
/// spanned at the type so a missing `ToolSchema` points at it.
fn expand_param(tool: &ToolFn<'_>, param: &Param<'_>) -> TokenStream {
    let ty = param.ty;
    let name = &param.wire_name;
    let description = option_str(tool.arg_description(param).as_deref());
    let keywords = keyword_tokens(&param.options);
    if let Some(source) = SchemaSource::given(&param.options, ty) {
        let schema = source.schema();
        let (required, default) = match &param.options.default {
            Some(_) => {
                let default_fn = default_fn_name(param);
                (
                    quote!(false),
                    quote!(::core::option::Option::Some(_tw::__private::to_json(&#default_fn()))),
                )
            }
            None => (source.required(), quote!(::core::option::Option::None)),
        };
        return quote_spanned! {source.span()=>
            __tw_params.arg_from(#name, #description, &#keywords, #schema, #required, #default);
        };
    }
    match &param.options.default {
        Some(_) => {
            let default_fn = default_fn_name(param);
            quote_spanned! {ty.span()=>
                __tw_params.arg_with_default::<#ty>(#name, #description, &#keywords, #default_fn);
            }
        }
        // Each item named through the trait, so a type without `ToolSchema` is reported
        // as exactly that, at the type (rustc shows the four identical errors once).
        None => quote_spanned! {ty.span()=>
            __tw_params.arg_of(#name, #description, &#keywords, _tw::__private::SchemaOf {
                optional: <#ty as _tw::ToolSchema>::OPTIONAL,
                tool_schema: <#ty as _tw::ToolSchema>::tool_schema,
                schema_name: <#ty as _tw::ToolSchema>::schema_name,
                schema_id: <#ty as _tw::ToolSchema>::schema_id,
            });
        },
    }
}

/// Where a schema comes from when `#[arg(schema_with = f)]` or `#[arg(schema_as = U)]`
/// replaces the type's own (the value is still read by the type's `Deserialize`).
pub enum SchemaSource<'a> {
    As(&'a syn::Type),
    With(&'a syn::Path, &'a syn::Type),
    /// `#[arg(schemars)]`: from the type's `schemars::JsonSchema` impl.
    Schemars(Span, &'a syn::Type),
}

impl<'a> SchemaSource<'a> {
    /// The source `options` name for a value of type `ty`, if any (`schema_with` wins
    /// when both are given; the check reports that).
    pub fn given(options: &'a ArgOptions, ty: &'a syn::Type) -> Option<Self> {
        match (&options.schema_with, &options.schema_as, &options.schemars) {
            (Some(path), _, _) => Some(SchemaSource::With(path, ty)),
            (None, Some(other), _) => Some(SchemaSource::As(other)),
            (None, None, Some(flag)) if **flag => Some(SchemaSource::Schemars(flag.span(), ty)),
            _ => None,
        }
    }

    /// `FnOnce(&mut SchemaGenerator) -> Value`.
    pub fn schema(&self) -> TokenStream {
        let body = self.schema_of(quote!(__tw_gen));
        quote!(|__tw_gen: &mut _tw::SchemaGenerator| -> _tw::__private::serde_json::Value { #body })
    }

    /// The schema, made with the generator `generator` (an expression of type
    /// `&mut SchemaGenerator`).
    pub fn schema_of(&self, generator: TokenStream) -> TokenStream {
        match self {
            SchemaSource::As(other) => quote_spanned! {other.span()=>
                #generator.subschema_for::<#other>()
            },
            // Through a fn pointer, so a function of another signature is reported as
            // that: "expected fn pointer `fn(&mut SchemaGenerator) -> Value`".
            SchemaSource::With(path, _) => quote_spanned! {path.span()=> {
                let __tw_schema_with: fn(&mut _tw::SchemaGenerator) -> _tw::__private::serde_json::Value = #path;
                __tw_schema_with(#generator)
            }},
            SchemaSource::Schemars(span, ty) => quote_spanned! {*span=>
                _tw::__private::from_schemars::<#ty>(#generator)
            },
        }
    }

    /// Whether the value must be present: as the borrowed type says, or, for a
    /// function's schema, unless the Rust type is an `Option` (what serde's derive
    /// reads as absent).
    pub fn required(&self) -> TokenStream {
        match self {
            SchemaSource::As(other) => quote!(!<#other as _tw::ToolSchema>::OPTIONAL),
            SchemaSource::With(_, ty) | SchemaSource::Schemars(_, ty) => {
                let optional = crate::ast::option_inner(ty).is_some();
                quote!(!#optional)
            }
        }
    }

    pub fn span(&self) -> Span {
        match self {
            SchemaSource::As(other) => other.span(),
            SchemaSource::With(path, _) => path.span(),
            SchemaSource::Schemars(span, _) => *span,
        }
    }
}

/// `[("minimum", Value::from(1i64)), ...]`: the keywords of a property's schema, those of
/// its `items(...)`, its `x-mcp-header` and its `examples`.
pub fn keyword_tokens(options: &ArgOptions) -> TokenStream {
    let mut entries = constraint_entries(&options.constraints);
    if let Some(items) = &options.items {
        // Merged into the list's own `items` schema (`__private::property_schema_from`).
        let item_entries = constraint_entries(items);
        entries.push(quote! {
            ("items", _tw::__private::keyword_object(::std::vec![#(#item_entries),*]))
        });
    }
    if let Some(header) = &options.mcp_header {
        let header = header.as_str();
        entries.push(quote! {
            ("x-mcp-header", _tw::__private::serde_json::Value::from(#header))
        });
    }
    if !options.examples.is_empty() {
        let examples = options.examples.iter().map(|example| {
            quote_spanned! {example.span()=> _tw::__private::to_json(&(#example)) }
        });
        entries.push(quote! {
            ("examples", _tw::__private::serde_json::Value::Array(::std::vec![#(#examples),*]))
        });
    }
    quote!([#(#entries),*])
}

/// `("minimum", Value::from(1i64))`, one per keyword of `constraints`.
fn constraint_entries(constraints: &Constraints) -> Vec<TokenStream> {
    constraints
        .keywords()
        .into_iter()
        .map(|keyword| {
            let name = keyword.keyword;
            let value = match keyword.value {
                KeywordValue::Number(number) => number_literal(number),
                KeywordValue::Unsigned(n) => {
                    let literal = Literal::u64_suffixed(n);
                    quote!(#literal)
                }
                KeywordValue::String(text) => quote!(#text),
            };
            quote!((#name, _tw::__private::serde_json::Value::from(#value)))
        })
        .collect()
}

fn number_literal(number: Number) -> TokenStream {
    let literal = match number {
        Number::Int(n) if i64::try_from(n).is_ok() => Literal::i64_suffixed(n as i64),
        Number::Int(n) if u64::try_from(n).is_ok() => Literal::u64_suffixed(n as u64),
        Number::Int(n) => Literal::f64_suffixed(n as f64),
        Number::Float(n) => Literal::f64_suffixed(n),
    };
    quote!(#literal)
}

pub fn default_fn_name(param: &Param<'_>) -> syn::Ident {
    format_ident!("__tw_default_{}", param.wire_name.replace(['-', '.'], "_"))
}

/// `fn __tw_default_x() -> T { expr }`, spanned at the expression so a type mismatch
/// points at it.
pub fn default_fn(param: &Param<'_>) -> Option<TokenStream> {
    let expr = param.options.default.as_ref()?;
    let name = default_fn_name(param);
    let ty = param.ty;
    Some(quote_spanned! {expr.span()=>
        #[allow(clippy::unnecessary_literal_unwrap)]
        fn #name() -> #ty { #expr }
    })
}

fn option_str(text: Option<&str>) -> TokenStream {
    match text {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    }
}

/// The effect variant; a tool without `effect` gets the riskiest class.
fn effect_tokens(effect: Option<&str>) -> TokenStream {
    let variant = (crate::check::EFFECT_TABLE.iter())
        .find(|(name, _, _)| Some(*name) == effect)
        .map_or("External", |(_, variant, _)| variant);
    let variant = syn::Ident::new(variant, Span::call_site());
    quote!(_tw::Effect::#variant)
}

fn output_schema(output: &Output<'_>) -> Option<TokenStream> {
    let ty = match output {
        Output::Unit => return None,
        Output::Result { ok, .. } => *ok,
        Output::Value(ty) => *ty,
    };
    if matches!(ty, syn::Type::ImplTrait(_))
        || matches!(ty, syn::Type::Tuple(t) if t.elems.is_empty())
    {
        return None;
    }
    Some(quote! {{
        #[allow(unused_imports)]
        use _tw::__private::{HasOutputSchema as _, NoOutputSchema as _};
        (&_tw::__private::OutputSchema::<#ty>::new()).output_schema()
    }})
}

/// Whether `value` (an expression of type `&T`) meets its declared constraints, those
/// of its `items(...)`, and the constraints inside its type:
/// `NumberLike::meets(value, keywords) && ArrayLike::each_item(value, ...) &&
/// T::meets_constraints(value)`.
/// The keywords are compiled once, on first use.
///
/// `NumberLike::meets` needs `T: NumberLike`: on a `String` that bound fails, and because the
/// call is spanned at the constraint (`minimum = 1`), that is where rustc reports it.
/// Every keyword's kind is checked, not only the first one's.
pub fn constraint_check(options: &ArgOptions, value: &TokenStream) -> TokenStream {
    // Through a probe, so a type without `ToolSchema` is reported once, at the parameter
    // (by the schema code), not again here.
    let nested = quote! {
        ({
            #[allow(unused_imports)]
            use _tw::__private::{NestedConstraints as _, NoNestedConstraints as _};
            (&_tw::__private::ConstraintProbe(#value)).meets_nested()
        })
    };
    let own = constraints_check(&options.constraints, value);
    let items = options.items.as_ref().map(|items| {
        let span = items.span();
        let item = quote!(__tw_item);
        let each = constraints_check(items, &item).unwrap_or_else(|| quote!(true));
        let spanned_value = respan(value.clone(), span);
        quote_spanned! {span=>
            _tw::__private::ArrayLike::each_item(#spanned_value, |#item| #each)
        }
    });
    let checks = own.into_iter().chain(items);
    quote!((#(#checks &&)* #nested))
}

/// The check of one group of constraints on `value`, `None` when it has none.
fn constraints_check(constraints: &Constraints, value: &TokenStream) -> Option<TokenStream> {
    let keywords = constraints.keywords();
    let first = keywords.first()?;
    let span = first.span;
    // Through the kind's trait (`NumberLike::meets(..)`): a value of another kind is
    // reported at the constraint, with no note about a function in `__private`.
    let kind_trait = |kind: ValueKind, span: Span| match kind {
        ValueKind::Number => quote_spanned!(span=> NumberLike),
        ValueKind::String => quote_spanned!(span=> StringLike),
        ValueKind::Array => quote_spanned!(span=> ArrayLike),
    };
    // A keyword of another kind than the first can never hold for the same type: its
    // kind's bound, spanned at it, reports it there (`max_items = 3, format = "email"`
    // on a `Vec<String>` is refused at `format`). Valid code never contains one.
    let mut kinds = vec![first.kind];
    let mut other_kinds = Vec::new();
    for keyword in &keywords[1..] {
        if !kinds.contains(&keyword.kind) {
            kinds.push(keyword.kind);
            let kind = kind_trait(keyword.kind, keyword.span);
            let spanned_value = respan(value.clone(), keyword.span);
            other_kinds.push(
                quote_spanned! {keyword.span=> _tw::__private::#kind::is_kind(#spanned_value) },
            );
        }
    }
    let spanned_value = respan(value.clone(), span);
    if let Some((minimum, maximum)) = integer_bounds(&keywords) {
        let (minimum, maximum) = (
            Literal::i128_suffixed(minimum),
            Literal::i128_suffixed(maximum),
        );
        let call = quote_spanned! {span=>
            _tw::__private::NumberLike::within(#spanned_value, #minimum, #maximum)
        };
        return Some(quote!((#call #(&& #other_kinds)*)));
    }
    let kind = kind_trait(first.kind, span);
    let entries = constraint_entries(constraints);
    let call = quote_spanned! {span=>
        _tw::__private::#kind::meets(#spanned_value, _tw::__private::keywords(&__TW_KEYWORDS, || [#(#entries),*]))
    };
    Some(quote! {
        ({
            static __TW_KEYWORDS: ::std::sync::OnceLock<_tw::__private::Keywords> = ::std::sync::OnceLock::new();
            #call
        } #(&& #other_kinds)*)
    })
}

/// `[minimum, maximum]` when those are the only keywords and both are integers a JSON
/// number holds exactly (an absent one is `i128::MIN` or `i128::MAX`): checked with two
/// comparisons, no keywords compiled at run time.
fn integer_bounds(keywords: &[crate::attr::Keyword]) -> Option<(i128, i128)> {
    let (mut minimum, mut maximum) = (i128::MIN, i128::MAX);
    for keyword in keywords {
        let KeywordValue::Number(Number::Int(value)) = keyword.value else {
            return None;
        };
        if i64::try_from(value).is_err() && u64::try_from(value).is_err() {
            return None;
        }
        match keyword.keyword {
            "minimum" => minimum = value,
            "maximum" => maximum = value,
            _ => return None,
        }
    }
    Some((minimum, maximum))
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Group(group) => {
                let mut respanned = Group::new(group.delimiter(), respan(group.stream(), span));
                respanned.set_span(span);
                TokenTree::Group(respanned)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}
