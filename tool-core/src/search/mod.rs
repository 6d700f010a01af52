//! Tool search for large catalogs (feature `search`): the index that ranks tools for a
//! query by BM25F over their names, descriptions and argument docs (`index.rs`), and
//! deferred loading behind `search_tools` (`deferred.rs`). The registry keeps both and
//! answers `Registry::search` (`registry/search.rs`).
//!
//! The scorer is this crate's own (`index.rs`), with Snowball stemming from
//! `rust-stemmers`: the `bm25` crate scores one text per document (no field weights) and
//! its default tokenizer brings four more dependencies; `tantivy` is a whole search
//! engine, with on-disk segments, for what is at most tens of thousands of short
//! documents held in memory.

mod deferred;
mod index;
mod tokens;

pub(crate) use deferred::{Deferred, SearchArgs};
pub use deferred::{LoadedTools, SEARCH_TOOLS, ToolSearch};
pub(crate) use index::SearchIndex;

/// One tool a search found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchHit<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// How well it matches (BM25F; comparable within one query only).
    pub score: f32,
}
