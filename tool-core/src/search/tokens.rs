//! Text to search terms: words split at punctuation, `_`, `-` and case changes
//! (`createIssue`, `create_issue` and `create-issue` all give `create`, `issue`),
//! lowercased, common English words dropped, and stemmed (Snowball English, so `issues`,
//! `issued` and `issue` meet). The verbs tools are named by (create, get, list, update,
//! delete, search) also stand for the words people use instead (`set up`, `look up`,
//! `enumerate`, `modify`, `get rid of`, `find`): a tool and a query each get the verb's
//! name beside their own word, so either finds the other.

use rust_stemmers::{Algorithm, Stemmer};

/// Words too common to tell tools apart.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from",
    "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or",
    "our", "please", "should", "so", "some", "that", "the", "their", "them", "then", "there",
    "these", "this", "those", "to", "us", "was", "we", "what", "when", "where", "which", "who",
    "will", "with", "would", "you", "your",
];

/// Stemmed words and two-word phrases that mean one of the verbs tools are named by, and
/// the stem of that verb. Sorted by the phrase.
const VERB_SYNONYMS: &[(&str, &str)] = &[
    ("add", "creat"),
    ("all", "list"),
    ("chang", "updat"),
    ("destroy", "delet"),
    ("detail", "get"),
    ("edit", "updat"),
    ("enumer", "list"),
    ("eras", "delet"),
    ("everi", "list"),
    ("fetch", "get"),
    ("find", "search"),
    ("get rid", "delet"),
    ("hunt", "search"),
    ("look for", "search"),
    ("look up", "get"),
    ("make", "creat"),
    ("modifi", "updat"),
    ("new", "creat"),
    ("pull up", "get"),
    ("remov", "delet"),
    ("retriev", "get"),
    ("set up", "creat"),
];

/// Splits, lowercases, drops stop words and stems.
pub(crate) struct Tokenizer {
    stemmer: Stemmer,
}

impl Default for Tokenizer {
    fn default() -> Self {
        Self {
            stemmer: Stemmer::create(Algorithm::English),
        }
    }
}

impl Tokenizer {
    /// The terms of `text`, in order, repeats kept; after a word or two-word phrase
    /// that means one of the verbs tools are named by, that verb too.
    pub(crate) fn terms(&self, text: &str, out: &mut Vec<String>) {
        let mut previous = String::new();
        for word in words(text) {
            let lower = word.to_lowercase();
            let stem = self.stemmer.stem(&lower).into_owned();
            let phrase = format!("{previous} {stem}");
            for key in [phrase.as_str(), stem.as_str()] {
                if let Ok(found) = VERB_SYNONYMS.binary_search_by(|(words, _)| (*words).cmp(key)) {
                    out.push(VERB_SYNONYMS[found].1.to_owned());
                    break;
                }
            }
            if STOP_WORDS.binary_search(&lower.as_str()).is_err() {
                out.push(stem.clone());
            }
            previous = stem;
        }
    }
}

/// The words of `text`: runs of letters and digits, cut where a lowercase letter or a
/// digit is followed by an uppercase one (`listPullRequests`) and where an uppercase run
/// ends before a lowercase letter (`HTTPServer` → `HTTP`, `Server`).
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|run| !run.is_empty())
        .flat_map(split_case)
}

fn split_case(run: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = run.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (at, c) = chars[i];
        let previous = chars[i - 1].1;
        let next_lower = chars.get(i + 1).is_some_and(|(_, n)| n.is_lowercase());
        let cut = c.is_uppercase()
            && (previous.is_lowercase()
                || previous.is_ascii_digit()
                || (previous.is_uppercase() && next_lower));
        if cut {
            parts.push(&run[start..at]);
            start = at;
        }
    }
    parts.push(&run[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        Tokenizer::default().terms(text, &mut out);
        out
    }

    #[test]
    fn tables_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|pair| pair[0] < pair[1]));
        assert!(VERB_SYNONYMS.windows(2).all(|pair| pair[0].0 < pair[1].0));
    }

    #[test]
    fn the_words_people_use_meet_the_verbs_tools_are_named_by() {
        let has = |text: &str, verb: &str| terms(text).iter().any(|term| term == verb);
        assert!(has("set up a meeting", "creat"));
        assert!(has("get rid of the draft", "delet"));
        assert!(has("enumerate the buckets", "list"));
        assert!(has("look up the customer", "get"));
        assert!(!has("look at the sky", "get"));
    }

    #[test]
    fn names_split_at_underscores_dashes_and_case() {
        assert_eq!(terms("create_issue"), ["creat", "issu"]);
        assert_eq!(terms("create-issue"), ["creat", "issu"]);
        assert_eq!(terms("createIssue"), ["creat", "issu"]);
        assert_eq!(terms("HTTPServer v2Beta"), ["http", "server", "v2", "beta"]);
    }

    #[test]
    fn inflections_meet_and_common_words_go() {
        assert_eq!(terms("Lists the issues"), terms("list issue"));
        assert_eq!(terms("deleted"), terms("deleting"));
        assert!(terms("the of and to").is_empty());
    }
}
