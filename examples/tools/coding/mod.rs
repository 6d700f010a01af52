//! A coding agent's tools, confined to a workspace root: every path is resolved and must
//! stay inside it (`..`, absolute paths and symlinks pointing out are refused, saying why
//! and what is allowed). `run_command` is in `command.rs` (its allow-list and argument
//! checks) and `sandbox.rs` (the OS sandbox behind them); `secrets.rs` keeps credentials
//! out of what the model reads.

mod command;
pub mod patch;
mod report;
mod sandbox;
pub mod secrets;

use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use serde::Serialize;
use toolwright::capability::Writes;
use toolwright::{ErrorKind, ToolError, ToolSchema, tool};

pub use command::{CommandOutput, RunCommand, classify_command, run_command};
pub use report::{Report, final_report, tests_claim};
pub use sandbox::Confinement;

/// The directory the agent works in, and the edits it can undo.
#[derive(Debug)]
pub struct Workspace {
    root: PathBuf,
    /// (file, content before the edit: `None` when it did not exist), newest last.
    history: Mutex<Vec<(PathBuf, Option<String>)>>,
}

impl Workspace {
    /// A workspace rooted at `root` (which must exist).
    pub fn new(root: impl AsRef<Path>) -> std::io::Result<Self> {
        Ok(Self {
            root: root.as_ref().canonicalize()?,
            history: Mutex::new(Vec::new()),
        })
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `path` (relative to the root) as a path inside the workspace, or why not.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        let relative = Path::new(path);
        let refuse = |why: &str| {
            Err(ToolError::new(ErrorKind::Denied, format!("'{path}' {why}"))
                .with_retryable(true)
                .with_hint(
                    "give a path relative to the workspace root, without `..`, like `src/lib.rs`",
                ))
        };
        if path.contains('\0') {
            return refuse("contains a NUL byte; paths are plain text");
        }
        if path.len() > 4096 {
            return refuse("is longer than 4,096 bytes");
        }
        if relative.is_absolute() || relative.has_root() {
            return refuse("is an absolute path; only paths inside the workspace are allowed");
        }
        if relative
            .components()
            .any(|c| matches!(c, Component::ParentDir))
        {
            return refuse("climbs out with `..`; only paths inside the workspace are allowed");
        }
        let joined = self.root.join(relative);
        // The deepest part that exists (a symbolic link counts, even one whose target is
        // missing), with symlinks resolved, must still be inside. A link that cannot be
        // resolved (dangling, or a loop) is refused: writing through it would create its
        // target wherever it points.
        let existing = joined
            .ancestors()
            .find(|p| p.symlink_metadata().is_ok())
            .unwrap_or(&self.root);
        let Ok(real) = existing.canonicalize() else {
            return refuse(
                "goes through a symbolic link whose target does not exist; only paths inside the workspace are allowed",
            );
        };
        if !real.starts_with(&self.root) {
            return refuse(
                "leads outside the workspace through a symbolic link; only paths inside the workspace are allowed",
            );
        }
        Ok(joined)
    }

    fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/")
    }

    /// Every file under the root, relative, sorted (hidden directories and `target` skipped).
    fn files(&self) -> Vec<String> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') || name == "target" {
                    continue;
                }
                match entry.file_type() {
                    Ok(kind) if kind.is_dir() => walk(&path, out),
                    Ok(kind) if kind.is_file() => out.push(path),
                    _ => {}
                }
            }
        }
        let mut files = Vec::new();
        walk(&self.root, &mut files);
        let mut files: Vec<String> = files.iter().map(|p| self.relative(p)).collect();
        files.sort();
        files
    }

    /// "No such file: X. Similar: Y, Z".
    fn no_such_file(&self, path: &str) -> ToolError {
        let mut candidates: Vec<(f64, String)> = self
            .files()
            .into_iter()
            .map(|file| (strsim::jaro_winkler(path, &file), file))
            .filter(|(score, _)| *score > 0.6)
            .collect();
        candidates.sort_by(|a, b| b.0.total_cmp(&a.0));
        let similar: Vec<String> = candidates.into_iter().take(3).map(|(_, f)| f).collect();
        let message = if similar.is_empty() {
            format!("No such file: {path}.")
        } else {
            format!("No such file: {path}. Similar: {}", similar.join(", "))
        };
        ToolError::not_found(message).with_hint("list the directory to see what exists")
    }
}

/// One entry of a directory.
#[derive(Debug, Serialize, ToolSchema)]
pub struct Entry {
    /// Name inside the directory.
    pub name: String,
    /// `file` or `dir`.
    pub kind: String,
    /// Size in bytes, for files.
    pub size: Option<u64>,
}

