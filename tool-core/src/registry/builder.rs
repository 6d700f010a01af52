//! Configuring a registry before it serves: its tools, the settings of each and of all,
//! and what each caller is offered. [`RegistryBuilder::build`] checks everything at
//! once and resolves each tool's settings into its entry.

use std::sync::Arc;
use std::time::Duration;

use rustc_hash::FxHashMap;

use super::settings::Settings;
use super::toolset::{Respecified, check_examples};
use super::{
    Building, Entry, Extension, Registry, RegistryError, RegistryErrors, Resolved, ToolSettings,
};
use crate::context::Context;
use crate::event::Event;
use crate::idempotency::Idempotency;
use crate::output::ArtifactStore;
use crate::spec::{Callers, TaskSupport, ToolSpec};
use crate::tool::Tool;

/// A registry being configured: [`Registry::builder`], then tools and settings, then
/// [`build`](RegistryBuilder::build).
///
/// Nothing here panics or fails on its own: every problem (two tools with one name, an
/// example the tool would refuse, settings for a tool that does not exist) is kept and
/// reported by `build`, all of them at once.
///
/// ```
/// # use std::time::Duration;
/// # use toolwright::{tool, Registry, ToolSettings};
/// # use toolwright::policy::AllowAll;
/// /// Read a sensor.
/// #[tool(effect = "read_only")]
/// fn read_sensor() -> u32 { 7 }
///
/// let registry = Registry::builder()
///     .with(ReadSensor)
///     .defaults(ToolSettings::new().policy(AllowAll))
///     .with_max_concurrency(4)
///     .build()
///     .unwrap();
/// assert_eq!(registry.len(), 1);
/// ```
#[must_use = "a builder does nothing until `build` is called"]
pub struct RegistryBuilder {
    tools: Vec<Pending>,
    by_name: FxHashMap<String, usize>,
    pub(super) settings: Settings,
    per_tool: Vec<(String, ToolSettings)>,
    toggles: bool,
    errors: Vec<RegistryError>,
    /// The extensions: the ones every registry holds (`crate::standing_extensions`),
    /// then the ones added; their built-in tools are made at `build` over the tools
    /// added ([`Extension::build`]).
    extensions: Vec<Box<dyn Extension>>,
    /// The tool sets per model ([`RegistryBuilder::offer_only_to`]).
    pub(super) model_rules: super::models::ModelRules,
}

/// A tool added, not yet built into an entry.
struct Pending {
    tool: Arc<dyn Tool>,
    origin: Arc<str>,
    /// The index of the extension whose built-in it is.
    builtin: Option<usize>,
    /// The settings its set gives every tool of the set ([`Toolset::settings`](super::Toolset::settings)).
    set_settings: Option<ToolSettings>,
    /// Asks its set whether it gives way to a later tool of its name.
    give_way: Option<GiveWay>,
}

/// A set's answer to whether its tool `name` gives way to `holder`.
type GiveWay = Arc<dyn Fn(&str, &str) -> bool + Send + Sync>;

impl RegistryBuilder {
    pub(super) fn new() -> Self {
        Self {
            tools: Vec::new(),
            by_name: FxHashMap::default(),
            settings: Settings::default(),
            per_tool: Vec::new(),
            toggles: false,
            errors: Vec::new(),
            extensions: crate::standing_extensions(),
            model_rules: Default::default(),
        }
    }

    /// Adds a tool. Another tool with the same name is an error `build` reports: two
    /// tools a model cannot tell apart are a bug to fix before start-up.
    pub fn with(self, tool: impl Tool) -> Self {
        // The one generic line: the rest is compiled once, whatever the tool.
        let origin = std::any::type_name_of_val(&tool);
        self.with_one(Arc::new(tool), origin)
    }

    /// Adds a shared tool (built at run time, or shared between registries).
    pub fn with_arc(self, tool: Arc<dyn Tool>) -> Self {
        self.with_one(tool, "RegistryBuilder::with_arc")
    }

    fn with_one(self, tool: Arc<dyn Tool>, origin: &str) -> Self {
        self.with_from(vec![tool], None, origin, None)
    }

    /// Adds every tool of a service (`#[toolset]`); if any of them cannot join, none
    /// does.
    pub fn with_toolset<T: super::Toolset>(self, toolset: Arc<T>) -> Self {
        let origin = toolset.origin();
        self.with_set(toolset, None, &origin)
    }

    /// [`RegistryBuilder::with_toolset`] with every tool's name prefixed: `prefix` `_`
    /// name (`github` and `create_issue` give `github_create_issue`), for combining
    /// services whose tool names would collide or need their origin shown.
    pub fn with_toolset_prefixed<T: super::Toolset>(self, prefix: &str, toolset: Arc<T>) -> Self {
        let origin = format!("{} prefixed '{prefix}'", toolset.origin());
        self.with_set(toolset, Some(prefix), &origin)
    }

