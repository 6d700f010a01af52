//! Tool search for large catalogs (feature `search`): `Registry::search` ranks the tools
//! for a query by BM25F over their names, descriptions and argument docs.
//!
//! The scorer is this crate's own (`index.rs`), with Snowball stemming from
//! `rust-stemmers`: the `bm25` crate scores one text per document (no field weights) and
//! its default tokenizer brings four more dependencies; `tantivy` is a whole search
//! engine, with on-disk segments, for what is at most tens of thousands of short
//! documents held in memory.

mod deferred;
mod index;
mod tokens;

use std::sync::{Arc, OnceLock};

use crate::context::Context;
use crate::registry::Registry;

pub(crate) use deferred::{Deferred, run_search};
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

/// A registry's index, built at the first search after the last registration.
#[derive(Default)]
pub(crate) struct Cached(OnceLock<Arc<SearchIndex>>);

impl Registry {
    /// The `limit` tools that best match `query`, best first: ranked by BM25F over each
    /// tool's name (split at `_`, `-` and case changes), title, description, argument
    /// names and descriptions, and argument examples, words stemmed. Tools sharing no
    /// word with the query are left out. The index is built at the first search
    /// (milliseconds for thousands of tools) and kept until a tool is added.
    ///
    /// ```
    /// # use toolwright::{tool, Registry};
    /// /// Open a new issue in a repository.
    /// #[tool(effect = "write")]
    /// fn create_issue(/** Its title. */ title: String) {}
    ///
    /// /// Send an email.
    /// #[tool(effect = "external")]
    /// fn send_email(/** The address. */ to: String) {}
    ///
    /// let registry = Registry::new().with(CreateIssue).with(SendEmail);
    /// assert_eq!(registry.search("file a bug as a new issue", 5)[0].name, "create_issue");
    /// ```
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit<'_>> {
        self.search_where(query, limit, None)
    }

    /// [`Registry::search`] among the tools the caller in `ctx` may see
    /// ([`Registry::with_visibility`], tools turned off), loaded yet or not.
    pub fn search_for(&self, ctx: &Context, query: &str, limit: usize) -> Vec<SearchHit<'_>> {
        self.search_where(query, limit, Some(ctx))
    }

    fn search_where(&self, query: &str, limit: usize, ctx: Option<&Context>) -> Vec<SearchHit<'_>> {
        let index = self
            .search_index
            .0
            .get_or_init(|| Arc::new(SearchIndex::build(self.specs())));
        let filters = ctx.is_some() || self.filters();
        index
            .search(query, limit, |tool| {
                !filters || self.visible(ctx, self.tool_at(tool).spec())
            })
            .into_iter()
            .map(|(tool, score)| SearchHit {
                name: &self.tool_at(tool).spec().name,
                score,
            })
            .collect()
    }
}
