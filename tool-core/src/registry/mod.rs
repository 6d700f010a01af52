//! `Registry`: the table of tools an agent offers, each entry with its settings
//! resolved, built once (`builder.rs`) and then served. What each caller is offered
//! (visibility, lookup, suggestions) is in `offered.rs`; turning tools off and on in
//! `enabled.rs`; the definitions each dialect is sent in `definitions.rs`; settings in
//! `settings.rs`; toolsets in `toolset.rs`; the tool sets per model family in
//! `models.rs`; the trait extensions plug in through in
//! `extension.rs` (search and code mode are extensions, above this module, and the
//! registry knows neither). The call pipeline on top of it is `crate::dispatch`.

mod builder;
mod definitions;
mod enabled;
mod errors;
pub(crate) mod extension;
mod lint;
mod models;
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
pub use builder::RegistryBuilder;
pub use errors::{RegistryError, RegistryErrors};
use extension::{Building, Extension};

pub(crate) use settings::{Resolved, Settings};
pub use settings::{Retry, ToolSettings};
pub use toolset::Toolset;

/// The tools an agent offers. Build it once at start-up ([`Registry::builder`]), check
/// it ([`Registry::check_context`]), then [`dispatch`](Registry::dispatch) every call the
/// model makes through it.
///
/// ```
/// # use toolwright::{tool, Registry};
/// /// Say hello.
/// #[tool(effect = "read_only")]
/// fn hello(name: String) -> String { format!("Hello, {name}!") }
///
/// let registry = Registry::builder().with(Hello).build().unwrap();
/// assert_eq!(registry.get("hello").unwrap().spec().name, "hello");
/// ```
pub struct Registry {
    /// The tools, in registration order, each with what its calls go through.
    entries: Vec<Entry>,
    /// Names come from the model, but only as lookups into a table of our own names, so
    /// a fast non-cryptographic hash is safe here.
    by_name: FxHashMap<String, usize>,
    /// Which tools are on (`set_enabled`).
    switches: enabled::Switches,
    pub(crate) settings: Settings,
    /// Definitions rendered once per dialect (specs do not change once built).
    rendered: definitions::Rendered,
    /// Arguments schemas as each dialect lowers them, once asked for.
    lowered: definitions::Lowered,
    /// The extensions (`RegistryBuilder::with_tool_search`, `with_code_mode`, ...), in the
    /// order they were added; an entry's `builtin` indexes them.
    extensions: Vec<Box<dyn Extension>>,
    /// Whether some tool's contract offers it to programs only
    /// ([`Callers::Code`](crate::spec::Callers::Code): `run_code`'s, or the provider's
    /// hosted code where the tool declares `hosted_code`), so it is not listed as a tool
    /// of the model's own. A fact of the specs, read by every listing; no extension's.
    programs_only: bool,
    /// The tool sets per model ([`RegistryBuilder::offer_only_to`]).
    model_rules: models::ModelRules,
    /// Whether something other than a switch decides per caller what it is offered (a
    /// visibility rule, per-model sets, program-only tools, an extension that filters):
    /// fixed at build, so a call to a registry with none is offered without asking.
    per_caller: bool,
}

/// One registered tool and what its calls go through, resolved when the registry was
/// built: the dispatcher reads it from the entry it looked up, never by name again.
pub(crate) struct Entry {
    pub(crate) tool: Arc<dyn Tool>,
    /// The registry's defaults with the tool's own overrides.
    pub(crate) settings: Resolved,
    /// For an extension's built-in tool (`search_tools`, `run_code`), the extension
    /// that runs it in place of [`Tool::run`]: its index in the registry's list.
    pub(crate) builtin: Option<usize>,
    /// [`Tool::source`], asked once: every result of the tool carries it.
    pub(crate) source: Option<Arc<str>>,
}

/// Context values the registry's tools need and the context lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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

impl Registry {
    /// A registry to configure: add tools and settings, then
    /// [`build`](RegistryBuilder::build) it, which reports every problem at once.
    pub fn builder() -> RegistryBuilder {
        RegistryBuilder::new()
    }

    /// The tool named `name`.
    #[inline]
    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.entry(name).map(|entry| &*entry.tool)
    }

    /// The entry of the tool named `name`.
    #[inline]
    pub(crate) fn entry(&self, name: &str) -> Option<&Entry> {
        self.by_name.get(name).map(|&index| &self.entries[index])
    }

    /// Where the tool named `name` was registered.
    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// The entry registered `index`-th.
    pub(crate) fn entry_at(&self, index: usize) -> &Entry {
        &self.entries[index]
    }

    /// Every tool, in registration order.
    pub fn tools(&self) -> impl Iterator<Item = &dyn Tool> {
        self.entries.iter().map(|entry| &*entry.tool)
    }

    /// Every tool's spec, in registration order (the order the model is shown).
    pub fn specs(&self) -> impl Iterator<Item = &ToolSpec> {
        self.tools().map(Tool::spec)
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
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

    /// Whether `name` is a built-in that resumes tickets of its own (a paused program's
    /// `run_code`): a retry of it may carry a ticket for another tool's call.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    pub(crate) fn resumes_own_tickets(&self, name: &str) -> bool {
        self.entry(name)
            .and_then(|entry| self.extension_of(entry))
            .is_some_and(|extension| extension.issues_tickets())
    }

    /// The extension that runs `entry`'s built-in tool, if it is one.
    #[inline]
    pub(crate) fn extension_of(&self, entry: &Entry) -> Option<&dyn Extension> {
        entry.builtin.map(|index| &*self.extensions[index])
    }

    /// The extensions, in the order they were added.
    pub(crate) fn extensions(&self) -> impl Iterator<Item = &dyn Extension> {
        self.extensions.iter().map(|extension| &**extension)
    }

    /// The extension of type `E`, for the module that defines it.
    #[allow(dead_code)] // read by the extensions the features build
    pub(crate) fn extension<E: Extension>(&self) -> Option<&E> {
        self.extensions().find_map(|extension| {
            let any: &dyn std::any::Any = extension;
            any.downcast_ref::<E>()
        })
    }

    /// The error for a name the registry lacks, naming the closest one.
    pub(crate) fn unknown(&self, name: &str) -> RegistryError {
        RegistryError::unknown(name, self.closest_names(name).first().copied())
    }
}