    /// Adds a set's tools under `prefix`, with its settings and its tools that give way.
    fn with_set<T: super::Toolset>(
        self,
        toolset: Arc<T>,
        prefix: Option<&str>,
        origin: &str,
    ) -> Self {
        let set = toolset.clone();
        let give_way: GiveWay =
            Arc::new(move |name: &str, holder: &str| set.give_way(name, holder));
        let settings = toolset.settings();
        self.with_from(
            toolset.clone().tools(),
            prefix,
            origin,
            Some((give_way, settings)),
        )
    }

    /// Adds `tools` (renamed under `prefix`) if every one of them can join, else keeps
    /// why not: the one copy of the registering code.
    fn with_from(
        mut self,
        tools: Vec<Arc<dyn Tool>>,
        prefix: Option<&str>,
        origin: &str,
        set: Option<(GiveWay, Option<ToolSettings>)>,
    ) -> Self {
        let tools: Vec<Arc<dyn Tool>> = match prefix {
            None => tools,
            Some(prefix) => {
                let renamed: Result<Vec<_>, _> = tools
                    .into_iter()
                    .map(|tool| {
                        Respecified::prefixed(prefix, tool)
                            .map(|tool| Arc::new(tool) as Arc<dyn Tool>)
                    })
                    .collect();
                match renamed {
                    Ok(renamed) => renamed,
                    Err(error) => {
                        self.errors.push(error);
                        return self;
                    }
                }
            }
        };
        let before = self.errors.len();
        let mut seen = std::collections::HashSet::new();
        let mut kept = Vec::with_capacity(tools.len());
        let mut yielded = Vec::new();
        for tool in tools {
            if let Err(error) = check_examples(&*tool) {
                self.errors.push(error);
            }
            let name = &tool.spec().name;
            if let Some(&index) = self.by_name.get(name) {
                if let Some((give_way, _)) = &set
                    && give_way(name, &self.tools[index].origin)
                {
                    continue;
                }
                if let Some(holder) = self.tools[index].give_way.clone()
                    && holder(name, origin)
                {
                    // The stranger's tool that held the name makes room.
                    yielded.push(index);
                    kept.push(tool);
                    continue;
                }
                self.errors.push(RegistryError::DuplicateName {
                    name: name.clone(),
                    first: self.tools[index].origin.to_string(),
                    second: origin.to_owned(),
                });
            } else if !seen.insert(name.clone()) {
                self.errors.push(RegistryError::DuplicateName {
                    name: name.clone(),
                    first: origin.to_owned(),
                    second: origin.to_owned(),
                });
            }
            kept.push(tool);
        }
        if self.errors.len() == before {
            let origin: Arc<str> = origin.into();
            let (give_way, set_settings) = match set {
                Some((give_way, settings)) => (Some(give_way), settings),
                None => (None, None),
            };
            for tool in kept {
                let pending = Pending {
                    tool,
                    origin: origin.clone(),
                    builtin: None,
                    set_settings: set_settings.clone(),
                    give_way: give_way.clone(),
                };
                match self.by_name.get(&pending.tool.spec().name) {
                    Some(&index) if yielded.contains(&index) => self.tools[index] = pending,
                    _ => self.push_pending(pending),
                }
            }
        }
        self
    }

    /// Adds a tool whose name is known to be free.
    fn push(&mut self, tool: Arc<dyn Tool>, origin: Arc<str>, builtin: Option<usize>) {
        self.push_pending(Pending {
            tool,
            origin,
            builtin,
            set_settings: None,
            give_way: None,
        });
    }

    fn push_pending(&mut self, pending: Pending) {
        self.by_name
            .insert(pending.tool.spec().name.clone(), self.tools.len());
        self.tools.push(pending);
    }

    /// Settings of the tool named `tool`, each set one replacing the defaults for it
    /// (settings configured earlier stay unless replaced). A name no tool has is an
    /// error `build` reports, naming the closest tool: a typo would otherwise configure
    /// nothing, silently.
    pub fn configure(mut self, tool: &str, settings: ToolSettings) -> Self {
        self.per_tool.push((tool.to_owned(), settings));
        self
    }

    /// The settings of every tool (budget, timeout, policy, retries), unless its own
    /// ([`RegistryBuilder::configure`]) say otherwise. Each set one replaces the one set
    /// before.
    pub fn defaults(mut self, settings: ToolSettings) -> Self {
        self.settings.defaults = std::mem::take(&mut self.settings.defaults).merged(settings);
        self
    }

