//! Tool search for large catalogs (feature `search`): the index that ranks tools for a
//! query by BM25F over their names, descriptions and argument docs (`index.rs`). Beside
//! the words, a search can rank by meaning: an [`Embedder`] (`embedder.rs`) gives each
//! tool a vector, kept between processes as [`ToolVectors`] (`vectors.rs`), and the
//! ranking by cosine is fused with BM25F's (`semantic.rs`; the recent queries' vectors
//! in `recent.rs`); `bert.rs` is a local
//! embedder (feature `embed`).
//! None of it knows a registry: `crate::tool_search` keeps it for one, answers
//! `Registry::search` and defers loading behind `search_tools`.
//!
//! The scorer is this crate's own (`index.rs`), with Snowball stemming from
//! `rust-stemmers`: the `bm25` crate scores one text per document (no field weights) and
//! its default tokenizer brings four more dependencies; `tantivy` is a whole search
//! engine, with on-disk segments, for what is at most tens of thousands of short
//! documents held in memory.

#[cfg(feature = "embed")]
mod bert;
mod embedder;
mod index;
mod recent;
mod semantic;
mod tokens;
mod vectors;

#[cfg(feature = "embed")]
pub use bert::BertEmbedder;
pub use embedder::{EmbedError, Embedder};
pub(crate) use index::SearchIndex;
pub(crate) use semantic::Semantic;
pub use semantic::SemanticSearch;
pub use vectors::ToolVectors;

/// One tool a search found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SearchHit<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// How well it matches, comparable within one query only: the BM25F score, or with
    /// [`SemanticSearch`] the fused score (the cosine plus the weighted lexical term).
    pub score: f32,
}
