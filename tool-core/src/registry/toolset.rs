//! Tools that are methods of one service value (`#[toolset]` on an `impl` block), a tool
//! with another spec than its own (its name under a prefix, `github_create_issue`; the
//! callers its settings give it), and the check of every tool's examples before it
//! joins.

use std::sync::Arc;

use crate::context::{Context, ContextType};
use crate::error::ToolError;
use crate::spec::ToolSpec;
use crate::tool::{Arguments, CallInfo, Prepared, Tool, ToolFuture};

use super::RegistryError;

/// A service whose methods are tools. `#[toolset]` on an `impl Service` block implements
/// it: each `#[tool]` method becomes a tool that holds the shared service and calls the
/// method on it.
///
/// ```
/// use std::sync::Arc;
/// use toolwright::{Registry, tool, toolset};
///
/// struct Counter { start: u32 }
///
/// #[toolset]
/// impl Counter {
///     /// Count up from the counter's start.
///     #[tool(effect = "read_only")]
///     fn count(&self, /** How many steps. */ steps: u32) -> u32 {
///         self.start + steps
///     }
/// }
///
/// let registry = Registry::builder()
///     .with_toolset(Arc::new(Counter { start: 40 }))
///     .build()
///     .unwrap();
/// assert!(registry.get("count").is_some());
/// ```
pub trait Toolset: Send + Sync + 'static {
    /// The service's tools, each holding a clone of `self`.
    fn tools(self: Arc<Self>) -> Vec<Arc<dyn Tool>>;

    /// Where the tools come from, as errors name it (two tools with one name: both
    /// origins): the service's type, unless the toolset knows better (an MCP server's
    /// name and address).
    fn origin(&self) -> String {
        format!("toolset {}", std::any::type_name::<Self>())
    }

    /// Whether the tool `name` of this set gives way when the name is already taken in
    /// the registry (`holder` says by whom): it is left out (the set is told, through this
    /// call) instead of the build failing. A stranger's tools give way (an MCP server's:
    /// one server's problem never removes another's tool, nor a local one); by default a
    /// set's tools do not, and the collision is an error of the build.
    fn give_way(&self, name: &str, holder: &str) -> bool {
        let _ = (name, holder);
        false
    }

    /// Settings for every tool of the set (a policy for a whole server, say), before the
    /// registry's [`configure`](super::RegistryBuilder::configure) for one tool, which
    /// takes precedence; `None` by default.
    fn settings(&self) -> Option<super::ToolSettings> {
        None
    }
}

/// Every example of the tool is a call it accepts: read as one, without running it.
pub(super) fn check_examples(tool: &dyn Tool) -> Result<(), RegistryError> {
    for (index, example) in tool.spec().examples.iter().enumerate() {
        if let Err(error) = tool.prepare(Arguments::Value(example)) {
            let mut problems = error.message;
            for problem in &error.problems {
                problems.push_str(&format!("; {}: {}", problem.path, problem.message));
            }
            return Err(RegistryError::InvalidExample {
                tool: tool.spec().name.clone(),
                example: index + 1,
                problems,
            });
        }
    }
    Ok(())
}

/// A tool with another spec (a name under a prefix, other callers); everything else is
/// the tool's own.
pub(super) struct Respecified {
    inner: Arc<dyn Tool>,
    spec: ToolSpec,
}

impl Respecified {
    /// `inner` under `prefix_<name>`.
    pub(super) fn prefixed(prefix: &str, inner: Arc<dyn Tool>) -> Result<Self, RegistryError> {
        let mut spec = inner.spec().clone();
        spec.name = format!("{prefix}_{}", spec.name);
        if !crate::spec::is_valid_tool_name(&spec.name) {
            return Err(RegistryError::InvalidName {
                name: spec.name,
                reason: "a tool name must match ^[A-Za-z_][A-Za-z0-9_-]{0,63}$ for every provider to accept it: use a shorter prefix of letters, digits, '_' or '-'",
            });
        }
        Ok(Self { inner, spec })
    }

    /// `inner` with `spec` (the same name) in place of its own.
    pub(super) fn new(inner: Arc<dyn Tool>, spec: ToolSpec) -> Self {
        Self { inner, spec }
    }
}

impl Tool for Respecified {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn context_types(&self) -> Vec<ContextType> {
        self.inner.context_types()
    }

    fn prepare(&self, args: Arguments<'_>) -> Result<Prepared, ToolError> {
        self.inner.prepare(args)
    }

    fn run<'a>(&'a self, ctx: &'a Context, args: Prepared) -> ToolFuture<'a> {
        self.inner.run(ctx, args)
    }

    fn run_call<'a>(
        &'a self,
        ctx: &'a Context,
        call: CallInfo<'a>,
        args: Prepared,
    ) -> ToolFuture<'a> {
        self.inner.run_call(ctx, call, args)
    }

    fn source(&self) -> Option<Arc<str>> {
        self.inner.source()
    }

    fn hooks(&self) -> Option<&dyn crate::tool::CallHooks> {
        self.inner.hooks()
    }
}
