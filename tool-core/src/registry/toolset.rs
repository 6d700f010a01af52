//! Tools that are methods of one service value (`#[toolset]` on an `impl` block), and
//! registering them, optionally under a prefix (`github_create_issue`).

use std::sync::Arc;

use crate::context::{Context, ContextType};
use crate::effect::Effect;
use crate::error::ToolError;
use crate::spec::ToolSpec;
use crate::tool::{Arguments, Prepared, Tool, ToolFuture};

use super::{Registry, RegistryError};

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
/// let registry = Registry::new().with_toolset(Arc::new(Counter { start: 40 }));
/// assert!(registry.get("count").is_some());
/// ```
pub trait Toolset: Send + Sync + 'static {
    /// The service's tools, each holding a clone of `self`.
    fn tools(self: Arc<Self>) -> Vec<Arc<dyn Tool>>;
}

impl Registry {
    /// Adds every tool of a service (`#[toolset]`).
    ///
    /// # Panics
    ///
    /// When a tool's name is taken; the message names both tools' origins. Use
    /// [`Registry::register_toolset`] to handle it yourself.
    #[track_caller]
    pub fn with_toolset<T: Toolset>(mut self, toolset: Arc<T>) -> Self {
        if let Err(error) = self.register_toolset(toolset) {
            panic!("{error}");
        }
        self
    }

    /// [`Registry::with_toolset`] with every tool's name prefixed: `prefix` `_` name
    /// (`github` and `create_issue` give `github_create_issue`), for combining services
    /// whose tool names would collide or need their origin shown.
    ///
    /// # Panics
    ///
    /// When a prefixed name is not a valid tool name or is taken. Use
    /// [`Registry::register_toolset_prefixed`] to handle it yourself.
    #[track_caller]
    pub fn with_toolset_prefixed<T: Toolset>(mut self, prefix: &str, toolset: Arc<T>) -> Self {
        if let Err(error) = self.register_toolset_prefixed(prefix, toolset) {
            panic!("{error}");
        }
        self
    }

    /// Adds every tool of a service; nothing is added if any name is taken.
    pub fn register_toolset<T: Toolset>(&mut self, toolset: Arc<T>) -> Result<(), RegistryError> {
        let origin = format!("toolset {}", std::any::type_name::<T>());
        self.register_all(toolset.tools(), None, &origin)
    }

    /// Adds every tool of a service under `prefix`; nothing is added if any prefixed
    /// name is invalid or taken.
    pub fn register_toolset_prefixed<T: Toolset>(
        &mut self,
        prefix: &str,
        toolset: Arc<T>,
    ) -> Result<(), RegistryError> {
        let origin = format!("toolset {} prefixed '{prefix}'", std::any::type_name::<T>());
        self.register_all(toolset.tools(), Some(prefix), &origin)
    }

    /// Registers `tools` (renamed under `prefix`) only if every one of them can join:
    /// the one copy of the registering code.
    pub(super) fn register_all(
        &mut self,
        tools: Vec<Arc<dyn Tool>>,
        prefix: Option<&str>,
        origin: &str,
    ) -> Result<(), RegistryError> {
        let tools: Vec<Arc<dyn Tool>> = match prefix {
            None => tools,
            Some(prefix) => tools
                .into_iter()
                .map(|tool| Prefixed::new(prefix, tool).map(|tool| Arc::new(tool) as Arc<dyn Tool>))
                .collect::<Result<_, _>>()?,
        };
        let mut seen = std::collections::HashSet::new();
        for tool in &tools {
            check_examples(&**tool)?;
            let name = &tool.spec().name;
            if let Some(first) = self.origin_of(name) {
                return Err(RegistryError::DuplicateName {
                    name: name.clone(),
                    first: first.to_owned(),
                    second: origin.to_owned(),
                });
            }
            if !seen.insert(name.clone()) {
                return Err(RegistryError::DuplicateName {
                    name: name.clone(),
                    first: origin.to_owned(),
                    second: origin.to_owned(),
                });
            }
        }
        for tool in tools {
            self.push(tool, origin.into());
        }
        Ok(())
    }
}

/// Every example of the tool is a call it accepts: read as one, without running it.
fn check_examples(tool: &dyn Tool) -> Result<(), RegistryError> {
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

/// A tool under another name; everything else is the tool's own.
struct Prefixed {
    inner: Arc<dyn Tool>,
    spec: ToolSpec,
}

impl Prefixed {
    fn new(prefix: &str, inner: Arc<dyn Tool>) -> Result<Self, RegistryError> {
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
}

impl Tool for Prefixed {
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

    fn effect_of(&self, args: &Prepared) -> Effect {
        self.inner.effect_of(args)
    }

    fn approval_reason(&self, args: &Prepared) -> Option<String> {
        self.inner.approval_reason(args)
    }

    fn describe_call(&self, args: &Prepared) -> Option<String> {
        self.inner.describe_call(args)
    }

    fn resource_key(&self, args: &Prepared) -> Option<String> {
        self.inner.resource_key(args)
    }
}
