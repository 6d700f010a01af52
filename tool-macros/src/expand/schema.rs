//! `Tool::spec`: the arguments' schema, one generated line per parameter, and the rest
//! of the contract. Built once, on first use, and cached in a `static`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::ast::{Output, Param, ToolFn};
use crate::codegen::{SchemaSource, keyword_tokens};

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
    let stream_input = tool.options.stream_input.is_some_and(|flag| *flag);
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
    let task = match tool.options.task.as_ref().map(|t| t.as_str()) {
        Some("optional") => quote!(Optional),
        Some("required") => quote!(Required),
        // Anything else is reported by `check`.
        _ => quote!(Forbidden),
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
                stream_input: #stream_input,
                task: _tw::TaskSupport::#task,
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
            let checked = crate::codegen::checked_type(ty);
            quote_spanned! {ty.span()=>
                __tw_params.arg_with_default::<#checked>(#name, #description, &#keywords, #default_fn);
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
