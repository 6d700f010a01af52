//! Descriptions are prompts: a lint that reads each tool as the model will (its name,
//! description and schema, nothing else) and reports what will make a model choose it
//! wrongly or call it badly, each finding saying what to write instead.
//!
//! [`Registry::lint`](crate::Registry::lint) lints a registry (its allowances applied);
//! [`Lint::check`] lints any specs (an imported server's, before registering them). The
//! findings are deterministic: the same tools give the same findings, in the same order.
//!
//! The rules, in groups named after the public dimensions of tool-definition quality
//! (purpose clarity, usage guidelines, behavioural transparency, parameter semantics,
//! conciseness, contextual completeness, server-level coherence), plus safety and the
//! schema's portability. Rules that read words read English; a description mostly in
//! another script gets only the rules that do not read words.
//!
//! | rule | group | severity | what it finds |
//! | --- | --- | --- | --- |
#![doc = include_str!("rules.md")]
//!
//! A finding is allowed, with a reason, per rule and tool
//! ([`Lint::allow`], [`RegistryBuilder::allow_lint`](crate::RegistryBuilder::allow_lint));
//! [`check_baseline`] holds a registry to a committed list of the findings it still has,
//! which may only shrink.

mod arguments;
mod baseline;
mod description;
mod portability;
mod safety;
pub(crate) mod screen;
mod set;
mod view;
mod vocabulary;
mod words;

use std::fmt;

use serde::Serialize;

use crate::spec::ToolSpec;

pub use baseline::{BASELINE_ENV, check_baseline};

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Severity {
    /// A model will likely choose or call the tool wrongly, or be misled by it.
    Error,
    /// Worth fixing: the model has to guess.
    Warning,
    /// A better description would say it.
    Info,
}

impl Severity {
    /// Its name (`error`, `warning`, `info`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// The quality dimension a rule belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Group {
    /// What the tool does, said plainly.
    PurposeClarity,
    /// When to use it, and when another tool instead.
    UsageGuidelines,
    /// What it changes, reaches or returns.
    BehaviouralTransparency,
    /// What each argument means and which values it takes.
    ParameterSemantics,
    /// Nothing the model reads on every turn for nothing.
    Conciseness,
    /// Nothing missing, cut or stale.
    ContextualCompleteness,
    /// The tools read as one set: names, verbs, distinct purposes.
    ServerCoherence,
    /// Nothing aimed at the model, hidden, or secret.
    Safety,
    /// A schema every dialect can send.
    SchemaPortability,
}

impl Group {
    /// Its name (`purpose_clarity`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            Group::PurposeClarity => "purpose_clarity",
            Group::UsageGuidelines => "usage_guidelines",
            Group::BehaviouralTransparency => "behavioural_transparency",
            Group::ParameterSemantics => "parameter_semantics",
            Group::Conciseness => "conciseness",
            Group::ContextualCompleteness => "contextual_completeness",
            Group::ServerCoherence => "server_coherence",
            Group::Safety => "safety",
            Group::SchemaPortability => "schema_portability",
        }
    }
}

/// One rule: its id, group, severity, and what it finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rule {
    /// The id findings and allowances name (`purpose-missing`).
    pub id: &'static str,
    /// Its group.
    pub group: Group,
    /// Its severity.
    pub severity: Severity,
    /// What it finds, in one line.
    pub summary: &'static str,
}

/// Every rule, in the order of the table above.
pub const RULES: &[Rule] = &rules::ALL;

mod rules;

/// The rule with id `id`.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|rule| rule.id == id)
}

/// One thing a rule found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Finding {
    /// The tool (for a rule over two tools, the first by name).
    pub tool: String,
    /// The rule's id.
    pub rule: &'static str,
    /// The rule's group.
    pub group: Group,
    /// The rule's severity.
    pub severity: Severity,
    /// Where in the tool: an argument (`argument 'query'`), a dialect, another tool.
    pub at: Option<String>,
    /// What is wrong, and what to write instead.
    pub message: String,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} [{}] {}",
            self.severity.as_str(),
            self.rule,
            self.tool
        )?;
        if let Some(at) = &self.at {
            write!(f, " ({at})")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// A finding allowed on purpose, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Allowance {
    /// The rule's id.
    pub rule: String,
    /// The tool it is allowed for; `None`: every tool.
    pub tool: Option<String>,
    /// Why (required: an allowance without a reason is a finding hidden).
    pub reason: String,
}

/// The lint with its allowances.
#[derive(Debug, Clone, Default)]
pub struct Lint {
    allowances: Vec<Allowance>,
}

impl Lint {
    /// The lint with every rule on.
    pub fn new() -> Self {
        Self::default()
    }

    /// Allows `rule` for `tool` (or, with `None`, for every tool), because `reason`.
    ///
    /// # Panics
    ///
    /// If `rule` names no rule, or `reason` is empty: both are mistakes to fix where
    /// the allowance is written.
    pub fn allow(mut self, rule: &str, tool: Option<&str>, reason: &str) -> Self {
        self.allowances.push(allowance(rule, tool, reason));
        self
    }

    /// The allowances.
    pub fn allowances(&self) -> &[Allowance] {
        &self.allowances
    }

    /// The findings on `specs` (as one set of tools: the rules over pairs compare them),
    /// sorted by tool, then rule; allowed findings left out.
    pub fn check<'a>(&self, specs: impl IntoIterator<Item = &'a ToolSpec>) -> Vec<Finding> {
        let specs: Vec<&ToolSpec> = specs.into_iter().collect();
        let mut out = Out::default();
        let views: Vec<view::View<'_>> = specs.iter().map(|spec| view::View::of(spec)).collect();
        for view in &views {
            description::check(view, &mut out);
            arguments::check(view, &views, &mut out);
        }
        set::check(&views, &mut out);
        let mut findings: Vec<Finding> = out
            .0
            .into_iter()
            .filter(|finding| !self.allows(finding))
            .collect();
        findings.sort_by(|a, b| {
            (&a.tool, a.rule, &a.at, &a.message).cmp(&(&b.tool, b.rule, &b.at, &b.message))
        });
        findings.dedup();
        findings
    }

    fn allows(&self, finding: &Finding) -> bool {
        self.allowances.iter().any(|allowance| {
            allowance.rule == finding.rule
                && allowance
                    .tool
                    .as_ref()
                    .is_none_or(|tool| *tool == finding.tool)
        })
    }
}

/// An allowance, checked.
pub(crate) fn allowance(rule: &str, tool: Option<&str>, reason: &str) -> Allowance {
    assert!(
        self::rule(rule).is_some(),
        "no lint rule is named '{rule}' (see toolwright::lint::RULES)"
    );
    assert!(
        !reason.trim().is_empty(),
        "allowing lint rule '{rule}' needs a reason"
    );
    Allowance {
        rule: rule.to_owned(),
        tool: tool.map(str::to_owned),
        reason: reason.to_owned(),
    }
}

/// Where the rules put what they find.
#[derive(Default)]
pub(crate) struct Out(Vec<Finding>);

impl Out {
    /// A finding of rule `id` on `tool`.
    fn push(&mut self, id: &'static str, tool: &str, at: Option<String>, message: String) {
        let rule = rule(id).unwrap_or_else(|| panic!("lint rule '{id}' is not in RULES"));
        self.0.push(Finding {
            tool: tool.to_owned(),
            rule: rule.id,
            group: rule.group,
            severity: rule.severity,
            at,
            message,
        });
    }
}
