//! The rules over one tool's name and description: purpose, usage, behaviour,
//! conciseness, completeness and naming; and the dispatch to the safety and portability
//! rules, which read the same tool.

use serde_json::Value;

use super::Out;
use super::view::View;
use super::vocabulary::*;
use super::words::{Normal, first_sentence, normalized, stem};
use crate::effect::Effect;

/// Fewer words than this cannot say what a tool does, on what, what it returns and when
/// to use it. Chosen on the development half of the description-quality set
/// (tests/fixtures/description-quality: the threshold that agrees best with its raters'
/// purpose judgements), and reported on the test half.
const SHORT_WORDS: usize = 14;
/// The same for scripts without spaces between words, in letters and digits.
const SHORT_LETTERS: usize = 30;

/// The rules over one tool.
pub(super) fn check(view: &View<'_>, out: &mut Out) {
    purpose(view, out);
    if view.english {
        usage(view, out);
        behaviour(view, out);
    }
    conciseness(view, out);
    completeness(view, out);
    super::safety::check(view, out);
    super::portability::check(view, out);
    naming(view, out);
}

fn purpose(view: &View<'_>, out: &mut Out) {
    let (name, text) = (view.name, view.description);
    if text.is_empty() {
        out.push(
            "purpose-missing",
            name,
            None,
            "write what the tool does, starting with a verb, in one sentence".into(),
        );
        return;
    }
    let lower = view.normal.text();
    for placeholder in [
        "todo",
        "tbd",
        "fixme",
        "lorem ipsum",
        "description here",
        "no description",
        "add description",
    ] {
        if view.normal.says(&[placeholder]) {
            out.push(
                "purpose-placeholder",
                name,
                None,
                format!("'{placeholder}' is a placeholder: write what the tool does instead"),
            );
            break;
        }
    }
    if !view.english {
        // Scripts without spaces between words: the length in letters and digits.
        let letters = text.chars().filter(|c| c.is_alphanumeric()).count();
        if letters < SHORT_LETTERS {
            out.push(
                "purpose-too-short",
                name,
                None,
                format!("{letters} characters are too few to choose by: say what it does, on what, what it returns, and when to use it"),
            );
        }
        return;
    }
    let words: Vec<&str> = lower.split(' ').filter(|w| !w.is_empty()).collect();
    let name_stems: Vec<&str> = view.name_words.iter().map(|w| stem(w)).collect();
    let says_more = view.stems[view.name_words.len()..]
        .iter()
        .any(|word| !name_stems.contains(&word.as_str()));
    if !says_more {
        out.push(
            "purpose-restates-name",
            name,
            None,
            format!("'{text}' says no more than the name '{name}': say what it acts on, what it gives back, and when to use it"),
        );
    } else if words.len() < SHORT_WORDS {
        out.push(
            "purpose-too-short",
            name,
            None,
            format!("{} words are too few to choose by: say what it does, on what, what it returns, and when to use it (two or three sentences)", words.len()),
        );
    }
    for filler in [
        "this tool",
        "a tool",
        "tool to",
        "tool that",
        "tool for",
        "this function",
        "a function",
        "function to",
        "function that",
        "used to",
        "allows you to",
        "lets you",
        "this endpoint",
        "this api",
    ] {
        if lower.starts_with(filler) {
            out.push(
                "purpose-filler-opening",
                name,
                None,
                format!("start with the verb, not '{filler}': 'Searches...', 'Creates...'"),
            );
            break;
        }
    }
    let first = normalized(first_sentence(text));
    let first_words: Vec<&str> = first.split(' ').collect();
    let vague = [
        "handles",
        "manages",
        "processes",
        "deals",
        "works",
        "does",
        "helps",
        "handle",
        "manage",
        "process",
        "interacts",
        "interact",
    ];
    if let Some(verb) = first_words.iter().take(3).find(|word| vague.contains(word))
        && first_words.len() < 12
    {
        out.push(
            "purpose-vague-verb",
            name,
            None,
            format!("'{verb}' does not say what happens: name the act (reads, creates, deletes, sends) and its object"),
        );
    }
}