/// List a directory of the workspace: every entry, sorted by name, with its kind and size.
///
/// Use it to see which files exist before reading one.
///
/// # Arguments
/// * `path` - Directory relative to the workspace root; `.` for the root.
#[tool(effect = "read_only")]
pub fn list_dir(path: String, #[ctx] workspace: &Workspace) -> Result<Vec<Entry>, ToolError> {
    let dir = workspace.resolve(&path)?;
    let entries = std::fs::read_dir(&dir).map_err(|_| workspace.no_such_file(&path))?;
    let mut listed: Vec<Entry> = entries
        .flatten()
        .map(|entry| {
            let meta = entry.metadata().ok();
            let is_dir = meta.as_ref().is_some_and(std::fs::Metadata::is_dir);
            Entry {
                name: entry.file_name().to_string_lossy().into_owned(),
                kind: if is_dir { "dir" } else { "file" }.into(),
                size: meta.filter(|m| m.is_file()).map(|m| m.len()),
            }
        })
        .collect();
    listed.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(listed)
}

/// Read a text file of the workspace, optionally a range of its lines. The values in
/// `.env`-style files come back redacted.
///
/// Use it to see a file's content before editing it.
///
/// # Arguments
/// * `path` - File relative to the workspace root.
/// * `offset` - First line to return, counting from 1; the first line when omitted.
/// * `limit` - Most lines to return; to the end of the file when omitted.
#[tool(effect = "read_only")]
pub fn read_file(
    path: String,
    #[arg(minimum = 1)] offset: Option<usize>,
    #[arg(minimum = 1, maximum = 10000)] limit: Option<usize>,
    #[ctx] workspace: &Workspace,
) -> Result<String, ToolError> {
    let file = workspace.resolve(&path)?;
    let mut text = std::fs::read_to_string(&file).map_err(|_| workspace.no_such_file(&path))?;
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned());
    if name.as_deref().is_some_and(secrets::is_env_file) {
        text = secrets::redact_env_file(&text);
    }
    let start = offset.unwrap_or(1) - 1;
    let lines: Vec<&str> = text
        .lines()
        .skip(start)
        .take(limit.unwrap_or(usize::MAX))
        .collect();
    Ok(lines.join("\n"))
}

/// One place a search found.
#[derive(Debug, Serialize, ToolSchema)]
pub struct Hit {
    /// File relative to the workspace root.
    pub path: String,
    /// Line number, from 1.
    pub line: usize,
    /// The line's text.
    pub text: String,
}

/// What a search found, bounded.
#[derive(Debug, Serialize, ToolSchema)]
pub struct SearchResult {
    /// The hits returned.
    pub hits: Vec<Hit>,
    /// How many more matched and were left out.
    pub left_out: usize,
}

/// Search for literal text in files under the workspace.
///
/// Use this to find where a symbol or string appears. Not a regex search.
///
/// # Arguments
/// * `query` - Text to find, matched literally.
/// * `path` - File or folder to search, relative to the workspace. Default: everything.
/// * `max_results` - Most matches to return; 20 when omitted.
#[tool(effect = "read_only")]
pub fn search_files(
    #[arg(min_length = 1)] query: String,
    path: Option<String>,
    #[arg(minimum = 1, maximum = 50)] max_results: Option<u32>,
    #[ctx] workspace: &Workspace,
) -> Result<SearchResult, ToolError> {
    let scope = match &path {
        Some(path) => Some(workspace.relative(&workspace.resolve(path)?)),
        None => None,
    };
    let limit = max_results.unwrap_or(20) as usize;
    let mut hits = Vec::new();
    let mut left_out = 0;
    for file in workspace.files() {
        if scope
            .as_ref()
            .is_some_and(|s| !(file == *s || file.starts_with(&format!("{s}/"))))
        {
            continue;
        }
        let Ok(mut text) = std::fs::read_to_string(workspace.root().join(&file)) else {
            continue;
        };
        let name = file.rsplit('/').next().unwrap_or(&file);
        if secrets::is_env_file(name) {
            text = secrets::redact_env_file(&text);
        }
        for (index, line) in text.lines().enumerate() {
            if line.contains(&query) {
                if hits.len() < limit {
                    hits.push(Hit {
                        path: file.clone(),
                        line: index + 1,
                        text: line.trim().to_owned(),
                    });
                } else {
                    left_out += 1;
                }
            }
        }
    }
    Ok(SearchResult { hits, left_out })
}

