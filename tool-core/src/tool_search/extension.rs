//! The search extension every registry holds under feature `search`: the index, built at
//! the first search, and the search by meaning, its tools embedded at build
//! ([`Registry::search`]); with
//! [`ToolSearch`], deferred loading and the run of `search_tools`, which loads what it
//! finds for the conversation. The builder methods that configure it are here too.

use std::sync::{Arc, OnceLock};

use serde_json::json;

use super::deferred::{self, Deferred, LoadedTools, SEARCH_TOOLS, SearchArgs, ToolSearch};
use crate::content::ContentBlock;
use crate::context::Context;
use crate::dialect::Dialect;
use crate::error::ToolError;
use crate::provider::Listing;
use crate::registry::extension::{Building, BuiltIn, Extension};
use crate::registry::{Registry, RegistryBuilder, RegistryError, ToolSettings};
use crate::search::{EmbedError, SearchHit, SearchIndex, Semantic, SemanticSearch, ToolVectors};
use crate::tool::{Prepared, ToolFuture, ToolOutput};

/// A registry's search: its index, built at the first search, its search by meaning
/// (embedded at build), and the deferral behind `search_tools` when the registry has one.
#[derive(Default)]
pub(crate) struct Search {
    lexical: OnceLock<Arc<SearchIndex>>,
    semantic: Option<Semantic>,
    /// What `with_tool_search` asked for, until `build`.
    tool_search: Option<ToolSearch>,
    /// The deferral, made at `build`.
    deferred: Option<Deferred>,
}

impl RegistryBuilder {
    /// Defers the registry's tools behind the built-in `search_tools` (read-only): the
    /// model is shown it and the tools `search` always loads; a search returns the best
    /// matches (ranked as [`Registry::search`] ranks: by meaning too under
    /// [`RegistryBuilder::with_semantic_search`]) as definitions in the search's dialect,
    /// or Anthropic `tool_reference` blocks, and they become listed and callable for the
    /// conversation ([`LoadedTools`]). An always-loaded name that is not a tool, or a
    /// tool already named `search_tools`, is an error `build` reports. A second call
    /// replaces the first.
    pub fn with_tool_search(mut self, search: ToolSearch) -> Self {
        self.extension_mut::<Search>().tool_search = Some(search);
        self
    }

    /// Ranks searches by meaning as well as words ([`Registry::search`], `search_tools`):
    /// the fusion of BM25F and the cosine of `search`'s embedder, which finds "book a
    /// table" in `reserve_restaurant`. The tools are embedded by `build`, or come from
    /// the vectors `search` was given; an embedder that fails is an error of the build
    /// ([`RegistryError::Embedder`]) unless
    /// [`SemanticSearch::fall_back_to_words`] was asked for.
    pub fn with_semantic_search(mut self, search: SemanticSearch) -> Self {
        self.extension_mut::<Search>().semantic = Some(Semantic::new(search));
        self
    }
}

impl Registry {
    /// The `limit` tools that best match `query`, best first: ranked by BM25F over each
    /// tool's name (split at `_`, `-` and case changes), title, description, argument
    /// names and descriptions, and argument examples, words stemmed. Tools sharing no
    /// word with the query are left out. The index is built at the first search
    /// (milliseconds for thousands of tools).
    ///
    /// With [`RegistryBuilder::with_semantic_search`](RegistryBuilder::with_semantic_search),
    /// the ranking fuses BM25F's with the embedder's (tools closest in meaning), and a
    /// tool that shares no word with the query can be found; if the embedder fails on a
    /// query, that query is ranked by words (a warning is logged).
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
    /// let registry = Registry::builder().with(CreateIssue).with(SendEmail).build().unwrap();
    /// assert_eq!(registry.search("file a bug as a new issue", 5)[0].name, "create_issue");
    /// ```
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit<'_>> {
        self.search_where(query, limit, None)
    }

    /// [`Registry::search`] among the tools the caller in `ctx` may see
    /// ([`RegistryBuilder::with_visibility`](RegistryBuilder::with_visibility),
    /// tools turned off), loaded yet or not.
    pub fn search_for(&self, ctx: &Context, query: &str, limit: usize) -> Vec<SearchHit<'_>> {
        self.search_where(query, limit, Some(ctx))
    }

    /// The vectors of the registry's tools under
    /// [`RegistryBuilder::with_semantic_search`](RegistryBuilder::with_semantic_search),
    /// as `build` computed them: save them
    /// ([`ToolVectors::save`](crate::search::ToolVectors::save)) and give them to the
    /// next process, which then embeds nothing at start-up. An error when the registry
    /// has no semantic search or its embedder failed.
    pub fn tool_vectors(&self) -> Result<ToolVectors, EmbedError> {
        let Some(semantic) = &self.search_extension().semantic else {
            return Err(EmbedError::new(
                "the registry has no semantic search (RegistryBuilder::with_semantic_search)",
            ));
        };
        match semantic.index(self.specs()) {
            Ok(index) => Ok(index.vectors()),
            Err(error) => Err(error.clone()),
        }
    }

    /// The search extension every registry holds under feature `search`.
    fn search_extension(&self) -> &Search {
        self.extension::<Search>()
            .expect("every registry holds the search extension (crate::standing_extensions)")
    }

    fn search_where(&self, query: &str, limit: usize, ctx: Option<&Context>) -> Vec<SearchHit<'_>> {
        let search = self.search_extension();
        let index = search
            .lexical
            .get_or_init(|| Arc::new(SearchIndex::build(self.specs())));
        let filters = ctx.is_some() || self.filters();
        let admit = |tool| !filters || self.visible(ctx, self.entry_at(tool).tool.spec());
        let semantic = search.semantic.as_ref();
        let depth = if semantic.is_some() {
            limit.max(100)
        } else {
            limit
        };
        // Meaning alone (a lexical weight of 0) asks nothing of the words.
        let words = semantic.is_none_or(|semantic| semantic.lexical_weight() > 0.0);
        let mut ranked = if words {
            index.search(query, depth, admit)
        } else {
            Vec::new()
        };
        if let Some(fused) =
            semantic.and_then(|semantic| semantic.fuse(self.specs(), query, &ranked, limit, admit))
        {
            ranked = fused;
        }
        ranked.truncate(limit);
        ranked
            .into_iter()
            .map(|(tool, score)| SearchHit {
                name: &self.entry_at(tool).tool.spec().name,
                score,
            })
            .collect()
    }
}

