//! Lowering: the one canonical schema (JSON Schema 2020-12) rewritten for each target's
//! dialect. Each lowering is a pure function; where a target cannot express a construct
//! it returns an error naming the tool, the path and the target instead of a schema the
//! provider would reject with a 400 (or, worse, accept and ignore).
//!
//! The rules come from each provider's documentation and SDKs; see the README's table of
//! targets for what each lowering changes and what it refuses.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value, json};

/// A target a tool definition is lowered for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
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

/// A construct a target cannot express.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoweringError {
    /// The tool.
    pub tool: String,
    /// JSON pointer of the construct in the tool's canonical schema (`/properties/x`).
    pub path: String,
    /// The target.
    pub target: Target,
    /// What cannot be expressed, and what to do instead.
    pub reason: String,
}

impl fmt::Display for LoweringError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(
            f,
            "tool '{}' at {path}: {} cannot express this: {}",
            self.tool, self.target, self.reason
        )
    }
}

impl std::error::Error for LoweringError {}

/// The arguments schema of `tool` lowered for `target`, or every construct the target
/// cannot express.
pub fn lower_schema(
    tool: &str,
    schema: &Value,
    target: Target,
) -> Result<Value, Vec<LoweringError>> {
    let mut lowering = Lowering {
        tool,
        target,
        defs: defs_of(schema),
        errors: Vec::new(),
        stack: Vec::new(),
    };
    let lowered = lowering.lower_root(schema);
    if lowering.errors.is_empty() {
        Ok(lowered)
    } else {
        Err(lowering.errors)
    }
}

fn defs_of(schema: &Value) -> Map<String, Value> {
    schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

struct Lowering<'a> {
    tool: &'a str,
    target: Target,
    defs: Map<String, Value>,
    errors: Vec<LoweringError>,
    /// The `$defs` being inlined, outermost first: a `$ref` to one of them is recursion.
    stack: Vec<String>,
}

