//! Procedural macros of toolwright: `#[tool]`, `#[toolset]` and `#[derive(ToolSchema)]`.
//!
//! Use them through the `toolwright` crate, which re-exports both and the runtime they
//! expand to. The pipeline: `attr` (grammar) → `ast` (model, spans kept) → `check` (one
//! function per rule, every error collected) → `expand` (code generation).

mod ast;
mod attr;
mod check;
mod derive;
mod docs;
mod errors;
mod example;
mod expand;

use proc_macro::TokenStream;

/// Turns a function into a tool a language model can call. See the `toolwright` crate.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand_tool(args.into(), item.into()).into()
}

/// Turns the `#[tool]` methods of an `impl` block into tools that share the service
/// value. See the `toolwright` crate.
#[proc_macro_attribute]
pub fn toolset(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand_toolset(args.into(), item.into()).into()
}

/// Derives `ToolSchema` from a type's shape and its serde attributes. See the
/// `toolwright` crate.
#[proc_macro_derive(ToolSchema, attributes(arg, serde, tool_schema))]
pub fn derive_tool_schema(input: TokenStream) -> TokenStream {
    derive::expand_derive(syn::parse_macro_input!(input as syn::DeriveInput)).into()
}
