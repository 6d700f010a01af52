//! A server's tool, as the model may see it: its name under the source's prefix, its
//! text screened, its schemas checked, and its effect from the trust the user gives the
//! server. What is changed or refused is written down as a [`Finding`].

use serde_json::Value;

use crate::effect::Effect;
use crate::lint::screen;
use crate::spec::{Idempotence, ToolSpec};
use crate::validate::{Options, Validator};

/// How far the user trusts a server's word about its tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Trust {
    /// Its annotations are hints from a stranger: every tool is [`Effect::External`]
    /// (the riskiest class: the default policy asks a person, calls run under an
    /// idempotency key, programs cannot call them unless the user says so).
    #[default]
    Untrusted,
    /// Its annotations say what its tools do; see [`effect_of`] for the rule.
    Annotations,
}

/// The most [`ImportLimits::message_bytes`] can be: rmcp's own line limit (16 MiB).
pub const MAX_MESSAGE_BYTES: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// Bounds on what a server may put before a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportLimits {
    /// A tool's description, in bytes; a longer one is cut (a finding says so).
    pub description_bytes: usize,
    /// A schema (input or output) as compact JSON, in bytes; a larger input schema
    /// refuses the tool, a larger output schema is dropped.
    pub schema_bytes: usize,
    /// Tools taken from one server; the rest are refused (one finding counts them) and
    /// not kept.
    pub tools: usize,
    /// The longest message read from a stdio server, in bytes (default and most: 16 MiB,
    /// rmcp's own limit); an answer over it fails its call at once, naming the size.
    pub message_bytes: usize,
}

impl Default for ImportLimits {
    fn default() -> Self {
        Self {
            description_bytes: 4096,
            schema_bytes: 64 * 1024,
            tools: 1000,
            message_bytes: MAX_MESSAGE_BYTES,
        }
    }
}

impl ImportLimits {
    /// Sets the longest description kept, in bytes.
    pub fn description_bytes(mut self, bytes: usize) -> Self {
        self.description_bytes = bytes;
        self
    }

    /// Sets the largest schema accepted, in bytes of compact JSON.
    pub fn schema_bytes(mut self, bytes: usize) -> Self {
        self.schema_bytes = bytes;
        self
    }

    /// Sets the longest message read from a stdio server, in bytes (at most 16 MiB).
    pub fn message_bytes(mut self, bytes: usize) -> Self {
        self.message_bytes = bytes.min(MAX_MESSAGE_BYTES);
        self
    }

    /// Sets how many tools are taken from one server.
    pub fn tools(mut self, tools: usize) -> Self {
        self.tools = tools;
        self
    }
}

/// Something the import changed, refused or noticed in a server's tool.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Finding {
    /// The tool's name on the server, escaped (control and invisible characters written
    /// as `\n`, `\u{202e}`: a stranger's name cannot forge a line of a report);
    /// `(the server)` for what is about the whole listing, `(entry N of the list)` for an
    /// entry with no name.
    pub tool: String,
    /// What was found.
    pub kind: FindingKind,
    /// Where in the tool's definition, when it is about one string: `description`,
    /// `title`, or a JSON path into a schema (`inputSchema.$.properties.city.description`).
    pub place: Option<String>,
    /// The detail, for a person (hostile text in it escaped).
    pub detail: String,
}

impl Finding {
    /// A finding about the tool the server calls `tool` (escaped here).
    pub(super) fn new(tool: &str, kind: FindingKind, detail: String) -> Self {
        Finding {
            tool: screen::escape(tool),
            kind,
            place: None,
            detail,
        }
    }

    /// A finding about the whole listing.
    pub(super) fn about_server(kind: FindingKind, detail: String) -> Self {
        Finding {
            tool: "(the server)".to_owned(),
            kind,
            place: None,
            detail,
        }
    }

    fn at(mut self, place: &str) -> Self {
        self.place = Some(place.to_owned());
        self
    }
}

/// What a [`Finding`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FindingKind {
    /// The tool was not imported: its entry could not be read, its name is taken or
    /// listed twice, its input schema, or the tool limit.
    Refused,
    /// Its name was changed to one every provider accepts.
    Renamed,
    /// Its name differs from another tool's only by case or separators (`get_data`,
    /// `GetData`, `get-data`): a model may call the wrong one. Both are imported.
    Confusable,
    /// Its description was cut to the limit.
    Truncated,
    /// Hidden characters (or HTML comments, which a person reading the rendered text
    /// never sees) were removed from its text.
    HiddenCharacters,
    /// Its text addresses the model with instructions (left as is: decide whether to
    /// trust it, filter the tool out, or rewrite the description).
    Instructions,
    /// Its output schema was dropped (too large, or not a schema toolwright can check).
    OutputSchemaDropped,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.place {
            Some(place) => write!(f, "'{}' ({place}): {}", self.tool, self.detail),
            None => write!(f, "'{}': {}", self.tool, self.detail),
        }
    }
}

