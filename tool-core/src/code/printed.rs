//! What a program prints, kept within [`CodeLimits::printed_bytes`](super::CodeLimits):
//! the head and the tail, and in between a marker that says how much was cut. Printing
//! more than the limit never ends the program; the buffer never holds much more than the
//! limit, however much is printed.

use std::borrow::Cow;

use monty_types::{MontyException, PrintWriterCallback};
use serde::{Deserialize, Serialize};

/// The printed output of one run (kept across a pause).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Printed {
    /// Bytes kept in all (head and tail).
    limit: usize,
    /// The first bytes printed, up to three fifths of the limit.
    head: String,
    /// The last bytes printed once the head is full: up to twice its share between trims.
    tail: String,
    /// What was cut from between the head and the tail.
    cut_chars: usize,
    cut_lines: usize,
}

impl Printed {
    /// An empty output that keeps `limit` bytes.
    pub(super) fn new(limit: usize) -> Self {
        Self {
            limit,
            ..Self::default()
        }
    }

    /// The bytes it keeps.
    pub(super) fn limit(&self) -> usize {
        self.limit
    }

    pub(super) fn is_empty(&self) -> bool {
        self.head.is_empty()
    }

    fn head_room(&self) -> usize {
        self.limit * 3 / 5
    }

    fn tail_room(&self) -> usize {
        self.limit - self.head_room()
    }

    /// Keeps what `text` adds: in the head while it has room, else in the tail.
    pub(super) fn push(&mut self, text: &str) {
        let mut text = text;
        if self.tail.is_empty() && self.cut_chars == 0 {
            let room = self.head_room().saturating_sub(self.head.len());
            let end = floor_boundary(text, room);
            self.head.push_str(&text[..end]);
            text = &text[end..];
        }
        if text.is_empty() {
            return;
        }
        self.tail.push_str(text);
        // Trimmed in bulk, so a long run of small prints costs amortized O(1) each.
        let room = self.tail_room();
        if self.tail.len() > room.saturating_mul(2).max(64) {
            let start = ceil_boundary(&self.tail, self.tail.len() - room);
            let dropped = &self.tail[..start];
            self.cut_chars += dropped.chars().count();
            self.cut_lines += dropped.matches('\n').count();
            self.tail.drain(..start);
        }
    }

    /// The output as the model reads it: all of it when it fit, else the head, a marker
    /// and the tail.
    pub(super) fn text(&self) -> String {
        let room = self.tail_room();
        let start = ceil_boundary(&self.tail, self.tail.len().saturating_sub(room));
        let (dropped, tail) = self.tail.split_at(start);
        let cut_chars = self.cut_chars + dropped.chars().count();
        if cut_chars == 0 {
            return format!("{}{}", self.head, self.tail);
        }
        let cut_lines = self.cut_lines + dropped.matches('\n').count();
        let cut = if cut_lines >= 2 {
            format!("{} lines", crate::output::group(cut_lines))
        } else {
            format!("{} characters", crate::output::group(cut_chars))
        };
        format!(
            "{}\n[... {cut} of printed output cut: the program printed more than {} bytes; print less, or return the data ...]\n{}",
            self.head.trim_end_matches('\n'),
            crate::output::group(self.limit),
            tail
        )
    }
}

impl PrintWriterCallback for Printed {
    fn stdout_write(&mut self, output: Cow<'_, str>) -> Result<(), MontyException> {
        self.push(&output);
        Ok(())
    }

    fn stdout_push(&mut self, end: char) -> Result<(), MontyException> {
        self.push(end.encode_utf8(&mut [0; 4]));
        Ok(())
    }
}

/// The largest char boundary of `text` at or before `at`.
fn floor_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest char boundary of `text` at or after `at`.
fn ceil_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_within_the_limit_is_kept_whole() {
        let mut printed = Printed::new(100);
        for n in 0..5 {
            printed.push(&format!("line {n}\n"));
        }
        assert_eq!(printed.text(), "line 0\nline 1\nline 2\nline 3\nline 4\n");
    }

    #[test]
    fn a_flood_keeps_head_and_tail_and_says_what_was_cut() {
        let mut printed = Printed::new(1000);
        for n in 0..100_000 {
            printed.push(&format!("line {n}\n"));
        }
        let text = printed.text();
        assert!(text.starts_with("line 0\nline 1\n"), "{text}");
        assert!(text.ends_with("line 99999\n"), "{text}");
        assert!(text.contains("lines of printed output cut"), "{text}");
        assert!(text.len() < 1300, "{}", text.len());
        assert!(printed.head.len() + printed.tail.len() <= 1000 * 2);
    }

    #[test]
    fn multibyte_text_is_cut_on_character_boundaries() {
        let mut printed = Printed::new(50);
        for _ in 0..1000 {
            printed.push("é日");
        }
        let text = printed.text();
        assert!(text.contains("characters of printed output cut"), "{text}");
        assert!(text.ends_with("é日"), "{text}");
    }
}
