//! What each caller is offered: the visibility rule, tools turned off, deferred loading
//! behind a search; the lookup of a call's tool as its caller sees the registry, and the
//! names suggested when it is not there.

use std::borrow::Cow;
use std::sync::Arc;

use crate::context::Context;
use crate::error::{ErrorKind, ToolError};
use crate::spec::ToolSpec;
use crate::tool::Tool;

use super::Registry;

/// Whether a tool is in a caller's list of definitions, and how.
pub(crate) enum Listing {
    Hidden,
    Shown,
    /// Sent with `defer_loading: true` (Anthropic loads it when a search references it).
    #[cfg_attr(not(feature = "search"), allow(dead_code))]
    Deferred,
}

impl Registry {
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

    /// Whether `spec` is offered to the caller in `ctx` (`None`: the harness itself,
    /// which sees every tool a visibility rule would hide; a tool turned off is offered
    /// to no one).
    #[inline]
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
    #[inline]
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
    #[inline]
    pub(crate) fn lookup(
        &self,
        ctx: Option<&Context>,
        name: &str,
    ) -> Result<(&dyn Tool, &ToolSpec), ToolError> {
        if let Some(tool) = self.get(name) {
            let spec = tool.spec();
            if self.offered(ctx, spec) {
                return Ok((tool, spec));
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
