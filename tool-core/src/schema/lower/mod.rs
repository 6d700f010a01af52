//! Lowering: the one canonical schema (JSON Schema 2020-12) rewritten for each target's
//! dialect. Each lowering is a pure function; where a target cannot express a construct
//! it returns an error naming the tool, the path and the target instead of a schema the
//! provider would reject with a 400 (or, worse, accept and ignore).
//!
//! Each target is described in one place, `rules.rs` (a `Rules` value per
//! target, from each provider's documentation and SDKs); this file is the one walker that
//! applies them. `refs.rs` handles `$defs`/`$ref`, `checks.rs` what is checked rather
//! than rewritten (property names, size limits), `nulls.rs` "or null" for OpenAPI and
//! MCP, `errors.rs` what a lowering refuses.
//! Decoding a strict call's `null`s back is reading, not lowering: `crate::arguments`.

mod checks;
mod errors;
mod nulls;
pub(crate) mod objects;
pub(crate) mod refs;
mod rules;
mod values;

use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value, json};

pub use errors::{LoweringError, LoweringErrors};
use objects::merge_object_schema;
use refs::{def_name, defs_of, referenced};
use rules::{Nulls, Objects, Refs, Rules};
pub(crate) use values::encode_value;

/// What `target`'s lowering encodes in the values a model sends: optional arguments as
/// `null` (every property required), maps as arrays of entries.
pub(crate) fn encodings(target: Target) -> (bool, bool) {
    let objects = target.rules().objects;
    (
        objects == (Objects::Closed { all_required: true }),
        objects != Objects::AsEmitted,
    )
}

/// A target a tool definition is lowered for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Target {
    /// OpenAI (Chat Completions and Responses) with `strict: true`: the Structured
    /// Outputs subset.
    OpenAiStrict,
    /// OpenAI with `strict: false`: JSON Schema as a best-effort hint.
    OpenAi,
    /// Anthropic `input_schema`: JSON Schema 2020-12.
    Anthropic,
    /// Anthropic with `strict: true`: the structured-outputs subset.
    AnthropicStrict,
    /// Gemini `parameters`: the OpenAPI 3.0 `Schema` subset.
    GeminiParameters,
    /// Gemini `parametersJsonSchema`: JSON Schema.
    GeminiJsonSchema,
    /// MCP `inputSchema`: JSON Schema 2020-12.
    Mcp,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 7] = [
        Target::OpenAiStrict,
        Target::OpenAi,
        Target::Anthropic,
        Target::AnthropicStrict,
        Target::GeminiParameters,
        Target::GeminiJsonSchema,
        Target::Mcp,
    ];

    /// The target's name in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Target::OpenAiStrict => "OpenAI (strict)",
            Target::OpenAi => "OpenAI (non-strict)",
            Target::Anthropic => "Anthropic",
            Target::AnthropicStrict => "Anthropic (strict)",
            Target::GeminiParameters => "Gemini parameters",
            Target::GeminiJsonSchema => "Gemini parametersJsonSchema",
            Target::Mcp => "MCP",
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The arguments schema of `tool` lowered for `target`, or every construct the target
/// cannot express.
pub fn lower_schema(tool: &str, schema: &Value, target: Target) -> Result<Value, LoweringErrors> {
    let mut lowering = Lowering {
        tool,
        target,
        rules: target.rules(),
        defs: defs_of(schema),
        errors: Vec::new(),
        stack: Vec::new(),
    };
    let mut lowered = lowering.lower_root(schema);
    if target != Target::Mcp {
        without_mcp_annotations(&mut lowered);
    }
    if lowering.errors.is_empty() {
        Ok(lowered)
    } else {
        Err(lowering.errors.into())
    }
}

/// Removes MCP's own annotations (`x-mcp-header`) from the properties of a schema
/// meant for another target: they mean nothing there, and a strict provider refuses
/// keywords it does not know.
fn without_mcp_annotations(schema: &mut Value) {
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for property in properties.values_mut() {
            if let Value::Object(map) = property {
                map.remove("x-mcp-header");
            }
            without_mcp_annotations(property);
        }
    }
}

struct Lowering<'a> {
    tool: &'a str,
    target: Target,
    rules: &'static Rules,
    defs: Map<String, Value>,
    errors: Vec<LoweringError>,
    /// The `$defs` being inlined, outermost first: a `$ref` to one of them is recursion.
    stack: Vec<String>,
}

