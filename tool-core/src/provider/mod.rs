//! Providers' wire formats: tool definitions out (each lowered for its target), tool
//! calls in, results back.

mod calls;

pub use calls::{
    ParseError, SYNTHESIZED_ID_PREFIX, ToolChoice, parse_calls, render_results, tool_choice,
};
use serde_json::{Map, Value, json};

use crate::registry::Registry;
use crate::schema::lower::{LoweringError, Target, lower_schema};
use crate::spec::ToolSpec;

/// How tool definitions are sent: the provider API and, where it has one, its strict
/// mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// OpenAI Chat Completions `tools[]`; `strict` is always sent explicitly.
    OpenAiChat {
        /// Structured Outputs mode.
        strict: bool,
    },
    /// OpenAI Responses `tools[]`; `strict` is always sent explicitly (omitted, the API
    /// may treat it as strict).
    OpenAiResponses {
        /// Structured Outputs mode.
        strict: bool,
    },
    /// Anthropic Messages `tools[]`.
    Anthropic {
        /// Strict tool use.
        strict: bool,
    },
    /// Gemini `functionDeclarations[]` with `parameters` (OpenAPI 3.0 subset).
    GeminiParameters,
    /// Gemini `functionDeclarations[]` with `parametersJsonSchema`.
    GeminiJsonSchema,
    /// MCP `tools/list` entries.
    Mcp,
}

impl Dialect {
    /// Every dialect.
    pub const ALL: [Dialect; 9] = [
        Dialect::OpenAiChat { strict: true },
        Dialect::OpenAiChat { strict: false },
        Dialect::OpenAiResponses { strict: true },
        Dialect::OpenAiResponses { strict: false },
        Dialect::Anthropic { strict: true },
        Dialect::Anthropic { strict: false },
        Dialect::GeminiParameters,
        Dialect::GeminiJsonSchema,
        Dialect::Mcp,
    ];

    /// The schema dialect this API takes.
    pub const fn target(self) -> Target {
        match self {
            Dialect::OpenAiChat { strict: true } | Dialect::OpenAiResponses { strict: true } => {
                Target::OpenAiStrict
            }
            Dialect::OpenAiChat { strict: false } | Dialect::OpenAiResponses { strict: false } => {
                Target::OpenAi
            }
            Dialect::Anthropic { strict: true } => Target::AnthropicStrict,
            Dialect::Anthropic { strict: false } => Target::Anthropic,
            Dialect::GeminiParameters => Target::GeminiParameters,
            Dialect::GeminiJsonSchema => Target::GeminiJsonSchema,
            Dialect::Mcp => Target::Mcp,
        }
    }

    /// A short name, for snapshot files and messages.
    pub const fn slug(self) -> &'static str {
        match self {
            Dialect::OpenAiChat { strict: true } => "openai_chat_strict",
            Dialect::OpenAiChat { strict: false } => "openai_chat",
            Dialect::OpenAiResponses { strict: true } => "openai_responses_strict",
            Dialect::OpenAiResponses { strict: false } => "openai_responses",
            Dialect::Anthropic { strict: true } => "anthropic_strict",
            Dialect::Anthropic { strict: false } => "anthropic",
            Dialect::GeminiParameters => "gemini_parameters",
            Dialect::GeminiJsonSchema => "gemini_json_schema",
            Dialect::Mcp => "mcp",
        }
    }
}

/// One tool's definition in `dialect`, or what the dialect cannot express.
///
/// ```
/// # use toolwright::{tool, Dialect, Tool};
/// /// Say hello.
/// #[tool(effect = "read_only")]
/// fn hello(name: Option<String>) -> String { format!("Hello, {}!", name.unwrap_or_default()) }
///
/// let strict = toolwright::provider::definition(Hello.spec(), Dialect::OpenAiChat { strict: true }).unwrap();
/// // Strict: every property required, the optional one nullable.
/// assert_eq!(strict["function"]["parameters"]["required"], serde_json::json!(["name"]));
/// assert_eq!(strict["function"]["strict"], true);
/// ```
pub fn definition(spec: &ToolSpec, dialect: Dialect) -> Result<Value, Vec<LoweringError>> {
    let schema = lower_schema(&spec.name, &spec.input_schema, dialect.target())?;
    let description = spec.description.as_str();
    let name = spec.name.as_str();
    Ok(match dialect {
        Dialect::OpenAiChat { strict } => json!({
            "type": "function",
            "function": {"name": name, "description": description, "parameters": schema, "strict": strict},
        }),
        Dialect::OpenAiResponses { strict } => json!({
            "type": "function", "name": name, "description": description, "parameters": schema, "strict": strict,
        }),
        Dialect::Anthropic { strict } => {
            let mut tool =
                json!({"name": name, "description": description, "input_schema": schema});
            if strict {
                tool["strict"] = Value::Bool(true);
            }
            tool
        }
        Dialect::GeminiParameters => {
            let mut declaration = json!({"name": name, "description": description});
            // A function without parameters leaves `parameters` unset.
            if schema
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| !p.is_empty())
            {
                declaration["parameters"] = schema;
            }
            declaration
        }
        Dialect::GeminiJsonSchema => {
            json!({"name": name, "description": description, "parametersJsonSchema": schema})
        }
        Dialect::Mcp => mcp_tool(spec, schema),
    })
}

