//! The registry's search, as an extension (feature `search`): [`Registry::search`] over
//! the index `crate::search` builds, kept by the extension (`extension.rs`), and
//! deferred loading behind the built-in `search_tools`, which loads what it finds for
//! the conversation (`deferred.rs`). The index and the embedders sit below the registry
//! and know no registry; this sits above it and plugs in through
//! the registry's `Extension` trait, so the registry knows no search.
//!
//! [`Registry::search`]: crate::Registry::search

mod deferred;
mod extension;

pub use deferred::{LoadedTools, SEARCH_TOOLS, ToolSearch};
pub(crate) use extension::Search;