/// A server's tool, ready to register.
pub(super) struct Imported {
    pub(super) spec: ToolSpec,
    pub(super) input: Validator,
    pub(super) output: Option<Validator>,
    /// The tool as the server listed it, to notice when it changes.
    pub(super) listed: Value,
}

/// The effect of a tool whose server is trusted, from MCP's annotations, each hint
/// absent taking the specification's default (which is the riskiest reading):
///
/// | annotations | effect |
/// | --- | --- |
/// | `readOnlyHint: true` | `read_only` |
/// | else `openWorldHint` true or absent | `external` |
/// | else `destructiveHint` true or absent | `destructive` |
/// | else | `write` |
///
/// `idempotentHint: true` makes a `write` or `destructive` tool idempotent (it may be
/// retried); `false` or absent, its calls run under an idempotency key.
pub fn effect_of(annotations: Option<&rmcp::model::ToolAnnotations>) -> (Effect, Idempotence) {
    let hint = |hint: Option<bool>, default: bool| hint.unwrap_or(default);
    let Some(annotations) = annotations else {
        return (Effect::External, Idempotence::Undeclared);
    };
    let effect = if hint(annotations.read_only_hint, false) {
        Effect::ReadOnly
    } else if hint(annotations.open_world_hint, true) {
        Effect::External
    } else if hint(annotations.destructive_hint, true) {
        Effect::Destructive
    } else {
        Effect::Write
    };
    let idempotence = match (effect, annotations.idempotent_hint) {
        (Effect::ReadOnly | Effect::External, _) => Idempotence::Undeclared,
        (_, Some(true)) => Idempotence::Idempotent,
        _ => Idempotence::NotIdempotent,
    };
    (effect, idempotence)
}

/// Imports `tool` under the local name `name` (see `names`), or refuses it; what was
/// changed or noticed goes to `findings`.
pub(super) fn import(
    tool: &rmcp::model::Tool,
    name: String,
    trust: Trust,
    limits: &ImportLimits,
    findings: &mut Vec<Finding>,
) -> Option<Imported> {
    let remote = tool.name.as_ref();
    let mut note = |kind, place: &str, detail: String| {
        findings.push(Finding::new(remote, kind, detail).at(place));
    };

    let mut input = Value::Object((*tool.input_schema).clone());
    let input_validator = match check_schema(&mut input, "inputSchema", limits, &mut note) {
        Ok(validator) => validator,
        Err(reason) => {
            note(
                FindingKind::Refused,
                "inputSchema",
                format!("its input schema {reason}"),
            );
            return None;
        }
    };
    let mut output = tool
        .output_schema
        .as_ref()
        .map(|schema| Value::Object((**schema).clone()));
    let output_validator = match output
        .as_mut()
        .map(|schema| check_schema(schema, "outputSchema", limits, &mut note))
    {
        None => None,
        Some(Ok(validator)) => Some(validator),
        Some(Err(reason)) => {
            note(
                FindingKind::OutputSchemaDropped,
                "outputSchema",
                format!("its output schema {reason}: the result is not checked"),
            );
            output = None;
            None
        }
    };

    let mut description = tool.description.as_deref().unwrap_or_default().to_owned();
    screen_text("description", &mut description, &mut note);
    if screen::cut(&mut description, limits.description_bytes) {
        note(
            FindingKind::Truncated,
            "description",
            format!(
                "its description was cut to {} bytes",
                limits.description_bytes
            ),
        );
    }
    let (effect, idempotence) = match trust {
        Trust::Untrusted => (Effect::External, Idempotence::Undeclared),
        Trust::Annotations => effect_of(tool.annotations.as_ref()),
    };
    let open_world = match trust {
        Trust::Untrusted => true,
        Trust::Annotations => tool
            .annotations
            .as_ref()
            .and_then(|annotations| annotations.open_world_hint)
            .unwrap_or(true),
    };
    let mut spec = ToolSpec::new(name, description, input, effect)
        .with_idempotence(idempotence)
        .with_open_world(open_world);
    let title = match (&tool.title, tool.annotations.as_ref()) {
        (Some(title), _) => Some((title.clone(), "title")),
        (None, Some(annotations)) => annotations
            .title
            .clone()
            .map(|title| (title, "annotations.title")),
        (None, None) => None,
    };
    if let Some((mut title, place)) = title {
        screen_text(place, &mut title, &mut note);
        screen::cut(&mut title, 200);
        spec = spec.with_title(title);
    }
    if let Some(output) = output {
        spec = spec.with_output_schema(output);
    }
    Some(Imported {
        spec,
        input: input_validator,
        output: output_validator,
        listed: serde_json::to_value(tool).unwrap_or(Value::Null),
    })
}

