//! JSON Schema document → arena of compiled nodes. Every subschema is compiled once,
//! keyed by its JSON pointer, so `$ref`s (including recursive ones) are indices.

use std::collections::HashMap;
use std::fmt;

use serde_json::{Map, Value};

use super::Options;
use super::keywords::Keywords;
use super::pattern::Pattern;

/// A schema the validator cannot use: a malformed keyword or a `$ref` it cannot resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    message: String,
}

impl SchemaError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid schema: {}", self.message)
    }
}

impl std::error::Error for SchemaError {}

#[derive(Debug, Clone)]
pub(crate) enum Node {
    Bool(bool),
    Schema(Box<SchemaNode>),
}

#[derive(Debug, Clone, Default)]
pub(crate) struct SchemaNode {
    pub reference: Option<usize>,
    pub types: Option<Types>,
    pub constant: Option<Value>,
    pub enumeration: Option<Vec<Value>>,
    pub keywords: Keywords,
    pub unique_items: bool,
    pub prefix_items: Vec<usize>,
    pub items: Option<usize>,
    pub properties: Vec<(String, usize)>,
    pub pattern_properties: Vec<(Pattern, usize)>,
    pub required: Vec<String>,
    pub additional_properties: Option<usize>,
    pub all_of: Vec<usize>,
    pub any_of: Vec<usize>,
    pub one_of: Vec<usize>,
    pub not: Option<usize>,
    /// `if`, with `then` and `else` when present.
    pub condition: Option<(usize, Option<usize>, Option<usize>)>,
}

/// A set of JSON types, from `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Types(u8);

impl Types {
    pub const NULL: u8 = 1;
    pub const BOOLEAN: u8 = 2;
    pub const INTEGER: u8 = 4;
    pub const NUMBER: u8 = 8;
    pub const STRING: u8 = 16;
    pub const ARRAY: u8 = 32;
    pub const OBJECT: u8 = 64;

    const NAMES: [(&'static str, u8); 7] = [
        ("null", Self::NULL),
        ("boolean", Self::BOOLEAN),
        ("integer", Self::INTEGER),
        ("number", Self::NUMBER),
        ("string", Self::STRING),
        ("array", Self::ARRAY),
        ("object", Self::OBJECT),
    ];

    pub fn contains(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    fn from_name(name: &str) -> Option<u8> {
        Self::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, bit)| *bit)
    }
}

/// "integer", "string or null" (null last: it is the "or nothing").
impl fmt::Display for Types {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let named = Self::NAMES
            .iter()
            .filter(|(_, bit)| *bit != Self::NULL && self.contains(*bit));
        let null = self.contains(Self::NULL).then_some(&("null", Self::NULL));
        for (i, (name, _)) in named.chain(null).enumerate() {
            if i > 0 {
                f.write_str(" or ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

struct Compiler<'a> {
    root: &'a Value,
    options: Options,
    nodes: Vec<Node>,
    by_pointer: HashMap<String, usize>,
}

pub(crate) fn compile(root: &Value, options: Options) -> Result<Vec<Node>, SchemaError> {
    let mut compiler = Compiler {
        root,
        options,
        nodes: Vec::new(),
        by_pointer: HashMap::new(),
    };
    compiler.compile_at(String::new(), root)?;
    check_no_cycles(&compiler.nodes)?;
    Ok(compiler.nodes)
}

/// Rejects a schema that reaches itself again without moving into the value (`{"$ref":
/// "#"}`, or `allOf` through a `$ref` back to its own node): validating it would never end.
fn check_no_cycles(nodes: &[Node]) -> Result<(), SchemaError> {
    fn same_value_edges(node: &Node) -> Vec<usize> {
        let Node::Schema(schema) = node else {
            return Vec::new();
        };
        let mut edges: Vec<usize> = schema.reference.into_iter().chain(schema.not).collect();
        edges.extend(&schema.all_of);
        edges.extend(&schema.any_of);
        edges.extend(&schema.one_of);
        edges
    }
    // 0 = unvisited, 1 = on the current path, 2 = done.
    let mut state = vec![0u8; nodes.len()];
    for start in 0..nodes.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, same_value_edges(&nodes[start]), 0usize)];
        state[start] = 1;
        while let Some((node, edges, next)) = stack.last_mut() {
            if let Some(&target) = edges.get(*next) {
                *next += 1;
                match state[target] {
                    1 => {
                        return Err(SchemaError::new(
                            "the schema refers to itself without descending into the value (a `$ref` cycle), so validation would never end",
                        ));
                    }
                    0 => {
                        state[target] = 1;
                        let target_edges = same_value_edges(&nodes[target]);
                        stack.push((target, target_edges, 0));
                    }
                    _ => {}
                }
            } else {
                state[*node] = 2;
                stack.pop();
            }
        }
    }
    Ok(())
}

