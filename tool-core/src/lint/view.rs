//! A tool as the rules read it: its spec, and what is computed from it once.

use serde_json::Value;

use super::words::{Normal, content_stems, is_english_readable, name_words, stem};
use crate::spec::ToolSpec;

/// A tool as the rules read it: its spec and what is computed once from it.
pub(super) struct View<'a> {
    pub(super) spec: &'a ToolSpec,
    pub(super) name: &'a str,
    pub(super) description: &'a str,
    /// The description is in a script the word rules can read.
    pub(super) english: bool,
    /// The name's words, lower case.
    pub(super) name_words: Vec<String>,
    /// The stems of the meaningful words of the name and description.
    pub(super) stems: Vec<String>,
    /// The arguments: name, schema, required.
    pub(super) arguments: Vec<(&'a str, &'a Value, bool)>,
    /// The description, ready for phrase lookups.
    pub(super) normal: Normal,
}

impl<'a> View<'a> {
    pub(super) fn of(spec: &'a ToolSpec) -> Self {
        let required: Vec<&str> = spec.input_schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let arguments = spec.input_schema["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, schema)| (name.as_str(), schema, required.contains(&name.as_str())))
            .collect();
        let name_words = name_words(&spec.name);
        let mut stems: Vec<String> = name_words
            .iter()
            .map(|word| stem(word).to_owned())
            .collect();
        stems.extend(content_stems(&spec.description));
        View {
            spec,
            name: &spec.name,
            description: spec.description.trim(),
            english: is_english_readable(&spec.description),
            normal: Normal::of(&spec.description),
            name_words,
            stems,
            arguments,
        }
    }
}