/// Replace one exact piece of text in a file: a compare-and-swap.
///
/// `old_text` must occur exactly once; when it does not, nothing changes and the error
/// says how often it was found, so a file that changed since it was read is never
/// overwritten blindly. The original is kept for `undo_edit`. Use it for small changes;
/// to replace a whole file, use `write_file` instead.
///
/// # Arguments
/// * `path` - File relative to the workspace root.
/// * `old_text` - The exact text to replace, with enough context to be unique.
/// * `new_text` - What to put in its place.
#[tool(
    effect = "write",
    example = r#"{"path": "src/lib.rs", "old_text": "a - b", "new_text": "a + b"}"#
)]
pub fn edit_file(
    #[arg(resource)] path: String,
    #[arg(min_length = 1)] old_text: String,
    new_text: String,
    #[ctx] workspace: &Writes<Workspace>,
) -> Result<String, ToolError> {
    let file = workspace.resolve(&path)?;
    let text = std::fs::read_to_string(&file).map_err(|_| workspace.no_such_file(&path))?;
    match text.matches(&old_text).count() {
        0 => Err(ToolError::conflict(format!(
            "old_text was not found in {path}; the file may have changed since it was read"
        ))
        .with_hint("read the file again and copy old_text exactly")),
        1 => {
            let updated = text.replacen(&old_text, &new_text, 1);
            std::fs::write(&file, updated)
                .map_err(|e| ToolError::failed(format!("cannot write {path}: {e}")))?;
            if let Ok(mut history) = workspace.history.lock() {
                history.push((file, Some(text)));
            }
            Ok(format!("Edited {path}: replaced 1 occurrence."))
        }
        n => Err(ToolError::conflict(format!(
            "old_text occurs {n} times in {path}; it must occur exactly once"
        ))
        .with_hint("include more of the surrounding lines in old_text")),
    }
}

/// Apply a patch in the V4A format: add, change, delete and move files in one go.
///
/// Write `*** Begin Patch`, then for each file one of `*** Add File: path` (followed by
/// its lines, each starting with `+`), `*** Delete File: path`, or `*** Update File: path`
/// (optionally followed by `*** Move to: new/path`) and its hunks: `@@` (optionally
/// followed by a line to find first, like the enclosing function's signature), then the
/// lines, each starting with ' ' (context), '-' (removed) or '+' (added), with about three
/// lines of context around each change, and `*** End of File` after a change at the end.
/// Finish with `*** End Patch`. Nothing is written unless every change fits; a hunk that
/// does not is refused with the file's nearest lines. `undo_edit` restores each file.
///
/// # Arguments
/// * `patch` - The whole patch, from `*** Begin Patch` to `*** End Patch`.
#[tool(effect = "write")]
pub fn apply_patch(
    #[arg(min_length = 1)] patch: String,
    #[ctx] workspace: &Writes<Workspace>,
) -> Result<String, ToolError> {
    let ops = patch::parse(&patch).map_err(|why| {
        ToolError::new(
            ErrorKind::InvalidArguments,
            format!("the patch cannot be read: {why}"),
        )
        .with_retryable(true)
        .with_hint("write the patch in the V4A format the tool's description shows")
    })?;
    // Every file's new state, worked out before anything is written.
    let mut planned: Vec<(PathBuf, String, Option<String>)> = Vec::new();
    let mut done = Vec::new();
    for op in ops {
        let now = |planned: &[(PathBuf, String, Option<String>)], file: &Path| match planned
            .iter()
            .rev()
            .find(|(planned, _, _)| planned == file)
        {
            Some((_, _, content)) => content.clone(),
            None => std::fs::read_to_string(file).ok(),
        };
        match op {
            patch::FileOp::Add { path, lines } => {
                let file = workspace.resolve(&path)?;
                if now(&planned, &file).is_some() || file.is_dir() {
                    return Err(ToolError::conflict(format!(
                        "{path} already exists; nothing was written"
                    ))
                    .with_hint("change it with `*** Update File:`, or delete it first"));
                }
                let mut content = lines.join("\n");
                content.push('\n');
                planned.push((file, path.clone(), Some(content)));
                done.push(format!("added {path}"));
            }
            patch::FileOp::Delete { path } => {
                let file = workspace.resolve(&path)?;
                if now(&planned, &file).is_none() {
                    return Err(workspace.no_such_file(&path));
                }
                planned.push((file, path.clone(), None));
                done.push(format!("deleted {path}"));
            }
            patch::FileOp::Update {
                path,
                move_to,
                hunks,
            } => {
                let file = workspace.resolve(&path)?;
                let Some(text) = now(&planned, &file) else {
                    return Err(workspace.no_such_file(&path));
                };
                let updated = patch::apply(&text, &hunks).map_err(|why| {
                    ToolError::conflict(format!("{path}, {why}; nothing was written"))
                        .with_hint("read the file again and copy the context lines exactly")
                })?;
                match move_to {
                    Some(to) => {
                        let target = workspace.resolve(&to)?;
                        if now(&planned, &target).is_some() {
                            return Err(ToolError::conflict(format!(
                                "cannot move {path} to {to}: {to} already exists; nothing was written"
                            )));
                        }
                        planned.push((file, path.clone(), None));
                        planned.push((target, to.clone(), Some(updated)));
                        done.push(format!("moved {path} to {to}"));
                    }
                    None => {
                        planned.push((file, path.clone(), Some(updated)));
                        done.push(format!("updated {path}"));
                    }
                }
            }
        }
    }
    let mut history = workspace
        .history
        .lock()
        .map_err(|_| ToolError::internal("the edit history is poisoned"))?;
    for (file, path, content) in planned {
        let before = std::fs::read_to_string(&file).ok();
        let written = match &content {
            Some(content) => file
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(&file, content)),
            None => std::fs::remove_file(&file),
        };
        written.map_err(|e| ToolError::failed(format!("cannot write {path}: {e}")))?;
        history.push((file, before));
    }
    Ok(format!("Applied the patch: {}.", done.join(", ")))
}