impl<'a> Compiler<'a> {
    /// Compiles the schema at `pointer` (once) and returns its index.
    fn compile_at(&mut self, pointer: String, schema: &'a Value) -> Result<usize, SchemaError> {
        if let Some(&index) = self.by_pointer.get(&pointer) {
            return Ok(index);
        }
        let index = self.nodes.len();
        self.nodes.push(Node::Bool(true));
        self.by_pointer.insert(pointer.clone(), index);
        let node = match schema {
            Value::Bool(b) => Node::Bool(*b),
            Value::Object(map) => Node::Schema(Box::new(self.compile_object(&pointer, map)?)),
            other => {
                return Err(SchemaError::new(format!(
                    "a schema must be an object or a boolean, not {other}"
                )));
            }
        };
        self.nodes[index] = node;
        Ok(index)
    }

    fn sub(&mut self, pointer: &str, key: &str, schema: &'a Value) -> Result<usize, SchemaError> {
        self.compile_at(format!("{pointer}/{}", escape(key)), schema)
    }

    fn compile_object(
        &mut self,
        pointer: &str,
        map: &'a Map<String, Value>,
    ) -> Result<SchemaNode, SchemaError> {
        let mut node = SchemaNode {
            keywords: Keywords::compile(map, self.options.assert_formats)?,
            ..SchemaNode::default()
        };
        if let Some(reference) = map.get("$ref") {
            let reference = reference
                .as_str()
                .ok_or_else(|| SchemaError::new("`$ref` must be a string"))?;
            node.reference = Some(self.resolve(reference)?);
        }
        node.types = match map.get("type") {
            None => None,
            Some(Value::String(name)) => Some(Types(type_bit(name)?)),
            Some(Value::Array(names)) => {
                let mut bits = 0;
                for name in names {
                    bits |= type_bit(
                        name.as_str()
                            .ok_or_else(|| SchemaError::new("`type` entries must be strings"))?,
                    )?;
                }
                Some(Types(bits))
            }
            Some(other) => {
                return Err(SchemaError::new(format!(
                    "`type` must be a string or an array, not {other}"
                )));
            }
        };
        node.constant = map.get("const").cloned();
        node.enumeration = match map.get("enum") {
            None => None,
            Some(Value::Array(values)) => Some(values.clone()),
            Some(_) => return Err(SchemaError::new("`enum` must be an array")),
        };
        node.unique_items = map.get("uniqueItems") == Some(&Value::Bool(true));
        self.compile_children(pointer, map, &mut node)?;
        self.compile_composition(pointer, map, &mut node)?;
        // `$defs` are compiled when a `$ref` reaches them.
        Ok(node)
    }

