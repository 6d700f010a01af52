//! The model a request is for ([`Model`], put in the request's context), its family, and
//! the rules that match models ([`Models`]): what per-family tool sets are decided on
//! ([`RegistryBuilder::offer_only_to`](crate::RegistryBuilder::offer_only_to)).

use std::fmt;

/// The model a request is for. Put it in the context of the request
/// (`Context::with(Model::new("gpt-5.1"))`): the registry then offers the tool set its
/// family is given ([`RegistryBuilder::offer_only_to`](crate::RegistryBuilder::offer_only_to)).
///
/// ```
/// # use toolwright_core::{Model, ModelFamily};
/// assert_eq!(Model::new("gpt-5.1-codex").family(), ModelFamily::Gpt);
/// assert_eq!(Model::new("anthropic/claude-sonnet-4-5").family(), ModelFamily::Claude);
/// assert_eq!(Model::new("models/gemini-2.5-pro").family(), ModelFamily::Gemini);
/// // A fine-tune whose name says nothing: say its family.
/// let tuned = Model::new("acme-coder-v3").with_family(ModelFamily::Gpt);
/// assert_eq!(tuned.family(), ModelFamily::Gpt);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    name: String,
    family: ModelFamily,
}

impl Model {
    /// The model named `name` as the provider names it (`gpt-5.1`, `claude-opus-4-1`,
    /// `openai/gpt-4o` through a router), its family read from the name
    /// ([`ModelFamily::of`]).
    pub fn new(name: impl Into<String>) -> Self {
        let name = name.into();
        let family = ModelFamily::of(&name);
        Self { name, family }
    }

    /// The same model, of `family` whatever its name says.
    #[must_use]
    pub fn with_family(mut self, family: ModelFamily) -> Self {
        self.family = family;
        self
    }

    /// Its name, as given.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its family.
    pub fn family(&self) -> ModelFamily {
        self.family
    }
}

/// Who trained a model, which decides the formats it has seen most (GPT models were
/// trained on `apply_patch`'s patches, Claude on string replacement).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ModelFamily {
    /// OpenAI's: `gpt-*`, `chatgpt-*`, the `o1`/`o3`/`o4` reasoning models, `*codex*`.
    Gpt,
    /// Anthropic's: any name with `claude` in it (Bedrock's and Vertex's ids too).
    Claude,
    /// Google's Gemini: any name with `gemini` in it.
    Gemini,
    /// Any other (open-weight models, a name the rules do not know).
    Other,
}

impl ModelFamily {
    /// The family a model's name says: the last `/`-separated part of it, case
    /// ignored, is read (`openrouter/openai/gpt-4o` is a GPT model).
    pub fn of(name: &str) -> Self {
        let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
        let reasoning = base
            .strip_prefix('o')
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
        if base.contains("claude") {
            ModelFamily::Claude
        } else if base.contains("gemini") {
            ModelFamily::Gemini
        } else if base.starts_with("gpt")
            || base.starts_with("chatgpt")
            || base.contains(".gpt")
            || base.contains("codex")
            || reasoning
        {
            ModelFamily::Gpt
        } else {
            ModelFamily::Other
        }
    }
}

impl fmt::Display for ModelFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ModelFamily::Gpt => "gpt",
            ModelFamily::Claude => "claude",
            ModelFamily::Gemini => "gemini",
            ModelFamily::Other => "other",
        })
    }
}

/// A rule on the model a request is for: a family, a name pattern, any of several, or
/// the opposite of one (`!Models::family(ModelFamily::Gpt)`). A request whose context
/// holds no [`Model`] matches only the opposite of a rule.
///
/// ```
/// # use toolwright_core::{Model, ModelFamily, Models};
/// let gpt = Models::family(ModelFamily::Gpt);
/// assert!(gpt.matches(Some(&Model::new("gpt-5.1"))));
/// assert!(!gpt.matches(None));
/// assert!((!gpt.clone()).matches(Some(&Model::new("claude-sonnet-4-5"))));
/// let small = Models::named("*-mini").or(Models::named("*-nano"));
/// assert!(small.matches(Some(&Model::new("o4-mini"))));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Models(Rule);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Rule {
    Family(ModelFamily),
    /// A pattern, lower-cased: `*` is any run of characters.
    Named(String),
    Any(Vec<Rule>),
    Not(Box<Rule>),
}

impl Models {
    /// The models of `family`.
    pub fn family(family: ModelFamily) -> Self {
        Models(Rule::Family(family))
    }

