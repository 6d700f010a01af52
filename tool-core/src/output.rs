//! What the model sees of a result: within a budget, with the full output saved where
//! the harness can find it. Text keeps its head and tail; JSON drops whole array items
//! and stays valid JSON.

use std::fmt::Write as _;
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;
use serde_json::Value;

/// How much of a result the model may see, in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputBudget {
    /// The most characters of model-facing text.
    pub max_chars: usize,
}

impl OutputBudget {
    /// A budget of `max_chars` characters (at least 200, room for the truncation marker
    /// and a little output).
    pub const fn chars(max_chars: usize) -> Self {
        Self {
            max_chars: if max_chars < 200 { 200 } else { max_chars },
        }
    }
}

impl Default for OutputBudget {
    /// 16,000 characters: about 4,000 tokens.
    fn default() -> Self {
        Self::chars(16_000)
    }
}

/// What a result's model view left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Truncation {
    /// What was cut, in words: "1,220 lines" or "30 of 50 items from $.hits".
    pub cut: String,
    /// Where the full output is, when it could be saved.
    pub saved_to: Option<String>,
}

/// The model-facing view of a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub(crate) struct ModelView {
    /// The text the model reads.
    pub text: String,
    /// Set when the view was cut to fit the budget (boxed: rare, and it would more than
    /// double the size of every result).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Box<Truncation>>,
}

/// Where full outputs go when the model's view of them was cut.
pub trait ArtifactStore: Send + Sync {
    /// Saves `content` (the full output of call `call_id` to `tool`) and returns where it
    /// is, in words the harness and the model can use (a path, a URL, an id).
    fn save(&self, tool: &str, call_id: &str, content: &str) -> io::Result<String>;
}

/// Saves artifacts as files in a directory (created on first use).
#[derive(Debug, Clone)]
pub struct DirectoryStore {
    dir: PathBuf,
}

impl DirectoryStore {
    /// Files go into `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// `<temp dir>/toolwright-artifacts`.
    pub fn in_temp_dir() -> Self {
        Self::new(std::env::temp_dir().join("toolwright-artifacts"))
    }
}

impl ArtifactStore for DirectoryStore {
    fn save(&self, tool: &str, call_id: &str, content: &str) -> io::Result<String> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        std::fs::create_dir_all(&self.dir)?;
        // Names come from the model (the call id): keep only safe characters.
        let safe = |text: &str| -> String {
            text.chars()
                .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
                .take(64)
                .collect()
        };
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = self.dir.join(format!(
            "{}-{}-{}-{n}.txt",
            safe(tool),
            safe(call_id),
            std::process::id()
        ));
        std::fs::write(&path, content)?;
        Ok(path.display().to_string())
    }
}

/// Whether `text` fits `budget` as it is.
pub(crate) fn fits(text: &str, budget: OutputBudget) -> bool {
    // Bytes bound characters from above: a short text needs no counting.
    text.len() <= budget.max_chars || text.chars().count() <= budget.max_chars
}

/// Fits `text` into `budget`, saving the full text when it had to be cut.
pub(crate) fn fit_text(
    text: String,
    budget: OutputBudget,
    save: impl FnOnce(&str) -> io::Result<String>,
) -> ModelView {
    if fits(&text, budget) {
        return ModelView {
            text,
            truncated: None,
        };
    }
    let saved = save(&text);
    let (head, tail, cut) = cut_middle(&text, budget.max_chars.saturating_sub(160));
    let saved_to = saved.as_ref().ok().cloned();
    let marker = marker(&cut, &saved);
    ModelView {
        text: format!("{head}\n{marker}\n{tail}"),
        truncated: Some(Box::new(Truncation { cut, saved_to })),
    }
}

/// Fits a JSON value into `budget` as valid JSON: whole items are dropped from the end
/// of its largest array, then long strings are shortened; what was cut is said after it.
pub(crate) fn fit_json(
    value: &Value,
    budget: OutputBudget,
    save: impl FnOnce(&str) -> io::Result<String>,
) -> ModelView {
    let text = value.to_string();
    if fits(&text, budget) {
        return ModelView {
            text,
            truncated: None,
        };
    }
    let room = budget.max_chars.saturating_sub(160);
    let saved = save(&text);
    let (preview, cut) = shrink_json(value, room);
    let saved_to = saved.as_ref().ok().cloned();
    let marker = marker(&cut, &saved);
    ModelView {
        text: format!("{preview}\n{marker}"),
        truncated: Some(Box::new(Truncation { cut, saved_to })),
    }
}

