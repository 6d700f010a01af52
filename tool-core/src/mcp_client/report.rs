//! The import report: for each tool the server listed, whether it was imported (and
//! flagged, with what), or refused and why; and the findings about the whole listing.

use super::import::{Finding, FindingKind};

/// What became of one tool the server listed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolReport {
    /// Its name on the server, escaped as in [`Finding::tool`].
    pub tool: String,
    /// Its name here, when imported.
    pub name: Option<String>,
    /// Imported, imported and flagged, or refused.
    pub status: ImportStatus,
    /// Every finding about it, in the order they were made.
    pub findings: Vec<Finding>,
}

/// Whether a listed tool was imported.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ImportStatus {
    /// Imported, nothing to note.
    Imported,
    /// Imported, with the kinds of what was changed or noticed (renamed, text screened,
    /// instructions found, ...): review them.
    Flagged(Vec<FindingKind>),
    /// Not imported: the reason.
    Refused(String),
}

/// The import's record: the listed tools (their escaped names on the server, their
/// names here) and every finding.
#[derive(Debug, Default)]
pub(super) struct Report {
    entries: Vec<(String, Option<String>)>,
    findings: Vec<Finding>,
}

impl Report {
    pub(super) fn new(entries: Vec<(String, Option<String>)>, findings: Vec<Finding>) -> Self {
        Report { entries, findings }
    }

    pub(super) fn findings(&self) -> Vec<Finding> {
        self.findings.clone()
    }

    /// Records that the tool called `name` here was left out of a registry because
    /// `holder` has the name; whether it is one of this source's.
    pub(super) fn gave_way(&mut self, name: &str, holder: &str) -> bool {
        let Some((tool, local)) = self
            .entries
            .iter_mut()
            .find(|(_, local)| local.as_deref().is_some_and(|local| prefixed(name, local)))
        else {
            return false;
        };
        self.findings.push(Finding {
            tool: tool.clone(),
            kind: FindingKind::Refused,
            place: None,
            detail: format!(
                "its name '{name}' is taken in the registry by {}: it was left out",
                crate::lint::screen::escape(holder)
            ),
        });
        *local = None;
        true
    }

    /// One line per listed tool, then the listing's own findings (tool `(the server)`
    /// and entries that could not be read).
    pub(super) fn tools(&self) -> Vec<ToolReport> {
        let mut reports: Vec<ToolReport> = self
            .entries
            .iter()
            .map(|(tool, name)| {
                let findings: Vec<Finding> = self
                    .findings
                    .iter()
                    .filter(|finding| finding.tool == *tool)
                    .cloned()
                    .collect();
                let refusal = findings
                    .iter()
                    .rev()
                    .find(|finding| finding.kind == FindingKind::Refused);
                let status = match (name, refusal) {
                    (None, Some(refusal)) => ImportStatus::Refused(refusal.detail.clone()),
                    (None, None) => ImportStatus::Refused("not imported".to_owned()),
                    (Some(_), _) if findings.is_empty() => ImportStatus::Imported,
                    (Some(_), _) => {
                        let mut kinds: Vec<FindingKind> = Vec::new();
                        for finding in &findings {
                            if !kinds.contains(&finding.kind) {
                                kinds.push(finding.kind);
                            }
                        }
                        ImportStatus::Flagged(kinds)
                    }
                };
                ToolReport {
                    tool: tool.clone(),
                    name: name.clone(),
                    status,
                    findings,
                }
            })
            .collect();
        // Entries never read as tools (malformed), and what is about the whole listing.
        for finding in &self.findings {
            if !self.entries.iter().any(|(tool, _)| *tool == finding.tool) {
                reports.push(ToolReport {
                    tool: finding.tool.clone(),
                    name: None,
                    status: ImportStatus::Refused(finding.detail.clone()),
                    findings: vec![finding.clone()],
                });
            }
        }
        reports
    }
}

/// Whether `name` is `local`, or `local` under a registry's prefix (`prefix_local`).
fn prefixed(name: &str, local: &str) -> bool {
    name == local
        || name
            .strip_suffix(local)
            .is_some_and(|head| head.ends_with('_') && head.len() > 1)
}
