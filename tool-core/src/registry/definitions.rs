//! What the model is shown: every tool's definition in a dialect (rendered by
//! `crate::provider`, kept per dialect), and the ones a caller is offered.

use std::sync::Arc;

use serde_json::Value;

use super::Registry;
use crate::context::Context;
use crate::dialect::Dialect;
use crate::provider::Listing;
use crate::schema::lower::LoweringErrors;

/// Definitions rendered per dialect, kept by a registry.
#[derive(Default)]
pub(super) struct Rendered(std::sync::Mutex<Vec<(Dialect, Arc<RenderedDefinitions>)>>);

type RenderedDefinitions = Result<Arc<Vec<Value>>, LoweringErrors>;

impl Rendered {
    /// The definitions of `dialect`, rendered by `render` the first time.
    fn get_or_render(
        &self,
        dialect: Dialect,
        render: impl FnOnce() -> RenderedDefinitions,
    ) -> Arc<RenderedDefinitions> {
        let mut rendered = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, definitions)) = rendered.iter().find(|(kept, _)| *kept == dialect) {
            return definitions.clone();
        }
        let definitions = Arc::new(render());
        rendered.push((dialect, definitions.clone()));
        definitions
    }
}

/// Each tool's arguments schema as `dialect` lowers it, worked out the first time a
/// dialect is asked for and kept for the registry's life: what a call written against
/// that lowering is read with while it streams (`crate::partial`).
#[derive(Default)]
pub(super) struct Lowered([std::sync::OnceLock<Vec<Value>>; Dialect::ALL.len()]);

impl Registry {
    /// The arguments schema of the tool registered `index`-th, as `dialect` lowers it
    /// (`true`, which takes anything, where it cannot be lowered: such a tool is never
    /// sent in that dialect).
    pub(crate) fn lowered_input(&self, dialect: Dialect, index: usize) -> &Value {
        const ANYTHING: &Value = &Value::Bool(true);
        let slot = Dialect::ALL.iter().position(|d| *d == dialect).unwrap_or(0);
        let all = self.lowered.0[slot].get_or_init(|| {
            self.specs()
                .map(|spec| {
                    crate::schema::lower::lower_schema(
                        &spec.name,
                        &spec.input_schema,
                        dialect.target(),
                    )
                    .unwrap_or(Value::Bool(true))
                })
                .collect()
        });
        all.get(index).unwrap_or(ANYTHING)
    }

    /// Every registered tool's definition in `dialect`, in registration order: tools
    /// turned off with [`Registry::set_enabled`], hidden by a visibility rule, offered
    /// only to other models or only to programs, or deferred behind a search included. For snapshots, checks and tooling; **not**
    /// what to send a model, which is [`Registry::definitions`] (what the caller is
    /// offered). Or every construct, in every tool, that the dialect cannot express.
    pub fn all_definitions(&self, dialect: Dialect) -> Result<Vec<Value>, LoweringErrors> {
        // Rendered afresh: for a large catalog, copying kept `Value`s costs as much as
        // lowering them again (measured with 10,000 tools, benches/dispatch.rs).
        // `all_definitions_shared` is the kept, uncopied form.
        self.render_all(dialect)
    }

    /// [`Registry::all_definitions`], rendered on the first call and then shared: every
    /// later call is a reference count (specs do not change once the registry is
    /// built). For a harness that sends the same list on every request.
    pub fn all_definitions_shared(
        &self,
        dialect: Dialect,
    ) -> Result<Arc<Vec<Value>>, LoweringErrors> {
        let all = self
            .rendered
            .get_or_render(dialect, || self.render_all(dialect).map(Arc::new));
        match &*all {
            Ok(definitions) => Ok(definitions.clone()),
            Err(errors) => Err(errors.clone()),
        }
    }

    /// The definitions to send a model in `dialect`, for the caller and conversation in
    /// `ctx`: the tools it is offered, in registration order. All of them, unless
    /// [`RegistryBuilder::with_visibility`](super::RegistryBuilder::with_visibility)
    /// decides, some are turned off ([`Registry::set_enabled`]), offered only to other
    /// models ([`RegistryBuilder::offer_only_to`](super::RegistryBuilder::offer_only_to):
    /// the [`Model`](crate::model::Model) in `ctx`) or only to programs (`callers`), or
    /// the registry defers its tools behind a search (`with_tool_search`, feature
    /// `search`): then `search_tools` (or, with `provider_search` on Anthropic,
    /// Anthropic's own tool search tool), the tools always loaded and those the
    /// conversation loaded (`LoadedTools` in `ctx`), and for Anthropic every other tool
    /// too, marked `defer_loading: true`.
    pub fn definitions(
        &self,
        ctx: &Context,
        dialect: Dialect,
    ) -> Result<Vec<Value>, LoweringErrors> {
        if !self.filters() {
            return self.all_definitions(dialect);
        }
        let all = self.all_definitions_shared(dialect)?;
        let listed: Vec<Value> = self
            .specs()
            .zip(all.iter())
            .filter_map(
                |(spec, definition)| match self.listing(ctx, spec, dialect) {
                    Listing::Hidden => None,
                    Listing::Shown => Some(definition.clone()),
                    Listing::Deferred => {
                        let mut definition = definition.clone();
                        definition["defer_loading"] = Value::Bool(true);
                        Some(definition)
                    }
                },
            )
            .collect();
        let mut listed = listed;
        listed.extend(
            self.extensions()
                .filter_map(|extension| extension.definition(dialect)),
        );
        Ok(listed)
    }

    fn render_all(&self, dialect: Dialect) -> Result<Vec<Value>, LoweringErrors> {
        let specs = self.entries.iter().map(|entry| entry.tool.spec());
        crate::provider::definitions(specs, dialect, self.settings.examples_in_descriptions)
    }

    /// Runs every lowering for `dialect`: call it in a test of your crate and a tool the
    /// provider would reject fails the test, not a request in production.
    pub fn check(&self, dialect: Dialect) -> Result<(), LoweringErrors> {
        self.all_definitions(dialect).map(|_| ())
    }
}
