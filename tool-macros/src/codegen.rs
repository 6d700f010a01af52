//! The code generation `#[tool]` (`expand/`) and `#[derive(ToolSchema)]` (`derive/`)
//! share, as serde_derive's `internals/` is: where a value's schema comes from
//! (`schema_with`, `schema_as`, `schemars`), the keywords of a property's schema, and the
//! typed checks of its constraints that the fast path runs after serde.

use proc_macro2::{Group, Literal, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use crate::attr::{ArgOptions, Constraints, KeywordValue, Number, ValueKind};

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

/// `ty` named through its `ToolSchema` (`__private::Slot`): the same type when it has a
/// schema; when it has none, the one error that says so (the schema's own, which rustc
/// shows once however often it is named), and the bounds on it elsewhere (`Deserialize`,
/// `Serialize` for a default) are not reported again.
pub fn checked_type(ty: &syn::Type) -> TokenStream {
    quote_spanned! {ty.span()=>
        <_tw::__private::Slot<#ty, { <#ty as _tw::ToolSchema>::OPTIONAL }> as _tw::__private::SlotType>::Value
    }
}
