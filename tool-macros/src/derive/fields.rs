//! Fields of a struct or a struct variant → an object schema.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use serde_derive_internals::ast::Field;
use syn::spanned::Spanned;

use crate::attr::parse_param_attrs;
use crate::check::{NameSource, check_constraints, check_wire_names};
use crate::codegen::{SchemaSource, constraint_check, keyword_tokens};
use crate::docs;
use crate::errors::Errors;

/// The object schema of named fields, as serde reads them: renamed, skipped fields left
/// out, defaulted and `Option` fields not required, flattened fields merged in.
///
/// `tag` is the `(tag, variant)` of an internally tagged variant: a required first
/// property whose value is the variant's name.
pub fn object(
    fields: &[Field<'_>],
    deny_unknown_fields: bool,
    tag: Option<(&str, &str)>,
    errors: &Errors,
) -> TokenStream {
    let mut properties = Vec::new();
    let mut flattened = Vec::new();
    let mut names = Vec::new();
    for field in fields {
        if field.attrs.skip_deserializing() {
            continue;
        }
        let ty = field.ty;
        if field.attrs.flatten() {
            // serde reads flattened fields from its buffered content: see `mark_buffered`.
            flattened.push(quote!(__tw_gen.mark_buffered();));
            flattened.push(quote_spanned! {ty.span()=>
                _tw::__private::flatten_into(&mut __tw_schema, <#ty as _tw::ToolSchema>::tool_schema(__tw_gen), <#ty as _tw::ToolSchema>::OPTIONAL);
            });
            continue;
        }
        let property = property(field, errors);
        let name = field.attrs.name().deserialize_name().value.clone();
        names.push((name.clone(), field.original.span()));
        let required = if field.attrs.default().is_none() {
            property.required
        } else {
            quote!(false)
        };
        let schema = property.schema;
        properties.push(quote_spanned! {ty.span()=>
            __tw_object.property(#name, #schema, #required);
        });
    }
    let tag = tag.map(|(tag, variant)| {
        quote!(__tw_object.property(#tag, _tw::__private::const_string(#variant), true);)
    });
    check_wire_names(
        names.iter().map(|(name, span)| (name.as_str(), *span)),
        NameSource::Field,
        errors,
    );
    quote! {{
        let mut __tw_object = _tw::__private::ObjectSchema::new();
        #tag
        #(#properties)*
        let mut __tw_schema = __tw_object.build(#deny_unknown_fields);
        #(#flattened)*
        _tw::__private::serde_json::Value::Object(__tw_schema)
    }}
}

/// A newtype or `#[serde(transparent)]` struct: the schema of its one deserialized
/// field, with the field's own `#[arg]` constraints and docs.
pub fn transparent(fields: &[Field<'_>], errors: &Errors) -> TokenStream {
    let field = fields
        .iter()
        .find(|field| !field.attrs.skip_deserializing());
    let Some(field) = field else {
        return quote!(_tw::__private::serde_json::json!({"type": "null"}));
    };
    property(field, errors).schema
}

/// One field's schema (its type's, or the one `schema_with`/`schema_as` gives, with the
/// field's docs and constraints) and whether it is required.
struct Property {
    schema: TokenStream,
    required: TokenStream,
}

fn property(field: &Field<'_>, errors: &Errors) -> Property {
    let attrs = parse_param_attrs(&field.original.attrs, errors);
    reject_param_only_options(&attrs.options, errors);
    if let Some(ctx) = attrs.ctx {
        errors.error_at(
            ctx,
            "`#[ctx]` goes on a `#[tool]` function's parameter, not on a field",
        );
    }
    check_constraints(&attrs.options, errors);
    let description = attrs.options.description.clone().or_else(|| {
        Some(docs::parse(&field.original.attrs, errors).text).filter(|t| !t.is_empty())
    });
    let description = match description {
        Some(text) => quote!(::core::option::Option::Some(#text)),
        None => quote!(::core::option::Option::None),
    };
    let keywords = keyword_tokens(&attrs.options);
    let ty = field.ty;
    let none = quote!(::core::option::Option::None);
    match SchemaSource::given(&attrs.options, ty) {
        Some(source) => {
            let schema = source.schema_of(quote!(__tw_gen));
            Property {
                schema: quote_spanned! {source.span()=>
                    _tw::__private::property_schema_from(#schema, #description, &#keywords, #none)
                },
                required: source.required(),
            }
        }
        None => Property {
            schema: quote_spanned! {ty.span()=>
                _tw::__private::property_schema::<#ty>(__tw_gen, #description, &#keywords, #none)
            },
            required: quote!(!<#ty as _tw::ToolSchema>::OPTIONAL),
        },
    }
}

/// `rename` and `default` belong to serde on a field: two sources would drift apart.
fn reject_param_only_options(options: &crate::attr::ArgOptions, errors: &Errors) {
    if let Some(rename) = &options.rename {
        errors.error_at(
            rename.span(),
            "on a field, rename with serde so the deserializer agrees: `#[serde(rename = \"...\")]`",
        );
    }
    if let Some(header) = &options.mcp_header {
        errors.error_at(
            header.span(),
            "`#[arg(mcp_header)]` mirrors a tool's parameter into an HTTP header: put it on the parameter, not a field",
        );
    }
    if let Some(resource) = &options.resource {
        errors.error_at(
            resource.span(),
            "`#[arg(resource)]` marks a tool's parameter, not a field",
        );
    }
    if let Some(default) = &options.default {
        errors.error_spanned_by(
            default,
            "on a field, give defaults with serde so the deserializer agrees: `#[serde(default)]` or `#[serde(default = \"path\")]`",
        );
    }
}

/// `&&`-joined checks that each deserialized field meets its `#[arg]` constraints and
/// those inside its type; `access(field)` is an expression of type `&FieldType`.
pub fn constraint_checks(
    fields: &[Field<'_>],
    access: impl Fn(usize, &Field<'_>) -> TokenStream,
) -> TokenStream {
    // The attributes were checked (and their errors reported) when the schema was built.
    let quiet = Errors::new();
    let checks: Vec<TokenStream> = fields
        .iter()
        .enumerate()
        .filter(|(_, field)| !field.attrs.skip_deserializing())
        .map(|(index, field)| {
            let options = parse_param_attrs(&field.original.attrs, &quiet).options;
            constraint_check(&options, &access(index, field))
        })
        .collect();
    let _ = quiet.finish();
    if checks.is_empty() {
        quote!(true)
    } else {
        quote!(#(#checks)&&*)
    }
}