impl Lowering<'_> {
    fn error(&mut self, path: &str, reason: impl Into<String>) {
        self.errors.push(LoweringError {
            tool: self.tool.to_owned(),
            path: path.to_owned(),
            target: self.target,
            reason: reason.into(),
        });
    }

    fn lower_root(&mut self, schema: &Value) -> Value {
        // `#[tool]` always emits one; a hand-written `Tool` might not.
        if schema.get("type") != Some(&json!("object")) {
            self.error(
                "",
                "the root must be an object schema (`\"type\": \"object\"`): every provider takes a tool's arguments as one JSON object",
            );
        }
        self.check_property_names(schema, "");
        if self.rules.as_emitted {
            // Only what every provider needs is ensured.
            let mut lowered = schema.clone();
            ensure_items(&mut lowered);
            if self.rules.refs == Refs::InlineUnlessRecursive {
                refs::inline_unless_recursive(&mut lowered);
            }
            if self.rules.nulls == Nulls::AnyOf {
                nulls::type_arrays_as_any_of(&mut lowered);
            }
            return lowered;
        }
        let mut root = match schema {
            Value::Object(map) => map.clone(),
            _ => Map::new(),
        };
        let defs = root.remove("$defs");
        let mut lowered = self.lower(&Value::Object(root), "", true);
        if self.rules.refs == Refs::KeepBare
            && let Some(Value::Object(defs)) = defs
        {
            // Definitions that are still referenced (recursive types) stay.
            let used = referenced(&lowered);
            let kept: Map<String, Value> = defs
                .iter()
                .filter(|(name, _)| used.contains(*name))
                .map(|(name, def)| {
                    self.stack.push(name.clone());
                    let lowered = self.lower(def, &format!("/$defs/{name}"), true);
                    self.stack.pop();
                    (name.clone(), lowered)
                })
                .collect();
            if !kept.is_empty()
                && let Value::Object(map) = &mut lowered
            {
                map.insert("$defs".into(), Value::Object(kept));
            }
        }
        if self.rules.refuses_root_any_of && lowered.get("anyOf").is_some() {
            self.error("", "the root must be an object, not anyOf");
        }
        if self.rules.empty_root_as_empty_object
            && lowered
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(Map::is_empty)
        {
            // A function without parameters leaves them unset; an empty object is the
            // closest valid value.
            return json!({"type": "object", "properties": {}});
        }
        if let Some(limits) = self.rules.limits {
            for breach in limits(&lowered) {
                self.error("", breach);
            }
        }
        lowered
    }

    /// Lowers one subschema. `required_here` is whether the property is required in its
    /// parent (where optional properties become required and nullable, this one does).
    fn lower(&mut self, schema: &Value, path: &str, required_here: bool) -> Value {
        let Value::Object(map) = schema else {
            if self.rules.refuses_any_value && *schema == Value::Bool(true) {
                self.error(
                    path,
                    "any JSON value (serde_json::Value) has no type here; use a concrete type",
                );
            }
            return schema.clone();
        };
        let mut map = map.clone();
        if map.contains_key("$ref") {
            return self.lower_ref(map, path, required_here);
        }
        self.lower_composition(&mut map, path);
        self.lower_values(&mut map, path);
        self.lower_children(&mut map, path);
        self.lower_object(&mut map, path);
        self.move_unsupported(&mut map);
        let mut lowered = Value::Object(map);
        if self.made_nullable(required_here) {
            lowered = crate::schema::nullable(lowered);
        }
        if self.rules.nulls == Nulls::OpenApi {
            lowered = nulls::to_openapi_nullable(self, lowered, path);
        }
        lowered
    }

    /// Whether an optional property becomes nullable here (to be required).
    fn made_nullable(&self, required_here: bool) -> bool {
        !required_here && self.rules.objects == (Objects::Closed { all_required: true })
    }

    /// A `$ref`: inlined (with its siblings) unless the target keeps this reference.
    fn lower_ref(&mut self, mut map: Map<String, Value>, path: &str, required_here: bool) -> Value {
        let reference = map
            .get("$ref")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let name = def_name(&Value::Object(map.clone()))
            .unwrap_or(&reference)
            .to_owned();
        let keeps = match self.rules.refs {
            Refs::Keep => true,
            Refs::KeepBare => map.len() == 1,
            Refs::Inline | Refs::InlineUnlessRecursive => false,
        };
        if keeps {
            if self.made_nullable(required_here) {
                return json!({"anyOf": [Value::Object(map), {"type": "null"}]});
            }
            return Value::Object(map);
        }
        if self.stack.contains(&name) {
            if self.rules.refs == Refs::KeepBare {
                // Recursion stays a bare `$ref` (its siblings go: they are rejected).
                map.retain(|key, _| key == "$ref");
                return Value::Object(map);
            }
            self.error(
                path,
                format!("the type '{name}' is recursive, and recursion cannot be expressed here"),
            );
            return json!({});
        }
        let Some(target) = self.defs.get(&name).cloned() else {
            self.error(path, format!("`$ref` {reference} points to nothing"));
            return Value::Object(map);
        };
        map.remove("$ref");
        self.stack.push(name);
        let inlined = self.lower(&target, path, required_here);
        self.stack.pop();
        let mut merged = match inlined {
            Value::Object(inner) => inner,
            other => return other,
        };
        // The reference's own keywords (its description) win.
        if let Value::Object(own) = self.lower(&Value::Object(map), path, true) {
            merged.extend(own);
        }
        Value::Object(merged)
    }

    /// `oneOf` → `anyOf` where `oneOf` is not taken; `allOf` of objects merged; `not`
    /// refused (every rewritten target).
    fn lower_composition(&mut self, map: &mut Map<String, Value>, path: &str) {
        if self.rules.one_of_as_any_of
            && let Some(one_of) = map.remove("oneOf")
        {
            map.insert("anyOf".into(), one_of);
        }
        if let Some(Value::Array(all_of)) = map.remove("allOf") {
            for (index, part) in all_of.iter().enumerate() {
                let Value::Object(part) = refs::resolve_ref(part, &self.defs) else {
                    self.error(
                        &format!("{path}/allOf/{index}"),
                        "allOf of a non-object schema cannot be expressed",
                    );
                    continue;
                };
                merge_object_schema(map, &part);
            }
        }
        if map.remove("not").is_some() {
            self.error(path, "`not` cannot be expressed");
        }
    }

    /// `const` and `enum` as the target takes them.
    fn lower_values(&mut self, map: &mut Map<String, Value>, path: &str) {
        if self.rules.const_as_enum
            && let Some(constant) = map.remove("const")
        {
            if self.rules.string_enums_only && !constant.is_string() {
                self.error(path, format!("the constant {constant} is not a string; Gemini `parameters` takes string enums only"));
            }
            map.insert("enum".into(), Value::Array(vec![constant]));
        }
        if self.rules.string_enums_only
            && let Some(Value::Array(values)) = map.get("enum")
            && values.iter().any(|v| !v.is_string() && !v.is_null())
        {
            self.error(path, "an enum of non-string values; Gemini `parameters` takes string enums only (use a string enum, or parametersJsonSchema)");
        }
    }

    fn lower_children(&mut self, map: &mut Map<String, Value>, path: &str) {
        let required: Vec<String> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        if let Some(Value::Object(properties)) = map.get("properties").cloned() {
            let lowered: Map<String, Value> = properties
                .iter()
                .map(|(name, property)| {
                    let child = format!("{path}/properties/{}", checks::escape(name));
                    let lowered = self.lower(property, &child, required.contains(name));
                    (name.clone(), lowered)
                })
                .collect();
            map.insert("properties".into(), Value::Object(lowered));
        }
        if let Some(items) = map.get("items").cloned() {
            map.insert(
                "items".into(),
                self.lower(&items, &format!("{path}/items"), true),
            );
        }
        if let Some(Value::Array(prefix)) = map.get("prefixItems").cloned() {
            if self.rules.refuses_tuples {
                self.error(
                    path,
                    "`prefixItems` (a fixed-length tuple) cannot be expressed; use a struct",
                );
            }
            let lowered = prefix
                .iter()
                .enumerate()
                .map(|(i, p)| self.lower(p, &format!("{path}/prefixItems/{i}"), true))
                .collect();
            map.insert("prefixItems".into(), Value::Array(lowered));
        }
        if let Some(Value::Array(any_of)) = map.get("anyOf").cloned() {
            let lowered = any_of
                .iter()
                .enumerate()
                .map(|(i, s)| match self.rules.nulls {
                    // A `null` branch is the "or null" the post-pass turns into
                    // `nullable: true`, not a value of its own.
                    Nulls::OpenApi if s.get("type") == Some(&json!("null")) => s.clone(),
                    _ => self.lower(s, &format!("{path}/anyOf/{i}"), true),
                })
                .collect();
            map.insert("anyOf".into(), Value::Array(lowered));
        }
        if let Some(extra @ (Value::Object(_) | Value::Bool(true))) =
            map.get("additionalProperties").cloned()
        {
            map.insert(
                "additionalProperties".into(),
                self.lower(&extra, &format!("{path}/additionalProperties"), true),
            );
        }
    }
}

/// Every array carries `items` (OpenAI rejects an array schema without it, even
/// non-strict); a boolean `items` becomes `{}`.
fn ensure_items(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let is_array = map.get("type").is_some_and(|t| {
                t == "array" || t.as_array().is_some_and(|a| a.contains(&json!("array")))
            });
            if is_array {
                match map.get("items") {
                    None | Some(Value::Bool(true)) => {
                        map.insert("items".into(), json!({}));
                    }
                    _ => {}
                }
            }
            for value in map.values_mut() {
                ensure_items(value);
            }
        }
        Value::Array(values) => values.iter_mut().for_each(ensure_items),
        _ => {}
    }
}
