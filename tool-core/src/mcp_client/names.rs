//! The names a server's tools take here. A name no provider accepts is mapped (its other
//! characters become `_`), and the mapping never makes two tools share a name:
//!
//! - a name the server lists twice refuses every copy (which one a call means is
//!   ambiguous);
//! - a mapped name that another tool of the server has as it is, or that toolwright's own
//!   tools take (`search_tools`, `run_code`), refuses the mapped tool, naming both;
//! - several names mapped to one refuse each of them, naming the others;
//! - names that differ only by case or by `_` and `-` are imported, and flagged.
//!
//! A name taken in the registry by another source or a local tool is settled when the
//! registry is built: the server's tool gives way ([`Toolset::yields`](crate::Toolset)).

use std::collections::HashMap;

use super::import::{Finding, FindingKind};

/// The names of toolwright's own tools, which no imported tool may take.
const RESERVED: &[&str] = &["search_tools", "run_code"];

/// The local name of `remote` under `prefix`: characters no provider accepts become `_`.
pub(super) fn local_name(prefix: Option<&str>, remote: &str) -> String {
    let name: String = remote
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    match prefix {
        Some(prefix) => format!("{prefix}_{name}"),
        None => name,
    }
}

/// The local name of each of `remotes` (the server's names, in its order), or `None`
/// for a tool refused by the rules above; every refusal, rename and confusion noted.
pub(super) fn assign(
    remotes: &[&str],
    prefix: Option<&str>,
    findings: &mut Vec<Finding>,
) -> Vec<Option<String>> {
    let mut listed: HashMap<&str, usize> = HashMap::new();
    for remote in remotes {
        *listed.entry(remote).or_default() += 1;
    }
    let locals: Vec<String> = remotes
        .iter()
        .map(|remote| local_name(prefix, remote))
        .collect();
    // Who holds each local name as it is (not mapped), and who was mapped to it.
    let mut exact: HashMap<&str, &str> = HashMap::new();
    let mut mapped: HashMap<&str, Vec<&str>> = HashMap::new();
    for (remote, local) in remotes.iter().zip(&locals) {
        if local_name(None, remote) == *remote {
            exact.insert(local.as_str(), remote);
        } else {
            mapped.entry(local.as_str()).or_default().push(remote);
        }
    }
    let mut names = Vec::with_capacity(remotes.len());
    let mut renamed = Vec::new();
    let mut refuse = |remote: &str, detail: String| {
        findings.push(Finding::new(remote, FindingKind::Refused, detail));
        None
    };
    for (remote, local) in remotes.iter().zip(&locals) {
        let name = if listed[remote] > 1 {
            refuse(
                remote,
                format!(
                    "the server lists {} tools under this one name: which one a call means is ambiguous, so none is imported",
                    listed[remote]
                ),
            )
        } else if !crate::spec::is_valid_tool_name(local) {
            refuse(
                remote,
                format!(
                    "its name '{}' is not one every provider accepts (^[A-Za-z_][A-Za-z0-9_-]{{0,63}}$): use a shorter prefix, or filter it out",
                    crate::lint::screen::escape(local)
                ),
            )
        } else if RESERVED.contains(&local.as_str()) {
            refuse(
                remote,
                format!("its name '{local}' is taken by toolwright's own tool of that name"),
            )
        } else if local_name(None, remote) == *remote {
            Some(local.clone())
        } else if let Some(holder) = exact.get(local.as_str()) {
            refuse(
                remote,
                format!(
                    "it would be called '{local}' here, the name of the server's tool '{}'",
                    crate::lint::screen::escape(holder)
                ),
            )
        } else if mapped[local.as_str()].len() > 1 {
            let others: Vec<String> = mapped[local.as_str()]
                .iter()
                .filter(|other| **other != *remote)
                .map(|other| format!("'{}'", crate::lint::screen::escape(other)))
                .collect();
            refuse(
                remote,
                format!(
                    "it would be called '{local}' here, as would {}: none of them is imported",
                    others.join(", ")
                ),
            )
        } else {
            renamed.push((remote, format!("called '{local}' here")));
            Some(local.clone())
        };
        names.push(name);
    }
    for (remote, detail) in renamed {
        findings.push(Finding::new(remote, FindingKind::Renamed, detail));
    }
    flag_confusables(remotes, &names, findings);
    names
}

/// Flags each imported name that differs from another only by case or by `_` and `-`.
fn flag_confusables(remotes: &[&str], names: &[Option<String>], findings: &mut Vec<Finding>) {
    let folded = |name: &str| -> String {
        name.chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let mut groups: HashMap<String, Vec<usize>> = HashMap::new();
    for (index, name) in names.iter().enumerate() {
        if let Some(name) = name {
            groups.entry(folded(name)).or_default().push(index);
        }
    }
    let mut flagged: Vec<(usize, String)> = Vec::new();
    for members in groups.values().filter(|members| members.len() > 1) {
        for &index in members {
            let others: Vec<String> = members
                .iter()
                .filter(|other| **other != index)
                .filter_map(|&other| Some(format!("'{}'", names[other].as_deref()?)))
                .collect();
            flagged.push((index, others.join(", ")));
        }
    }
    flagged.sort();
    for (index, others) in flagged {
        findings.push(Finding::new(
            remotes[index],
            FindingKind::Confusable,
            format!("its name differs from {others} only by case or separators: a model may call the wrong one"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(remotes: &[&str]) -> (Vec<Option<String>>, Vec<Finding>) {
        let mut findings = Vec::new();
        (assign(remotes, None, &mut findings), findings)
    }

    #[test]
    fn no_two_tools_ever_share_a_name() {
        let (names, findings) = names(&["b_echo", "b:echo", "b/echo", "has space", "ok"]);
        assert_eq!(
            names,
            [
                Some("b_echo".to_owned()),
                None,
                None,
                Some("has_space".to_owned()),
                Some("ok".to_owned())
            ]
        );
        let refused: Vec<&Finding> = findings
            .iter()
            .filter(|finding| finding.kind == FindingKind::Refused)
            .collect();
        assert_eq!(refused.len(), 2, "{findings:?}");
        assert!(refused[0].detail.contains("'b_echo'"), "{refused:?}");
    }

    #[test]
    fn names_mapped_onto_each_other_refuse_each_naming_the_others() {
        let (names, findings) = names(&["get.data", "get/data"]);
        assert_eq!(names, [None, None]);
        assert!(findings[0].detail.contains("'get/data'"), "{findings:?}");
        assert!(findings[1].detail.contains("'get.data'"), "{findings:?}");
    }

    #[test]
    fn a_name_listed_twice_refuses_both_and_reserved_names_are_refused() {
        let (names, findings) = names(&["echo", "echo", "run_code", "line\nbreak"]);
        assert_eq!(names, [None, None, None, Some("line_break".to_owned())]);
        assert!(findings[0].detail.contains("ambiguous"));
        assert!(findings[2].detail.contains("toolwright's own"));
        assert_eq!(findings[3].tool, "line\\nbreak", "escaped for a person");
    }

    #[test]
    fn names_that_differ_only_by_case_or_separator_are_flagged() {
        let (names, findings) = names(&["get_data", "GetData", "get-data", "other"]);
        assert!(names.iter().all(Option::is_some));
        let flagged = findings
            .iter()
            .filter(|finding| finding.kind == FindingKind::Confusable)
            .count();
        assert_eq!(flagged, 3, "{findings:?}");
    }
}
