//! The rules over one tool's name and description: purpose, usage, behaviour,
//! conciseness, completeness, safety, and whether every dialect can send its schema.

use serde_json::Value;

use super::vocabulary::*;
use super::words::{
    Normal, content_stems, first_sentence, is_english_readable, name_words, normalized, stem,
};
use super::{Out, screen};
use crate::effect::Effect;
use crate::schema::lower::{Target, lower_schema};
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

/// Fewer words than this cannot say what a tool does, on what, what it returns and when
/// to use it. Chosen on the development half of the description-quality set
/// (tests/fixtures/description-quality: the threshold that agrees best with its raters'
/// purpose judgements), and reported on the test half.
const SHORT_WORDS: usize = 14;
/// The same for scripts without spaces between words, in letters and digits.
const SHORT_LETTERS: usize = 30;

/// The per-tool rules.
pub(super) fn check(view: &View<'_>, out: &mut Out) {
    purpose(view, out);
    if view.english {
        usage(view, out);
        behaviour(view, out);
    }
    conciseness(view, out);
    completeness(view, out);
    safety(view, out);
    portability(view, out);
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

/// Every text of `view` a model reads: the description, the title, and each argument's
/// description (with where it is).
pub(super) fn texts<'a>(view: &View<'a>) -> Vec<(Option<String>, &'a str)> {
    let mut texts = vec![(None, view.spec.description.as_str())];
    if let Some(title) = &view.spec.title {
        texts.push((Some("title".into()), title.as_str()));
    }
    for (argument, schema, _) in &view.arguments {
        if let Some(description) = schema["description"].as_str() {
            texts.push((Some(format!("argument '{argument}'")), description));
        }
    }
    texts
}

fn safety(view: &View<'_>, out: &mut Out) {
    let name = view.name;
    for (at, text) in texts(view) {
        let phrases = screen::instructions_in(text);
        if !phrases.is_empty() {
            out.push(
                "safety-model-instruction",
                name,
                at.clone(),
                format!("it speaks to the model ({}): describe the tool, and put instructions to the model in the system prompt", phrases.join(", ")),
            );
        }
        let hidden = screen::count_hidden(text);
        if hidden > 0 {
            out.push(
                "safety-hidden-characters",
                name,
                at.clone(),
                format!("{hidden} invisible character(s): remove them (a person reviewing cannot see what they hide)"),
            );
        }
        if text.contains("<!--") || text.contains("[//]: #") {
            out.push(
                "safety-hidden-comment",
                name,
                at.clone(),
                "a comment is hidden from a person reading the rendered docs, not from the model: remove it".into(),
            );
        }
        if let Some(url) = credentials_in_url(text) {
            out.push(
                "safety-url-credentials",
                name,
                at,
                format!("'{url}' carries a user name and password: remove them"),
            );
        }
    }
    let mut values: Vec<&Value> = view.spec.examples.iter().collect();
    values.extend(
        view.arguments
            .iter()
            .filter_map(|(_, schema, _)| schema.get("default")),
    );
    values.extend(
        view.arguments
            .iter()
            .filter_map(|(_, schema, _)| schema.get("examples")),
    );
    if let Some(secret) = values.into_iter().find_map(secret_in) {
        out.push(
            "safety-secret-in-example",
            name,
            None,
            format!(
                "'{secret}' looks like a credential: use an obvious placeholder ('YOUR_API_KEY')"
            ),
        );
    }
}

/// A URL in `text` with `user:password@`, if any.
fn credentials_in_url(text: &str) -> Option<&str> {
    text.split_whitespace().find(|word| {
        word.find("://").is_some_and(|at| {
            let rest = &word[at + 3..];
            let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
            authority.contains('@')
                && authority
                    .split('@')
                    .next()
                    .is_some_and(|user| user.contains(':'))
        })
    })
}

/// A string inside `value` shaped like a credential, if any.
fn secret_in(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => {
            looks_secret(text).then(|| text.chars().take(12).collect::<String>() + "...")
        }
        Value::Array(items) => items.iter().find_map(secret_in),
        Value::Object(fields) => fields.iter().find_map(|(key, value)| {
            let key = key.to_lowercase();
            let named = [
                "password",
                "passwd",
                "secret",
                "api_key",
                "apikey",
                "token",
                "access_token",
            ]
            .iter()
            .any(|name| key.contains(name));
            match value {
                Value::String(text) if named && !text.is_empty() && !is_placeholder(text) => Some(
                    format!("{key}: {}...", text.chars().take(4).collect::<String>()),
                ),
                _ => secret_in(value),
            }
        }),
        _ => None,
    }
}

/// Whether `text` is an obvious placeholder (`YOUR_API_KEY`, `<token>`, `xxx`).
fn is_placeholder(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower.contains("your")
        || lower.contains('<')
        || lower.contains("example")
        || lower.chars().all(|c| c == 'x' || c == '*' || c == '.')
}

