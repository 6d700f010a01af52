//! Enums → the schema of each variant under serde's tagging (external, internal `tag`,
//! adjacent `tag` + `content`, untagged), combined with `oneOf` where the tags make the
//! variants exclusive and `anyOf` where serde tries them in order.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use serde_derive_internals::ast::{Container, Style, Variant};
use serde_derive_internals::attr::TagType;
use syn::spanned::Spanned;

use super::fields;
use crate::docs;
use crate::errors::Errors;

pub fn enum_schema(
    container: &Container<'_>,
    variants: &[Variant<'_>],
    errors: &Errors,
) -> TokenStream {
    let variants: Vec<&Variant<'_>> = variants
        .iter()
        .filter(|v| !v.attrs.skip_deserializing() && !v.attrs.other())
        .collect();
    let tag = container.attrs.tag();
    let deny = container.attrs.deny_unknown_fields();

    // The common case: unit variants only, externally tagged → a string enum.
    let all_unit = variants
        .iter()
        .all(|v| matches!(v.style, Style::Unit) && !v.attrs.untagged());
    if all_unit && matches!(tag, TagType::External) {
        let names = variants.iter().map(|v| variant_name(v));
        return quote!(_tw::__private::string_enum(&[#(#names),*]));
    }

    let mut tagged = Vec::new();
    let mut untagged = Vec::new();
    let mut unit_names = Vec::new();
    for variant in &variants {
        let name = variant_name(variant);
        if matches!(variant.style, Style::Tuple) {
            errors.error_spanned_by(
                &variant.ident,
                "`ToolSchema` cannot be derived for a tuple variant with several fields: serde sends it as a JSON array whose positions have no names, and models fill such arrays unreliably. Use a struct variant (`Move { x: i32, y: i32 }`) or a newtype variant around one struct",
            );
            continue;
        }
        let schema = if variant.attrs.untagged() || matches!(tag, TagType::None) {
            untagged_variant(variant, deny, errors)
        } else {
            match tag {
                TagType::External if matches!(variant.style, Style::Unit) => {
                    unit_names.push(name);
                    continue;
                }
                TagType::External => {
                    let content = content(variant, deny, None, errors);
                    quote!(_tw::__private::external_variant(#name, #content))
                }
                TagType::Internal { tag } => internal_variant(variant, tag, deny, errors),
                TagType::Adjacent { tag, content: key } => {
                    let content = match variant.style {
                        Style::Unit => quote!(::core::option::Option::None),
                        _ => {
                            let content = content(variant, deny, None, errors);
                            quote!(::core::option::Option::Some(#content))
                        }
                    };
                    quote!(_tw::__private::adjacent_variant(#tag, #key, #name, #content, #deny))
                }
                TagType::None => unreachable!("untagged enums are handled above"),
            }
        };
        let schema = with_variant_docs(variant, schema, errors);
        if variant.attrs.untagged() || matches!(tag, TagType::None) {
            untagged.push(schema);
        } else {
            tagged.push(schema);
        }
    }
    if !unit_names.is_empty() {
        tagged.insert(0, quote!(_tw::__private::string_enum(&[#(#unit_names),*])));
    }
    // serde reads internally tagged and untagged enums from its buffered content, where a
    // struct is also read from an array: the fast path checks the schema too.
    let buffered = (matches!(tag, TagType::Internal { .. } | TagType::None)
        || !untagged.is_empty())
    .then(|| quote!(__tw_gen.mark_buffered();));
    quote! {{
        #buffered
        _tw::__private::alternatives(
            ::std::vec![#(#tagged),*],
            ::std::vec![#(#untagged),*],
        )
    }}
}

fn variant_name(variant: &Variant<'_>) -> String {
    variant.attrs.name().deserialize_name().value.clone()
}

/// The value a variant carries: its one field's schema, or an object of its fields.
fn content(
    variant: &Variant<'_>,
    deny: bool,
    tag: Option<(&str, &str)>,
    errors: &Errors,
) -> TokenStream {
    match variant.style {
        Style::Newtype => {
            let ty = variant.fields[0].ty;
            quote_spanned!(ty.span()=> __tw_gen.subschema_for::<#ty>())
        }
        Style::Struct => fields::object(&variant.fields, deny, tag, errors),
        Style::Unit => quote!(_tw::__private::serde_json::json!({"type": "null"})),
        Style::Tuple => quote!(_tw::__private::serde_json::Value::Bool(true)),
    }
}

fn untagged_variant(variant: &Variant<'_>, deny: bool, errors: &Errors) -> TokenStream {
    content(variant, deny, None, errors)
}

/// `{"type": "Circle", "radius": 1.0}`: the tag is a property of the variant's own object.
fn internal_variant(variant: &Variant<'_>, tag: &str, deny: bool, errors: &Errors) -> TokenStream {
    let name = variant_name(variant);
    match variant.style {
        Style::Struct => content(variant, deny, Some((tag, &name)), errors),
        Style::Newtype => {
            // The inner type's own schema, inline, so its properties can take the tag.
            let ty = variant.fields[0].ty;
            let inner = quote_spanned!(ty.span()=> <#ty as _tw::ToolSchema>::tool_schema(__tw_gen));
            quote!(_tw::__private::internal_variant(#tag, #name, ::core::option::Option::Some(#inner)))
        }
        _ => quote!(_tw::__private::internal_variant(#tag, #name, ::core::option::Option::None)),
    }
}

fn with_variant_docs(variant: &Variant<'_>, schema: TokenStream, errors: &Errors) -> TokenStream {
    let text = docs::parse(&variant.original.attrs, errors).text;
    if text.is_empty() {
        return schema;
    }
    quote! {
            _tw::__private::describe(#schema, #text)
    }
}

/// For a string enum: the docs of its unit variants as a list for the enum's description
/// (`- "EUR": Euro.`), since `enum` has no place for per-value text.
pub fn unit_variant_docs(
    container: &Container<'_>,
    variants: &[Variant<'_>],
    errors: &Errors,
) -> String {
    if !matches!(container.attrs.tag(), TagType::External) {
        return String::new();
    }
    let mut text = String::new();
    for variant in variants {
        if !matches!(variant.style, Style::Unit) || variant.attrs.skip_deserializing() {
            continue;
        }
        let doc = docs::parse(&variant.original.attrs, errors).text;
        if !doc.is_empty() {
            text.push_str(&format!(
                "\n- \"{}\": {}",
                variant_name(variant),
                doc.replace('\n', " ")
            ));
        }
    }
    text
}
