//! What each target does to the canonical schema, as data: one [`Rules`] value per
//! target is the one place a target is described. To learn what OpenAI strict changes,
//! read [`OPENAI_STRICT`]; the walker (`mod.rs`) only applies these.

use super::Target;
use super::checks::{is_gemini_parameter_name, openai_limits};

/// How a target treats `$defs` and `$ref`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refs {
    /// Kept as emitted.
    Keep,
    /// A bare `$ref` kept (recursion is only expressible so); a `$ref` with siblings
    /// inlined (siblings beside `$ref` are rejected); definitions still referenced kept.
    KeepBare,
    /// Every `$ref` inlined; recursion cannot be expressed.
    Inline,
    /// Every `$ref` to a type that is not recursive inlined (definitions included); a
    /// recursive type stays a bare `$ref` into what is left of `$defs`.
    InlineUnlessRecursive,
}

/// How a target says "or null".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Nulls {
    /// JSON Schema: `"type": ["T", "null"]` or `anyOf [..., {"type": "null"}]`.
    JsonSchema,
    /// OpenAPI 3.0: `nullable: true`.
    OpenApi,
    /// JSON Schema, one type a schema: `anyOf [{"type": "T"}, {"type": "null"}]`.
    AnyOf,
}

/// How a target wants objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Objects {
    /// As emitted.
    AsEmitted,
    /// Closed (`additionalProperties: false`), `properties` always present; maps sent
    /// as arrays of `{"key", "value"}` entries, objects admitting extra fields refused. `all_required`: `required` lists every
    /// property (optional ones then become nullable, and a `null` is decoded as absent).
    Closed { all_required: bool },
    /// `additionalProperties` dropped (OpenAPI has none); maps sent as arrays of
    /// entries, objects admitting extra fields refused.
    Open,
}

/// A rule for property names: the test, whose rule it is, its pattern (for messages).
pub(crate) type NameRule = (fn(&str) -> bool, &'static str, &'static str);

/// The rules of one target.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules {
    /// Takes JSON Schema 2020-12 as emitted: nothing is rewritten but `items` on arrays.
    pub as_emitted: bool,
    pub refs: Refs,
    pub nulls: Nulls,
    pub objects: Objects,
    /// `oneOf` becomes `anyOf` (toolwright's alternatives are exclusive by
    /// construction, so the same values pass).
    pub one_of_as_any_of: bool,
    /// `const` becomes a one-value `enum`.
    pub const_as_enum: bool,
    /// `enum` and `const` values must be strings.
    pub string_enums_only: bool,
    /// Keywords the target does not take: moved into the description text, so the model
    /// still reads them (the validator still enforces them on the way back).
    pub unsupported: &'static [&'static str],
    /// The string `format`s the target takes (`None`: any). Another format is moved into
    /// the description like an unsupported keyword (the validator still checks it).
    pub formats: Option<&'static [&'static str]>,
    /// `minItems` above 1 is not taken either (moved like the keywords above).
    pub min_items_up_to_one: bool,
    /// `true` (any JSON value: `serde_json::Value`) refused.
    pub refuses_any_value: bool,
    /// `prefixItems` (tuples) refused.
    pub refuses_tuples: bool,
    /// A root that is an `anyOf` refused.
    pub refuses_root_any_of: bool,
    /// Property names must pass this rule.
    pub property_names: Option<NameRule>,
    /// A tool without parameters sends `{"type": "object", "properties": {}}`.
    pub empty_root_as_empty_object: bool,
    /// Documented limits over the whole schema: each breach as a message.
    pub limits: Option<fn(&serde_json::Value) -> Vec<String>>,
}

/// JSON Schema 2020-12 as emitted; the other fields are never read for such targets.
const AS_EMITTED: Rules = Rules {
    as_emitted: true,
    refs: Refs::Keep,
    nulls: Nulls::JsonSchema,
    objects: Objects::AsEmitted,
    one_of_as_any_of: false,
    const_as_enum: false,
    string_enums_only: false,
    unsupported: &[],
    formats: None,
    min_items_up_to_one: false,
    refuses_any_value: false,
    refuses_tuples: false,
    refuses_root_any_of: false,
    property_names: None,
    empty_root_as_empty_object: false,
    limits: None,
};

const GEMINI_NAMES: NameRule = (
    is_gemini_parameter_name,
    "Gemini",
    "^[A-Za-z_][A-Za-z0-9_]{0,63}$",
);

/// The string formats OpenAI's Structured Outputs take.
const OPENAI_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// The string formats Anthropic's strict tool use takes: OpenAI's and `uri`.
const ANTHROPIC_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// OpenAI Chat Completions and Responses with `strict: true` (Structured Outputs).
pub(crate) const OPENAI_STRICT: Rules = Rules {
    as_emitted: false,
    refs: Refs::KeepBare,
    nulls: Nulls::JsonSchema,
    objects: Objects::Closed { all_required: true },
    one_of_as_any_of: true,
    const_as_enum: true,
    string_enums_only: false,
    unsupported: &[
        "minLength",
        "maxLength",
        "uniqueItems",
        "default",
        "examples",
    ],
    formats: Some(OPENAI_FORMATS),
    min_items_up_to_one: false,
    refuses_any_value: true,
    refuses_tuples: true,
    refuses_root_any_of: true,
    property_names: None,
    empty_root_as_empty_object: false,
    limits: Some(openai_limits),
};

/// Anthropic with `strict: true` (structured outputs).
pub(crate) const ANTHROPIC_STRICT: Rules = Rules {
    as_emitted: false,
    refs: Refs::Inline,
    nulls: Nulls::JsonSchema,
    objects: Objects::Closed {
        all_required: false,
    },
    one_of_as_any_of: true,
    const_as_enum: false,
    string_enums_only: false,
    unsupported: &[
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "maxItems",
        "uniqueItems",
        "examples",
    ],
    formats: Some(ANTHROPIC_FORMATS),
    min_items_up_to_one: true,
    refuses_any_value: true,
    refuses_tuples: true,
    refuses_root_any_of: false,
    property_names: None,
    empty_root_as_empty_object: false,
    limits: None,
};

