//! What every call goes through: the registry-wide settings, one tool's own
//! ([`ToolSettings`], the same value for the defaults of every tool), and both resolved
//! into each entry when the registry is built ([`Resolved`]). The setters are
//! `RegistryBuilder`'s.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::approval::Approvals;
use crate::event::Event;
use crate::idempotency::Idempotency;
use crate::output::{ArtifactStore, DirectoryStore, OutputBudget};
use crate::policy::{EffectPolicy, Policy};

/// Receives the scheduler's events.
pub(crate) type Observer = Arc<dyn Fn(&Event) + Send + Sync>;

/// Decides whether a tool is offered to the caller a context holds.
pub(crate) type Visibility =
    Arc<dyn Fn(&crate::context::Context, &crate::spec::ToolSpec) -> bool + Send + Sync>;

/// Per-registry settings.
#[derive(Clone)]
pub(crate) struct Settings {
    /// Every tool's budget, timeout, policy and retries, unless its own say otherwise.
    pub defaults: ToolSettings,
    pub artifacts: Arc<dyn ArtifactStore>,
    pub repair: bool,
    pub max_argument_bytes: usize,
    pub idempotency: Idempotency,
    pub approvals: Approvals,
    pub observer: Option<Observer>,
    /// Which tools a caller is offered (all of them when unset).
    pub visibility: Option<Visibility>,
    pub max_concurrency: usize,
    pub telemetry: crate::telemetry::Telemetry,
    /// Whole-call examples as a paragraph of the description, for dialects without a
    /// field for them.
    pub examples_in_descriptions: bool,
    /// Whether each call answered is recorded in the context's
    /// [`RunHistory`](crate::final_result::RunHistory), when it holds one.
    pub run_history: bool,
    /// The lint's allowances ([`Registry::lint`](crate::Registry::lint)).
    pub lint: crate::lint::Lint,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            defaults: ToolSettings::default(),
            artifacts: Arc::new(DirectoryStore::in_temp_dir()),
            repair: false,
            max_argument_bytes: 1 << 20,
            idempotency: Idempotency::default(),
            approvals: Approvals::default(),
            observer: None,
            visibility: None,
            max_concurrency: 8,
            telemetry: crate::telemetry::Telemetry::default(),
            examples_in_descriptions: false,
            run_history: false,
            lint: crate::lint::Lint::default(),
        }
    }
}

/// A tool's budget, timeout, policy and retries: for one tool
/// ([`RegistryBuilder::configure`](super::RegistryBuilder::configure), each set one
/// overriding the defaults) or the defaults of every tool
/// ([`RegistryBuilder::defaults`](super::RegistryBuilder::defaults)).
///
/// ```
/// # use std::time::Duration;
/// # use toolwright::{tool, Registry, Retry, ToolSettings};
/// # use toolwright::output::OutputBudget;
/// /// Read a sensor.
/// #[tool(effect = "read_only")]
/// fn read_sensor() -> u32 { 7 }
///
/// let registry = Registry::builder()
///     .with(ReadSensor)
///     .configure(
///         "read_sensor",
///         ToolSettings::new()
///             .budget(OutputBudget::chars(500))
///             .retries(Retry { attempts: 3, backoff: Duration::from_millis(50) }),
///     )
///     .build()
///     .unwrap();
/// ```
#[derive(Clone, Default)]
pub struct ToolSettings {
    pub(crate) budget: Option<OutputBudget>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) policy: Option<Arc<dyn Policy>>,
    pub(crate) retry: Option<Retry>,
    pub(crate) callers: Option<crate::spec::Callers>,
    pub(crate) hosted_code: Option<bool>,
    pub(crate) stream_input: Option<bool>,
    pub(crate) task: Option<crate::spec::TaskSupport>,
}

impl ToolSettings {
    /// Nothing set: the defaults apply (as defaults: a 16,000-character output budget,
    /// no time limit, [`EffectPolicy`], no retries).
    pub fn new() -> Self {
        Self::default()
    }

    /// The budget of the model-facing output.
    pub fn budget(mut self, budget: OutputBudget) -> Self {
        self.budget = Some(budget);
        self
    }

    /// A time limit for each call; a call past it gets a `timeout` result.
    ///
    /// The limit ends an `async` tool at its next `.await` past the limit. A synchronous
    /// tool holds its thread until it returns and cannot be cut short: give long work an
    /// `async` tool (or `spawn_blocking` inside one).
    #[cfg(feature = "tokio")]
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// The policy calls go through (the default: [`EffectPolicy`], the effect table:
    /// `read_only` and `write` run, `destructive` and `external` ask).
    pub fn policy(mut self, policy: impl Policy + 'static) -> Self {
        self.policy = Some(Arc::new(policy));
        self
    }

    /// Automatic retries (off by default): see [`Retry`].
    pub fn retries(mut self, retry: Retry) -> Self {
        self.retry = Some(retry);
        self
    }

