//! `Registry`: the tools an agent offers, by name, with the settings every call goes
//! through (output budget, artifact store, timeouts, argument repair); the settings
//! themselves are in `settings.rs`.

mod enabled;
mod settings;
mod toolset;

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rustc_hash::FxHashMap;
use serde_json::{Value, json};

use crate::context::{Context, ContextType};
use crate::error::{ErrorKind, ToolError};
use crate::event::Event;
use crate::idempotency::{Idempotency, IdempotencyStore};
use crate::output::{ArtifactStore, OutputBudget};
use crate::policy::Policy;
use crate::spec::ToolSpec;
use crate::tool::Tool;
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

/// Whether a tool is in a caller's list of definitions, and how.
pub(crate) enum Listing {
    Hidden,
    Shown,
    /// Sent with `defer_loading: true` (Anthropic loads it when a search references it).
    #[cfg_attr(not(feature = "search"), allow(dead_code))]
    Deferred,
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

    /// The names of the tools, closest to `name` first (for "did you mean").
    pub fn closest_names(&self, name: &str) -> Vec<&str> {
        self.closest_names_for(None, name)
    }

    /// [`Registry::closest_names`] among the tools `ctx`'s caller is offered.
    fn closest_names_for(&self, ctx: Option<&Context>, name: &str) -> Vec<&str> {
        let mut names: Vec<(f64, &str)> = self
            .by_name
            .iter()
            .filter(|&(_, &index)| self.offered(ctx, self.tools[index].spec()))
            .map(|(candidate, _)| candidate)
            .map(|candidate| {
                (
                    crate::similarity::jaro_winkler(
                        &name.to_lowercase(),
                        &candidate.to_lowercase(),
                    ),
                    candidate.as_str(),
                )
            })
            .collect();
        names.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        names.into_iter().map(|(_, name)| name).collect()
    }

    /// Overrides settings of the tool named `tool` (each set one replaces the registry's
    /// for that tool; settings configured earlier stay unless replaced).
    ///
    /// # Panics
    ///
    /// When no tool has that name (a typo would otherwise configure nothing, silently):
    /// the message names the closest tool. Register the tool first, or use
    /// [`Registry::try_configure`].
    #[track_caller]
    pub fn configure(mut self, tool: &str, settings: ToolSettings) -> Self {
        if let Err(error) = self.try_configure(tool, settings) {
            panic!("{error}");
        }
        self
    }