fn usage(view: &View<'_>, out: &mut Out) {
    let (name, text) = (view.name, view.description);
    if text.is_empty() {
        return;
    }
    if !view.normal.says(USAGE_WORDS) {
        out.push(
            "usage-missing",
            name,
            None,
            "say when to use it: 'Use when the user asks...', 'for...', and when not".into(),
        );
    }
    if view.spec.output_schema.is_none() && !view.normal.says(RETURN_WORDS) {
        out.push(
            "usage-returns-unstated",
            name,
            None,
            "say what it returns ('Returns the matching lines with their paths')".into(),
        );
    }
}

fn behaviour(view: &View<'_>, out: &mut Out) {
    let (name, text, spec) = (view.name, view.description, view.spec);
    if text.is_empty() {
        return;
    }
    match spec.effect {
        Effect::Write if !view.normal.says(WRITE_WORDS) && !view.normal.says(DESTROY_WORDS) => out
            .push(
                "effect-write-unstated",
                name,
                None,
                "it changes state: say what it writes or changes ('Creates...', 'Updates...')"
                    .into(),
            ),
        Effect::Destructive if !view.normal.says(DESTROY_WORDS) => out.push(
            "effect-destructive-unstated",
            name,
            None,
            "it destroys: say what is deleted or overwritten, and that it cannot be undone".into(),
        ),
        Effect::External if !view.normal.says(EXTERNAL_WORDS) => out.push(
            "effect-external-unstated",
            name,
            None,
            "it acts outside this program: say what it sends, pays, posts or calls, and to whom"
                .into(),
        ),
        Effect::ReadOnly => {
            let claims = [
                "deletes",
                "removes",
                "writes",
                "overwrites",
                "sends",
                "creates",
                "updates",
                "modifies",
                "pays",
                "charges",
                "publishes",
                "posts",
            ];
            let first = Normal::of(first_sentence(text));
            if let Some(verb) = claims.iter().find(|verb| first.says(&[verb])) {
                out.push(
                    "effect-contradicted",
                    name,
                    None,
                    format!("declared read-only, but it says it {verb}: fix the effect or the description"),
                );
            }
        }
        _ => {}
    }
    let lists = view
        .name_words
        .first()
        .is_some_and(|verb| ["list", "search", "find", "query", "browse"].contains(&verb.as_str()));
    // A bounded count argument says the limit in the schema.
    let bounded = view
        .arguments
        .iter()
        .any(|(_, schema, _)| has_maximum(schema));
    if lists
        && !bounded
        && !view.normal.says(&[
            "at most",
            "up to",
            "maximum",
            "max",
            "limit",
            "limited",
            "first",
            "top",
            "page",
            "pages",
            "paginated",
            "sorted",
            "ordered",
            "newest",
            "oldest",
            "most",
            "all",
            "every",
            "each",
            "only",
        ])
    {
        out.push(
            "limits-unstated",
            name,
            None,
            "say how many results it returns at most and in what order".into(),
        );
    }
}

/// Whether `schema` (or a member of its union) has a `maximum`.
fn has_maximum(schema: &Value) -> bool {
    schema.get("maximum").is_some()
        || ["anyOf", "oneOf"].iter().any(|key| {
            schema[*key]
                .as_array()
                .is_some_and(|members| members.iter().any(has_maximum))
        })
}

