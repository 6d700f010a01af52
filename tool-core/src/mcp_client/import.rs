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

/// Bounds on what a server may put before a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ImportLimits {
    /// A tool's description, in bytes; a longer one is cut (a finding says so).
    pub description_bytes: usize,
    /// A schema (input or output) as compact JSON, in bytes; a larger input schema
    /// refuses the tool, a larger output schema is dropped.
    pub schema_bytes: usize,
    /// Tools taken from one server; the rest are refused.
    pub tools: usize,
}

impl Default for ImportLimits {
    fn default() -> Self {
        Self {
            description_bytes: 4096,
            schema_bytes: 64 * 1024,
            tools: 1000,
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
    /// The tool's name on the server.
    pub tool: String,
    /// What was found.
    pub kind: FindingKind,
    /// The detail, for a person.
    pub detail: String,
}

/// What a [`Finding`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FindingKind {
    /// The tool was not imported (its name, its input schema, or the tool limit).
    Refused,
    /// Its name was changed to one every provider accepts.
    Renamed,
    /// Its description was cut to the limit.
    Truncated,
    /// Hidden characters were removed from its text.
    HiddenCharacters,
    /// Its text addresses the model with instructions (left as is: decide whether to
    /// trust it, filter the tool out, or rewrite the description).
    Instructions,
    /// Its output schema was dropped (too large, or not a schema toolwright can check).
    OutputSchemaDropped,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "'{}': {}", self.tool, self.detail)
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

/// The local name of `remote` under `prefix`: characters no provider accepts become `_`.
pub(super) fn local_name(prefix: Option<&str>, remote: &str) -> String {
    let name: String = remote
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    match prefix {
        Some(prefix) => format!("{prefix}_{name}"),
        None => name,
    }
}

/// Imports `tool`, or refuses it; what was changed or noticed goes to `findings`.
pub(super) fn import(
    tool: &rmcp::model::Tool,
    prefix: Option<&str>,
    trust: Trust,
    limits: &ImportLimits,
    findings: &mut Vec<Finding>,
) -> Option<Imported> {
    let remote = tool.name.as_ref();
    let mut note = |kind, detail: String| {
        findings.push(Finding {
            tool: remote.to_owned(),
            kind,
            detail,
        });
    };
    let name = local_name(prefix, remote);
    if !crate::spec::is_valid_tool_name(&name) {
        note(
            FindingKind::Refused,
            format!(
                "its name '{name}' is not one every provider accepts (^[A-Za-z_][A-Za-z0-9_-]{{0,63}}$): use a shorter prefix, or filter it out"
            ),
        );
        return None;
    }
    if local_name(None, remote) != remote {
        note(FindingKind::Renamed, format!("called '{name}' here"));
    }

    let mut input = Value::Object((*tool.input_schema).clone());
    let input_validator = match check_schema(&mut input, limits, &mut note) {
        Ok(validator) => validator,
        Err(reason) => {
            note(FindingKind::Refused, format!("its input schema {reason}"));
            return None;
        }
    };
    let mut output = tool
        .output_schema
        .as_ref()
        .map(|schema| Value::Object((**schema).clone()));
    let output_validator = match output
        .as_mut()
        .map(|schema| check_schema(schema, limits, &mut note))
    {
        None => None,
        Some(Ok(validator)) => Some(validator),
        Some(Err(reason)) => {
            note(
                FindingKind::OutputSchemaDropped,
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
    let title = tool
        .title
        .clone()
        .or_else(|| tool.annotations.as_ref()?.title.clone());
    if let Some(mut title) = title {
        screen_text("title", &mut title, &mut note);
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

/// Hidden characters out of `text` (a finding if any), instructions noted.
fn screen_text(what: &str, text: &mut String, note: &mut impl FnMut(FindingKind, String)) {
    let (clean, removed) = screen::strip_hidden(text);
    if removed > 0 {
        note(
            FindingKind::HiddenCharacters,
            format!("{removed} hidden character(s) removed from its {what}"),
        );
        *text = clean;
    }
    let phrases = screen::instructions_in(text);
    if !phrases.is_empty() {
        note(
            FindingKind::Instructions,
            format!(
                "its {what} addresses the model: {}",
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
/// decides what it accepts), its descriptions and titles screened.
fn check_schema(
    schema: &mut Value,
    limits: &ImportLimits,
    note: &mut impl FnMut(FindingKind, String),
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
    screen_schema_text(schema, note);
    Validator::compile(schema, Options::SPECIFICATION)
        .map_err(|error| format!("is not a JSON Schema toolwright can check: {error}"))
}

/// Screens every `description` and `title` inside a schema: a model reads them too.
fn screen_schema_text(schema: &mut Value, note: &mut impl FnMut(FindingKind, String)) {
    match schema {
        Value::Object(object) => {
            for (key, value) in object.iter_mut() {
                match value {
                    Value::String(text) if key == "description" || key == "title" => {
                        screen_text("schema", text, note);
                    }
                    other => screen_schema_text(other, note),
                }
            }
        }
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| screen_schema_text(item, note)),
        _ => {}
    }
}
