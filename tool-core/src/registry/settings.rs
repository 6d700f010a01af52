//! What every call goes through, set on the registry: the registry-wide settings, and
//! one tool's own ([`ToolSettings`], names checked by `Registry::configure`).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rustc_hash::FxHashMap;

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