/// Gemini `parameters`: the OpenAPI 3.0 `Schema` subset.
pub(crate) const GEMINI_PARAMETERS: Rules = Rules {
    as_emitted: false,
    refs: Refs::Inline,
    nulls: Nulls::OpenApi,
    objects: Objects::Open,
    one_of_as_any_of: true,
    const_as_enum: true,
    string_enums_only: true,
    unsupported: &[
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "uniqueItems",
        "examples",
    ],
    formats: None,
    min_items_up_to_one: false,
    refuses_any_value: true,
    refuses_tuples: true,
    refuses_root_any_of: false,
    property_names: Some(GEMINI_NAMES),
    empty_root_as_empty_object: true,
    limits: None,
};

/// MCP: JSON Schema as emitted, with every reference that can be inlined inlined.
/// Clients convert tools for their model with rules of their own, and a bare `$ref` is
/// where they fail: the OpenAI Agents SDK refuses to make a tool strict when a
/// `{"$ref": ...}` stands alone (openai-agents 0.24, `strict_schema.py`: "a reference
/// whose target was not validated for strict mode"), and other clients do not resolve
/// `$defs` at all. A recursive type cannot be inlined and keeps its reference.
///
/// For the same reason "or null" is written `anyOf` (one `type` a schema): several
/// clients read `type` as one string (Cursor, and those that convert tools for Gemini);
/// the MCP Inspector's portability report warns about type lists.
pub(crate) const MCP: Rules = Rules {
    refs: Refs::InlineUnlessRecursive,
    nulls: Nulls::AnyOf,
    ..AS_EMITTED
};

/// Gemini `parametersJsonSchema`: JSON Schema as emitted, Gemini's property names.
pub(crate) const GEMINI_JSON_SCHEMA: Rules = Rules {
    property_names: Some(GEMINI_NAMES),
    ..AS_EMITTED
};

impl Target {
    /// What this target does to a schema.
    pub(crate) const fn rules(self) -> &'static Rules {
        match self {
            Target::OpenAiStrict => &OPENAI_STRICT,
            Target::AnthropicStrict => &ANTHROPIC_STRICT,
            Target::GeminiParameters => &GEMINI_PARAMETERS,
            Target::GeminiJsonSchema => &GEMINI_JSON_SCHEMA,
            Target::Mcp => &MCP,
            Target::OpenAi | Target::Anthropic => &AS_EMITTED,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{
        ANTHROPIC_STRICT, GEMINI_PARAMETERS, MCP, Nulls, OPENAI_STRICT, Objects, Refs, Rules,
    };

    /// The dialect reference's table (`toolwright::reference::dialects`) tells users what
    /// each target changes; these `Rules` tell the code. Every rule of a rewritten target
    /// must be stated in its row.
    #[test]
    fn the_dialect_reference_states_every_rule() {
        let readme = include_str!("../../../../src/reference/dialects.md");
        let targets: [(&str, &Rules); 4] = [
            (
                "`OpenAiChat` / `OpenAiResponses { strict: true }`",
                &OPENAI_STRICT,
            ),
            ("`Anthropic { strict: true }`", &ANTHROPIC_STRICT),
            ("`GeminiParameters`", &GEMINI_PARAMETERS),
            ("`Mcp`", &MCP),
        ];
        for (label, rules) in targets {
            let row = readme
                .lines()
                .find(|line| line.starts_with(&format!("| {label}")))
                .unwrap_or_else(|| panic!("the dialect reference's table has no row {label}"));
            let says = |text: &str| {
                assert!(
                    row.contains(text),
                    "the dialect reference's row {label} does not say {text:?}"
                );
            };
            for keyword in rules.unsupported {
                says(&format!("`{keyword}`"));
            }
            if let Some(formats) = rules.formats {
                says(&format!("`format` other than {}", formats.join(", ")));
            }
            if rules.min_items_up_to_one {
                says("`minItems` above 1");
            }
            match rules.refs {
                Refs::Inline => says("every `$ref` inlined"),
                Refs::KeepBare => says("`$ref` with siblings inlined"),
                Refs::InlineUnlessRecursive => {
                    says("`$ref` to a type that is not recursive inlined")
                }
                Refs::Keep => {}
            }
            match rules.objects {
                Objects::Closed { all_required } => {
                    says("every object closed");
                    if all_required {
                        says("every property `required`");
                    }
                }
                Objects::Open => says("`additionalProperties` dropped"),
                Objects::AsEmitted => {}
            }
            match rules.nulls {
                Nulls::OpenApi => says("`nullable: true`"),
                Nulls::AnyOf => says("`anyOf [{\"type\": \"T\"}, {\"type\": \"null\"}]`"),
                Nulls::JsonSchema => {}
            }
            if rules.one_of_as_any_of {
                says("`oneOf` → `anyOf`");
            }
            if rules.const_as_enum {
                says("`const` →");
            }
            if rules.string_enums_only {
                says("non-string enums");
            }
            if rules.refuses_any_value {
                says("Value`");
            }
            if rules.refuses_tuples {
                says("tuples");
            }
            if rules.refuses_root_any_of {
                says("a root `anyOf`");
            }
            if let Some((_, _, pattern)) = rules.property_names {
                says(pattern);
            }
            if rules.limits.is_some() {
                says("5,000 properties");
            }
            if rules.empty_root_as_empty_object {
                says("a tool without parameters");
            }
        }
    }
}
