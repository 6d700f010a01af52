//! `#[toolset]` on an `impl Service` block: each `#[tool]` method becomes a tool whose
//! companion holds the service in an `Arc`, and the block implements `Toolset` (or, as
//! `part = name`, a function returning its tools for the main block to add).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{
    FnArg, GenericArgument, ImplItem, ImplItemFn, ItemFn, ItemImpl, PathArguments, ReceiverKind,
    Type,
};

use crate::ast::{Method, Receiver, ToolFn, pascal_case};
use crate::attr::{self, ToolsetOptions};
use crate::check;
use crate::errors::Errors;

/// `#[toolset(args)] impl Service { ... }`.
pub fn expand_toolset(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut block: ItemImpl = match syn::parse2(item.clone()) {
        Ok(block) => block,
        Err(_) => {
            let error = syn::Error::new(
                Span::call_site(),
                "#[toolset] goes on an `impl` block of a service type: `#[toolset] impl Service { #[tool] fn name(&self, arg: Type) -> ... }`",
            );
            let mut tokens = error.to_compile_error();
            tokens.extend(item);
            return tokens;
        }
    };
    let errors = Errors::new();
    let options = attr::parse_toolset_options(args, &errors);
    check_block(&block, &options, &errors);

    // Each `#[tool]` method, as a function the `#[tool]` model reads.
    let mut methods: Vec<(ItemFn, TokenStream)> = Vec::new();
    for item in &mut block.items {
        let ImplItem::Fn(method) = item else { continue };
        let Some(position) = method.attrs.iter().position(is_tool_attr) else {
            continue;
        };
        let tool_attr = method.attrs.remove(position);
        let args = match &tool_attr.meta {
            syn::Meta::List(list) => list.tokens.clone(),
            _ => TokenStream::new(),
        };
        methods.push((as_item_fn(method), args));
        super::strip_signature_attrs(&mut method.sig);
    }
    if methods.is_empty() {
        errors.error_at(
            Span::call_site(),
            "this #[toolset] block has no tools: mark the methods the model may call with #[tool]",
        );
    }

    let self_ty = &*block.self_ty;
    let tools: Vec<ToolFn<'_>> = methods
        .iter()
        .map(|(item, args)| {
            let options = attr::parse_tool_options(args.clone(), &errors);
            let mut tool = ToolFn::from_item(item, options, &errors);
            tool.companion = format_ident!("__Tw{}Tool", pascal_case(&item.sig.ident.to_string()));
            tool.method = Some(Method {
                self_ty,
                receiver: receiver(item, &errors),
            });
            check::check_tool(&tool, &errors);
            tool
        })
        .collect();
    check::check_wire_names(
        tools
            .iter()
            .map(|tool| (tool.name.as_str(), tool.name_span)),
        check::NameSource::Tool,
        &errors,
    );

    let krate = super::crate_path_of(options.krate.as_ref());
    let result = errors.finish();
    let companions: Vec<_> = tools.iter().map(|tool| &tool.companion).collect();
    let list = quote! {
        ::std::vec![#(
            ::std::sync::Arc::new(#companions(::std::sync::Arc::clone(&self))) as ::std::sync::Arc<dyn _tw::Tool>
        ),*]
    };
    let (list, impls, error) = match result {
        Ok(()) => {
            let impls = tools.iter().map(|tool| {
                let companion = &tool.companion;
                let tool_impl = super::tool_impl(tool);
                quote! {
                    struct #companion(::std::sync::Arc<#self_ty>);
                    const _: () = {
                        #tool_impl
                    };
                }
            });
            (list, quote!(#(#impls)*), None)
        }
        // The errors alone, and a toolset without tools so registrations still compile.
        Err(error) => (
            quote!(::std::vec::Vec::new()),
            TokenStream::new(),
            Some(error.to_compile_error()),
        ),
    };
    let registration = match &options.part {
        Some(part) => quote! {
            impl #self_ty {
                /// The tools of this `#[toolset(part)]` block, for the main block's
                /// `#[toolset(parts = [...])]`.
                pub(crate) fn #part(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::std::sync::Arc<dyn _tw::Tool>> {
                    #list
                }
            }
        },
        None => {
            let parts = options
                .parts
                .as_ref()
                .map(|parts| &parts.0[..])
                .unwrap_or(&[]);
            quote! {
                #[automatically_derived]
                impl _tw::Toolset for #self_ty {
                    fn tools(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::std::sync::Arc<dyn _tw::Tool>> {
                        #[allow(unused_mut)]
                        let mut __tw_tools: ::std::vec::Vec<::std::sync::Arc<dyn _tw::Tool>> = #list;
                        #(__tw_tools.extend(<#self_ty>::#parts(::std::sync::Arc::clone(&self)));)*
                        __tw_tools
                    }
                }
            }
        }
    };
    quote! {
        #error
        #block
        const _: () = {
            use #krate as _tw;
            #impls
            #registration
        };
    }
}