    /// The subschemas of arrays and objects: items, properties, patterns, required,
    /// additional properties.
    fn compile_children(
        &mut self,
        pointer: &str,
        map: &'a Map<String, Value>,
        node: &mut SchemaNode,
    ) -> Result<(), SchemaError> {
        if let Some(Value::Array(prefix)) = map.get("prefixItems") {
            let base = format!("{pointer}/prefixItems");
            for (index, schema) in prefix.iter().enumerate() {
                node.prefix_items
                    .push(self.compile_at(format!("{base}/{index}"), schema)?);
            }
        }
        if let Some(items) = map.get("items") {
            node.items = Some(self.sub(pointer, "items", items)?);
        }
        if let Some(properties) = map.get("properties") {
            let properties = properties
                .as_object()
                .ok_or_else(|| SchemaError::new("`properties` must be an object"))?;
            let base = format!("{pointer}/properties");
            for (name, schema) in properties {
                let index = self.compile_at(format!("{base}/{}", escape(name)), schema)?;
                node.properties.push((name.clone(), index));
            }
        }
        if let Some(patterns) = map.get("patternProperties") {
            let patterns = patterns
                .as_object()
                .ok_or_else(|| SchemaError::new("`patternProperties` must be an object"))?;
            let base = format!("{pointer}/patternProperties");
            for (source, schema) in patterns {
                let regex = Pattern::new(source).map_err(|error| {
                    SchemaError::new(format!("pattern {source:?} does not compile: {error}"))
                })?;
                let index = self.compile_at(format!("{base}/{}", escape(source)), schema)?;
                node.pattern_properties.push((regex, index));
            }
        }
        if let Some(required) = map.get("required") {
            let required = required
                .as_array()
                .ok_or_else(|| SchemaError::new("`required` must be an array"))?;
            for name in required {
                let name = name
                    .as_str()
                    .ok_or_else(|| SchemaError::new("`required` entries must be strings"))?;
                node.required.push(name.to_owned());
            }
        }
        if let Some(additional) = map.get("additionalProperties") {
            node.additional_properties =
                Some(self.sub(pointer, "additionalProperties", additional)?);
        }
        Ok(())
    }

    /// `allOf`, `anyOf`, `oneOf`, `not` and `if`/`then`/`else`.
    fn compile_composition(
        &mut self,
        pointer: &str,
        map: &'a Map<String, Value>,
        node: &mut SchemaNode,
    ) -> Result<(), SchemaError> {
        for (key, target) in [
            ("allOf", &mut node.all_of),
            ("anyOf", &mut node.any_of),
            ("oneOf", &mut node.one_of),
        ] {
            if let Some(list) = map.get(key) {
                let list = list.as_array().filter(|l| !l.is_empty()).ok_or_else(|| {
                    SchemaError::new(format!("`{key}` must be a non-empty array"))
                })?;
                for (index, schema) in list.iter().enumerate() {
                    target.push(self.compile_at(format!("{pointer}/{key}/{index}"), schema)?);
                }
            }
        }
        if let Some(not) = map.get("not") {
            node.not = Some(self.sub(pointer, "not", not)?);
        }
        // `then` and `else` without `if` are annotations, as 2020-12 says.
        if let Some(condition) = map.get("if") {
            let mut branch = |key| {
                map.get(key)
                    .map(|schema| self.sub(pointer, key, schema))
                    .transpose()
            };
            let (then, otherwise) = (branch("then")?, branch("else")?);
            node.condition = Some((self.sub(pointer, "if", condition)?, then, otherwise));
        }
        Ok(())
    }

    /// A local `$ref` (`#`, `#/$defs/x`, any JSON pointer, percent-encoded) → its node.
    fn resolve(&mut self, reference: &str) -> Result<usize, SchemaError> {
        let Some(fragment) = reference.strip_prefix('#') else {
            return Err(SchemaError::new(format!(
                "`$ref` {reference:?} points outside this document; only local references (`#/...`) are supported"
            )));
        };
        let fragment = percent_decode(fragment).ok_or_else(|| {
            SchemaError::new(format!(
                "`$ref` {reference:?} is not valid percent-encoding"
            ))
        })?;
        if !fragment.is_empty() && !fragment.starts_with('/') {
            return Err(SchemaError::new(format!(
                "`$ref` {reference:?} names an anchor; only JSON pointers (`#/...`) are supported"
            )));
        }
        let mut target = self.root;
        let mut pointer = String::new();
        for token in fragment.split('/').skip(1) {
            let token = token.replace("~1", "/").replace("~0", "~");
            target = match target {
                Value::Object(map) => map.get(&token),
                Value::Array(list) => token.parse::<usize>().ok().and_then(|i| list.get(i)),
                _ => None,
            }
            .ok_or_else(|| SchemaError::new(format!("`$ref` {reference:?} points to nothing")))?;
            pointer.push('/');
            pointer.push_str(&escape(&token));
        }
        self.compile_at(pointer, target)
    }
}

fn type_bit(name: &str) -> Result<u8, SchemaError> {
    Types::from_name(name).ok_or_else(|| SchemaError::new(format!("unknown type {name:?}")))
}

/// A JSON pointer token: `~` → `~0`, `/` → `~1`.
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}
