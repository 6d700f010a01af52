//! What each caller is offered: the visibility rule, the tool sets per model, tools
//! turned off, deferred loading
//! behind a search; the lookup of a call's tool as its caller sees the registry, and the
//! names suggested when it is not there.

use std::borrow::Cow;

use crate::context::Context;
use crate::error::{ErrorKind, ToolError};
use crate::spec::ToolSpec;

use super::{Entry, Registry};
use crate::provider::Listing;

impl Registry {
    /// Whether a visibility rule decides per caller what is offered.
    pub(crate) fn has_visibility(&self) -> bool {
        self.settings.visibility.is_some()
    }

    /// Whether some caller is offered fewer tools than are registered: a visibility rule,
    /// or a tool turned off.
    #[inline]
    pub(crate) fn filters(&self) -> bool {
        self.per_caller || self.switches.any_off()
    }

    /// The names of the tools, closest to `name` first (for "did you mean").
    pub(crate) fn closest_names(&self, name: &str) -> Vec<&str> {
        self.closest_names_for(None, name)
    }

    /// `closest_names` among the tools `ctx`'s caller is offered.
    fn closest_names_for(&self, ctx: Option<&Context>, name: &str) -> Vec<&str> {
        let offered = self
            .by_name
            .iter()
            .filter(|&(_, &index)| self.offered(ctx, self.entry_at(index).tool.spec()))
            .map(|(candidate, _)| candidate.as_str());
        crate::similarity::closest_first(name, offered)
    }

    /// Whether `spec` is offered to the caller in `ctx` (`None`: the harness itself,
    /// which sees every tool a visibility rule would hide; a tool turned off is offered
    /// to no one).
    #[inline]
    pub(crate) fn offered(&self, ctx: Option<&Context>, spec: &ToolSpec) -> bool {
        if !self.filters() {
            return true;
        }
        if let Some(ctx) = ctx
            && !self
                .extensions()
                .all(|extension| extension.callable(ctx, &spec.name))
        {
            return false;
        }
        self.visible(ctx, spec)
    }

    /// [`Registry::offered`] but for deferral: whether the caller may see the tool at all.
    #[inline]
    pub(crate) fn visible(&self, ctx: Option<&Context>, spec: &ToolSpec) -> bool {
        if self.switches.any_off() && !self.is_enabled(&spec.name) {
            return false;
        }
        let Some(ctx) = ctx else {
            return true;
        };
        self.offered_to_model(ctx, &spec.name)
            && self
                .settings
                .visibility
                .as_ref()
                .is_none_or(|visible| visible(ctx, spec))
    }

    /// Whether and how `spec` is in the list of definitions `ctx`'s caller is sent in
    /// `dialect`.
    pub(crate) fn listing(
        &self,
        ctx: &Context,
        spec: &ToolSpec,
        dialect: crate::dialect::Dialect,
    ) -> Listing {
        if !self.visible(Some(ctx), spec) {
            return Listing::Hidden;
        }
        // A tool offered only to programs is in `run_code`'s stubs, or listed for the
        // provider's own code where it has some and the tool declares `hosted_code`;
        // never a tool of the model's own.
        if self.programs_only
            && spec.callers.resolved(spec.effect) == crate::spec::Callers::Code
            && !(spec.hosted_code && dialect.facts().hosted_code)
        {
            return Listing::Hidden;
        }
        self.extensions()
            .find_map(|extension| extension.listing(ctx, &spec.name, dialect))
            .unwrap_or(Listing::Shown)
    }

    /// The tool `name`, as the caller in `ctx` sees the registry: a tool it is not
    /// offered is unknown, and is never suggested.
    #[inline]
    pub(crate) fn lookup(&self, ctx: Option<&Context>, name: &str) -> Result<&Entry, ToolError> {
        if let Some(entry) = self.entry(name) {
            if self.offered(ctx, entry.tool.spec()) {
                return Ok(entry);
            }
            // A tool the caller may see but not call yet (deferred, not loaded) says so.
            if let Some(ctx) = ctx
                && self.visible(Some(ctx), entry.tool.spec())
                && let Some(refusal) = self
                    .extensions()
                    .find_map(|extension| extension.refusal(ctx, name))
            {
                return Err(refusal);
            }
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
