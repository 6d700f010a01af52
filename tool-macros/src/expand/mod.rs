//! Code generation for `#[tool]`: the user's function unchanged (minus the parameter
//! attributes toolwright reads), the companion struct, and its `Tool` impl.

mod dispatch;
mod fallback;
mod schema;
mod toolset;

pub use toolset::expand_toolset;

use proc_macro2::TokenStream;
use quote::quote;
use syn::{FnArg, ItemFn, Path};

use crate::ast::ToolFn;
use crate::attr::{self, ToolOptions};
use crate::check;
use crate::errors::Errors;

/// `#[tool(args)] item`.
pub fn expand_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(_) => {
            let error = syn::Error::new(
                proc_macro2::Span::call_site(),
                "#[tool] goes on a function: `#[tool] fn name(arg: Type) -> Result<T, ToolError> { ... }`",
            );
            let mut tokens = error.to_compile_error();
            tokens.extend(item);
            return tokens;
        }
    };
    let errors = Errors::new();
    let options = attr::parse_tool_options(args, &errors);
    let tool = ToolFn::from_item(&item, options, &errors);
    check::check_tool(&tool, &errors);
    let krate = crate_path(&tool.options);
    let cleaned = strip_param_attrs(&item);
    match errors.finish() {
        Ok(()) => {
            let companion = companion_struct(&tool);
            let tool_impl = tool_impl(&tool);
            quote! {
                #cleaned
                #companion
                const _: () = {
                    use #krate as _tw;
                    #tool_impl
                };
            }
        }
        // A method sits in an `impl` block, where no companion struct can be declared.
        Err(error) if has_receiver(&item) => {
            let errors = error.to_compile_error();
            quote!(#errors #cleaned)
        }
        Err(error) => fallback::expand_fallback(&tool, &cleaned, &krate, error),
    }
}

/// The companion's `Tool` impl and the items beside it (the arguments struct, its
/// reader and check), written where `_tw` names the runtime crate.
fn tool_impl(tool: &ToolFn<'_>) -> TokenStream {
    let schema::Spec {
        items: spec_items,
        method: spec,
    } = schema::expand_spec(tool);
    let dispatch::Dispatch {
        items,
        methods,
        hooks,
    } = dispatch::expand_dispatch(tool);
    let name = &tool.companion;
    // Only a tool with hooks implements `CallHooks`: every other tool keeps
    // `Tool::hooks`'s default, one function, not one per hook.
    let (hooks_impl, hooks_method) = if hooks.is_empty() {
        (None, None)
    } else {
        (
            Some(quote! {
                #[automatically_derived]
                impl _tw::CallHooks for #name {
                    #(#hooks)*
                }
            }),
            Some(quote! {
                fn hooks(&self) -> ::core::option::Option<&dyn _tw::CallHooks> {
                    ::core::option::Option::Some(self)
                }
            }),
        )
    };
    let defaults = tool.args().filter_map(schema::default_fn);
    quote! {
        #(#defaults)*
        #spec_items
        #items
        #[automatically_derived]
        impl _tw::Tool for #name {
            #spec
            #methods
            #hooks_method
        }
        #hooks_impl
    }
}

/// `#[tool(crate = path)]`, or `::toolwright`.
pub fn crate_path(options: &ToolOptions) -> Path {
    crate_path_of(options.krate.as_ref())
}

/// `crate = path` of `#[tool]` or `#[toolset]`, or `::toolwright`.
fn crate_path_of(krate: Option<&Path>) -> Path {
    krate
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(::toolwright))
}

/// The function as the user wrote it, without `#[arg]`, `#[ctx]` and `///` on its
/// parameters (rustc rejects doc comments there; they were read already).
fn strip_param_attrs(item: &ItemFn) -> ItemFn {
    let mut item = item.clone();
    strip_signature_attrs(&mut item.sig);
    item
}

/// Removes the parameter attributes toolwright reads from a signature.
fn strip_signature_attrs(sig: &mut syn::Signature) {
    for input in &mut sig.inputs {
        if let FnArg::Typed(typed) = input {
            typed.attrs.retain(|attr| !attr::is_param_attr(attr));
        }
    }
}

fn has_receiver(item: &ItemFn) -> bool {
    item.sig
        .inputs
        .iter()
        .any(|input| matches!(input, FnArg::Receiver(_)))
}

fn companion_struct(tool: &ToolFn<'_>) -> TokenStream {
    let vis = &tool.item.vis;
    let name = &tool.companion;
    let function = &tool.item.sig.ident;
    let doc = format!(
        "The tool `{}`: the `#[tool]` companion of [`{function}`], implementing `toolwright::Tool`.",
        tool.name
    );
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone, Copy, Default)]
        #vis struct #name;
    }
}
