//! `#[derive(ToolSchema)]`: the schema of a struct or an enum, from its shape and from
//! serde's own reading of its `#[serde(...)]` attributes (`serde_derive_internals`), so
//! the schema names and tags exactly what the deserializer accepts.

mod enums;
mod fields;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use serde_derive_internals::ast::{Container, Data, Style};
use serde_derive_internals::{Ctxt, Derive};
use syn::{DeriveInput, Ident};

use crate::docs;
use crate::errors::Errors;

pub fn expand_derive(input: DeriveInput) -> TokenStream {
    if let syn::Data::Union(union) = &input.data {
        return syn::Error::new_spanned(
            union.union_token,
            "`ToolSchema` cannot be derived for a union: serde cannot deserialize one. Use a struct, or an enum with one variant per case",
        )
        .to_compile_error();
    }
    let cx = Ctxt::new();
    let private = Ident::new("__private", Span::call_site());
    let container = Container::from_ast(&cx, &input, Derive::Deserialize, &private);
    // serde's own derive reports malformed `#[serde]` attributes; repeating them here
    // would only double the noise.
    let serde_ok = cx.check().is_ok();
    let errors = Errors::new();
    let (body, named, check) = match container {
        Some(container) if serde_ok => (
            schema_body(&container, &errors),
            is_named(&container),
            constraint_body(&container),
        ),
        _ => (
            quote!(_tw::__private::serde_json::Value::Bool(true)),
            false,
            quote!(true),
        ),
    };
    let error_tokens = match errors.finish() {
        Ok(()) => TokenStream::new(),
        Err(error) => error.to_compile_error(),
    };
    let impl_tokens = impl_tool_schema(&input, body, named, check);
    quote! {
        #error_tokens
        #impl_tokens
    }
}

/// Structs with named fields and enums go to `$defs`; newtypes, transparent structs and
/// `from` conversions are inlined as the type they read.
fn is_named(container: &Container<'_>) -> bool {
    if container.attrs.transparent()
        || container.attrs.type_from().is_some()
        || container.attrs.type_try_from().is_some()
    {
        return false;
    }
    matches!(
        container.data,
        Data::Enum(_) | Data::Struct(Style::Struct, _)
    )
}