/// Hidden characters and HTML comments out of `text` (a finding if any), instructions
/// noted; `place` says where the text is.
fn screen_text(place: &str, text: &mut String, note: &mut impl FnMut(FindingKind, &str, String)) {
    let (clean, hidden) = screen::strip_hidden(text);
    let (clean, comments) = screen::strip_html_comments(&clean);
    if hidden + comments > 0 {
        let mut what = Vec::new();
        if hidden > 0 {
            what.push(format!("{hidden} hidden character(s)"));
        }
        if comments > 0 {
            what.push(format!("{comments} HTML comment(s)"));
        }
        note(
            FindingKind::HiddenCharacters,
            place,
            format!("{} removed from its {place}", what.join(" and ")),
        );
        *text = clean;
    }
    note_instructions(place, text, note);
}

/// An [`Instructions`](FindingKind::Instructions) finding when `text` addresses the model.
fn note_instructions(place: &str, text: &str, note: &mut impl FnMut(FindingKind, &str, String)) {
    let phrases = screen::instructions_in(text);
    if !phrases.is_empty() {
        note(
            FindingKind::Instructions,
            place,
            format!(
                "its {place} addresses the model: {}",
                phrases
                    .iter()
                    .map(|phrase| format!("\"{phrase}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        );
    }
}

/// Checks a schema a server sent: within the size limit, an object schema a validator
/// can compile (formats as annotations, as the specification reads them: the server
/// decides what it accepts), every string a model reads in it screened.
fn check_schema(
    schema: &mut Value,
    which: &str,
    limits: &ImportLimits,
    note: &mut impl FnMut(FindingKind, &str, String),
) -> Result<Validator, String> {
    let size = schema.to_string().len();
    if size > limits.schema_bytes {
        return Err(format!(
            "is {size} bytes, over the limit of {} bytes",
            limits.schema_bytes
        ));
    }
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err("is not an object schema (`\"type\": \"object\"`), as MCP requires".to_owned());
    }
    screen_schema(schema, &format!("{which}.$"), note)?;
    Validator::compile(schema, Options::SPECIFICATION).map_err(|error| {
        format!(
            "is not a JSON Schema toolwright can check: {}",
            screen::escape(&error.to_string())
        )
    })
}

/// Screens every string a model reads inside a schema, `path` being where `schema` is:
/// `description` and `title` (cleaned), `default` and `examples` (cleaned: they only
/// show the model a value), and `enum` and `const` (their values are the contract: one
/// with hidden characters, which a model cannot write faithfully, refuses the tool).
/// Property names are screened for instructions.
fn screen_schema(
    schema: &mut Value,
    path: &str,
    note: &mut impl FnMut(FindingKind, &str, String),
) -> Result<(), String> {
    match schema {
        Value::Object(object) => {
            for (key, value) in object.iter_mut() {
                let place = format!("{path}.{}", screen::escape(key));
                match (key.as_str(), value) {
                    ("description" | "title", Value::String(text)) => {
                        screen_text(&place, text, note);
                    }
                    ("default" | "examples", value) => screen_values(value, &place, note),
                    ("enum" | "const", value) => {
                        if let Some(hidden) = first_hidden(value) {
                            return Err(format!(
                                "has a value at {place} with hidden characters (\"{}\"), which a model cannot write as the server expects",
                                screen::escape(&hidden)
                            ));
                        }
                        screen_values(value, &place, note);
                    }
                    ("properties", Value::Object(properties)) => {
                        for (name, property) in properties.iter_mut() {
                            let place = format!("{place}.{}", screen::escape(name));
                            note_instructions(&place, name, note);
                            screen_schema(property, &place, note)?;
                        }
                    }
                    (_, value) => screen_schema(value, &place, note)?,
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                screen_schema(item, &format!("{path}[{index}]"), note)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Cleans every string inside a value shown to the model (a default, an example).
fn screen_values(value: &mut Value, place: &str, note: &mut impl FnMut(FindingKind, &str, String)) {
    match value {
        Value::String(text) => screen_text(place, text, note),
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                screen_values(item, &format!("{place}[{index}]"), note);
            }
        }
        Value::Object(object) => {
            for (key, item) in object.iter_mut() {
                screen_values(item, &format!("{place}.{}", screen::escape(key)), note);
            }
        }
        _ => {}
    }
}

/// The first string inside `value` with a hidden character.
fn first_hidden(value: &Value) -> Option<String> {
    match value {
        Value::String(text) if screen::count_hidden(text) > 0 => Some(text.clone()),
        Value::Array(items) => items.iter().find_map(first_hidden),
        Value::Object(object) => object.values().find_map(first_hidden),
        _ => None,
    }
}
