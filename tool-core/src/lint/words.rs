//! Reading descriptions and names as words: the lint's rules ask what a text says, and
//! these are the few ways they look at it.

/// The words of `text`, lower case: runs of letters and digits (any script).
pub(super) fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
}

/// The words of an identifier: `get_user`, `get-user`, `getUser` and `GetUser` all give
/// `get`, `user`.
pub(super) fn name_words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in name.split(|c: char| !c.is_alphanumeric()) {
        let mut current = String::new();
        let mut previous_lower = false;
        for c in part.chars() {
            if c.is_uppercase() && previous_lower && !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            previous_lower = c.is_lowercase() || c.is_ascii_digit();
            current.extend(c.to_lowercase());
        }
        if !current.is_empty() {
            out.push(current);
        }
    }
    out
}

/// Words that carry no meaning of their own in a description.
const STOPWORDS: &[&str] = &[
    "a",
    "an",
    "the",
    "and",
    "or",
    "of",
    "to",
    "in",
    "on",
    "for",
    "with",
    "by",
    "from",
    "at",
    "as",
    "is",
    "are",
    "be",
    "it",
    "its",
    "this",
    "that",
    "these",
    "those",
    "tool",
    "function",
    "given",
    "specified",
    "provided",
    "based",
    "using",
    "use",
    "via",
    "into",
    "your",
    "you",
    "will",
    "can",
    "may",
    "which",
    "if",
    "then",
    "than",
    "all",
    "any",
    "some",
    "one",
    "new",
];

/// Whether `word` (lower case) is a stopword.
pub(super) fn is_stopword(word: &str) -> bool {
    STOPWORDS.contains(&word)
}

/// A crude stem, enough to match `files`/`file`, `searches`/`search`, `created`/`create`.
pub(super) fn stem(word: &str) -> &str {
    for suffix in ["ing", "ies", "es", "ed", "s"] {
        if let Some(stem) = word.strip_suffix(suffix)
            && stem.chars().count() >= 3
        {
            return stem;
        }
    }
    word
}

/// The stems of the meaningful words of `text`.
pub(super) fn content_stems(text: &str) -> Vec<String> {
    words(text)
        .filter(|word| !is_stopword(word))
        .map(|word| stem(&word).to_owned())
        .collect()
}

/// The first sentence of `text` (up to the first `.`, `!`, `?` or `。` followed by a space
/// or the end, or the first blank line).
pub(super) fn first_sentence(text: &str) -> &str {
    let text = text.trim();
    let paragraph = text.split("\n\n").next().unwrap_or(text);
    let bytes = paragraph.char_indices().collect::<Vec<_>>();
    for (index, &(at, c)) in bytes.iter().enumerate() {
        let next = bytes.get(index + 1).map(|&(_, c)| c);
        if matches!(c, '.' | '!' | '?') && next.is_none_or(char::is_whitespace) || c == '。' {
            return &paragraph[..at + c.len_utf8()];
        }
    }
    paragraph
}

/// A text made ready for phrase lookups once: lower case, one space between words, a
/// space at each end; and its words, sorted, for the one-word phrases.
pub(super) struct Normal {
    text: String,
    words: Vec<String>,
}

impl Normal {
    /// The normalized text, without the spaces at its ends.
    pub(super) fn text(&self) -> &str {
        self.text.trim()
    }

    pub(super) fn of(text: &str) -> Self {
        let text = format!(" {} ", normalized(text));
        let mut words: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
        words.sort_unstable();
        words.dedup();
        Normal { text, words }
    }

    /// Whether any of `phrases` (lower case, words separated by one space) occurs as
    /// whole words.
    pub(super) fn says(&self, phrases: &[&str]) -> bool {
        let text = self.text.as_str();
        phrases.iter().any(|phrase| {
            if !phrase.contains(' ') {
                return self
                    .words
                    .binary_search_by(|word| word.as_str().cmp(phrase))
                    .is_ok();
            }
            text.match_indices(phrase).any(|(at, _)| {
                text[..at].ends_with(' ') && text[at + phrase.len()..].starts_with(' ')
            })
        })
    }
}

/// `text` lower case with every run of non-alphanumeric characters one space, so phrases
/// match across punctuation.
pub(super) fn normalized(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = true;
    for c in text.chars() {
        if c.is_alphanumeric() || c == '%' || c == '$' {
            out.extend(c.to_lowercase());
            space = false;
        } else if !space {
            out.push(' ');
            space = true;
        }
    }
    out.trim_end().to_owned()
}

/// Whether `text` is mostly in a script whose words these English rules cannot read
/// (more letters outside Latin than inside): such text gets only the rules that do not
/// read words.
pub(super) fn is_english_readable(text: &str) -> bool {
    let (mut latin, mut other) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        if c.is_ascii_alphabetic() || ('\u{00C0}'..='\u{024F}').contains(&c) {
            latin += 1;
        } else {
            other += 1;
        }
    }
    latin >= other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_into_words_however_they_are_written() {
        for name in ["get_user_id", "get-user-id", "getUserId", "GetUserID"] {
            let split = name_words(name);
            assert_eq!(split[..2], ["get", "user"], "{name}");
        }
    }

    #[test]
    fn the_first_sentence_ends_at_a_stop_followed_by_space() {
        assert_eq!(
            first_sentence("Reads v1.2 files. Then more."),
            "Reads v1.2 files."
        );
        assert_eq!(first_sentence("No stop at all"), "No stop at all");
        assert_eq!(first_sentence("查询信息。更多"), "查询信息。");
    }

    #[test]
    fn phrases_match_as_whole_words_across_punctuation() {
        assert!(Normal::of("Deletes the file, permanently.").says(&["permanently"]));
        assert!(!Normal::of("Undeleted files").says(&["deleted"]));
        assert!(Normal::of("Use it when, and only when").says(&["use it when"]));
    }
}
