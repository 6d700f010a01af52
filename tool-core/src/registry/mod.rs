//! `Registry`: the tools an agent offers, by name, and registering them. The settings
//! every call goes through and their setters are in `settings.rs`; what each caller is
//! offered (visibility, lookup, suggestions) in `offered.rs`; toolsets and prefixes in
//! `toolset.rs`; turning tools off and on in `enabled.rs`.

mod enabled;
mod offered;
mod settings;
mod toolset;

use std::fmt;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde_json::{Value, json};

use crate::context::{Context, ContextType};
use crate::spec::ToolSpec;
use crate::tool::Tool;
pub(crate) use offered::Listing;
pub(crate) use settings::Settings;
pub use settings::{Retry, ToolSettings};
pub use toolset::Toolset;

/// The tools an agent offers. Build it once at start-up, check it
/// ([`Registry::check_context`]), then [`dispatch`](Registry::dispatch) every call the
/// model makes through it.
///
/// ```
/// # use toolwright::{tool, Registry};
/// /// Say hello.
/// #[tool(effect = "read_only")]
/// fn hello(name: String) -> String { format!("Hello, {name}!") }
///
/// let registry = Registry::new().with(Hello);
/// assert_eq!(registry.get("hello").unwrap().spec().name, "hello");
/// ```
pub struct Registry {
    tools: Vec<Arc<dyn Tool>>,
    /// Names come from the model, but only as lookups into a table of our own names, so
    /// a fast non-cryptographic hash is safe here.
    by_name: FxHashMap<String, usize>,
    /// Where each tool came from (its type, or its toolset), for the duplicate-name error.
    origins: Vec<Arc<str>>,
    /// Which tools are on (`set_enabled`).
    switches: enabled::Switches,
    pub(crate) settings: Settings,
    /// Definitions rendered once per dialect (specs do not change once registered;
    /// adding a tool empties it).
    pub(crate) rendered: crate::provider::Rendered,
    /// The search index, built at the first search (adding a tool empties it).
    #[cfg(feature = "search")]
    pub(crate) search_index: crate::search::Cached,
    /// Deferred loading behind `search_tools` (`with_tool_search`).
    #[cfg(feature = "search")]
    pub(crate) deferred: Option<crate::search::Deferred>,
}

/// A tool that cannot join a registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistryError {
    /// Another tool already has this name.
    DuplicateName {
        /// The name both tools have.
        name: String,
        /// Where the registered one came from (its type, or its toolset).
        first: String,
        /// Where the newcomer came from.
        second: String,
    },
    /// A name no provider accepts (a prefixed toolset's).
    InvalidName {
        /// The name.
        name: String,
        /// The rule it breaks, and what to do.
        reason: &'static str,
    },
    /// A tool's example (`#[tool(example = ...)]`) is a call the tool would refuse: it
    /// would teach the model a mistake.
    InvalidExample {
        /// The tool.
        tool: String,
        /// Which example, from 1.
        example: usize,
        /// What the tool said of it, every problem listed.
        problems: String,
    },
    /// [`Registry::set_enabled`] on a registry built without
    /// [`Registry::with_runtime_toggles`].
    TogglesOff {
        /// The tool named.
        name: String,
    },
    /// Settings name a tool the registry does not have.
    UnknownTool {
        /// The name given.
        name: String,
        /// The registered name closest to it, if any is close.
        closest: Option<String>,
    },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::DuplicateName {
                name,
                first,
                second,
            } => write!(
                f,
                "two tools are named '{name}' (one from {first}, one from {second}): a model could not tell them apart; rename one with #[tool(name = \"...\")] or register a toolset under a prefix (Registry::with_toolset_prefixed)"
            ),
            RegistryError::InvalidExample {
                tool,
                example,
                problems,
            } => write!(
                f,
                "example {example} of tool '{tool}' is a call the tool refuses, so it would teach the model a mistake; fix the example: {problems}"
            ),
            RegistryError::InvalidName { name, reason } => {
                write!(f, "'{name}' is not a valid tool name: {reason}")
            }
            RegistryError::TogglesOff { name } => write!(
                f,
                "cannot turn '{name}' off or on: the registry was built without Registry::with_runtime_toggles(), so its clients were told its tools never change; build it with with_runtime_toggles()"
            ),
            RegistryError::UnknownTool { name, closest } => {
                write!(f, "no tool named '{name}' to configure")?;
                match closest {
                    Some(closest) => write!(f, "; did you mean '{closest}'?"),
                    None => write!(f, "; register it with Registry::with before configuring it"),
                }
            }
        }
    }
}

impl std::error::Error for RegistryError {}

/// Context values the registry's tools need and the context lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingContext {
    /// `(tool, type)` for each missing value.
    pub missing: Vec<(String, &'static str)>,
}