    /// [`Registry::configure`], returning an unknown name as an error.
    pub fn try_configure(
        &mut self,
        tool: &str,
        settings: ToolSettings,
    ) -> Result<(), RegistryError> {
        if !self.by_name.contains_key(tool) {
            return Err(self.unknown(tool));
        }
        let merged = match self.settings.per_tool.remove(tool) {
            Some(existing) => existing.merged(settings),
            None => settings,
        };
        self.settings.per_tool.insert(tool.to_owned(), merged);
        Ok(())
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

    /// The overrides of the tool named `tool`, if any.
    pub(crate) fn tool_settings(&self, tool: &str) -> Option<&ToolSettings> {
        let per_tool = &self.settings.per_tool;
        if per_tool.is_empty() {
            None
        } else {
            per_tool.get(tool)
        }
    }

    /// Sets the budget of every tool's model-facing output.
    pub fn with_output_budget(mut self, budget: OutputBudget) -> Self {
        self.settings.budget = budget;
        self
    }

    /// Sets where full outputs go when the model's view is cut.
    pub fn with_artifact_store(mut self, store: impl ArtifactStore + 'static) -> Self {
        self.settings.artifacts = Arc::new(store);
        self
    }

    /// Sets a time limit for every call; a call past it gets a `timeout` result.
    ///
    /// The limit ends an `async` tool at its next `.await` past the limit. A synchronous
    /// tool holds its thread until it returns and cannot be cut short: give long work an
    /// `async` tool (or `spawn_blocking` inside one).
    #[cfg(feature = "tokio")]
    pub fn with_timeout(mut self, limit: Duration) -> Self {
        self.settings.timeout = Some(limit);
        self
    }

    /// Repairs two common shapes of arguments instead of rejecting them: a JSON object
    /// sent as a string (`"{\"a\": 1}"`), and `null` or an empty string for a tool with
    /// no parameters. Each repair is logged (`tracing`, at warn) and listed in the
    /// result's `repairs`. Off by default.
    pub fn repair_arguments(mut self, repair: bool) -> Self {
        self.settings.repair = repair;
        self
    }

    /// Replaces the policy every call goes through (default: [`EffectPolicy`](crate::policy::EffectPolicy), the effect
    /// table: `read_only` and `write` run, `destructive` and `external` ask).
    pub fn with_policy(mut self, policy: impl Policy + 'static) -> Self {
        self.settings.policy = Arc::new(policy);
        self
    }

    /// Sets where idempotency keys and spent approval tickets are kept (default: in
    /// memory), keeping the lease, retention and wait times.
    pub fn with_idempotency_store(mut self, store: impl IdempotencyStore + 'static) -> Self {
        self.settings.idempotency.store = Arc::new(store);
        self
    }

    /// Sets the idempotency store and the times that bound a claim (lease, retention,
    /// wait); see [`Idempotency`].
    pub fn with_idempotency(mut self, idempotency: Idempotency) -> Self {
        self.settings.idempotency = idempotency;
        self
    }

    /// Signs approval tickets with `secret` (HMAC-SHA256). Replicas that resume each
    /// other's tickets share the secret (and an idempotency store, so a ticket is spent
    /// once across them). Without one, each registry draws a random secret at start-up:
    /// its tickets are refused after a restart and by other replicas. Use at least 32
    /// random bytes, kept like a password.
    pub fn with_approval_secret(mut self, secret: impl AsRef<[u8]>) -> Self {
        self.settings.approvals = self.settings.approvals.with_secret(secret.as_ref());
        self
    }

    /// How long an approval ticket is accepted after it is issued (default 24 hours).
    pub fn with_approval_lifetime(mut self, lifetime: Duration) -> Self {
        self.settings.approvals.lifetime = lifetime;
        self
    }

    /// Reports every tool start and finish to `observer` (for logs, traces, tests).
    pub fn with_observer(mut self, observer: impl Fn(&Event) + Send + Sync + 'static) -> Self {
        self.settings.observer = Some(Arc::new(observer));
        self
    }

    /// What each call's `execute_tool` span records beyond the conventions' required
    /// attributes: descriptions, arguments and results are off by default (see
    /// [`Telemetry`](crate::Telemetry)).
    pub fn with_telemetry(mut self, telemetry: crate::Telemetry) -> Self {
        self.settings.telemetry = telemetry;
        self
    }

    /// Offers each caller only the tools `visible` allows, decided per call from the
    /// context (its [`Caller`](crate::policy::Caller), a step counter of yours, ...):
    /// [`Registry::definitions_for`] lists only those, MCP's `tools/list` follows it for
    /// each client, and a call to a tool not offered is `unknown_tool`, as if it did not
    /// exist (it is not named among the suggestions either).
    /// [`policy::caller_holds_scopes`](crate::policy::caller_holds_scopes) is the ready
    /// rule: hide the tools whose scopes the caller lacks.
    pub fn with_visibility(
        mut self,
        visible: impl Fn(&Context, &ToolSpec) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.settings.visibility = Some(Arc::new(visible));
        self
    }

    /// Whether a visibility rule decides per caller what is offered.
    pub fn has_visibility(&self) -> bool {
        self.settings.visibility.is_some()
    }

    /// Whether some caller is offered fewer tools than are registered: a visibility rule,
    /// or a tool turned off.
    pub(crate) fn filters(&self) -> bool {
        #[cfg(feature = "search")]
        if self.deferred.is_some() {
            return true;
        }
        self.has_visibility() || self.switches.any_off()
    }

    /// Shows the tools' whole-call examples (`#[tool(example = ...)]`) to providers
    /// without a field for them (OpenAI, Gemini) as an "Examples:" paragraph ending the
    /// description, one call a line. Off by default: it costs tokens on every request.
    /// Anthropic always gets them as `input_examples`, MCP as its schema's `examples`.
    pub fn with_examples_in_descriptions(mut self) -> Self {
        self.settings.examples_in_descriptions = true;
        self
    }

    /// Sets how many read-only calls of a batch run at once (default 8).
    pub fn with_max_concurrency(mut self, limit: usize) -> Self {
        self.settings.max_concurrency = limit.max(1);
        self
    }

    /// Sets the largest arguments accepted, in bytes of JSON (default 1 MiB).
    pub fn with_max_argument_bytes(mut self, bytes: usize) -> Self {
        self.settings.max_argument_bytes = bytes;
        self
    }
}

impl Registry {
    /// Whether `spec` is offered to the caller in `ctx` (`None`: the harness itself,
    /// which sees every tool a visibility rule would hide; a tool turned off is offered
    /// to no one).
    pub(crate) fn offered(&self, ctx: Option<&Context>, spec: &ToolSpec) -> bool {
        #[cfg(feature = "search")]
        if let (Some(deferred), Some(ctx)) = (&self.deferred, ctx)
            && !deferred.callable(ctx, &spec.name)
        {
            return false;
        }
        self.visible(ctx, spec)
    }

