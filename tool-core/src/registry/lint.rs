//! The lint over a registry's tools, with the allowances its builder was given.

use super::{Registry, RegistryBuilder};
use crate::lint::Finding;

impl RegistryBuilder {
    /// Allows lint rule `rule` for `tool` (or, with `None`, every tool), because
    /// `reason`: [`Registry::lint`] leaves those findings out.
    ///
    /// # Panics
    ///
    /// If `rule` names no rule (see [`crate::lint::RULES`]) or `reason` is empty.
    pub fn allow_lint(mut self, rule: &str, tool: Option<&str>, reason: &str) -> Self {
        self.settings.lint = std::mem::take(&mut self.settings.lint).allow(rule, tool, reason);
        self
    }
}

impl Registry {
    /// What the lint finds in the tools' names, descriptions and schemas, as a model
    /// reads them (see [`crate::lint`] for the rules), less what the builder allowed.
    ///
    /// ```
    /// use toolwright::{Registry, tool};
    ///
    /// /// Does stuff.
    /// #[tool]
    /// fn helper(input: String) -> String {
    ///     input
    /// }
    ///
    /// let registry = Registry::builder().with(Helper).build().unwrap();
    /// let rules: Vec<&str> = registry.lint().iter().map(|finding| finding.rule).collect();
    /// assert!(rules.contains(&"purpose-too-short"));
    /// assert!(rules.contains(&"arg-undocumented"));
    /// ```
    pub fn lint(&self) -> Vec<Finding> {
        self.settings.lint.check(self.specs())
    }
}
