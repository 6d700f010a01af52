//! What a schema says of a value still being written: the alternatives a schema allows
//! (each a conjunction of schema objects: `anyOf`/`oneOf` branches, `allOf` members and
//! `$ref` targets expanded), and the checks that can condemn a prefix: the value's kind,
//! a string's length and its enum prefix, an array's length, an object's keys; numbers,
//! once complete. Sound by construction: a keyword not understood here constrains
//! nothing, so a prefix of a valid value is never condemned; the gate checks the whole
//! value with the full validator once it is complete.

use serde_json::{Map, Value};

/// More alternatives than this for one value, and its schema constrains nothing here.
const MAX_ALTERNATIVES: usize = 64;
/// `$ref`s followed deeper than this constrain nothing here (a recursive type).
const MAX_DEPTH: usize = 24;

/// One way a value may fit: schema objects that must all hold.
pub(super) type Conjunction<'s> = Vec<&'s Map<String, Value>>;

/// The kind of a JSON value, known from its first byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Object,
    Array,
    String,
    Number,
    Bool,
    Null,
}

impl Kind {
    /// Every kind.
    pub(super) const ALL: [Kind; 6] = [
        Kind::Object,
        Kind::Array,
        Kind::String,
        Kind::Number,
        Kind::Bool,
        Kind::Null,
    ];

    fn name(self) -> &'static str {
        match self {
            Kind::Object => "an object",
            Kind::Array => "an array",
            Kind::String => "a string",
            Kind::Number => "a number",
            Kind::Bool => "a boolean",
            Kind::Null => "null",
        }
    }

    fn of(value: &Value) -> Kind {
        match value {
            Value::Object(_) => Kind::Object,
            Value::Array(_) => Kind::Array,
            Value::String(_) => Kind::String,
            Value::Number(_) => Kind::Number,
            Value::Bool(_) => Kind::Bool,
            Value::Null => Kind::Null,
        }
    }
}

/// The schema document a call's arguments are checked against, for its `$ref`s.
#[derive(Clone, Copy)]
pub(super) struct Schemas<'s> {
    pub(super) root: &'s Value,
}

impl<'s> Schemas<'s> {
    /// The alternatives `schema` allows (none: nothing fits; one empty conjunction:
    /// anything does).
    pub(super) fn alternatives(self, schema: &'s Value) -> Vec<Conjunction<'s>> {
        self.expand(schema, 0).unwrap_or_else(|| vec![Vec::new()])
    }

    fn expand(self, schema: &'s Value, depth: usize) -> Option<Vec<Conjunction<'s>>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let map = match schema {
            Value::Bool(false) => return Some(Vec::new()),
            Value::Object(map) => map,
            _ => return Some(vec![Vec::new()]),
        };
        let mut alternatives = vec![vec![map]];
        if let Some(target) = (map.get("$ref"))
            .and_then(Value::as_str)
            .and_then(|reference| self.resolve(reference))
        {
            alternatives = product(alternatives, self.expand(target, depth + 1)?)?;
        }
        if let Some(members) = map.get("allOf").and_then(Value::as_array) {
            for member in members {
                alternatives = product(alternatives, self.expand(member, depth + 1)?)?;
            }
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(branches) = map.get(key).and_then(Value::as_array) {
                let mut union = Vec::new();
                for branch in branches {
                    union.extend(self.expand(branch, depth + 1)?);
                    if union.len() > MAX_ALTERNATIVES {
                        return None;
                    }
                }
                alternatives = product(alternatives, union)?;
            }
        }
        Some(alternatives)
    }

    fn resolve(self, reference: &str) -> Option<&'s Value> {
        self.root.pointer(reference.strip_prefix('#')?)
    }

