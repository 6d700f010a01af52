//! On error: the errors, the user's function unchanged and a stub companion, so call
//! sites and registrations still compile and the user reads only the real mistake.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{ItemFn, Path};

use crate::ast::ToolFn;

pub fn expand_fallback(
    tool: &ToolFn<'_>,
    cleaned: &ItemFn,
    krate: &Path,
    error: syn::Error,
) -> TokenStream {
    let errors = error.to_compile_error();
    // A stub named like a type the signature uses would be one more error, rustc's.
    if crate::check::companion_clash(tool).is_some() {
        return quote!(#errors #cleaned);
    }
    let vis = &tool.item.vis;
    let name = &tool.companion;
    quote! {
        #errors
        #cleaned
        #[derive(Debug, Clone, Copy, Default)]
        #vis struct #name;
        const _: () = {
            use #krate as _tw;
            #[automatically_derived]
            impl _tw::Tool for #name {
                fn spec(&self) -> &_tw::ToolSpec {
                    _tw::__private::stub_spec()
                }
                fn prepare(&self, _: _tw::Arguments<'_>) -> ::core::result::Result<_tw::Prepared, _tw::ToolError> {
                    ::core::result::Result::Err(_tw::__private::stub_error())
                }
                fn run<'a>(&'a self, _: &'a _tw::Context, _: _tw::Prepared) -> _tw::ToolFuture<'a> {
                    _tw::__private::stub_call()
                }
            }
        };
    }
}