/// Whether `text` has the shape of a well-known credential.
fn looks_secret(text: &str) -> bool {
    let prefixed = |prefix: &str, min: usize| {
        text.starts_with(prefix)
            && text.len() >= prefix.len() + min
            && text[prefix.len()..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    prefixed("sk-", 20)
        || prefixed("sk_live_", 16)
        || prefixed("ghp_", 30)
        || prefixed("gho_", 30)
        || prefixed("github_pat_", 30)
        || prefixed("xoxb-", 20)
        || prefixed("xoxp-", 20)
        || prefixed("AIza", 30)
        || (text.starts_with("AKIA")
            && text.len() == 20
            && text
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()))
        || text.starts_with("-----BEGIN") && text.contains("PRIVATE KEY")
}

/// Whether `schema` is an object of at most 100 plain arguments (a string, number,
/// integer or boolean with string enums and the common constraints, names every provider
/// takes), which every target expresses: lowering it would only cost time.
fn is_plain(schema: &Value) -> bool {
    const ROOT: &[&str] = &[
        "type",
        "properties",
        "required",
        "additionalProperties",
        "description",
        "title",
        "$schema",
    ];
    const ARGUMENT: &[&str] = &[
        "type",
        "description",
        "title",
        "enum",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "default",
        "format",
        "pattern",
        "examples",
    ];
    let Some(root) = schema.as_object() else {
        return false;
    };
    let properties = match root.get("properties") {
        None => return root.keys().all(|key| ROOT.contains(&key.as_str())),
        Some(Value::Object(properties)) => properties,
        Some(_) => return false,
    };
    root.get("type") == Some(&Value::from("object"))
        && root.keys().all(|key| ROOT.contains(&key.as_str()))
        && matches!(
            root.get("additionalProperties"),
            None | Some(Value::Bool(false))
        )
        && properties.len() <= 100
        && properties.iter().all(|(name, argument)| {
            let valid_name = !name.is_empty()
                && name.len() <= 64
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            let Some(argument) = argument.as_object() else {
                return false;
            };
            valid_name
                && argument.keys().all(|key| ARGUMENT.contains(&key.as_str()))
                && matches!(
                    argument.get("type").and_then(Value::as_str),
                    Some("string" | "integer" | "number" | "boolean")
                )
                && argument.get("enum").is_none_or(|values| {
                    values.as_array().is_some_and(|values| {
                        values.len() <= 100 && values.iter().all(Value::is_string)
                    })
                })
        })
}

/// Whether `schema` has a `$ref` anywhere.
fn has_ref(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.contains_key("$ref") || map.values().any(has_ref),
        Value::Array(items) => items.iter().any(has_ref),
        _ => false,
    }
}

fn portability(view: &View<'_>, out: &mut Out) {
    let schema = &view.spec.input_schema;
    if is_plain(schema) {
        return schema_open(view, out);
    }
    // The narrowest targets: OpenAI strict and Gemini `parameters`; Anthropic strict
    // refuses nothing OpenAI strict takes but a recursive type (it inlines `$ref`s).
    let anthropic = has_ref(schema).then_some((Target::AnthropicStrict, "Anthropic strict"));
    for (target, dialect) in [
        (Target::OpenAiStrict, "OpenAI strict"),
        (Target::GeminiParameters, "Gemini parameters"),
    ]
    .into_iter()
    .chain(anthropic)
    {
        if let Err(errors) = lower_schema(view.name, schema, target) {
            for error in errors.into_vec() {
                out.push(
                    "schema-refused-by-dialect",
                    view.name,
                    Some(dialect.to_owned()),
                    format!("{}: {}", error.path, error.reason),
                );
            }
        }
    }
    schema_open(view, out);
}

fn schema_open(view: &View<'_>, out: &mut Out) {
    let schema = &view.spec.input_schema;
    if schema.get("additionalProperties") != Some(&Value::Bool(false)) && !view.arguments.is_empty()
    {
        out.push(
            "schema-open-object",
            view.name,
            None,
            "set \"additionalProperties\": false, so a misspelt argument is an error the model sees".into(),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcut is sound: every plain schema of the 524 MCP tools of the
    /// description-quality set (and the plain
    /// shapes below) lowers for every target without a refusal.
    #[test]
    fn a_plain_schema_lowers_for_every_target() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
        let read = |path: &str| -> Value {
            serde_json::from_str(&std::fs::read_to_string(root.join(path)).unwrap()).unwrap()
        };
        let mut schemas: Vec<Value> = read("description-quality/tools.json")["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["input_schema"].clone())
            .collect();
        schemas.push(serde_json::json!({"type": "object", "properties": {
            "a": {"type": "string", "enum": ["x", "y"], "default": "x", "format": "date", "pattern": "^x$", "minLength": 1},
            "b": {"type": "integer", "minimum": 0, "maximum": 9, "examples": [1]},
            "c": {"type": "boolean", "title": "C"}
        }, "required": ["a"], "additionalProperties": false}));
        let mut plain = 0;
        for schema in schemas.iter().filter(|schema| is_plain(schema)) {
            plain += 1;
            for target in [
                Target::OpenAiStrict,
                Target::OpenAi,
                Target::AnthropicStrict,
                Target::Anthropic,
                Target::GeminiParameters,
                Target::GeminiJsonSchema,
                Target::Mcp,
            ] {
                assert!(
                    lower_schema("t", schema, target).is_ok(),
                    "{target:?} refuses {schema}"
                );
            }
        }
        assert!(plain > 300, "{plain}");
    }
}