/// Undo the last edit of a file made with `edit_file` or `apply_patch`.
///
/// Use it when an edit went wrong; returns what was restored.
///
/// # Arguments
/// * `path` - File relative to the workspace root.
#[tool(effect = "write")]
pub fn undo_edit(
    #[arg(resource)] path: String,
    #[ctx] workspace: &Writes<Workspace>,
) -> Result<String, ToolError> {
    let file = workspace.resolve(&path)?;
    let mut history = workspace
        .history
        .lock()
        .map_err(|_| ToolError::internal("the edit history is poisoned"))?;
    let Some(index) = history.iter().rposition(|(edited, _)| *edited == file) else {
        return Err(ToolError::not_found(format!("no edit of {path} to undo")));
    };
    let (_, original) = history.remove(index);
    match original {
        Some(original) => std::fs::write(&file, original)
            .map_err(|e| ToolError::failed(format!("cannot write {path}: {e}")))?,
        None => std::fs::remove_file(&file)
            .map_err(|e| ToolError::failed(format!("cannot remove {path}: {e}")))?,
    }
    Ok(format!("Restored {path} to before the last edit."))
}

/// Create or replace a file with the given content.
///
/// Use it for new files; to change part of an existing file, use `edit_file` instead.
///
/// # Arguments
/// * `path` - File relative to the workspace root; missing folders are created.
/// * `content` - The whole new content.
#[tool(effect = "write", stream_input)]
pub fn write_file(
    #[arg(resource)] path: String,
    content: String,
    #[ctx] workspace: &Writes<Workspace>,
) -> Result<String, ToolError> {
    let file = workspace.resolve(&path)?;
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| ToolError::failed(format!("cannot create folders for {path}: {e}")))?;
    }
    std::fs::write(&file, &content)
        .map_err(|e| ToolError::failed(format!("cannot write {path}: {e}")))?;
    Ok(format!("Wrote {} bytes to {path}.", content.len()))
}

/// The environment the agent may ask about: a snapshot taken at start-up (so tests can
/// supply their own, and the process environment is never written).
#[derive(Debug, Default)]
pub struct Environment {
    variables: std::collections::BTreeMap<String, String>,
}

impl Environment {
    /// The process's environment, now.
    pub fn from_process() -> Self {
        Self {
            variables: std::env::vars().collect(),
        }
    }

    /// Exactly these variables.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        Self {
            variables: pairs
                .into_iter()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
        }
    }
}

/// Whether an environment variable is set, and its value, with credentials redacted: the
/// whole value when the name looks secret (`SECRET`, `TOKEN`, `KEY`, `PASSWORD`, ...), and
/// credential-shaped parts of any value (a password in a URL, API tokens, long random
/// strings).
///
/// Use it when a build or test depends on the environment.
///
/// # Arguments
/// * `key` - The variable's name, like `RUST_LOG`.
#[tool(effect = "read_only")]
pub fn read_env(
    #[arg(pattern = "^[A-Za-z_][A-Za-z0-9_]*$")] key: String,
    #[ctx] environment: &Environment,
) -> String {
    match environment.variables.get(&key) {
        None => format!("{key} is not set"),
        // The redaction is code: the value never reaches the model.
        Some(value) => format!("{key} = {}", secrets::redact_variable(&key, value)),
    }
}