    /// [`Registry::offered`] but for deferral: whether the caller may see the tool at all.
    pub(crate) fn visible(&self, ctx: Option<&Context>, spec: &ToolSpec) -> bool {
        if self.switches.any_off() && !self.is_enabled(&spec.name) {
            return false;
        }
        match (&self.settings.visibility, ctx) {
            (Some(visible), Some(ctx)) => visible(ctx, spec),
            _ => true,
        }
    }

    /// Whether and how `spec` is in the list of definitions `ctx`'s caller is sent in
    /// `dialect`.
    pub(crate) fn listing(
        &self,
        ctx: &Context,
        spec: &ToolSpec,
        dialect: crate::provider::Dialect,
    ) -> Listing {
        if !self.visible(Some(ctx), spec) {
            return Listing::Hidden;
        }
        #[cfg(feature = "search")]
        if let Some(deferred) = &self.deferred {
            return deferred.listed(ctx, &spec.name, dialect);
        }
        let _ = dialect;
        Listing::Shown
    }

    /// The tool `name`, as the caller in `ctx` sees the registry: a tool it is not
    /// offered is unknown, and is never suggested.
    pub(crate) fn lookup(&self, ctx: Option<&Context>, name: &str) -> Result<&dyn Tool, ToolError> {
        if let Some(tool) = self.get(name)
            && self.offered(ctx, tool.spec())
        {
            return Ok(tool);
        }
        let shown: Cow<'_, str> = if name.chars().count() > 64 {
            format!("{}...", name.chars().take(64).collect::<String>()).into()
        } else {
            name.into()
        };
        let names = self.closest_names_for(ctx, name);
        let closest = names
            .first()
            .copied()
            .filter(|close| crate::similarity::jaro_winkler(name, close) > 0.7);
        let message = match closest {
            Some(close) => format!("there is no tool named '{shown}'; did you mean '{close}'?"),
            None => format!("there is no tool named '{shown}'"),
        };
        let listed: Vec<&str> = names.iter().copied().take(20).collect();
        let more = names.len().saturating_sub(listed.len());
        let hint = if names.is_empty() {
            "no tools are available".to_owned()
        } else if more > 0 {
            format!(
                "available tools, closest first: {} (and {more} more)",
                listed.join(", ")
            )
        } else {
            format!("available tools, closest first: {}", listed.join(", "))
        };
        Err(ToolError::new(ErrorKind::UnknownTool, message).with_hint(hint))
    }
}