fn marker(cut: &str, saved: &io::Result<String>) -> String {
    match saved {
        Ok(location) => format!("[... {cut} truncated. Full output saved to {location} ...]"),
        Err(error) => {
            format!("[... {cut} truncated. The full output could not be saved: {error} ...]")
        }
    }
}

/// The head and tail of `text` within `room` characters (60/40), on line boundaries when
/// the lines allow, and what was cut in words.
fn cut_middle(text: &str, room: usize) -> (&str, &str, String) {
    let head_room = room * 3 / 5;
    let tail_room = room - head_room;
    let head_end = boundary_before(text, head_room);
    let tail_start =
        boundary_after(text, text.len() - byte_len_of_last_chars(text, tail_room)).max(head_end);
    let (head, middle, tail) = (
        &text[..head_end],
        &text[head_end..tail_start],
        &text[tail_start..],
    );
    let lines = middle.matches('\n').count();
    let cut = if lines >= 2 && head.ends_with('\n') {
        format!("{} lines", group(lines))
    } else {
        format!("{} characters", group(middle.chars().count()))
    };
    (head.trim_end_matches('\n'), tail, cut)
}

/// The byte index of the end of the last whole line within the first `chars` characters
/// (or of the `chars`-th character when the first line is longer).
fn boundary_before(text: &str, chars: usize) -> usize {
    let limit = text
        .char_indices()
        .nth(chars)
        .map_or(text.len(), |(i, _)| i);
    match text[..limit].rfind('\n') {
        Some(newline) if newline > limit / 2 => newline + 1,
        _ => limit,
    }
}

/// The byte index of the start of the first whole line at or after `start`.
fn boundary_after(text: &str, start: usize) -> usize {
    let start = (start..=text.len())
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(text.len());
    match text[start..].find('\n') {
        Some(newline) if newline < (text.len() - start) / 2 => start + newline + 1,
        _ => start,
    }
}

fn byte_len_of_last_chars(text: &str, chars: usize) -> usize {
    text.char_indices()
        .rev()
        .nth(chars.saturating_sub(1))
        .map_or(text.len(), |(i, _)| text.len() - i)
}

