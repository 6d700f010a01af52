//! Validation of a JSON value against a JSON Schema (2020-12 semantics for every keyword
//! toolwright emits), reporting **every** problem at once, each with its JSON path, what
//! was expected and what came.
//!
//! A schema is compiled once into a [`Validator`]; `$ref`s to any JSON pointer in the
//! document (`#/$defs/Name`, `#`, `#/properties/x`) become indices, so recursive types
//! cost nothing extra. Keywords toolwright does not emit and 2020-12 treats as
//! annotations are ignored; a `$ref` toolwright cannot resolve (remote documents, `$id`,
//! `$anchor`) is a compile error rather than a silent pass.

mod alternatives;
mod compile;
pub(crate) mod format;
pub(crate) mod json;
mod keywords;
mod pattern;
mod uri;

use std::collections::HashSet;

use serde_json::Value;

pub use compile::SchemaError;
pub(crate) use json::JsonPath;
pub use keywords::Keywords;

use crate::error::Problem;
use compile::{Node, SchemaNode, Types};
use json::{Shown, is_integer, json_eq, message, show, type_name};

/// How to read the schema.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Options {
    /// `integer` means what serde accepts for Rust integers: a literal without fraction
    /// or exponent that fits `i64` or `u64` (`1.0` is not an integer). Off, `integer`
    /// follows JSON Schema (`1.0` is one).
    pub strict_integers: bool,
    /// `format` is checked for the formats toolwright knows (date, date-time, time,
    /// duration, email, hostname, ipv4, ipv6, uuid, uri, and its own local-date-time and
    /// local-time). Off, it is an annotation.
    pub assert_formats: bool,
}

setters!(Options {
    strict_integers: bool,
    assert_formats: bool,
});

impl Options {
    /// JSON Schema 2020-12 as the specification reads: formats are annotations.
    pub const SPECIFICATION: Options = Options {
        strict_integers: false,
        assert_formats: false,
    };
    /// What tool arguments need: formats checked. Integers as JSON Schema reads them
    /// (`5.0` is one), because a client that validates against the published schema
    /// accepts them and the argument reader reads a whole float into a Rust integer.
    pub const TOOL_ARGUMENTS: Options = Options {
        strict_integers: false,
        assert_formats: true,
    };
}

/// A compiled schema.
///
/// ```
/// use serde_json::json;
/// use toolwright::validate::Validator;
///
/// let schema = json!({
///     "type": "object",
///     "properties": {"amount": {"type": "integer", "minimum": 1}},
///     "required": ["amount"],
///     "additionalProperties": false
/// });
/// let validator = Validator::for_arguments(&schema).unwrap();
/// let problems: Vec<String> =
///     validator.validate(&json!({"ammount": 0})).iter().map(ToString::to_string).collect();
/// assert_eq!(problems, [
///     "$: missing required field 'amount'",
///     "$: unexpected field 'ammount' (allowed: amount); did you mean 'amount'?",
/// ]);
/// ```
#[derive(Debug, Clone)]
pub struct Validator {
    nodes: Vec<Node>,
    options: Options,
}

/// One problem while validating, before it becomes a [`Problem`]: the depth and kind
/// rank the alternatives of an `anyOf`/`oneOf` when none matches.
#[derive(Debug, Clone)]
pub(crate) struct Issue {
    path: String,
    depth: usize,
    kind: IssueKind,
    message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IssueKind {
    /// The value is of another JSON type.
    Type,
    /// A `const` or `enum` mismatch (a tag, usually).
    Value,
    /// Anything else.
    Constraint,
}

impl Issue {
    pub(crate) fn new(path: &JsonPath, kind: IssueKind, message: String) -> Self {
        Self {
            path: path.text(),
            depth: path.depth(),
            kind,
            message,
        }
    }
}

impl Validator {
    /// Compiles `schema` (a JSON Schema document) with `options`.
    pub fn compile(schema: &Value, options: Options) -> Result<Self, SchemaError> {
        Ok(Self {
            nodes: compile::compile(schema, options)?,
            options,
        })
    }

    /// Compiles a tool's argument schema: strict integers, formats asserted.
    pub fn for_arguments(schema: &Value) -> Result<Self, SchemaError> {
        Self::compile(schema, Options::TOOL_ARGUMENTS)
    }

    /// A validator that accepts everything (the schema `true`).
    pub fn accept_all() -> Self {
        Self {
            nodes: vec![Node::Bool(true)],
            options: Options::SPECIFICATION,
        }
    }