fn conciseness(view: &View<'_>, out: &mut Out) {
    let (name, text) = (view.name, view.description);
    if text.chars().count() > 1024 {
        out.push(
            "description-long",
            name,
            None,
            format!("{} characters are read on every turn: keep what helps choose and call it, move the rest to argument descriptions", text.chars().count()),
        );
    }
    let mut seen = std::collections::HashSet::new();
    for sentence in text.split(['.', '!', '?', '\n']).map(normalized) {
        if sentence.split(' ').count() >= 4 && !seen.insert(sentence.clone()) {
            out.push(
                "description-repeats-sentence",
                name,
                None,
                format!("'{sentence}' appears twice: say it once"),
            );
            break;
        }
    }
    let lower = text.to_lowercase();
    if [
        "args:",
        "arguments:",
        "parameters:",
        "params:",
        ":param ",
        "@param ",
        "returns:\n",
        "args\n----",
    ]
    .iter()
    .any(|marker| lower.contains(marker))
    {
        out.push(
            "description-duplicates-schema",
            name,
            None,
            "the argument list repeats the schema: move each argument's words to its own description".into(),
        );
    }
    let markup = text.lines().any(|line| {
        let line = line.trim_start();
        line.starts_with('#') && line.trim_start_matches('#').starts_with(' ')
            || line.starts_with("```")
            || line.starts_with('|') && line.ends_with('|')
    }) || ["<br", "<p>", "<div", "<b>", "<ul", "<li", "<table"]
        .iter()
        .any(|tag| lower.contains(tag));
    if markup {
        out.push(
            "description-markup",
            name,
            None,
            "headings, tables, code fences and HTML cost tokens and render nowhere: write plain sentences".into(),
        );
    }
    if view.arguments.len() > 12 {
        out.push(
            "arguments-many",
            name,
            None,
            format!(
                "{} arguments: split the tool by task, or group related arguments into objects",
                view.arguments.len()
            ),
        );
    }
    let depth = depth_of(&view.spec.input_schema);
    if depth > 5 {
        out.push(
            "schema-deep",
            name,
            None,
            format!(
                "the arguments nest {depth} levels deep: flatten them so a model can fill them in"
            ),
        );
    }
}

/// How many object or array levels `schema` nests.
fn depth_of(schema: &Value) -> usize {
    let children = schema["properties"]
        .as_object()
        .into_iter()
        .flat_map(|properties| properties.values())
        .chain(schema.get("items"))
        .chain(
            schema
                .get("additionalProperties")
                .filter(|value| value.is_object()),
        );
    let nested = children.map(depth_of).max().unwrap_or(0);
    let own = usize::from(schema.get("properties").is_some() || schema.get("items").is_some());
    own + nested
}

fn completeness(view: &View<'_>, out: &mut Out) {
    let (name, text, spec) = (view.name, view.description, view.spec);
    let trimmed = text.trim_end();
    if trimmed.ends_with("...")
        || trimmed.ends_with('…')
        || (view.english && trimmed.ends_with([',', ':', ';', '-', '(']))
    {
        out.push(
            "description-cut-off",
            name,
            None,
            "the description ends mid-sentence: finish it".into(),
        );
    }
    let required = view
        .arguments
        .iter()
        .filter(|(_, _, required)| *required)
        .count();
    if required >= 3 && spec.examples.is_empty() {
        out.push(
            "examples-missing",
            name,
            None,
            format!("{required} required arguments and no example call: add one (#[tool(example = ...)])"),
        );
    }
    if let Some(output) = &spec.output_schema
        && let Some(properties) = output["properties"].as_object()
        && properties.len() >= 2
        && properties
            .values()
            .all(|property| property.get("description").is_none())
    {
        out.push(
            "output-undescribed",
            name,
            None,
            "describe the output's fields, so the model knows what it gets back".into(),
        );
    }
}

fn naming(view: &View<'_>, out: &mut Out) {
    let name = view.name;
    let valid = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !name.starts_with(|c: char| c.is_ascii_digit());
    if !valid {
        out.push(
            "name-invalid",
            name,
            None,
            "use 1 to 64 ASCII letters, digits, '_' or '-', not starting with a digit: every provider takes that".into(),
        );
    }
    if let Some(first) = view.name_words.first()
        && view.name_words.len() > 1
        && !VERBS.contains(&first.as_str())
        && !VERBS.contains(&stem(first))
        && !view
            .name_words
            .iter()
            .skip(1)
            .any(|word| VERBS.contains(&word.as_str()))
    {
        out.push(
            "name-not-verb-first",
            name,
            None,
            format!("name it after what it does, verb first ('get_{first}', 'search_{first}')"),
        );
    }
}
