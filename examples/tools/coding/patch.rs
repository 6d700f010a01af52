//! `apply_patch`: the V4A patch format OpenAI's models are trained to write (Codex, the
//! Agents SDK's `applyDiff`), parsed and applied inside the workspace with the same
//! confinement and undo as `edit_file`.
//!
//! ```text
//! *** Begin Patch
//! *** Update File: src/lib.rs
//! @@ fn add(a: i32, b: i32) -> i32 {
//! -    a - b
//! +    a + b
//! *** Add File: notes.md
//! +first line
//! *** Delete File: old.txt
//! *** End Patch
//! ```
//!
//! A hunk finds its place by its lines, not by numbers: its context and removed lines
//! must appear in the file, in order, after the previous hunk and after its `@@` anchors
//! (each anchor a line that must be found first, to narrow the search), at the end with
//! `*** End of File`. Matching is exact, then blind to trailing whitespace; never looser.
//! A hunk found in two places with no anchor to tell them apart is refused, as is one
//! found nowhere, with the file's lines nearest to what it expected, so the model can
//! copy them. Every file is computed before any is written: a patch applies whole or
//! not at all.

use std::fmt::Write as _;

/// One file operation of a patch.
#[derive(Debug, Clone, PartialEq)]
pub enum FileOp {
    /// `*** Add File:` a new file, with its lines.
    Add { path: String, lines: Vec<String> },
    /// `*** Delete File:`.
    Delete { path: String },
    /// `*** Update File:` hunks applied in order, the file renamed when `move_to` is set.
    Update {
        path: String,
        move_to: Option<String>,
        hunks: Vec<Hunk>,
    },
}

/// One hunk of an update.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Hunk {
    /// The `@@` lines' text: each found in order before the hunk's lines are looked for.
    pub anchors: Vec<String>,
    /// Its lines: ' ' context, '-' removed, '+' added.
    pub lines: Vec<(Mark, String)>,
    /// `*** End of File`: the hunk's lines end the file.
    pub at_end: bool,
}

/// What a hunk line does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Context,
    Remove,
    Add,
}

impl Hunk {
    /// The lines the file must have: context and removed.
    fn before(&self) -> Vec<&str> {
        (self.lines.iter())
            .filter(|(mark, _)| *mark != Mark::Add)
            .map(|(_, line)| line.as_str())
            .collect()
    }

    /// The lines it will have: context and added.
    fn after(&self) -> Vec<&str> {
        (self.lines.iter())
            .filter(|(mark, _)| *mark != Mark::Remove)
            .map(|(_, line)| line.as_str())
            .collect()
    }
}