    /// Every problem with `value`; empty when it is valid. Problems about an object come
    /// before problems inside it.
    pub fn validate(&self, value: &Value) -> Vec<Problem> {
        let mut issues = Vec::new();
        self.check(0, value, &mut JsonPath::root(), &mut issues);
        issues.sort_by_key(|issue| issue.depth);
        issues
            .into_iter()
            .map(|issue| Problem::new(issue.path, issue.message))
            .collect()
    }

    /// Whether `value` is valid.
    pub fn is_valid(&self, value: &Value) -> bool {
        let mut issues = Vec::new();
        self.check(0, value, &mut JsonPath::root(), &mut issues);
        issues.is_empty()
    }

    fn check(&self, node: usize, value: &Value, path: &mut JsonPath, issues: &mut Vec<Issue>) {
        match &self.nodes[node] {
            Node::Bool(true) => {}
            Node::Bool(false) => issues.push(Issue::new(
                path,
                IssueKind::Type,
                "no value is allowed here".into(),
            )),
            Node::Schema(schema) => self.check_schema(schema, value, path, issues),
        }
    }

    fn check_schema(
        &self,
        schema: &SchemaNode,
        value: &Value,
        path: &mut JsonPath,
        issues: &mut Vec<Issue>,
    ) {
        if let Some(target) = schema.reference {
            self.check(target, value, path, issues);
        }
        if let Some(types) = schema.types
            && !types.accepts(value, self.options.strict_integers)
        {
            issues.push(Issue::new(
                path,
                IssueKind::Type,
                message!("expected {types}, got {}", DescribedValue(value)),
            ));
            // The keywords below assume the right type; their messages would only repeat
            // this one.
            return;
        }
        if let Some(constant) = &schema.constant
            && !json_eq(constant, value)
        {
            issues.push(Issue::new(
                path,
                IssueKind::Value,
                message!("must be {}, got {}", show(constant), show(value)),
            ));
        }
        if let Some(allowed) = &schema.enumeration
            && !allowed.iter().any(|candidate| json_eq(candidate, value))
        {
            issues.push(Issue::new(
                path,
                IssueKind::Value,
                format!(
                    "must be one of {}, got {}",
                    list_values(allowed),
                    show(value)
                ),
            ));
        }
        match value {
            Value::Number(n) => schema.keywords.check_number(n, path, issues),
            Value::String(text) => schema.keywords.check_string(text, path, issues),
            Value::Array(items) => self.check_array(schema, items, path, issues),
            Value::Object(object) => self.check_object(schema, object, path, issues),
            _ => {}
        }
        for &sub in &schema.all_of {
            self.check(sub, value, path, issues);
        }
        if !schema.any_of.is_empty() {
            self.check_alternatives(&schema.any_of, false, value, path, issues);
        }
        if !schema.one_of.is_empty() {
            self.check_alternatives(&schema.one_of, true, value, path, issues);
        }
        if let Some((condition, then, otherwise)) = schema.condition {
            let mut inner = Vec::new();
            self.check(condition, value, path, &mut inner);
            if let Some(branch) = if inner.is_empty() { then } else { otherwise } {
                self.check(branch, value, path, issues);
            }
        }
        if let Some(not) = schema.not {
            let mut inner = Vec::new();
            self.check(not, value, path, &mut inner);
            if inner.is_empty() {
                issues.push(Issue::new(
                    path,
                    IssueKind::Constraint,
                    message!("{} matches a schema it must not match", show(value)),
                ));
            }
        }
    }

    fn check_array(
        &self,
        schema: &SchemaNode,
        items: &[Value],
        path: &mut JsonPath,
        issues: &mut Vec<Issue>,
    ) {
        schema.keywords.check_items(items.len(), path, issues);
        for (index, item) in items.iter().enumerate() {
            let node = match schema.prefix_items.get(index) {
                Some(&node) => Some(node),
                None => schema.items,
            };
            if let Some(node) = node {
                path.push_index(index);
                if matches!(self.nodes[node], Node::Bool(false)) {
                    issues.push(Issue::new(
                        path,
                        IssueKind::Constraint,
                        format!(
                            "unexpected item: at most {} items are allowed",
                            schema.prefix_items.len()
                        ),
                    ));
                } else {
                    self.check(node, item, path, issues);
                }
                path.pop();
            }
        }
        if schema.unique_items
            && let Some((first, second)) = first_duplicate(items)
        {
            issues.push(Issue::new(
                path,
                IssueKind::Constraint,
                message!("items {first} and {second} are equal; all items must be unique"),
            ));
        }
    }

