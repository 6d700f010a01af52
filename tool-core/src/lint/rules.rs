//! The rule table: every rule's id, group, severity and summary (the docs' table is this
//! one, checked by a test).

use super::Group::{
    BehaviouralTransparency as B, Conciseness as C, ContextualCompleteness as X,
    ParameterSemantics as A, PurposeClarity as P, Safety as Z, SchemaPortability as D,
    ServerCoherence as S, UsageGuidelines as U,
};
use super::Rule;
use super::Severity::{Error as E, Info as I, Warning as W};

const fn rule(
    id: &'static str,
    group: super::Group,
    severity: super::Severity,
    summary: &'static str,
) -> Rule {
    Rule {
        id,
        group,
        severity,
        summary,
    }
}

pub(super) const ALL: [Rule; 55] = [
    rule(
        "purpose-missing",
        P,
        E,
        "The description is empty: the model has only the name to choose by.",
    ),
    rule(
        "purpose-restates-name",
        P,
        W,
        "The description only repeats the tool's name.",
    ),
    rule(
        "purpose-too-short",
        P,
        W,
        "The description has fewer than 14 words (30 characters in scripts without spaces).",
    ),
    rule(
        "purpose-filler-opening",
        P,
        I,
        "It opens with filler (\"This tool...\") instead of what the tool does.",
    ),
    rule(
        "purpose-vague-verb",
        P,
        W,
        "Its first sentence says it handles, manages or processes something, not what it does.",
    ),
    rule(
        "purpose-placeholder",
        P,
        E,
        "Placeholder text (TODO, TBD, lorem ipsum) stands where the description should be.",
    ),
    rule(
        "usage-missing",
        U,
        I,
        "Nothing says when to use the tool (\"Use when...\", \"for...\").",
    ),
    rule(
        "usage-sibling-contrast-missing",
        U,
        W,
        "A tool that reads alike exists, and the description never says how this one differs.",
    ),
    rule(
        "usage-returns-unstated",
        U,
        I,
        "No output schema, and the description never says what the tool returns.",
    ),
    rule(
        "effect-write-unstated",
        B,
        W,
        "The tool writes, and the description never says what it changes.",
    ),
    rule(
        "effect-destructive-unstated",
        B,
        W,
        "The tool destroys, and the description never says what is deleted or that it cannot be undone.",
    ),
    rule(
        "effect-external-unstated",
        B,
        W,
        "The tool acts on the outside world, and the description never says what it sends, pays or posts.",
    ),
    rule(
        "effect-contradicted",
        B,
        E,
        "Declared read-only, the description says it deletes, writes or sends.",
    ),
    rule(
        "limits-unstated",
        B,
        I,
        "A tool that lists or searches never says how many results it returns or how they are ordered.",
    ),
    rule("arg-undocumented", A, W, "An argument has no description."),
    rule(
        "arg-restates-name",
        A,
        I,
        "An argument's description only repeats its name.",
    ),
    rule(
        "arg-restates-type",
        A,
        I,
        "An argument's description only names its type.",
    ),
    rule(
        "arg-free-text-choice",
        A,
        W,
        "A string argument named like a choice (mode, kind, status) takes any text instead of an enum.",
    ),
    rule(
        "arg-enum-in-prose",
        A,
        W,
        "The description lists the allowed values, the schema does not (no enum).",
    ),
    rule(
        "arg-count-unbounded",
        A,
        I,
        "A count or limit argument has no maximum.",
    ),
    rule(
        "arg-negative-boolean",
        A,
        I,
        "A boolean is named in the negative (no_, disable_, skip_): true means not.",
    ),
    rule(
        "arg-unit-missing",
        A,
        W,
        "A quantity (timeout, size, amount, distance) says no unit in its name or description.",
    ),
    rule(
        "arg-date-format-missing",
        A,
        W,
        "A date or time argument says no format (no `format`, no \"ISO 8601\").",
    ),
    rule(
        "arg-id-source-unstated",
        A,
        I,
        "An id argument never says where the id comes from.",
    ),
    rule(
        "arg-optional-default-unstated",
        A,
        I,
        "An optional argument never says what happens when it is left out.",
    ),
    rule(
        "arg-path-base-unstated",
        A,
        I,
        "A path argument never says relative to what, or whether it is absolute.",
    ),
    rule(
        "arg-pattern-unexplained",
        A,
        I,
        "A `pattern` constrains a string whose description does not say the shape in words.",
    ),
    rule(
        "arg-description-long",
        A,
        I,
        "An argument's description is over 400 characters.",
    ),
    rule(
        "description-long",
        C,
        W,
        "The description is over 1,024 characters, read on every turn.",
    ),
    rule(
        "description-repeats-sentence",
        C,
        I,
        "A sentence appears twice.",
    ),
    rule(
        "description-duplicates-schema",
        C,
        I,
        "A docstring parameter list (\"Args:\", \":param\") repeats what the schema says.",
    ),
    rule(
        "description-markup",
        C,
        I,
        "Headings, tables, code fences or HTML tags in the description.",
    ),
    rule(
        "arguments-many",
        C,
        I,
        "More than twelve arguments: split the tool or group them.",
    ),
    rule(
        "schema-deep",
        C,
        I,
        "The schema nests more than five levels deep.",
    ),
    rule(
        "description-cut-off",
        X,
        W,
        "The description ends mid-sentence or with an ellipsis.",
    ),
    rule(
        "description-stale-reference",
        X,
        W,
        "A `name` in backticks is neither an argument nor a tool.",
    ),
    rule(
        "examples-missing",
        X,
        I,
        "Three or more required arguments and no example call.",
    ),
    rule(
        "output-undescribed",
        X,
        I,
        "The output schema describes none of its fields.",
    ),
    rule(
        "name-not-verb-first",
        S,
        I,
        "The name does not start with a verb (`search_files`, not `files`).",
    ),
    rule(
        "name-invalid",
        S,
        E,
        "The name is over 64 characters or has characters some provider refuses.",
    ),
    rule(
        "name-verbs-inconsistent",
        S,
        W,
        "Tools use different verbs for one act (get_, fetch_, retrieve_).",
    ),
    rule(
        "name-style-mixed",
        S,
        I,
        "Tool names mix snake_case, kebab-case and camelCase.",
    ),
    rule(
        "name-near-duplicate",
        S,
        W,
        "Two names differ only in case, separators or a plural.",
    ),
    rule(
        "siblings-indistinct",
        S,
        W,
        "Two tools' names and descriptions are mostly the same words.",
    ),
    rule(
        "description-duplicate",
        S,
        E,
        "Two tools have the same description.",
    ),
    rule(
        "arg-style-mixed",
        S,
        I,
        "One tool's argument names mix camelCase and snake_case.",
    ),
    rule(
        "safety-model-instruction",
        Z,
        E,
        "Text speaks to the model (\"ignore previous instructions\", `<IMPORTANT>`) instead of describing.",
    ),
    rule(
        "safety-hidden-characters",
        Z,
        E,
        "Invisible characters (zero-width, bidi overrides, tag characters) hide text from review.",
    ),
    rule(
        "safety-hidden-comment",
        Z,
        E,
        "An HTML or Markdown comment hides text from a person reading the rendered docs.",
    ),
    rule(
        "safety-secret-in-example",
        Z,
        E,
        "An example or default looks like a credential (an API key, a token, a password).",
    ),
    rule(
        "safety-url-credentials",
        Z,
        E,
        "A URL carries a user name and password.",
    ),
    rule(
        "schema-refused-by-dialect",
        D,
        W,
        "A dialect cannot express the schema: the tool cannot be sent there.",
    ),
    rule(
        "schema-untyped-argument",
        D,
        W,
        "An argument's schema has no type, enum or const: anything is accepted.",
    ),
    rule(
        "schema-open-object",
        D,
        I,
        "The arguments object accepts unknown properties: a misspelt argument is silently ignored.",
    ),
    rule(
        "schema-strict-dropped",
        D,
        W,
        "Offered to a provider's hosted code (`hosted_code`): Anthropic is sent it without `strict`, so its arguments are no longer held to the schema.",
    ),
];