/// `#[tool]` or `#[toolwright::tool]`.
fn is_tool_attr(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|segment| segment.ident == "tool")
}

fn as_item_fn(method: &ImplItemFn) -> ItemFn {
    ItemFn {
        attrs: method.attrs.clone(),
        vis: method.vis.clone(),
        modifiers: method.modifiers.clone(),
        sig: method.sig.clone(),
        block: Box::new(method.block.clone()),
    }
}

/// The block must be an inherent impl of a concrete type.
fn check_block(block: &ItemImpl, options: &ToolsetOptions, errors: &Errors) {
    if let Some((path, _)) = &block.trait_ {
        errors.error_spanned_by(
            path,
            "#[toolset] goes on an inherent `impl Service` block, not a trait impl: the tools are the service's own methods",
        );
    }
    if !block.generics.params.is_empty() || block.generics.where_clause.is_some() {
        errors.error_spanned_by(
            &block.generics,
            "a #[toolset] block cannot be generic: each tool's schema is fixed at compile time, and a generic service would need one per instantiation; implement the tools on a concrete type (a type alias, or a wrapper holding the generic value)",
        );
    }
    if let Some(unsafety) = &block.unsafety {
        errors.error_spanned_by(unsafety, "#[toolset] cannot go on an `unsafe impl`");
    }
    if let (Some(part), Some(parts)) = (&options.part, &options.parts) {
        let span = parts.0.first().map_or(part.span(), |first| first.span());
        errors.error_at(
            span,
            "a part cannot list parts: list every part on the main block (`#[toolset(parts = [...])]`, the block without `part`)",
        );
    }
}

/// How the method takes `self`; `&mut self` and `self` by value are errors.
fn receiver(item: &ItemFn, errors: &Errors) -> Receiver {
    let Some(FnArg::Receiver(receiver)) = item.sig.inputs.first() else {
        return Receiver::None;
    };
    match &receiver.kind {
        ReceiverKind::Reference(_, _, None) => Receiver::Ref,
        ReceiverKind::Typed(_, ty) if is_arc_of_self(ty) => Receiver::Arc,
        ReceiverKind::Typed(_, ty) => {
            errors.error_spanned_by(
                ty,
                "a tool method takes `&self` or `self: Arc<Self>`: the service is shared by every call, through an `Arc`",
            );
            Receiver::Ref
        }
        ReceiverKind::Reference(_, _, Some(_)) => {
            errors.error_spanned_by(
                quote!(#receiver),
                "a tool method cannot take `&mut self`: calls may run at the same time, so the service is shared; keep mutable state behind a lock (`Mutex`, `RwLock`) or an atomic in the service and take `&self`",
            );
            Receiver::Ref
        }
        _ => {
            errors.error_spanned_by(
                quote!(#receiver),
                "a tool method cannot take `self` by value: the service is shared by every call; take `&self`, or `self: Arc<Self>` to move a handle to it into the call's future",
            );
            Receiver::Ref
        }
    }
}

/// `Arc<Self>`, with any path to `Arc`.
fn is_arc_of_self(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return false;
    };
    last.ident == "Arc"
        && matches!(args.args.first(), Some(GenericArgument::Type(Type::Path(inner))) if inner.path.is_ident("Self"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receivers_are_read_and_bad_ones_refused() {
        let cases: [(&str, Receiver, bool); 5] = [
            ("fn f(&self) {}", Receiver::Ref, false),
            ("fn f(self: std::sync::Arc<Self>) {}", Receiver::Arc, false),
            ("fn f(x: u8) {}", Receiver::None, false),
            ("fn f(&mut self) {}", Receiver::Ref, true),
            ("fn f(self) {}", Receiver::Ref, true),
        ];
        for (source, expected, refused) in cases {
            let item: ItemFn = syn::parse_str(source).unwrap();
            let errors = Errors::new();
            assert!(receiver(&item, &errors) == expected, "{source}");
            assert_eq!(errors.finish().is_err(), refused, "{source}");
        }
    }
}