/// Reads a patch: every line accounted for, or the first one that is not, by number.
pub fn parse(patch: &str) -> Result<Vec<FileOp>, String> {
    let lines: Vec<&str> = patch
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    let (Some(first), Some(last)) = (first, last) else {
        return Err("the patch is empty; it starts with `*** Begin Patch`".into());
    };
    if lines[first].trim() != "*** Begin Patch" {
        return Err(format!(
            "line {}: a patch starts with `*** Begin Patch`, not `{}`",
            first + 1,
            lines[first]
        ));
    }
    if lines[last].trim() != "*** End Patch" || last == first {
        return Err("the patch does not end with `*** End Patch`".into());
    }
    let mut ops = Vec::new();
    let mut at = first + 1;
    let header =
        |line: &str, prefix: &str| line.strip_prefix(prefix).map(|path| path.trim().to_owned());
    while at < last {
        let line = lines[at];
        let number = at + 1;
        at += 1;
        if let Some(path) = header(line, "*** Add File: ") {
            let mut added = Vec::new();
            while at < last && !lines[at].starts_with("*** ") {
                match lines[at].strip_prefix('+') {
                    Some(text) => added.push(text.to_owned()),
                    None => {
                        return Err(format!(
                            "line {}: every line of an added file starts with `+`",
                            at + 1
                        ));
                    }
                }
                at += 1;
            }
            ops.push(FileOp::Add { path, lines: added });
        } else if let Some(path) = header(line, "*** Delete File: ") {
            ops.push(FileOp::Delete { path });
        } else if let Some(path) = header(line, "*** Update File: ") {
            let move_to = (at < last)
                .then(|| header(lines[at], "*** Move to: "))
                .flatten();
            if move_to.is_some() {
                at += 1;
            }
            let mut hunks: Vec<Hunk> = Vec::new();
            let mut hunk = Hunk::default();
            while at < last && (!lines[at].starts_with("*** ") || lines[at] == "*** End of File") {
                let line = lines[at];
                at += 1;
                if line == "*** End of File" {
                    hunk.at_end = true;
                    continue;
                }
                if let Some(anchor) = line.strip_prefix("@@") {
                    if !hunk.lines.is_empty() {
                        hunks.push(std::mem::take(&mut hunk));
                    }
                    let anchor = anchor.trim();
                    if !anchor.is_empty() {
                        hunk.anchors.push(anchor.to_owned());
                    }
                    continue;
                }
                let (mark, text) = match line.chars().next() {
                    Some(' ') => (Mark::Context, &line[1..]),
                    Some('-') => (Mark::Remove, &line[1..]),
                    Some('+') => (Mark::Add, &line[1..]),
                    // A blank line in a hunk is an empty context line (models drop the space).
                    None => (Mark::Context, ""),
                    Some(_) => {
                        return Err(format!(
                            "line {}: a hunk line starts with ' ' (context), '-' (removed) or '+' (added), not `{line}`",
                            at
                        ));
                    }
                };
                hunk.lines.push((mark, text.to_owned()));
            }
            if !hunk.lines.is_empty() || !hunk.anchors.is_empty() {
                hunks.push(hunk);
            }
            if hunks.is_empty() && move_to.is_none() {
                return Err(format!(
                    "line {number}: `*** Update File: {path}` has no hunk"
                ));
            }
            ops.push(FileOp::Update {
                path,
                move_to,
                hunks,
            });
        } else if line.trim().is_empty() {
            continue;
        } else {
            return Err(format!(
                "line {number}: expected `*** Add File:`, `*** Update File:` or `*** Delete File:`, found `{line}`"
            ));
        }
    }
    if ops.is_empty() {
        return Err("the patch changes no file".into());
    }
    Ok(ops)
}

/// `text` with `hunks` applied, or why a hunk does not fit (which, and the file's lines
/// nearest to what it expected).
pub fn apply(text: &str, hunks: &[Hunk]) -> Result<String, String> {
    let crlf = text.contains("\r\n");
    let final_newline = text.is_empty() || text.ends_with('\n');
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut cursor = 0;
    for (number, hunk) in hunks.iter().enumerate() {
        let which = format!("hunk {}", number + 1);
        for anchor in &hunk.anchors {
            match find(&lines, &[anchor.as_str()], cursor) {
                Some(found) => cursor = found + 1,
                None => {
                    return Err(format!(
                        "{which}: its anchor `@@ {anchor}` is not a line of the file{}",
                        nearest(&lines, &[anchor.as_str()], cursor)
                    ));
                }
            }
        }
        let old = hunk.before();
        let at = if hunk.at_end && old.is_empty() {
            lines.len()
        } else if hunk.at_end {
            let start = lines.len().checked_sub(old.len());
            match start.filter(|&start| start >= cursor && find(&lines, &old, start) == Some(start))
            {
                Some(start) => start,
                None => {
                    return Err(format!(
                        "{which}: its lines are not the end of the file{}",
                        nearest(&lines, &old, cursor)
                    ));
                }
            }
        } else if old.is_empty() {
            return Err(format!(
                "{which} only adds lines and has no context to place them; add the lines around the place, or `*** End of File` to append"
            ));
        } else {
            let Some(found) = find(&lines, &old, cursor) else {
                return Err(format!(
                    "{which}: its context and removed lines are not in the file{}",
                    nearest(&lines, &old, cursor)
                ));
            };
            if hunk.anchors.is_empty() && find(&lines, &old, found + 1).is_some() {
                return Err(format!(
                    "{which}: its lines occur more than once (first at line {}); add an `@@` line naming the enclosing function or block, or more context",
                    found + 1
                ));
            }
            found
        };
        let new: Vec<String> = hunk.after().into_iter().map(str::to_owned).collect();
        let added = new.len();
        lines.splice(at..at + old.len(), new);
        cursor = at + added;
    }
    let ending = if crlf { "\r\n" } else { "\n" };
    let mut out = lines.join(ending);
    if final_newline && !lines.is_empty() {
        out.push_str(ending);
    }
    Ok(out)
}