    /// The alternatives of the member `key` of an object fitting `conjunction`, or why
    /// there is no such member.
    pub(super) fn member(
        self,
        conjunction: &Conjunction<'s>,
        key: &str,
    ) -> Result<Vec<Conjunction<'s>>, String> {
        let mut alternatives = vec![Vec::new()];
        for schema in conjunction {
            let property = schema
                .get("properties")
                .and_then(Value::as_object)
                .and_then(|properties| properties.get(key));
            let child = match property {
                Some(child) => child,
                None if schema.contains_key("patternProperties") => continue,
                None => match schema.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        return Err(unknown_key(schema, key, true));
                    }
                    Some(child) => child,
                    None => continue,
                },
            };
            alternatives =
                product(alternatives, self.alternatives(child)).unwrap_or_else(|| vec![Vec::new()]);
        }
        Ok(alternatives)
    }

    /// The alternatives of the item at `index` of an array fitting `conjunction`.
    pub(super) fn item(
        self,
        conjunction: &Conjunction<'s>,
        index: usize,
    ) -> Result<Vec<Conjunction<'s>>, String> {
        let mut alternatives = vec![Vec::new()];
        for schema in conjunction {
            let prefix = schema.get("prefixItems").and_then(Value::as_array);
            let child = match prefix.and_then(|prefix| prefix.get(index)) {
                Some(child) => child,
                None => match schema.get("items") {
                    Some(Value::Bool(false)) => {
                        let most = prefix.map_or(0, Vec::len);
                        return Err(format!(
                            "expected at most {most} items, got more (the array is past its length)"
                        ));
                    }
                    Some(child) => child,
                    None => continue,
                },
            };
            alternatives =
                product(alternatives, self.alternatives(child)).unwrap_or_else(|| vec![Vec::new()]);
        }
        Ok(alternatives)
    }
}

/// Every pairing of `a`'s alternatives with `b`'s, or `None` when there are too many.
fn product<'s>(a: Vec<Conjunction<'s>>, b: Vec<Conjunction<'s>>) -> Option<Vec<Conjunction<'s>>> {
    if a.len().saturating_mul(b.len()) > MAX_ALTERNATIVES {
        return None;
    }
    if b.len() == 1 && b[0].is_empty() {
        return Some(a);
    }
    Some(
        a.iter()
            .flat_map(|x| {
                b.iter().map(move |y| {
                    let mut both = x.clone();
                    both.extend(y.iter().copied());
                    both
                })
            })
            .collect(),
    )
}

/// Whether `kind` fits every schema of `conjunction` (its `type`, and the kinds its
/// `enum` or `const` allow).
pub(super) fn kind_fits(conjunction: &Conjunction<'_>, kind: Kind) -> bool {
    conjunction.iter().all(|schema| {
        // OpenAPI's (Gemini `parameters`) way of allowing null.
        if kind == Kind::Null && schema.get("nullable") == Some(&Value::Bool(true)) {
            return true;
        }
        let typed = match schema.get("type") {
            Some(Value::String(name)) => type_fits(name, kind),
            Some(Value::Array(names)) => names
                .iter()
                .filter_map(Value::as_str)
                .any(|name| type_fits(name, kind)),
            _ => true,
        };
        typed
            && schema
                .get("enum")
                .and_then(Value::as_array)
                .is_none_or(|members| members.iter().any(|member| Kind::of(member) == kind))
            && schema
                .get("const")
                .is_none_or(|member| Kind::of(member) == kind)
    })
}

fn type_fits(name: &str, kind: Kind) -> bool {
    matches!(
        (name, kind),
        ("object", Kind::Object)
            | ("array", Kind::Array)
            | ("string", Kind::String)
            | ("number" | "integer", Kind::Number)
            | ("boolean", Kind::Bool)
            | ("null", Kind::Null)
    )
}

/// "expected a string or null, got a number": the kinds the alternatives allow.
pub(super) fn wrong_kind(alternatives: &[&Conjunction<'_>], kind: Kind) -> String {
    let mut allowed: Vec<&str> = Vec::new();
    for conjunction in alternatives {
        for candidate in Kind::ALL {
            if kind_fits(conjunction, candidate) {
                let name = if candidate == Kind::Number && integer_only(conjunction) {
                    "an integer"
                } else {
                    candidate.name()
                };
                if !allowed.contains(&name) {
                    allowed.push(name);
                }
            }
        }
    }
    match allowed.as_slice() {
        [] => format!("no value is allowed here, got {}", kind.name()),
        [one] => format!("expected {one}, got {}", kind.name()),
        [init @ .., last] => format!(
            "expected {} or {last}, got {}",
            init.join(", "),
            kind.name()
        ),
    }
}

fn integer_only(conjunction: &Conjunction<'_>) -> bool {
    conjunction.iter().any(|schema| {
        schema.get("type").and_then(Value::as_str) == Some("integer")
            || schema
                .get("type")
                .and_then(Value::as_array)
                .is_some_and(|names| {
                    names.iter().any(|name| name == "integer")
                        && !names.iter().any(|name| name == "number")
                })
    })
}

/// The limits of a string being written: its length, and the strings it must begin.
pub(super) struct StringLimits<'s> {
    pub(super) max_length: Option<u64>,
    /// For each schema with an `enum` or `const`: the strings it allows.
    pub(super) members: Vec<Vec<&'s str>>,
}

