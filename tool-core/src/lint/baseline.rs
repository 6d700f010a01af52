//! A ratchet: a committed list of the findings a registry still has, which may only
//! shrink. A new finding fails; a fixed one fails until its line is removed, so the list
//! never hides a problem that came back.

use std::collections::BTreeSet;
use std::path::Path;

use super::Finding;

/// The environment variable that lets [`check_baseline`] write the file: `create` writes
/// a missing one, `shrink` removes the lines of fixed findings (never adds one).
pub const BASELINE_ENV: &str = "TOOLWRIGHT_LINT_BASELINE";

/// One finding's line: rule, tool, and where, tab-separated (the message may change
/// with the wording; the line names the problem).
fn line(finding: &Finding) -> String {
    match &finding.at {
        Some(at) => format!("{}\t{}\t{at}", finding.rule, finding.tool),
        None => format!("{}\t{}", finding.rule, finding.tool),
    }
}

/// Checks `findings` against the baseline file at `path`: `Ok` when they are exactly the
/// findings listed there; otherwise an error naming the new findings (fix them, or allow
/// them with a reason) and the fixed ones (remove their lines; with
/// `TOOLWRIGHT_LINT_BASELINE=shrink` this does it). A missing file is an error too, unless
/// `TOOLWRIGHT_LINT_BASELINE=create`, which writes it.
pub fn check_baseline(findings: &[Finding], path: &Path) -> Result<(), String> {
    let found: BTreeSet<String> = findings.iter().map(line).collect();
    let mode = std::env::var(BASELINE_ENV).unwrap_or_default();
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(_) if mode == "create" => {
            write(path, &found)?;
            return Ok(());
        }
        Err(error) => {
            return Err(format!(
                "no lint baseline at {} ({error}); run with {BASELINE_ENV}=create to write one with the {} current finding(s)",
                path.display(),
                found.len()
            ));
        }
    };
    let listed: BTreeSet<String> = text
        .lines()
        .map(str::trim_end)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_owned)
        .collect();
    let new: Vec<&Finding> = findings
        .iter()
        .filter(|finding| !listed.contains(&line(finding)))
        .collect();
    let fixed: Vec<&String> = listed.difference(&found).collect();
    if !fixed.is_empty() && new.is_empty() && mode == "shrink" {
        write(path, &found)?;
        return Ok(());
    }
    if new.is_empty() && fixed.is_empty() {
        return Ok(());
    }
    let mut report = String::new();
    if !new.is_empty() {
        report.push_str(&format!(
            "{} new lint finding(s): fix them, or allow them with a reason\n",
            new.len()
        ));
        for finding in &new {
            report.push_str(&format!("  {finding}\n"));
        }
    }
    if !fixed.is_empty() {
        report.push_str(&format!(
            "{} finding(s) of {} are fixed: remove their lines (the baseline only shrinks; {BASELINE_ENV}=shrink does it)\n",
            fixed.len(),
            path.display()
        ));
        for line in fixed {
            report.push_str(&format!("  {line}\n"));
        }
    }
    Err(report)
}

fn write(path: &Path, lines: &BTreeSet<String>) -> Result<(), String> {
    let mut text = String::from(
        "# Lint findings this registry still has (toolwright::lint::check_baseline): rule, tool,\n# where. The list may only shrink.\n",
    );
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    std::fs::write(path, text).map_err(|error| format!("writing {}: {error}", path.display()))
}