/// Keywords a target does not take, moved into the description so the model still
/// reads them (the validator still enforces them on the way back).
fn unsupported_keywords(target: Target) -> &'static [&'static str] {
    match target {
        Target::OpenAiStrict => &[
            "minLength",
            "maxLength",
            "uniqueItems",
            "default",
            "examples",
        ],
        Target::AnthropicStrict => &[
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
        Target::GeminiParameters => &[
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "uniqueItems",
            "examples",
        ],
        _ => &[],
    }
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

    /// Whether this target keeps `$defs` and `$ref` (else every reference is inlined).
    fn keeps_refs(&self) -> bool {
        matches!(
            self.target,
            Target::OpenAi
                | Target::Anthropic
                | Target::GeminiJsonSchema
                | Target::Mcp
                | Target::OpenAiStrict
        )
    }

    fn lower_root(&mut self, schema: &Value) -> Value {
        // `#[tool]` always emits one; a hand-written `Tool` might not.
        if schema.get("type") != Some(&json!("object")) {
            self.error(
                "",
                "the root must be an object schema (`\"type\": \"object\"`): every provider takes a tool's arguments as one JSON object",
            );
        }
        if matches!(
            self.target,
            Target::OpenAi | Target::Anthropic | Target::GeminiJsonSchema | Target::Mcp
        ) {
            // These take 2020-12 as emitted; only what every provider needs is ensured.
            let mut lowered = schema.clone();
            ensure_items(&mut lowered);
            if self.target == Target::GeminiJsonSchema {
                self.check_gemini_names(schema, "");
            }
            return lowered;
        }
        let mut root = match schema {
            Value::Object(map) => map.clone(),
            _ => Map::new(),
        };
        let defs = root.remove("$defs");
        let mut lowered = self.lower(&Value::Object(root), "", true);
        if self.target == Target::OpenAiStrict
            && let Some(Value::Object(defs)) = defs
        {
            // Definitions that are still referenced (recursive types) stay.
            let text = lowered.to_string();
            let kept: Map<String, Value> = defs
                .iter()
                .filter(|(name, _)| text.contains(&format!("\"#/$defs/{name}\"")))
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
        if self.target == Target::OpenAiStrict && lowered.get("anyOf").is_some() {
            self.error("", "the root must be an object, not anyOf");
        }
        if self.target == Target::GeminiParameters
            && lowered
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(Map::is_empty)
        {
            // Gemini: a function without parameters leaves `parameters` unset; an empty
            // object is the closest valid value.
            return json!({"type": "object", "properties": {}});
        }
        if self.target == Target::OpenAiStrict {
            check_openai_limits(self, &lowered);
        }
        lowered
    }

    /// Lowers one subschema. `required_here` is whether the property is required in its
    /// parent (for OpenAI strict, an optional property becomes required and nullable).
    fn lower(&mut self, schema: &Value, path: &str, required_here: bool) -> Value {
        let Value::Object(map) = schema else {
            return match (self.target, schema) {
                (
                    Target::GeminiParameters | Target::OpenAiStrict | Target::AnthropicStrict,
                    Value::Bool(true),
                ) => {
                    self.error(
                        path,
                        "any JSON value (serde_json::Value) has no type here; use a concrete type",
                    );
                    schema.clone()
                }
                _ => schema.clone(),
            };
        };
        let mut map = map.clone();
        // References: inline them (with their siblings) unless the target keeps refs and
        // the reference has no siblings.
        if let Some(Value::String(reference)) = map.get("$ref").cloned() {
            let name = reference
                .strip_prefix("#/$defs/")
                .unwrap_or(&reference)
                .to_owned();
            let inline = !self.keeps_refs() || map.len() > 1;
            if inline {
                if self.stack.contains(&name) {
                    if self.target == Target::OpenAiStrict {
                        // Recursion stays a bare `$ref` (its siblings go: OpenAI rejects them).
                        map.retain(|key, _| key == "$ref");
                        return Value::Object(map);
                    }
                    self.error(
                        path,
                        format!(
                            "the type '{name}' is recursive, and recursion cannot be expressed here"
                        ),
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
                let own = self.lower(&Value::Object(map), path, true);
                if let Value::Object(own) = own {
                    for (key, value) in own {
                        merged.insert(key, value);
                    }
                }
                return Value::Object(merged);
            }
            if self.target == Target::OpenAiStrict && !required_here {
                return json!({"anyOf": [Value::Object(map), {"type": "null"}]});
            }
            return Value::Object(map);
        }

        self.lower_composition(&mut map, path);
        self.lower_values(&mut map, path);
        self.lower_children(&mut map, path);
        self.lower_object(&mut map, path);
        self.move_unsupported(&mut map);

        let mut lowered = Value::Object(map);
        if self.target == Target::OpenAiStrict && !required_here {
            lowered = crate::schema::nullable(lowered);
        }
        if self.target == Target::GeminiParameters {
            lowered = to_openapi_nullable(self, lowered, path);
        }
        lowered
    }

    /// `oneOf` → `anyOf` where `oneOf` is not taken; `allOf` of objects merged.
    fn lower_composition(&mut self, map: &mut Map<String, Value>, path: &str) {
        let renames_one_of = matches!(
            self.target,
            Target::OpenAiStrict | Target::AnthropicStrict | Target::GeminiParameters
        );
        if renames_one_of && let Some(one_of) = map.remove("oneOf") {
            // The alternatives toolwright emits are exclusive by construction (distinct
            // tags or types), so `anyOf` accepts the same values.
            map.insert("anyOf".into(), one_of);
        }
        if let Some(Value::Array(all_of)) = map.remove("allOf") {
            for (index, part) in all_of.iter().enumerate() {
                let part = self.resolve(part);
                let Value::Object(part) = part else {
                    self.error(
                        &format!("{path}/allOf/{index}"),
                        "allOf of a non-object schema cannot be expressed",
                    );
                    continue;
                };
                merge_object_schema(map, &part);
            }
        }
        if map.contains_key("not") {
            self.error(path, "`not` cannot be expressed");
            map.remove("not");
        }
    }

    /// `const` and `enum` as the target takes them.
    fn lower_values(&mut self, map: &mut Map<String, Value>, path: &str) {
        if matches!(self.target, Target::OpenAiStrict | Target::GeminiParameters)
            && let Some(constant) = map.remove("const")
        {
            if self.target == Target::GeminiParameters && !constant.is_string() {
                self.error(path, format!("the constant {constant} is not a string; Gemini `parameters` takes string enums only"));
            }
            map.insert("enum".into(), Value::Array(vec![constant]));
        }
        if self.target == Target::GeminiParameters
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
            if matches!(
                self.target,
                Target::GeminiParameters | Target::GeminiJsonSchema
            ) {
                for name in properties
                    .keys()
                    .filter(|name| !is_gemini_parameter_name(name))
                {
                    self.error(
                        &format!("{path}/properties/{}", escape(name)),
                        format!("the property name '{name}' is not accepted: Gemini wants ^[A-Za-z_][A-Za-z0-9_]{{0,63}}$ (rename it with #[serde(rename = \"...\")])"),
                    );
                }
            }
            let lowered: Map<String, Value> = properties
                .iter()
                .map(|(name, property)| {
                    let child = format!("{path}/properties/{}", escape(name));
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
            if matches!(
                self.target,
                Target::OpenAiStrict | Target::AnthropicStrict | Target::GeminiParameters
            ) {
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
                .map(|(i, s)| self.lower(s, &format!("{path}/anyOf/{i}"), true))
                .collect();
            map.insert("anyOf".into(), Value::Array(lowered));
        }
        if let Some(Value::Object(_) | Value::Bool(true)) = map.get("additionalProperties")
            && let Some(extra) = map.get("additionalProperties").cloned()
        {
            map.insert(
                "additionalProperties".into(),
                self.lower(&extra, &format!("{path}/additionalProperties"), true),
            );
        }
    }

    /// Objects: closed and fully required where the target demands it; maps refused
    /// where it cannot say "any key".
    fn lower_object(&mut self, map: &mut Map<String, Value>, path: &str) {
        let is_object = map.get("type").is_some_and(|t| {
            t == "object" || t.as_array().is_some_and(|a| a.contains(&json!("object")))
        }) || map.contains_key("properties");
        if !is_object {
            return;
        }
        let map_schema = !matches!(
            map.get("additionalProperties"),
            None | Some(Value::Bool(false))
        );
        match self.target {
            Target::OpenAiStrict | Target::AnthropicStrict => {
                if map_schema && !map.contains_key("properties") {
                    self.error(path, "a map with free-form keys (HashMap/BTreeMap) cannot be expressed: every object must list its fields; use a Vec of key/value structs");
                } else if map_schema {
                    self.error(path, "an object that admits extra fields cannot be expressed; add #[serde(deny_unknown_fields)] or use a struct");
                }
                map.insert("additionalProperties".into(), Value::Bool(false));
                map.entry("properties")
                    .or_insert_with(|| Value::Object(Map::new()));
                if self.target == Target::OpenAiStrict {
                    let names: Vec<Value> = map
                        .get("properties")
                        .and_then(Value::as_object)
                        .map(|p| p.keys().cloned().map(Value::String).collect())
                        .unwrap_or_default();
                    map.insert("required".into(), Value::Array(names));
                }
            }
            Target::GeminiParameters => {
                if map_schema {
                    self.error(path, "a map with free-form keys (HashMap/BTreeMap) cannot be expressed in Gemini `parameters`; use a Vec of key/value structs, or parametersJsonSchema");
                }
                map.remove("additionalProperties");
            }
            _ => {}
        }
    }

    fn move_unsupported(&mut self, map: &mut Map<String, Value>) {
        let mut moved: BTreeMap<&str, Value> = BTreeMap::new();
        for key in unsupported_keywords(self.target) {
            if let Some(value) = map.remove(*key) {
                moved.insert(key, value);
            }
        }
        if self.target == Target::AnthropicStrict
            && let Some(min_items) = map.get("minItems").and_then(Value::as_u64)
            && min_items > 1
        {
            moved.insert("minItems", map.remove("minItems").unwrap_or(Value::Null));
        }
        if moved.is_empty() {
            return;
        }
        let constraints: Vec<String> = moved
            .iter()
            .map(|(key, value)| format!("{key}: {value}"))
            .collect();
        let note = format!("({})", constraints.join(", "));
        let description = match map.get("description").and_then(Value::as_str) {
            Some(text) => format!("{text} {note}"),
            None => note,
        };
        map.insert("description".into(), Value::String(description));
    }

    /// A `$ref` resolved to its definition (one level), for `allOf` merging.
    fn resolve(&mut self, schema: &Value) -> Value {
        match schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
        {
            Some(name) => self.defs.get(name).cloned().unwrap_or(Value::Bool(true)),
            None => schema.clone(),
        }
    }
}

/// Merges the properties and required names of `part` into `map` (an `allOf` entry).
fn merge_object_schema(map: &mut Map<String, Value>, part: &Map<String, Value>) {
    if let Some(Value::Object(properties)) = part.get("properties") {
        let ours = map
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(ours) = ours {
            for (name, property) in properties {
                ours.entry(name.clone()).or_insert_with(|| property.clone());
            }
        }
    }
    if let Some(Value::Array(required)) = part.get("required") {
        let ours = map
            .entry("required")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(ours) = ours {
            for name in required {
                if !ours.contains(name) {
                    ours.push(name.clone());
                }
            }
        }
    }
    for (key, value) in part {
        if !matches!(key.as_str(), "properties" | "required" | "description") {
            map.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
}

/// OpenAPI 3.0 has no `null` type: `["T", "null"]` and `anyOf [X, null]` become
/// `nullable: true`.
fn to_openapi_nullable(lowering: &mut Lowering<'_>, schema: Value, path: &str) -> Value {
    let Value::Object(mut map) = schema else {
        return schema;
    };
    if let Some(Value::Array(types)) = map.get("type").cloned() {
        let non_null: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        if non_null.len() > 1 {
            lowering.error(
                path,
                "a value of several types cannot be expressed in Gemini `parameters`",
            );
        }
        if let Some(first) = non_null.first() {
            map.insert("type".into(), (*first).clone());
        }
        if non_null.len() < types.len() {
            map.insert("nullable".into(), Value::Bool(true));
        }
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            values.retain(|v| !v.is_null());
        }
    }
    if let Some(Value::Array(any_of)) = map.get("anyOf").cloned() {
        let is_null = |s: &Value| s.get("type") == Some(&json!("null"));
        if any_of.iter().any(is_null) {
            let rest: Vec<Value> = any_of.into_iter().filter(|s| !is_null(s)).collect();
            map.remove("anyOf");
            if let [single] = rest.as_slice()
                && let Value::Object(inner) = single
            {
                for (key, value) in inner {
                    map.entry(key.clone()).or_insert_with(|| value.clone());
                }
            } else {
                map.insert("anyOf".into(), Value::Array(rest));
            }
            map.insert("nullable".into(), Value::Bool(true));
        }
    }
    if map.get("type") == Some(&json!("null")) {
        lowering.error(
            path,
            "a value that can only be null cannot be expressed in Gemini `parameters`",
        );
    }
    Value::Object(map)
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

/// OpenAI's documented limits for strict schemas: 5,000 properties, 10 levels of
/// nesting, 1,000 enum values, 120,000 characters of names, enum values and constants.
fn check_openai_limits(lowering: &mut Lowering<'_>, schema: &Value) {
    #[derive(Default)]
    struct Tally {
        properties: usize,
        enum_values: usize,
        chars: usize,
        depth: usize,
    }
    fn walk(schema: &Value, depth: usize, tally: &mut Tally) {
        let Value::Object(map) = schema else { return };
        tally.depth = tally.depth.max(depth);
        if let Some(Value::Object(properties)) = map.get("properties") {
            tally.properties += properties.len();
            for (name, property) in properties {
                tally.chars += name.chars().count();
                walk(property, depth + 1, tally);
            }
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            tally.enum_values += values.len();
            tally.chars += values
                .iter()
                .map(|v| v.as_str().map_or(0, |s| s.chars().count()))
                .sum::<usize>();
        }
        for key in ["items", "additionalProperties"] {
            if let Some(child) = map.get(key) {
                walk(child, depth + 1, tally);
            }
        }
        for key in ["anyOf", "prefixItems"] {
            if let Some(Value::Array(children)) = map.get(key) {
                children.iter().for_each(|child| walk(child, depth, tally));
            }
        }
        if let Some(Value::Object(defs)) = map.get("$defs") {
            for (name, def) in defs {
                tally.chars += name.chars().count();
                walk(def, 0, tally);
            }
        }
    }
    let mut tally = Tally::default();
    walk(schema, 0, &mut tally);
    if tally.properties > 5000 {
        lowering.error(
            "",
            format!(
                "{} object properties; OpenAI strict allows 5,000",
                tally.properties
            ),
        );
    }
    if tally.depth > 10 {
        lowering.error(
            "",
            format!("{} levels of nesting; OpenAI strict allows 10", tally.depth),
        );
    }
    if tally.enum_values > 1000 {
        lowering.error(
            "",
            format!(
                "{} enum values; OpenAI strict allows 1,000",
                tally.enum_values
            ),
        );
    }
    if tally.chars > 120_000 {
        lowering.error(
            "",
            format!(
                "{} characters of names and enum values; OpenAI strict allows 120,000",
                tally.chars
            ),
        );
    }
}

impl Lowering<'_> {
    /// Every property name, at any depth, against Gemini's rule.
    fn check_gemini_names(&mut self, schema: &Value, path: &str) {
        let Value::Object(map) = schema else { return };
        for (key, value) in map {
            let child = format!("{path}/{}", escape(key));
            if key == "properties"
                && let Value::Object(properties) = value
            {
                for (name, property) in properties {
                    let at = format!("{child}/{}", escape(name));
                    if !is_gemini_parameter_name(name) {
                        self.error(&at, format!("the property name '{name}' is not accepted: Gemini wants ^[A-Za-z_][A-Za-z0-9_]{{0,63}}$ (rename it with #[serde(rename = \"...\")])"));
                    }
                    self.check_gemini_names(property, &at);
                }
                continue;
            }
            match value {
                Value::Object(_) => self.check_gemini_names(value, &child),
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        self.check_gemini_names(item, &format!("{child}/{i}"));
                    }
                }
                _ => {}
            }
        }
    }
}

/// Gemini's rule for parameter names: `^[A-Za-z_][A-Za-z0-9_]{0,63}$`.
fn is_gemini_parameter_name(name: &str) -> bool {
    name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The decoder side of a lowering that made optional arguments required and nullable
/// (OpenAI strict): in `value`, a `null` for a property that is optional in the canonical
/// `schema` and does not itself accept `null` means "left out", and is removed, at any
/// depth. `Option<T>` arguments keep their `null` (it means `None` either way).
pub(crate) fn remove_absent_nulls(value: &mut Value, schema: &Value) {
    let defs = defs_of(schema);
    strip(value, schema, &defs, 0);
}

fn strip(value: &mut Value, schema: &Value, defs: &Map<String, Value>, depth: usize) {
    if depth > 64 {
        return;
    }
    let schema = resolve_ref(schema, defs);
    match value {
        Value::Object(object) => {
            if let Some(Value::Object(properties)) = schema.get("properties") {
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                object.retain(|key, item| {
                    let optional = !required.contains(&key.as_str());
                    let absent = item.is_null()
                        && optional
                        && properties.get(key).is_some_and(|p| !accepts_null(p, defs));
                    !absent
                });
                for (key, item) in object.iter_mut() {
                    if let Some(property) = properties.get(key) {
                        strip(item, property, defs, depth + 1);
                    }
                }
            }
            for key in ["anyOf", "oneOf", "allOf"] {
                if let Some(Value::Array(branches)) = schema.get(key) {
                    // The branch whose properties cover the object's keys.
                    let branch = branches.iter().map(|b| resolve_ref(b, defs)).find(|b| {
                        b.get("properties")
                            .and_then(Value::as_object)
                            .is_some_and(|p| object.keys().all(|k| p.contains_key(k)))
                    });
                    if let Some(branch) = branch {
                        let mut inner = Value::Object(std::mem::take(object));
                        strip(&mut inner, &branch, defs, depth + 1);
                        if let Value::Object(inner) = inner {
                            *object = inner;
                        }
                    }
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    strip(item, item_schema, defs, depth + 1);
                }
            }
        }
        _ => {}
    }
}

fn resolve_ref(schema: &Value, defs: &Map<String, Value>) -> Value {
    match schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
    {
        Some(name) => defs.get(name).cloned().unwrap_or(Value::Bool(true)),
        None => schema.clone(),
    }
}

fn accepts_null(schema: &Value, defs: &Map<String, Value>) -> bool {
    let schema = resolve_ref(schema, defs);
    match &schema {
        Value::Bool(b) => *b,
        Value::Object(map) if map.is_empty() => true,
        Value::Object(map) => {
            let by_type = match map.get("type") {
                Some(Value::String(t)) => t == "null",
                Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
                None => {
                    !map.contains_key("anyOf")
                        && !map.contains_key("oneOf")
                        && !map.contains_key("enum")
                        && !map.contains_key("const")
                }
                _ => false,
            };
            let by_branch = ["anyOf", "oneOf"].iter().any(|key| {
                map.get(*key)
                    .and_then(Value::as_array)
                    .is_some_and(|bs| bs.iter().any(|b| accepts_null(b, defs)))
            });
            by_type || by_branch
        }
        _ => false,
    }
}