    /// Who may call the tool, as `#[tool(callers = ...)]` says, for a tool whose
    /// attribute you cannot write: a hand-written [`Tool`](crate::Tool), an imported MCP
    /// tool (`McpSourceBuilder::settings` gives every tool of a server the same), a tool
    /// of another crate. Given to one tool
    /// ([`configure`](super::RegistryBuilder::configure)), it replaces what the tool
    /// declares; as a default (a toolset's settings, or
    /// [`defaults`](super::RegistryBuilder::defaults)), it applies to the tools that
    /// declare nothing. `run_code`'s stubs, every listing and the dispatcher's check all
    /// see the result: it is the tool's [`ToolSpec::callers`](crate::ToolSpec::callers)
    /// from the build on.
    ///
    /// ```
    /// # use toolwright::{tool, Callers, Registry, ToolSettings, Via};
    /// /// Send a payout to an account.
    /// #[tool(effect = "external")]
    /// fn send_payout(/** The account. */ recipient: String) -> String { recipient }
    ///
    /// let registry = Registry::builder()
    ///     .with(SendPayout)
    ///     .configure("send_payout", ToolSettings::new().callers(Callers::Any))
    ///     .build()
    ///     .unwrap();
    /// assert!(registry.get("send_payout").unwrap().spec().offered_via(Via::Code));
    /// ```
    pub fn callers(mut self, callers: crate::spec::Callers) -> Self {
        self.callers = Some(callers);
        self
    }

    /// Offers the tool to the code a provider runs as well, as `#[tool(hosted_code)]`
    /// does ([`ToolSpec::hosted_code`](crate::ToolSpec::hosted_code): on Anthropic the
    /// tool is then sent without `strict`). Applies as [`callers`](ToolSettings::callers)
    /// does: to one tool, it replaces what the tool declares; as a default, to the tools
    /// that declare nothing.
    pub fn hosted_code(mut self, hosted_code: bool) -> Self {
        self.hosted_code = Some(hosted_code);
        self
    }

    /// Streams the tool's arguments as the model writes them, as `#[tool(stream_input)]`
    /// does ([`ToolSpec::stream_input`](crate::ToolSpec::stream_input): Anthropic's
    /// `eager_input_streaming`). Applies as [`callers`](ToolSettings::callers) does.
    pub fn stream_input(mut self, stream_input: bool) -> Self {
        self.stream_input = Some(stream_input);
        self
    }

    /// Whether the tool's calls may run as tasks, as `#[tool(task = ...)]` says
    /// ([`TaskSupport`](crate::TaskSupport)), for a tool whose attribute you cannot write.
    /// Applies as [`callers`](ToolSettings::callers) does: to one tool, it replaces what
    /// the tool declares; as a default, to the tools that declare nothing.
    ///
    /// ```
    /// # use toolwright::{tool, Registry, TaskSupport, ToolSettings};
    /// /// Build the monthly report.
    /// #[tool(effect = "read_only")]
    /// fn monthly_report(/** The month, as 2026-11. */ month: String) -> String { month }
    ///
    /// let registry = Registry::builder()
    ///     .with(MonthlyReport)
    ///     .configure("monthly_report", ToolSettings::new().task(TaskSupport::Optional))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(registry.get("monthly_report").unwrap().spec().task, TaskSupport::Optional);
    /// ```
    pub fn task(mut self, task: crate::spec::TaskSupport) -> Self {
        self.task = Some(task);
        self
    }

    /// These settings, with every one `other` sets taking its place.
    pub(crate) fn merged(mut self, other: ToolSettings) -> Self {
        self.budget = other.budget.or(self.budget);
        self.timeout = other.timeout.or(self.timeout);
        self.policy = other.policy.or(self.policy);
        self.retry = other.retry.or(self.retry);
        self.callers = other.callers.or(self.callers);
        self.hosted_code = other.hosted_code.or(self.hosted_code);
        self.stream_input = other.stream_input.or(self.stream_input);
        self.task = other.task.or(self.task);
        self
    }
}

impl fmt::Debug for ToolSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolSettings")
            .field("budget", &self.budget)
            .field("timeout", &self.timeout)
            .field("policy", &self.policy.as_ref().map(|_| "custom"))
            .field("retry", &self.retry)
            .field("callers", &self.callers)
            .field("hosted_code", &self.hosted_code)
            .field("stream_input", &self.stream_input)
            .field("task", &self.task)
            .finish()
    }
}

/// Automatic retries of one tool: on a retryable `failed` or `timeout` error, up to
/// `attempts` tries in all, waiting `backoff`, then twice that, and so on. Only read-only
/// and idempotent tools, and external ones (which run with an idempotency key), retry.
/// Set with [`ToolSettings::retries`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// Tries in all, the first included.
    pub attempts: u32,
    /// The first wait.
    pub backoff: Duration,
}

/// What one tool's calls go through, resolved once when the registry is built: the
/// defaults, each replaced by the tool's own where it sets one.
#[derive(Clone)]
pub(crate) struct Resolved {
    pub budget: OutputBudget,
    pub timeout: Option<Duration>,
    pub policy: Arc<dyn Policy>,
    pub retry: Option<Retry>,
}

impl Resolved {
    /// `defaults`, with `own` taking their place where it sets a value.
    pub(crate) fn of(defaults: &ToolSettings, own: Option<&ToolSettings>) -> Self {
        Resolved {
            budget: own
                .and_then(|own| own.budget)
                .or(defaults.budget)
                .unwrap_or_default(),
            timeout: own.and_then(|own| own.timeout).or(defaults.timeout),
            policy: own
                .and_then(|own| own.policy.clone())
                .or_else(|| defaults.policy.clone())
                .unwrap_or_else(|| Arc::new(EffectPolicy)),
            retry: own.and_then(|own| own.retry).or(defaults.retry),
        }
    }
}
