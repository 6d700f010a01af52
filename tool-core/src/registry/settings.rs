//! What every call goes through, set on the registry: the registry-wide settings and
//! their setters (`Registry::with_*`), and one tool's own ([`ToolSettings`], names
//! checked by `Registry::configure`).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rustc_hash::FxHashMap;

use crate::approval::Approvals;
use crate::event::Event;
use crate::idempotency::{Idempotency, IdempotencyStore};
use crate::output::{ArtifactStore, DirectoryStore, OutputBudget};
use crate::policy::{EffectPolicy, Policy};

use super::{Registry, RegistryError};

/// Receives the scheduler's events.
pub(crate) type Observer = Arc<dyn Fn(&Event) + Send + Sync>;

/// Decides whether a tool is offered to the caller a context holds.
pub(crate) type Visibility =
    Arc<dyn Fn(&crate::context::Context, &crate::spec::ToolSpec) -> bool + Send + Sync>;

/// Per-registry settings, with per-tool overrides.
#[derive(Clone)]
pub(crate) struct Settings {
    pub budget: OutputBudget,
    pub artifacts: Arc<dyn ArtifactStore>,
    pub timeout: Option<Duration>,
    pub repair: bool,
    pub max_argument_bytes: usize,
    pub policy: Arc<dyn Policy>,
    pub idempotency: Idempotency,
    pub approvals: Approvals,
    /// Per-tool overrides, by tool name (names checked when set).
    pub per_tool: FxHashMap<String, ToolSettings>,
    pub observer: Option<Observer>,
    /// Which tools a caller is offered (all of them when unset).
    pub visibility: Option<Visibility>,
    pub max_concurrency: usize,
    pub telemetry: crate::telemetry::Telemetry,
    /// Whole-call examples as a paragraph of the description, for dialects without a
    /// field for them.
    pub examples_in_descriptions: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            budget: OutputBudget::default(),
            artifacts: Arc::new(DirectoryStore::in_temp_dir()),
            timeout: None,
            repair: false,
            max_argument_bytes: 1 << 20,
            policy: Arc::new(EffectPolicy),
            idempotency: Idempotency::default(),
            approvals: Approvals::default(),
            per_tool: FxHashMap::default(),
            observer: None,
            visibility: None,
            max_concurrency: 8,
            telemetry: crate::telemetry::Telemetry::default(),
            examples_in_descriptions: false,
        }
    }
}

/// Settings of one tool, each overriding the registry's: set them with
/// [`Registry::configure`](crate::registry::Registry::configure), which checks the tool's name.
///
/// ```
/// # use std::time::Duration;
/// # use toolwright::{tool, Registry, Retry, ToolSettings};
/// # use toolwright::output::OutputBudget;
/// /// Read a sensor.
/// #[tool(effect = "read_only")]
/// fn read_sensor() -> u32 { 7 }
///
/// let registry = Registry::new().with(ReadSensor).configure(
///     "read_sensor",
///     ToolSettings::new()
///         .budget(OutputBudget::chars(500))
///         .retries(Retry { attempts: 3, backoff: Duration::from_millis(50) }),
/// );
/// ```
#[derive(Clone, Default)]
pub struct ToolSettings {
    pub(crate) budget: Option<OutputBudget>,
    pub(crate) timeout: Option<Duration>,
    pub(crate) policy: Option<Arc<dyn Policy>>,
    pub(crate) retry: Option<Retry>,
}

impl ToolSettings {
    /// No overrides: the registry's settings apply.
    pub fn new() -> Self {
        Self::default()
    }

    /// The budget of this tool's model-facing output.
    pub fn budget(mut self, budget: OutputBudget) -> Self {
        self.budget = Some(budget);
        self
    }

    /// A time limit for this tool's calls (see [`Registry::with_timeout`](crate::registry::Registry::with_timeout)).
    #[cfg(feature = "tokio")]
    pub fn timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }

    /// The policy this tool's calls go through, instead of the registry's.
    pub fn policy(mut self, policy: impl Policy + 'static) -> Self {
        self.policy = Some(Arc::new(policy));
        self
    }

    /// Automatic retries (off by default): see [`Retry`].
    pub fn retries(mut self, retry: Retry) -> Self {
        self.retry = Some(retry);
        self
    }

    /// These settings, with every one `other` sets taking its place.
    pub(super) fn merged(mut self, other: ToolSettings) -> Self {
        self.budget = other.budget.or(self.budget);
        self.timeout = other.timeout.or(self.timeout);
        self.policy = other.policy.or(self.policy);
        self.retry = other.retry.or(self.retry);
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

impl Registry {
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