    /// The models whose whole name matches `pattern`, case ignored: `*` stands for any
    /// run of characters (`gpt-5*`, `*-mini`).
    pub fn named(pattern: &str) -> Self {
        Models(Rule::Named(pattern.to_ascii_lowercase()))
    }

    /// The models this rule or `other` matches.
    #[must_use]
    pub fn or(self, other: Models) -> Self {
        match self.0 {
            Rule::Any(mut rules) => {
                rules.push(other.0);
                Models(Rule::Any(rules))
            }
            rule => Models(Rule::Any(vec![rule, other.0])),
        }
    }

    /// Whether `model` (the one in the request's context, if any) matches.
    pub fn matches(&self, model: Option<&Model>) -> bool {
        self.0.matches(model)
    }
}

impl std::ops::Not for Models {
    type Output = Models;

    fn not(self) -> Models {
        match self.0 {
            Rule::Not(rule) => Models(*rule),
            rule => Models(Rule::Not(Box::new(rule))),
        }
    }
}

impl Rule {
    fn matches(&self, model: Option<&Model>) -> bool {
        match self {
            Rule::Family(family) => model.is_some_and(|model| model.family == *family),
            Rule::Named(pattern) => {
                model.is_some_and(|model| glob(pattern, &model.name.to_ascii_lowercase()))
            }
            Rule::Any(rules) => rules.iter().any(|rule| rule.matches(model)),
            Rule::Not(rule) => !rule.matches(model),
        }
    }
}

/// Whether `text` matches `pattern`, where `*` is any run of characters: the pieces
/// between stars in order, the first at the start and the last at the end.
fn glob(pattern: &str, text: &str) -> bool {
    let mut pieces = pattern.split('*');
    let first = pieces.next().unwrap_or_default();
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let pieces: Vec<&str> = pieces.collect();
    let Some((last, middle)) = pieces.split_last() else {
        return rest.is_empty();
    };
    for piece in middle {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_are_read_from_names_providers_and_routers_use() {
        let cases = [
            ("gpt-5.1", ModelFamily::Gpt),
            ("gpt-4o-mini", ModelFamily::Gpt),
            ("o3", ModelFamily::Gpt),
            ("o4-mini-2025-04-16", ModelFamily::Gpt),
            ("codex-mini-latest", ModelFamily::Gpt),
            ("openai/gpt-oss-120b", ModelFamily::Gpt),
            ("openai.gpt-oss-20b-1:0", ModelFamily::Gpt),
            ("claude-sonnet-4-5-20250929", ModelFamily::Claude),
            (
                "us.anthropic.claude-3-7-sonnet-20250219-v1:0",
                ModelFamily::Claude,
            ),
            ("models/gemini-2.5-flash", ModelFamily::Gemini),
            ("gemma-3-27b-it", ModelFamily::Other),
            ("qwen3-coder-30b", ModelFamily::Other),
            ("ollama", ModelFamily::Other),
            ("", ModelFamily::Other),
        ];
        for (name, family) in cases {
            assert_eq!(ModelFamily::of(name), family, "{name}");
        }
    }

    #[test]
    fn patterns_match_whole_names_with_stars_for_runs() {
        assert!(glob("gpt-5*", "gpt-5.1-codex"));
        assert!(!glob("gpt-5*", "gpt-4o"));
        assert!(glob("*-mini", "o4-mini"));
        assert!(!glob("*-mini", "o4-mini-high"));
        assert!(glob("*mini*", "o4-mini-high"));
        assert!(glob("a*b*c", "abc"));
        assert!(!glob("a*bc*c", "abc"));
        assert!(glob("exact", "exact"));
        assert!(!glob("exact", "exactly"));
        assert!(!glob("ab*ba", "aba"));
    }

    #[test]
    fn a_request_without_a_model_matches_only_the_opposite_of_a_rule() {
        let gpt = Models::family(ModelFamily::Gpt);
        assert!(!gpt.matches(None));
        assert!((!gpt.clone()).matches(None));
        assert_eq!(!!gpt.clone(), gpt);
        let either = Models::named("o3").or(Models::family(ModelFamily::Claude));
        assert!(either.matches(Some(&Model::new("o3"))));
        assert!(either.matches(Some(&Model::new("claude-haiku-4-5"))));
        assert!(!either.matches(Some(&Model::new("gpt-4.1"))));
    }
}