impl<'s> StringLimits<'s> {
    pub(super) fn of(conjunction: &Conjunction<'s>) -> Self {
        let max_length = (conjunction.iter())
            .filter_map(|schema| schema.get("maxLength").and_then(Value::as_u64))
            .min();
        let members = (conjunction.iter())
            .filter_map(|schema| {
                Some(
                    listed(schema)?
                        .into_iter()
                        .filter_map(Value::as_str)
                        .collect(),
                )
            })
            .collect();
        Self {
            max_length,
            members,
        }
    }

    /// Why a string beginning `text` (of `chars` characters) cannot fit, if it cannot,
    /// and where in `text` it stopped fitting (a byte offset).
    pub(super) fn check(&self, text: &str, chars: u64, complete: bool) -> Option<(usize, String)> {
        if let Some(most) = self.max_length
            && chars > most
        {
            let at = text
                .char_indices()
                .nth(most as usize)
                .map_or(text.len(), |(at, _)| at);
            return Some((
                at,
                format!(
                    "expected at most {most} characters, got more (the string is past maxLength)"
                ),
            ));
        }
        for allowed in &self.members {
            let fits = allowed.iter().any(|member| {
                if complete {
                    *member == text
                } else {
                    member.starts_with(text)
                }
            });
            if !fits {
                let shown = shorten(text);
                let at = if complete {
                    text.len()
                } else {
                    common_prefix(allowed, text)
                };
                return Some((
                    at,
                    if complete {
                        format!("expected one of {}, got \"{shown}\"", listing(allowed))
                    } else {
                        format!(
                            "expected one of {}, got a string beginning \"{shown}\"",
                            listing(allowed)
                        )
                    },
                ));
            }
        }
        None
    }
}

/// The longest start of `text` that some name begins with, in bytes (at a character
/// boundary): where `text` stopped fitting every name.
fn common_prefix(names: &[&str], text: &str) -> usize {
    let longest = names
        .iter()
        .map(|name| {
            name.bytes()
                .zip(text.bytes())
                .take_while(|(a, b)| a == b)
                .count()
        })
        .max()
        .unwrap_or(0);
    (0..=longest)
        .rev()
        .find(|&at| text.is_char_boundary(at))
        .unwrap_or(0)
}

/// What a complete number must meet, read from a conjunction once.
#[derive(Default)]
pub(super) struct NumberLimits {
    integer: bool,
    minimum: Option<f64>,
    maximum: Option<f64>,
    above: Option<f64>,
    below: Option<f64>,
    /// For each schema with an `enum` or `const`: the numbers it allows.
    members: Vec<Vec<f64>>,
}

impl NumberLimits {
    pub(super) fn of(conjunction: &Conjunction<'_>) -> Self {
        let bound = |key: &str, pick: fn(f64, f64) -> f64| {
            (conjunction.iter())
                .filter_map(|schema| schema.get(key).and_then(Value::as_f64))
                .reduce(pick)
        };
        Self {
            integer: conjunction
                .iter()
                .any(|schema| integer_only(&vec![*schema])),
            minimum: bound("minimum", f64::max),
            maximum: bound("maximum", f64::min),
            above: bound("exclusiveMinimum", f64::max),
            below: bound("exclusiveMaximum", f64::min),
            members: (conjunction.iter())
                .filter_map(|schema| {
                    Some(
                        listed(schema)?
                            .into_iter()
                            .filter_map(Value::as_f64)
                            .collect(),
                    )
                })
                .collect(),
        }
    }

    /// Whether anything is checked.
    pub(super) fn any(&self) -> bool {
        self.integer
            || self.minimum.is_some()
            || self.maximum.is_some()
            || self.above.is_some()
            || self.below.is_some()
            || !self.members.is_empty()
    }

    /// Why a complete number (`text`, worth `number`) cannot fit, if it cannot.
    pub(super) fn check(&self, text: &str, number: f64) -> Option<String> {
        if number.is_nan() {
            return None;
        }
        if self.integer && number.fract() != 0.0 {
            return Some(format!("expected an integer, got {text}"));
        }
        if let Some(minimum) = self.minimum
            && number < minimum
        {
            return Some(format!(
                "expected a number of at least {minimum}, got {text}"
            ));
        }
        if let Some(maximum) = self.maximum
            && number > maximum
        {
            return Some(format!(
                "expected a number of at most {maximum}, got {text}"
            ));
        }
        if let Some(minimum) = self.above
            && number <= minimum
        {
            return Some(format!("expected a number above {minimum}, got {text}"));
        }
        if let Some(maximum) = self.below
            && number >= maximum
        {
            return Some(format!("expected a number below {maximum}, got {text}"));
        }
        if self
            .members
            .iter()
            .any(|allowed| !allowed.contains(&number))
        {
            return Some(format!("{text} is not one of the allowed values"));
        }
        None
    }
}