    /// Sets where full outputs go when the model's view is cut (default: a directory
    /// `toolwright-artifacts` in the system's temporary directory).
    pub fn with_artifact_store(mut self, store: impl ArtifactStore + 'static) -> Self {
        self.settings.artifacts = Arc::new(store);
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

    /// Sets where idempotency keys and spent approval tickets are kept (default: in
    /// memory) and the times that bound a claim (lease, retention, wait):
    /// `with_idempotency(Idempotency::new(store))` keeps the default times. See
    /// [`Idempotency`].
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

    /// Sets the largest arguments accepted, in bytes of JSON (default 1 MiB): the bytes
    /// as sent, where they came as text (OpenAI's arguments, an MCP request: a message
    /// within the limit is not measured again); parsed ones (Anthropic, Gemini) are
    /// counted as compact JSON, stopping at the limit. Larger ones are an
    /// `invalid_arguments` result the model can read, before anything else is done.
    pub fn with_max_argument_bytes(mut self, bytes: usize) -> Self {
        self.settings.max_argument_bytes = bytes;
        self
    }

    /// Offers each caller only the tools `visible` allows, decided per call from the
    /// context (its [`Caller`](crate::policy::Caller), a step counter of yours, ...):
    /// [`Registry::definitions`] lists only those, MCP's `tools/list` follows it for
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

    /// Records each call the registry answers in the context's
    /// [`RunHistory`](crate::final_result::RunHistory), when the context holds one (one
    /// per run). A registry with a final result
    /// ([`with_final_result`](Self::with_final_result)) does so already: its check reads
    /// the history. Without either, no call pays for it.
    pub fn with_run_history(mut self) -> Self {
        self.settings.run_history = true;
        self
    }

    /// Lets [`Registry::set_enabled`] turn tools off and on while the registry serves.
    /// Declared up front because it changes what clients are told: an MCP server then
    /// advertises `tools.listChanged`, notifies its clients of each change, and marks its
    /// tools list as not to be cached (`ttlMs: 0`, unless
    /// [`with_tools_ttl`](crate::mcp::McpServer::with_tools_ttl) says otherwise).
    pub fn with_runtime_toggles(mut self) -> Self {
        self.toggles = true;
        self
    }

    /// Adds an extension; its built-in tool is made at `build`.
    #[allow(dead_code)] // called by the extensions the features build
    pub(crate) fn with_extension(mut self, extension: Box<dyn Extension>) -> Self {
        self.extensions.push(extension);
        self
    }

    /// The extension of type `E`, added now if the builder has none: its module's
    /// builder methods configure it.
    #[allow(dead_code)] // called by the extensions the features build
    pub(crate) fn extension_mut<E: Extension + Default>(&mut self) -> &mut E {
        let held = self.extensions.iter().position(|extension| {
            let any: &dyn std::any::Any = &**extension;
            any.is::<E>()
        });
        let index = held.unwrap_or_else(|| {
            self.extensions.push(Box::new(E::default()));
            self.extensions.len() - 1
        });
        let any: &mut dyn std::any::Any = &mut *self.extensions[index];
        any.downcast_mut::<E>()
            .expect("the extension found by its type")
    }

    /// The registry, or every problem its configuration has.
    pub fn build(mut self) -> Result<Registry, RegistryErrors> {
        self.give_declared();
        let extensions = self.build_extensions();
        let mut own: Vec<Option<ToolSettings>> = self
            .tools
            .iter_mut()
            .map(|pending| pending.set_settings.take())
            .collect();
        for (name, settings) in std::mem::take(&mut self.per_tool) {
            match self.by_name.get(&name) {
                Some(&index) => {
                    own[index] = Some(match own[index].take() {
                        Some(existing) => existing.merged(settings),
                        None => settings,
                    });
                }
                None => {
                    let error = self.unknown(&name);
                    self.errors.push(error);
                }
            }
        }
        let unknown: Vec<RegistryError> = (self.model_rules.tools())
            .filter(|name| !self.by_name.contains_key(*name))
            .map(|name| self.unknown(name))
            .collect();
        self.errors.extend(unknown);
        if !self.errors.is_empty() {
            return Err(RegistryErrors(self.errors));
        }
        let programs_only = self.tools.iter().any(|pending| {
            let spec = pending.tool.spec();
            spec.callers.resolved(spec.effect) == crate::spec::Callers::Code
        });
        let defaults = &self.settings.defaults;
        let entries = self
            .tools
            .into_iter()
            .zip(own)
            .map(|(pending, own)| Entry {
                source: pending.tool.source(),
                tool: pending.tool,
                settings: Resolved::of(defaults, own.as_ref()),
                builtin: pending.builtin,
            })
            .collect::<Vec<_>>();
        let mut switches = super::enabled::Switches::new(entries.len());
        switches.toggles = self.toggles;
        let per_caller = self.settings.visibility.is_some()
            || self.model_rules.any()
            || programs_only
            || extensions.iter().any(|extension| extension.filters());
        let registry = Registry {
            entries,
            by_name: self.by_name,
            switches,
            settings: self.settings,
            rendered: Default::default(),
            lowered: Default::default(),
            extensions,
            programs_only,
            model_rules: self.model_rules,
            per_caller,
        };
        let errors: Vec<RegistryError> = (registry.extensions())
            .filter_map(|extension| extension.built(&registry).err())
            .collect();
        if !errors.is_empty() {
            return Err(RegistryErrors(errors));
        }
        Ok(registry)
    }

    /// Gives each tool what its settings say of its contract
    /// ([`ToolSettings::callers`], [`ToolSettings::hosted_code`],
    /// [`ToolSettings::stream_input`], [`ToolSettings::task`]):
    /// one tool's `configure` replaces what it declares; its set's settings and the
    /// defaults apply where it declares nothing. Before the built-ins are made, so
    /// `run_code`'s stubs see them as every listing and the dispatcher do.
    fn give_declared(&mut self) {
        let mut own: FxHashMap<&str, ToolSettings> = FxHashMap::default();
        for (name, settings) in &self.per_tool {
            let given = own.entry(name.as_str()).or_default();
            *given = std::mem::take(given).merged(settings.clone());
        }
        let defaults = &self.settings.defaults;
        for pending in self.tools.iter_mut().filter(|p| p.builtin.is_none()) {
            let spec = pending.tool.spec();
            let set = pending.set_settings.as_ref();
            let own = own.get(spec.name.as_str());
            // The tool's own setting, else (where the tool declares nothing) its set's,
            // else the defaults'.
            fn pick<T: Copy>(
                own: Option<&ToolSettings>,
                undeclared: bool,
                set: Option<&ToolSettings>,
                defaults: &ToolSettings,
                of: fn(&ToolSettings) -> Option<T>,
            ) -> Option<T> {
                own.and_then(of).or_else(|| {
                    undeclared
                        .then(|| set.and_then(of).or_else(|| of(defaults)))
                        .flatten()
                })
            }
            let callers = pick(
                own,
                spec.callers == Callers::Undeclared,
                set,
                defaults,
                |s| s.callers,
            )
            .unwrap_or(spec.callers);
            let hosted_code = pick(own, !spec.hosted_code, set, defaults, |s| s.hosted_code)
                .unwrap_or(spec.hosted_code);
            let stream_input = pick(own, !spec.stream_input, set, defaults, |s| s.stream_input)
                .unwrap_or(spec.stream_input);
            let task = pick(
                own,
                spec.task == TaskSupport::Forbidden,
                set,
                defaults,
                |s| s.task,
            )
            .unwrap_or(spec.task);
            let declared = (spec.callers, spec.hosted_code, spec.stream_input, spec.task);
            if (callers, hosted_code, stream_input, task) != declared {
                let spec = spec
                    .clone()
                    .with_callers(callers)
                    .with_hosted_code(hosted_code)
                    .with_stream_input(stream_input)
                    .with_task(task);
                pending.tool = Arc::new(Respecified::new(pending.tool.clone(), spec));
            }
        }
    }

    /// Builds each extension over the tools added (not other built-ins), adding its
    /// built-in tool, and keeping what is wrong.
    fn build_extensions(&mut self) -> Vec<Box<dyn Extension>> {
        let mut extensions = std::mem::take(&mut self.extensions);
        for (index, extension) in extensions.iter_mut().enumerate() {
            let (built, errors) = {
                let unknown =
                    |name: &str| (!self.by_name.contains_key(name)).then(|| self.unknown(name));
                let mut building = Building {
                    specs: (self.tools.iter())
                        .filter(|pending| pending.builtin.is_none())
                        .map(|pending| pending.tool.spec())
                        .collect(),
                    errors: Vec::new(),
                    unknown: &unknown,
                };
                let built = extension.build(&mut building);
                (built, building.errors)
            };
            self.errors.extend(errors);
            let Some(built) = built else { continue };
            let origin = extension.origin();
            let name = built.tool.spec().name.clone();
            if let Some(&existing) = self.by_name.get(&name) {
                self.errors.push(RegistryError::DuplicateName {
                    name,
                    first: self.tools[existing].origin.to_string(),
                    second: origin.to_owned(),
                });
                continue;
            }
            // Its own settings come first: `configure` may replace them.
            self.per_tool.insert(0, (name, built.settings));
            self.push(built.tool, origin.into(), Some(index));
        }
        extensions
    }

    /// The error for a name no tool has, naming the closest one.
    fn unknown(&self, name: &str) -> RegistryError {
        let names = self.by_name.keys().map(String::as_str);
        let closest = crate::similarity::closest_first(name, names);
        RegistryError::unknown(name, closest.first().copied())
    }
}