impl Extension for Search {
    fn origin(&self) -> &'static str {
        "RegistryBuilder::with_tool_search"
    }

    fn build(&mut self, building: &mut Building<'_>) -> Option<BuiltIn> {
        let search = self.tool_search.take()?;
        for name in search.loaded_up_front() {
            building.require(name);
        }
        let (tool, deferred) = Deferred::new(search);
        self.deferred = Some(deferred);
        Some(BuiltIn {
            tool,
            settings: ToolSettings::new(),
        })
    }

    fn run<'a>(
        &'a self,
        registry: &'a Registry,
        ctx: &'a Context,
        _: &'a crate::call::ToolCall,
        args: Prepared,
    ) -> ToolFuture<'a> {
        let Some(deferred) = &self.deferred else {
            return ToolFuture::ready(Err(ToolError::internal(
                "search_tools before its registry was built",
            )
            .with_retryable(false)));
        };
        ToolFuture::ready(args.downcast::<SearchArgs>().and_then(|args| {
            let limit = args.limit.unwrap_or(deferred.results()) as usize;
            found(registry, deferred, ctx, &args.query, limit)
        }))
    }

    fn filters(&self) -> bool {
        self.deferred.is_some()
    }

    fn callable(&self, ctx: &Context, name: &str) -> bool {
        self.deferred
            .as_ref()
            .is_none_or(|deferred| deferred.callable(ctx, name))
    }

    fn refusal(&self, ctx: &Context, name: &str) -> Option<ToolError> {
        let deferred = self.deferred.as_ref()?;
        (!deferred.callable(ctx, name)).then(|| deferred::not_loaded(name))
    }

    fn listing(&self, ctx: &Context, name: &str, dialect: Dialect) -> Option<Listing> {
        (self.deferred.as_ref()).map(|deferred| deferred.listed(ctx, name, dialect))
    }

    fn definition(&self, dialect: Dialect) -> Option<serde_json::Value> {
        (self.deferred.as_ref()).and_then(|deferred| deferred.provider_tool(dialect))
    }

    /// The search by meaning embeds the tools now, not in whichever request searches
    /// first; an embedder that fails fails the build unless falling back was asked for.
    fn built(&self, registry: &Registry) -> Result<(), RegistryError> {
        let Some(semantic) = &self.semantic else {
            return Ok(());
        };
        match semantic.index(registry.specs()) {
            Err(error) if !semantic.falls_back() => Err(RegistryError::Embedder {
                error: error.clone(),
            }),
            _ => Ok(()),
        }
    }
}

/// What a search finds, loaded for the conversation and shown in the registry's dialect.
fn found(
    registry: &Registry,
    deferred: &Deferred,
    ctx: &Context,
    query: &str,
    limit: usize,
) -> Result<ToolOutput, ToolError> {
    let hits: Vec<&str> = registry
        .search_for(ctx, query, limit + 1)
        .into_iter()
        .map(|hit| hit.name)
        .filter(|name| *name != SEARCH_TOOLS)
        .take(limit)
        .collect();
    if let Some(loaded) = ctx.get::<LoadedTools>() {
        hits.iter().for_each(|name| loaded.load(*name));
    }
    if hits.is_empty() {
        return Ok(ToolOutput::Text(format!(
            "No tool matches \"{query}\". Try other words: the action, the object and the service (\"send a Slack message\")."
        )));
    }
    if deferred.dialect().facts().deferred_loading {
        let mut blocks = vec![ContentBlock::Text {
            text: format!("{} tools match; they can be called now.", hits.len()),
        }];
        blocks.extend(hits.iter().map(|name| ContentBlock::ToolReference {
            tool_name: (*name).to_owned(),
        }));
        return Ok(ToolOutput::Content(blocks));
    }
    let tools = hits
        .iter()
        .filter_map(|name| registry.get(name))
        .map(|tool| crate::provider::definition(tool.spec(), deferred.dialect()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|errors| {
            ToolError::internal(format!("a found tool cannot be shown: {}", errors[0]))
                .with_retryable(false)
        })?;
    Ok(ToolOutput::Json(json!({
        "loaded": hits,
        "note": "These tools can be called now.",
        "tools": tools,
    })))
}