    fn check_object(
        &self,
        schema: &SchemaNode,
        object: &serde_json::Map<String, Value>,
        path: &mut JsonPath,
        issues: &mut Vec<Issue>,
    ) {
        for name in &schema.required {
            if !has_key(object, name) {
                issues.push(Issue::new(
                    path,
                    IssueKind::Constraint,
                    message!("missing required field '{name}'"),
                ));
            }
        }
        for (key, item) in object {
            let declared = schema
                .properties
                .iter()
                .find(|(name, _)| name == key)
                .map(|(_, node)| *node);
            let mut matched = declared.is_some();
            path.push_key(key);
            if let Some(node) = declared {
                self.check(node, item, path, issues);
            }
            for (pattern, node) in &schema.pattern_properties {
                if pattern.is_match(key) {
                    matched = true;
                    self.check(*node, item, path, issues);
                }
            }
            path.pop();
            if matched {
                continue;
            }
            let Some(node) = schema.additional_properties else {
                continue;
            };
            if matches!(self.nodes[node], Node::Bool(false)) {
                issues.push(Issue::new(
                    path,
                    IssueKind::Constraint,
                    unexpected_field(key, schema, object),
                ));
                continue;
            }
            path.push_key(key);
            self.check(node, item, path, issues);
            path.pop();
        }
    }
}

/// `integer 7`, `string "x"`, `null`.
struct DescribedValue<'a>(&'a Value);

impl std::fmt::Display for DescribedValue<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Value::Null => f.write_str("null"),
            other => write!(f, "{} {}", type_name(other), Shown(other)),
        }
    }
}

fn list_values(values: &[Value]) -> String {
    const SHOWN: usize = 12;
    let mut parts: Vec<String> = values.iter().take(SHOWN).map(show).collect();
    if values.len() > SHOWN {
        parts.push(format!("... {} more", values.len() - SHOWN));
    }
    format!("[{}]", parts.join(", "))
}

/// Whether `object` has `key`: a scan for the small objects tool arguments are (no
/// hashing), a lookup otherwise.
fn has_key(object: &serde_json::Map<String, Value>, key: &str) -> bool {
    if object.len() <= 8 {
        object.keys().any(|k| k == key)
    } else {
        object.contains_key(key)
    }
}

/// `unexpected field 'ammount' (allowed: amount, currency); did you mean 'amount'?`
fn unexpected_field(
    key: &str,
    schema: &SchemaNode,
    object: &serde_json::Map<String, Value>,
) -> String {
    use std::fmt::Write as _;
    let mut message = String::with_capacity(64 + 16 * schema.properties.len());
    let _ = write!(message, "unexpected field '{key}'");
    if schema.properties.is_empty() {
        message.push_str(" (this object takes no fields)");
        return message;
    }
    message.push_str(" (allowed: ");
    for (i, (name, _)) in schema.properties.iter().enumerate() {
        if i > 0 {
            message.push_str(", ");
        }
        message.push_str(name);
    }
    message.push(')');
    // Suggest only names the object does not already have.
    let suggestion = schema
        .properties
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| !has_key(object, name))
        .map(|name| (crate::similarity::jaro_winkler(key, name), name))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((_, name)) = suggestion {
        let _ = write!(message, "; did you mean '{name}'?");
    }
    message
}

/// The indices of the first two equal items, if any.
fn first_duplicate(items: &[Value]) -> Option<(usize, usize)> {
    // Scalars hash by their canonical text; numbers go through f64 so 1 and 1.0 meet.
    let mut seen: HashSet<String> = HashSet::new();
    let simple = items
        .iter()
        .all(|item| !matches!(item, Value::Array(_) | Value::Object(_)));
    if simple {
        let key = |item: &Value| match item {
            Value::Number(n) => format!("n{}", n.as_f64().unwrap_or(f64::NAN)),
            other => other.to_string(),
        };
        if items.iter().all(|item| seen.insert(key(item))) {
            return None;
        }
    }
    for (i, a) in items.iter().enumerate() {
        for (j, b) in items.iter().enumerate().skip(i + 1) {
            if json_eq(a, b) {
                return Some((i, j));
            }
        }
    }
    None
}

impl Types {
    fn accepts(self, value: &Value, strict_integers: bool) -> bool {
        match value {
            Value::Null => self.contains(Types::NULL),
            Value::Bool(_) => self.contains(Types::BOOLEAN),
            Value::Number(n) => {
                self.contains(Types::NUMBER)
                    || (self.contains(Types::INTEGER) && is_integer(n, strict_integers))
            }
            Value::String(_) => self.contains(Types::STRING),
            Value::Array(_) => self.contains(Types::ARRAY),
            Value::Object(_) => self.contains(Types::OBJECT),
        }
    }
}

#[cfg(test)]
mod tests;
