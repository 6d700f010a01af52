//! Deferred loading: a registry with [`ToolSearch`] shows the model the `search_tools`
//! meta-tool and a few tools always loaded; the rest become visible and callable when a
//! search returns them ([`LoadedTools`], per conversation, in the context).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rustc_hash::FxHashSet;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::context::Context;
use crate::dialect::Dialect;
use crate::effect::Effect;
use crate::error::ToolError;
use crate::provider::Listing;
use crate::spec::ToolSpec;
use crate::tool::{Arguments, Prepared, Tool, ToolFuture};
use crate::validate::Validator;

/// The name of the built-in search tool.
pub const SEARCH_TOOLS: &str = "search_tools";

/// How a registry defers its tools
/// ([`RegistryBuilder::with_tool_search`](crate::RegistryBuilder::with_tool_search)).
#[derive(Debug, Clone)]
pub struct ToolSearch {
    always_loaded: Vec<String>,
    results: u32,
    dialect: Dialect,
    provider_search: bool,
}

impl ToolSearch {
    /// Deferred loading whose search results carry definitions in `dialect`'s shape
    /// (for Anthropic, `tool_reference` blocks: Claude loads the definitions itself).
    /// Five results a search by default.
    pub fn new(dialect: Dialect) -> Self {
        Self {
            always_loaded: Vec::new(),
            results: 5,
            dialect,
            provider_search: false,
        }
    }

    /// The names [`ToolSearch::always_loaded`] gave.
    pub(crate) fn loaded_up_front(&self) -> &[String] {
        &self.always_loaded
    }

    /// Tools shown from the start, beside `search_tools` (the ones nearly every task
    /// needs).
    pub fn always_loaded(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.always_loaded.extend(names.into_iter().map(Into::into));
        self
    }

    /// How many tools a search returns at most, unless the model asks for fewer
    /// (1 to 20).
    pub fn results(mut self, results: u32) -> Self {
        self.results = results.clamp(1, 20);
        self
    }

    /// Where the provider searches deferred tools itself (Anthropic's
    /// `tool_search_tool_bm25`), offer its search tool instead of `search_tools`; the
    /// harness loads what it found with [`LoadedTools::load_references`].
    pub fn provider_search(mut self) -> Self {
        self.provider_search = true;
        self
    }
}

/// The tools a conversation has loaded: put one in the context of the conversation's
/// calls (`Context::with(LoadedTools::new())`). `search_tools` adds what it finds; the
/// registry then lists those tools ([`Registry::definitions`](crate::Registry::definitions)) and accepts calls to
/// them, and only to them besides the ones always loaded. Without one in the context,
/// every tool is callable (an MCP client, which keeps no conversation on the server).
#[derive(Debug, Default)]
pub struct LoadedTools(Mutex<BTreeSet<String>>);

impl LoadedTools {
    /// Nothing loaded yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Loads the tool `name`.
    pub fn load(&self, name: impl Into<String>) {
        self.lock().insert(name.into());
    }

    /// Loads every tool a provider's own search referenced in `response` (Anthropic's
    /// `tool_reference` blocks, wherever they are); returns how many were new.
    pub fn load_references(&self, response: &Value) -> usize {
        let mut names = Vec::new();
        references(response, &mut names);
        let mut loaded = self.lock();
        names
            .into_iter()
            .filter(|name| loaded.insert(name.clone()))
            .count()
    }

    /// Whether `name` is loaded.
    pub fn contains(&self, name: &str) -> bool {
        self.lock().contains(name)
    }

    /// The loaded tools, by name.
    pub fn names(&self) -> Vec<String> {
        self.lock().iter().cloned().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeSet<String>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Every `{"type": "tool_reference", "tool_name": ...}` in `value`.
fn references(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(object) => {
            if object.get("type").and_then(Value::as_str) == Some("tool_reference")
                && let Some(name) = object.get("tool_name").and_then(Value::as_str)
            {
                out.push(name.to_owned());
            }
            object.values().for_each(|value| references(value, out));
        }
        Value::Array(items) => items.iter().for_each(|item| references(item, out)),
        _ => {}
    }
}

/// A registry's deferral: what is shown from the start.
pub(crate) struct Deferred {
    up_front: FxHashSet<String>,
    dialect: Dialect,
    provider_search: bool,
    results: u32,
}

impl Deferred {
    /// Whether `name` is shown from the start.
    pub(crate) fn up_front(&self, name: &str) -> bool {
        self.up_front.contains(name)
    }

