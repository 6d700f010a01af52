//! Procedural macros of toolwright: `#[tool]`, `#[toolset]` and `#[derive(ToolSchema)]`.
//!
//! Use them through the `toolwright` crate, which re-exports both and the runtime they
//! expand to. The pipeline: `attr` (grammar) → `ast` (model, spans kept) → `check` (one
//! function per rule, every error collected) → `expand` (code generation).

mod ast;
mod attr;
mod check;
mod codegen;
mod derive;
mod docs;
mod errors;
mod example;
mod expand;

use proc_macro::TokenStream;

#[doc = include_str!("../reference/tool.md")]
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand_tool(args.into(), item.into()).into()
}

#[doc = include_str!("../reference/toolset.md")]
#[proc_macro_attribute]
pub fn toolset(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand_toolset(args.into(), item.into()).into()
}

#[doc = include_str!("../reference/tool_schema.md")]
#[proc_macro_derive(ToolSchema, attributes(arg, serde, tool_schema))]
pub fn derive_tool_schema(input: TokenStream) -> TokenStream {
    derive::expand_derive(syn::parse_macro_input!(input as syn::DeriveInput)).into()
}