/// Where `wanted` starts in `lines` at or after `from`: exactly, else blind to trailing
/// whitespace.
fn find(lines: &[String], wanted: &[&str], from: usize) -> Option<usize> {
    if wanted.is_empty() || wanted.len() > lines.len() {
        return None;
    }
    let last = lines.len() - wanted.len();
    let at = |same: &dyn Fn(&str, &str) -> bool| {
        (from..=last).find(|&start| {
            (lines[start..start + wanted.len()].iter())
                .zip(wanted)
                .all(|(line, want)| same(line, want))
        })
    };
    at(&|a, b| a == b).or_else(|| at(&|a, b| a.trim_end() == b.trim_end()))
}

/// ", nearest lines N–M: ..." : the window of the file most like `wanted`.
fn nearest(lines: &[String], wanted: &[&str], from: usize) -> String {
    if lines.is_empty() || wanted.is_empty() {
        return " (the file is empty)".into();
    }
    let width = wanted.len().min(lines.len());
    let score = |start: usize| -> f64 {
        (lines[start..start + width].iter())
            .zip(wanted)
            .map(|(line, want)| strsim::normalized_levenshtein(line.trim(), want.trim()))
            .sum()
    };
    let starts = from.min(lines.len() - width)..=lines.len() - width;
    let best = starts
        .max_by(|&a, &b| score(a).total_cmp(&score(b)).then(b.cmp(&a)))
        .unwrap_or(0);
    let mut out = match width {
        1 => format!("; the nearest line is {}:", best + 1),
        _ => format!("; the nearest lines are {}-{}:", best + 1, best + width),
    };
    for line in &lines[best..best + width] {
        let _ = write!(out, "\n {line}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(hunks: &str) -> Vec<Hunk> {
        let patch = format!("*** Begin Patch\n*** Update File: a.rs\n{hunks}\n*** End Patch");
        match parse(&patch).unwrap().remove(0) {
            FileOp::Update { hunks, .. } => hunks,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_hunk_replaces_its_lines_after_its_anchor() {
        let text = "fn a() {\n    1\n}\nfn b() {\n    1\n}\n";
        let hunks = update("@@ fn b() {\n-    1\n+    2");
        assert_eq!(
            apply(text, &hunks).unwrap(),
            "fn a() {\n    1\n}\nfn b() {\n    2\n}\n"
        );
        let ambiguous = update("@@\n-    1\n+    2");
        let error = apply(text, &ambiguous).unwrap_err();
        assert!(
            error.contains("more than once") && error.contains("@@"),
            "{error}"
        );
    }

    #[test]
    fn a_mismatch_shows_the_nearest_lines() {
        let text = "one\ntwo\nthree\nfour\n";
        let hunks = update("@@\n two\n-thre\n+3");
        let error = apply(text, &hunks).unwrap_err();
        assert!(
            error.contains("nearest lines are 2-3:\n two\n three"),
            "{error}"
        );
    }

    #[test]
    fn end_of_file_appends_and_crlf_is_kept() {
        let text = "a\r\nb\r\n";
        let hunks = update("@@\n b\n+c\n*** End of File");
        assert_eq!(apply(text, &hunks).unwrap(), "a\r\nb\r\nc\r\n");
        let bare = update("@@\n+d\n*** End of File");
        assert_eq!(apply("a\n", &bare).unwrap(), "a\nd\n");
        let nowhere = update("@@\n+d");
        assert!(apply("a\n", &nowhere).unwrap_err().contains("no context"));
    }

    #[test]
    fn malformed_patches_say_which_line() {
        assert!(parse("").unwrap_err().contains("empty"));
        assert!(
            parse("*** Update File: a\n*** End Patch")
                .unwrap_err()
                .contains("Begin Patch")
        );
        let error = parse("*** Begin Patch\n*** Update File: a\n@@\nx\n*** End Patch").unwrap_err();
        assert!(error.starts_with("line 4"), "{error}");
        let error = parse("*** Begin Patch\n*** Add File: a\nno plus\n*** End Patch").unwrap_err();
        assert!(error.contains("line 3"), "{error}");
    }
}