fn schema_body(container: &Container<'_>, errors: &Errors) -> TokenStream {
    if let Some(from) = container
        .attrs
        .type_from()
        .or(container.attrs.type_try_from())
    {
        // `#[serde(from = "T")]`: the value is read as a `T`.
        return quote!(__tw_gen.subschema_for::<#from>());
    }
    let mut description = docs::parse(&container.original.attrs, errors).text;
    if let Data::Enum(variants) = &container.data {
        description.push_str(&enums::unit_variant_docs(container, variants, errors));
    }
    let description = description.trim();
    let schema = match &container.data {
        Data::Struct(Style::Struct, fields) => {
            if container.attrs.transparent() {
                fields::transparent(fields, errors)
            } else {
                fields::object(fields, container.attrs.deny_unknown_fields(), None, errors)
            }
        }
        Data::Struct(Style::Newtype, fields) => fields::transparent(fields, errors),
        Data::Struct(Style::Tuple, _) => {
            errors.error_spanned_by(
                &container.original.ident,
                "`ToolSchema` cannot be derived for a tuple struct with several fields: serde sends it as a JSON array whose positions have no names, and models fill such arrays unreliably. Use named fields (`struct Point { x: f64, y: f64 }`) or a newtype around one value",
            );
            quote!(_tw::__private::serde_json::Value::Bool(true))
        }
        Data::Struct(Style::Unit, _) => quote!(_tw::__private::serde_json::json!({"type": "null"})),
        Data::Enum(variants) => enums::enum_schema(container, variants, errors),
    };
    if description.is_empty() {
        schema
    } else {
        quote! {
            _tw::__private::describe(#schema, #description)
        }
    }
}

/// The body of `meets_constraints`: the declared constraints of every deserialized
/// field, and those inside the fields' types.
fn constraint_body(container: &Container<'_>) -> TokenStream {
    if container.attrs.type_from().is_some() || container.attrs.type_try_from().is_some() {
        return quote!(true);
    }
    match &container.data {
        Data::Struct(Style::Struct | Style::Newtype, fields) => {
            fields::constraint_checks(fields, |_, field| {
                let member = &field.member;
                quote!(&self.#member)
            })
        }
        Data::Struct(_, _) => quote!(true),
        Data::Enum(variants) => {
            let arms = variants
                .iter()
                .filter(|v| !v.attrs.skip_deserializing())
                .map(|variant| {
                    let ident = &variant.ident;
                    let binding = |index: usize| quote::format_ident!("__tw_field_{}", index);
                    match variant.style {
                        Style::Unit => quote!(Self::#ident => true,),
                        Style::Tuple => quote!(Self::#ident(..) => true,),
                        Style::Newtype => {
                            let check = fields::constraint_checks(&variant.fields, |index, _| {
                                let name = binding(index);
                                quote!(#name)
                            });
                            let name = binding(0);
                            quote!(Self::#ident(#name) => #check,)
                        }
                        Style::Struct => {
                            let members = variant.fields.iter().map(|field| &field.member);
                            let names = (0..variant.fields.len()).map(binding);
                            let check = fields::constraint_checks(&variant.fields, |index, _| {
                                let name = binding(index);
                                quote!(#name)
                            });
                            quote!(Self::#ident { #(#members: #names,)* } => #check,)
                        }
                    }
                });
            quote! {
                #[allow(unreachable_patterns, unused_variables)]
                match self {
                    #(#arms)*
                    _ => true,
                }
            }
        }
    }
}

fn impl_tool_schema(
    input: &DeriveInput,
    body: TokenStream,
    named: bool,
    check: TokenStream,
) -> TokenStream {
    let ident = &input.ident;
    let mut generics = input.generics.clone();
    let type_params: Vec<Ident> = generics
        .type_params()
        .map(|param| param.ident.clone())
        .collect();
    for param in generics.type_params_mut() {
        param.bounds.push(syn::parse_quote!(_tw::ToolSchema));
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let name = ident.to_string();
    let naming = named.then(|| {
        quote! {
            fn schema_name() -> ::core::option::Option<::std::borrow::Cow<'static, str>> {
                ::core::option::Option::Some(
                    _tw::__private::generic_name(#name, &[#(_tw::__private::type_label::<#type_params>()),*])
                )
            }
            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(::std::any::type_name::<Self>())
            }
        }
    });
    let (krate, malformed) = crate_path(input);
    let malformed = malformed.map(|error| error.to_compile_error());
    let ty_generics = ty_generics.into_token_stream();
    quote! {
        #malformed
        const _: () = {
            use #krate as _tw;
            #[automatically_derived]
            impl #impl_generics _tw::ToolSchema for #ident #ty_generics #where_clause {
                fn tool_schema(__tw_gen: &mut _tw::SchemaGenerator) -> _tw::__private::serde_json::Value {
                    #body
                }
                fn meets_constraints(&self) -> bool {
                    #check
                }
                #naming
            }
        };
    }
}

/// The path to toolwright (`#[tool_schema(crate = path)]`, default `::toolwright`), and
/// the error of a malformed or unknown `#[tool_schema(...)]` key, which is never ignored.
fn crate_path(input: &DeriveInput) -> (syn::Path, Option<syn::Error>) {
    let mut krate = None;
    let mut error: Option<syn::Error> = None;
    for attr in input
        .attrs
        .iter()
        .filter(|attr| attr.path().is_ident("tool_schema"))
    {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("crate") {
                let value = meta.value().map_err(|_| {
                    meta.error("write `crate = path`: the path to toolwright, for a renamed dependency")
                })?;
                krate = Some(value.parse::<syn::Path>()?);
                Ok(())
            } else {
                Err(meta.error(
                    "unknown key in #[tool_schema(...)]: the only one is `crate = path` (the path to toolwright, for a renamed dependency); field and variant options go in #[serde(...)] and #[arg(...)]",
                ))
            }
        });
        if let Err(new) = parsed {
            match &mut error {
                Some(error) => error.combine(new),
                None => error = Some(new),
            }
        }
    }
    (
        krate.unwrap_or_else(|| syn::parse_quote!(::toolwright)),
        error,
    )
}