/// Why a complete `true`, `false` or `null` cannot fit `conjunction`, if it cannot.
pub(super) fn check_literal(conjunction: &Conjunction<'_>, value: &Value) -> Option<String> {
    for schema in conjunction {
        if value.is_null() && schema.get("nullable") == Some(&Value::Bool(true)) {
            continue;
        }
        let Some(members) = listed(schema) else {
            continue;
        };
        if !members.contains(&value) {
            return Some(format!("{value} is not one of the allowed values"));
        }
    }
    None
}

/// The values a schema lists (its `enum`, or its `const`), when it lists any.
fn listed(schema: &Map<String, Value>) -> Option<Vec<&Value>> {
    match (schema.get("enum"), schema.get("const")) {
        (Some(Value::Array(members)), _) => Some(members.iter().collect()),
        (_, Some(member)) => Some(vec![member]),
        _ => None,
    }
}

/// The limits of an array being written.
pub(super) fn max_items(conjunction: &Conjunction<'_>) -> Option<u64> {
    (conjunction.iter())
        .filter_map(|schema| schema.get("maxItems").and_then(Value::as_u64))
        .min()
}

/// The fewest items an array fitting `conjunction` has.
pub(super) fn min_items(conjunction: &Conjunction<'_>) -> Option<u64> {
    (conjunction.iter())
        .filter_map(|schema| schema.get("minItems").and_then(Value::as_u64))
        .max()
}

/// The names of the members an object fitting `conjunction` may have, for each schema
/// that closes it (`additionalProperties: false`, no `patternProperties`).
pub(super) fn closed_names<'s>(conjunction: &Conjunction<'s>) -> Vec<Vec<&'s str>> {
    (conjunction.iter())
        .filter(|schema| {
            schema.get("additionalProperties") == Some(&Value::Bool(false))
                && !schema.contains_key("patternProperties")
        })
        .map(|schema| {
            (schema.get("properties").and_then(Value::as_object))
                .map(|properties| properties.keys().map(String::as_str).collect())
                .unwrap_or_default()
        })
        .collect()
}

/// Why a key beginning `prefix` cannot be a member, if it cannot, and where in `prefix`
/// it stopped fitting.
pub(super) fn check_key_prefix(closed: &[Vec<&str>], prefix: &str) -> Option<(usize, String)> {
    closed
        .iter()
        .find(|names| !names.iter().any(|name| name.starts_with(prefix)))
        .map(|names| {
            (
                common_prefix(names, prefix),
                format!(
                    "no argument begins \"{}\": the arguments are {}",
                    shorten(prefix),
                    listing(names)
                ),
            )
        })
}

/// The members an object fitting `conjunction` must have.
pub(super) fn required<'s>(conjunction: &Conjunction<'s>) -> Vec<&'s str> {
    let mut names: Vec<&str> = Vec::new();
    for schema in conjunction {
        for name in (schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten())
        .filter_map(Value::as_str)
        {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

fn unknown_key(schema: &Map<String, Value>, key: &str, _complete: bool) -> String {
    let names: Vec<&str> = (schema.get("properties").and_then(Value::as_object))
        .map(|properties| properties.keys().map(String::as_str).collect())
        .unwrap_or_default();
    format!(
        "unknown argument \"{}\": the arguments are {}",
        shorten(key),
        listing(&names)
    )
}

fn listing(names: &[&str]) -> String {
    if names.is_empty() {
        return "none".to_owned();
    }
    let shown: Vec<String> = names
        .iter()
        .take(12)
        .map(|name| format!("\"{name}\""))
        .collect();
    if names.len() > 12 {
        format!("{} (and {} more)", shown.join(", "), names.len() - 12)
    } else {
        shown.join(", ")
    }
}

/// At most 40 characters of `text`, for a message.
pub(super) fn shorten(text: &str) -> String {
    if text.chars().count() <= 40 {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(40).collect();
    short.push_str("...");
    short
}