/// `1220` → `1,220`.
pub(crate) fn group(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A preview of `value` whose JSON text fits in `room`, and what was cut.
fn shrink_json(value: &Value, room: usize) -> (String, String) {
    let mut preview = value.clone();
    let mut cut = Vec::new();
    if let Some((pointer, total)) = largest_array(value) {
        let fits = |keep: usize, preview: &mut Value| {
            if let Some(Value::Array(items)) = preview.pointer_mut(&pointer)
                && let Some(Value::Array(original)) = value.pointer(&pointer)
            {
                *items = original[..keep].to_vec();
            }
            preview.to_string().chars().count() <= room
        };
        // The most items that fit: binary search over how many to keep.
        let (mut low, mut high) = (0, total);
        while low < high {
            let mid = (low + high).div_ceil(2);
            if fits(mid, &mut preview) {
                low = mid
            } else {
                high = mid - 1
            }
        }
        fits(low, &mut preview);
        let at = if pointer.is_empty() {
            "$".to_owned()
        } else {
            format!("${}", pointer.replace('/', "."))
        };
        cut.push(format!(
            "{} of {} items from {at}",
            group(total - low),
            group(total)
        ));
    }
    let mut text = preview.to_string();
    if text.chars().count() > room {
        let (mut low, mut high) = (0usize, 4096usize);
        while low < high {
            let mid = (low + high).div_ceil(2);
            if shorten_strings(&preview, mid).to_string().chars().count() <= room {
                low = mid
            } else {
                high = mid - 1
            }
        }
        let shortened = shorten_strings(&preview, low);
        text = shortened.to_string();
        cut.push(format!("text beyond {low} characters in each string"));
        if text.chars().count() > room {
            text = serde_json::json!({"truncated": true}).to_string();
            cut.push("the rest".to_owned());
        }
    }
    let mut words = String::new();
    for (i, part) in cut.iter().enumerate() {
        let _ = write!(words, "{}{part}", if i == 0 { "" } else { "; " });
    }
    (text, words)
}

/// The JSON pointer and length of the array with the longest JSON text.
fn largest_array(value: &Value) -> Option<(String, usize)> {
    fn visit(value: &Value, pointer: &mut String, best: &mut Option<(String, usize, usize)>) {
        match value {
            Value::Array(items) => {
                let size = value.to_string().len();
                if best
                    .as_ref()
                    .is_none_or(|(_, _, best_size)| size > *best_size)
                {
                    *best = Some((pointer.clone(), items.len(), size));
                }
                for (i, item) in items.iter().enumerate() {
                    let len = pointer.len();
                    let _ = write!(pointer, "/{i}");
                    visit(item, pointer, best);
                    pointer.truncate(len);
                }
            }
            Value::Object(map) => {
                for (key, item) in map {
                    let len = pointer.len();
                    let _ = write!(pointer, "/{}", key.replace('~', "~0").replace('/', "~1"));
                    visit(item, pointer, best);
                    pointer.truncate(len);
                }
            }
            _ => {}
        }
    }
    let mut best = None;
    visit(value, &mut String::new(), &mut best);
    best.map(|(pointer, len, _)| (pointer, len))
}

fn shorten_strings(value: &Value, max: usize) -> Value {
    match value {
        Value::String(text) if text.chars().count() > max => {
            Value::String(format!("{}...", text.chars().take(max).collect::<String>()))
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| shorten_strings(item, max))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, item)| (key.clone(), shorten_strings(item, max)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn saved(_: &str) -> io::Result<String> {
        Ok("/artifacts/out.txt".into())
    }

    #[test]
    fn short_output_is_untouched() {
        let view = fit_text("hello".into(), OutputBudget::default(), saved);
        assert_eq!(
            view,
            ModelView {
                text: "hello".into(),
                truncated: None
            }
        );
    }

    #[test]
    fn long_text_keeps_head_and_tail_and_says_how_many_lines_were_cut() {
        let text: String = (1..=2000).map(|i| format!("line {i}\n")).collect();
        let view = fit_text(text, OutputBudget::chars(1000), saved);
        assert!(view.text.chars().count() <= 1000, "{}", view.text.len());
        assert!(view.text.starts_with("line 1\nline 2\n"));
        assert!(view.text.ends_with("line 2000\n"));
        let cut = &view.truncated.as_ref().unwrap().cut;
        assert!(cut.ends_with(" lines"), "{cut}");
        assert!(view.text.contains(&format!(
            "[... {cut} truncated. Full output saved to /artifacts/out.txt ...]"
        )));
    }

    #[test]
    fn one_long_line_is_cut_by_characters() {
        let view = fit_text("x".repeat(10_000), OutputBudget::chars(500), saved);
        assert!(view.text.chars().count() <= 500);
        assert!(view.truncated.unwrap().cut.ends_with(" characters"));
    }

    #[test]
    fn long_json_drops_whole_items_and_stays_valid() {
        let hits: Vec<Value> = (0..500)
            .map(|i| json!({"path": format!("src/file{i}.rs"), "line": i}))
            .collect();
        let value = json!({"total": 500, "hits": hits});
        let view = fit_json(&value, OutputBudget::chars(2000), saved);
        let (preview, marker) = view.text.split_once('\n').unwrap();
        let preview: Value = serde_json::from_str(preview).expect("the preview is valid JSON");
        let kept = preview["hits"].as_array().unwrap().len();
        assert!(kept > 10 && kept < 500, "{kept}");
        assert_eq!(
            preview["hits"][0], value["hits"][0],
            "items are dropped from the end"
        );
        assert!(view.text.chars().count() <= 2000);
        assert!(
            marker.contains(&format!("{} of 500 items from $.hits", 500 - kept)),
            "{marker}"
        );
    }

    #[test]
    fn json_without_arrays_shortens_strings() {
        let value = json!({"log": "y".repeat(50_000)});
        let view = fit_json(&value, OutputBudget::chars(1000), saved);
        let (preview, _) = view.text.split_once('\n').unwrap();
        assert!(serde_json::from_str::<Value>(preview).is_ok());
        assert!(view.text.chars().count() <= 1000);
    }

    #[test]
    fn a_failed_save_is_said_not_hidden() {
        let view = fit_text("z\n".repeat(5000), OutputBudget::chars(300), |_| {
            Err(io::Error::other("disk full"))
        });
        assert!(view.text.contains("could not be saved: disk full"));
        assert_eq!(view.truncated.unwrap().saved_to, None);
    }

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(group(1220), "1,220");
        assert_eq!(group(999), "999");
        assert_eq!(group(1_000_000), "1,000,000");
    }
}