/// An MCP `Tool`: all four annotation hints explicit (MCP's defaults would call an
/// unannotated tool destructive and open-world), `outputSchema` when the result is an
/// object (the only root 2025-06-18 and 2025-11-25 accept).
fn mcp_tool(spec: &ToolSpec, input_schema: Value) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), json!(spec.name));
    if let Some(title) = &spec.title {
        tool.insert("title".into(), json!(title));
    }
    tool.insert("description".into(), json!(spec.description));
    tool.insert("inputSchema".into(), input_schema);
    if let Some(output) = &spec.output_schema
        && output.get("type") == Some(&json!("object"))
    {
        tool.insert("outputSchema".into(), output.clone());
    }
    let mut annotations = serde_json::to_value(spec.annotations).unwrap_or_else(|_| json!({}));
    if let (Some(title), Value::Object(map)) = (&spec.title, &mut annotations) {
        map.insert("title".into(), json!(title));
    }
    tool.insert("annotations".into(), annotations);
    Value::Object(tool)
}

/// Anthropic's per-request budgets for strict tools, summed over the whole list.
const ANTHROPIC_STRICT_TOOLS: usize = 20;
const ANTHROPIC_OPTIONAL_PARAMETERS: usize = 24;
const ANTHROPIC_UNION_PARAMETERS: usize = 16;

impl Registry {
    /// Every tool's definition in `dialect`, in registration order; or every construct,
    /// in every tool, that the dialect cannot express.
    pub fn definitions(&self, dialect: Dialect) -> Result<Vec<Value>, Vec<LoweringError>> {
        let mut definitions = Vec::with_capacity(self.len());
        let mut errors = Vec::new();
        for spec in self.specs() {
            match definition(spec, dialect) {
                Ok(value) => definitions.push(value),
                Err(found) => errors.extend(found),
            }
        }
        if dialect == (Dialect::Anthropic { strict: true }) {
            errors.extend(anthropic_strict_budgets(&definitions));
        }
        if errors.is_empty() {
            Ok(definitions)
        } else {
            Err(errors)
        }
    }

    /// Runs every lowering for `dialect`: call it in a test of your crate and a tool the
    /// provider would reject fails the test, not a request in production.
    pub fn check(&self, dialect: Dialect) -> Result<(), Vec<LoweringError>> {
        self.definitions(dialect).map(|_| ())
    }
}

fn anthropic_strict_budgets(definitions: &[Value]) -> Vec<LoweringError> {
    fn count(schema: &Value, optional: &mut usize, unions: &mut usize) {
        let Value::Object(map) = schema else { return };
        if map.contains_key("anyOf") || map.get("type").is_some_and(Value::is_array) {
            *unions += 1;
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            let required: Vec<&Value> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().collect())
                .unwrap_or_default();
            *optional += properties
                .keys()
                .filter(|name| !required.iter().any(|r| r.as_str() == Some(name)))
                .count();
        }
        for value in map.values() {
            match value {
                Value::Object(_) => count(value, optional, unions),
                Value::Array(items) => items.iter().for_each(|item| count(item, optional, unions)),
                _ => {}
            }
        }
    }
    let (mut optional, mut unions) = (0, 0);
    for definition in definitions {
        count(&definition["input_schema"], &mut optional, &mut unions);
    }
    let mut errors = Vec::new();
    let mut budget = |what: &str, used: usize, limit: usize| {
        if used > limit {
            errors.push(LoweringError {
                tool: "(all strict tools)".into(),
                path: String::new(),
                target: Target::AnthropicStrict,
                reason: format!("{used} {what} across the request; Anthropic allows {limit} (split the tools, or send some non-strict)"),
            });
        }
    };
    budget("strict tools", definitions.len(), ANTHROPIC_STRICT_TOOLS);
    budget(
        "optional parameters",
        optional,
        ANTHROPIC_OPTIONAL_PARAMETERS,
    );
    budget(
        "parameters with union types",
        unions,
        ANTHROPIC_UNION_PARAMETERS,
    );
    errors
}