    /// Whether a tool the caller may see is listed now, for `dialect`.
    pub(crate) fn listed(&self, ctx: &Context, name: &str, dialect: Dialect) -> Listing {
        let on_the_provider = dialect.facts().deferred_loading;
        if name == SEARCH_TOOLS && on_the_provider && self.provider_search {
            return Listing::Hidden;
        }
        if self.up_front(name)
            || ctx
                .get::<LoadedTools>()
                .is_some_and(|loaded| loaded.contains(name))
        {
            Listing::Shown
        } else if on_the_provider {
            Listing::Deferred
        } else {
            Listing::Hidden
        }
    }

    /// Whether a call to `name` is accepted: always, unless the conversation keeps
    /// [`LoadedTools`] and the tool is neither loaded nor shown from the start.
    pub(crate) fn callable(&self, ctx: &Context, name: &str) -> bool {
        self.up_front(name)
            || ctx
                .get::<LoadedTools>()
                .is_none_or(|loaded| loaded.contains(name))
    }

    /// Anthropic's own search tool, when it replaces `search_tools`.
    pub(crate) fn provider_tool(&self, dialect: Dialect) -> Option<Value> {
        (self.provider_search && dialect.facts().deferred_loading).then(
            || json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}),
        )
    }
}

/// What a call of a tool that is not loaded yet is told: that it exists, and that a
/// search loads it.
pub(crate) fn not_loaded(name: &str) -> ToolError {
    ToolError::new(
        crate::error::ErrorKind::UnknownTool,
        format!("the tool '{name}' exists but is not loaded yet"),
    )
    .with_hint(format!(
        "search for it first: call {SEARCH_TOOLS} (or the provider's tool search) with what \
         you want to do, or with its name, \"{name}\"; the tools a search finds are \
         loaded, and then '{name}' can be called"
    ))
}

impl Deferred {
    /// `search_tools` and the deferral it serves.
    pub(crate) fn new(search: ToolSearch) -> (Arc<dyn Tool>, Self) {
        let mut up_front: FxHashSet<String> = search.always_loaded.into_iter().collect();
        up_front.insert(SEARCH_TOOLS.to_owned());
        let tool: Arc<dyn Tool> = Arc::new(SearchTools {
            spec: search_spec(search.results),
        });
        let deferred = Deferred {
            up_front,
            dialect: search.dialect,
            provider_search: search.provider_search,
            results: search.results,
        };
        (tool, deferred)
    }

    /// The dialect a search shows the tools it found in.
    pub(crate) fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// How many tools a search loads unless the model asks for fewer.
    pub(crate) fn results(&self) -> u32 {
        self.results
    }
}

/// `search_tools`' arguments.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchArgs {
    pub(crate) query: String,
    #[serde(default)]
    pub(crate) limit: Option<u32>,
}

fn search_spec(results: u32) -> ToolSpec {
    ToolSpec::new(
        SEARCH_TOOLS,
        "Search the tools available beyond the ones listed, and load the best matches so they can be called. Describe the task in a few words (what to do, on what, where: \"refund a Stripe charge\"); call it again with other words if nothing fits.",
        json!({
            "type": "object",
            "properties": {
                "query": {
                    "description": "What the tool should do, in a few words.",
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 500
                },
                "limit": {
                    "description": format!("Most tools to load (default {results})."),
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 20
                }
            },
            "required": ["query"],
            "additionalProperties": false
        }),
        Effect::ReadOnly,
    )
}

/// The built-in search tool. The registry runs it (its entry's `builtin`): it reads the
/// registry, which no tool can hold.
struct SearchTools {
    spec: ToolSpec,
}

static SEARCH_VALIDATOR: OnceLock<Validator> = OnceLock::new();

impl Tool for SearchTools {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(&self, args: Arguments<'_>) -> Result<Prepared, ToolError> {
        crate::private::prepare::<SearchArgs>(&self.spec, &SEARCH_VALIDATOR, args, |args| {
            (1..=500).contains(&args.query.chars().count())
                && args.limit.is_none_or(|limit| (1..=20).contains(&limit))
        })
    }

    fn run<'a>(&'a self, _: &'a Context, _: Prepared) -> ToolFuture<'a> {
        ToolFuture::ready(Err(ToolError::internal(
            "search_tools runs only through the registry it belongs to",
        )
        .with_retryable(false)))
    }
}