impl fmt::Display for MissingContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the context lacks values the tools need:")?;
        for (tool, ty) in &self.missing {
            write!(
                f,
                "\n  tool '{tool}' needs `{ty}`: add it with Context::with"
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for MissingContext {}

impl Default for Registry {
    fn default() -> Self {
        Self::new()
    }
}

impl Registry {
    /// An empty registry with the default settings: a 16,000-character output budget,
    /// artifacts in `<temp dir>/toolwright-artifacts`, no timeout, no argument repair,
    /// arguments up to 1 MiB.
    pub fn new() -> Self {
        Self {
            tools: Vec::new(),
            by_name: FxHashMap::default(),
            origins: Vec::new(),
            switches: enabled::Switches::default(),
            settings: Settings::default(),
            rendered: crate::provider::Rendered::default(),
            #[cfg(feature = "search")]
            search_index: crate::search::Cached::default(),
            #[cfg(feature = "search")]
            deferred: None,
        }
    }

    /// Adds a tool.
    ///
    /// # Panics
    ///
    /// When another tool has the same name: two tools a model cannot tell apart are a
    /// bug to fix before start-up, not a call to fail later. Use
    /// [`Registry::register`] to handle it yourself.
    #[track_caller]
    pub fn with(self, tool: impl Tool) -> Self {
        let origin = std::any::type_name_of_val(&tool);
        self.with_from(Arc::new(tool), origin)
    }

    /// [`Registry::with`] past its one generic line: compiled once, whatever the tool.
    #[track_caller]
    fn with_from(mut self, tool: Arc<dyn Tool>, origin: &str) -> Self {
        if let Err(error) = self.register_from(tool, origin) {
            panic!("{error}");
        }
        self
    }

    /// Adds a tool; a duplicate name is an error, never a silent overwrite.
    pub fn register(&mut self, tool: impl Tool) -> Result<(), RegistryError> {
        let origin = std::any::type_name_of_val(&tool);
        self.register_from(Arc::new(tool), origin)
    }

    /// Adds a shared tool (for tools built at run time, or shared between registries).
    pub fn register_arc(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        self.register_from(tool, "Registry::register_arc")
    }

    /// One tool, whatever its type, through the one registering path.
    fn register_from(&mut self, tool: Arc<dyn Tool>, origin: &str) -> Result<(), RegistryError> {
        self.register_all(vec![tool], None, origin)
    }

    /// Where the tool named `name` came from, if there is one.
    fn origin_of(&self, name: &str) -> Option<&str> {
        self.by_name.get(name).map(|&index| &*self.origins[index])
    }

    /// Adds a tool whose name is known to be free.
    fn push(&mut self, tool: Arc<dyn Tool>, origin: Arc<str>) {
        self.by_name
            .insert(tool.spec().name.clone(), self.tools.len());
        self.tools.push(tool);
        self.origins.push(origin);
        self.switches.push();
        self.rendered = crate::provider::Rendered::default();
        #[cfg(feature = "search")]
        {
            self.search_index = crate::search::Cached::default();
        }
    }

    /// The tool named `name`.
    #[inline]
    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.by_name.get(name).map(|&index| &*self.tools[index])
    }

    /// The tool registered `index`-th.
    #[cfg(feature = "search")]
    pub(crate) fn tool_at(&self, index: usize) -> &dyn Tool {
        &*self.tools[index]
    }

    /// Every tool, in registration order.
    pub fn tools(&self) -> impl Iterator<Item = &dyn Tool> {
        self.tools.iter().map(|tool| &**tool)
    }

    /// Every tool's spec, in registration order (the order the model is shown).
    pub fn specs(&self) -> impl Iterator<Item = &ToolSpec> {
        self.tools().map(Tool::spec)
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Every tool's spec, sorted by name, as one JSON document: snapshot it
    /// (`insta::assert_json_snapshot!(registry.contract())`) and any change to any tool's
    /// contract shows up in review.
    pub fn contract(&self) -> Value {
        let mut specs: Vec<&ToolSpec> = self.specs().collect();
        specs.sort_by(|a, b| a.name.cmp(&b.name));
        json!({ "tools": specs })
    }

    /// Checks that `ctx` has every value the tools' `#[ctx]` parameters need. Run it at
    /// start-up: a missing value is then an error naming the tool and the type, not a
    /// failed call later.
    pub fn check_context(&self, ctx: &Context) -> Result<(), MissingContext> {
        let missing: Vec<(String, &'static str)> = self
            .tools()
            .flat_map(|tool| {
                tool.context_types()
                    .into_iter()
                    .filter(|ty: &ContextType| !ctx.contains(ty))
                    .map(move |ty| (tool.spec().name.clone(), ty.name))
            })
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(MissingContext { missing })
        }
    }

    /// The error for a name the registry lacks, naming the closest one.
    pub(crate) fn unknown(&self, name: &str) -> RegistryError {
        let closest = self
            .closest_names(name)
            .first()
            .filter(|close| crate::similarity::jaro_winkler(name, close) > 0.7)
            .map(|close| (*close).to_owned());
        RegistryError::UnknownTool {
            name: name.to_owned(),
            closest,
        }
    }
}
