//! `Dialect`: which provider API a tool definition, a call or a result is written for,
//! the schema target it lowers to, and its facts (`DialectFacts`: what it can do, where
//! its definitions keep things), one row per dialect. Below everything that speaks a
//! provider's wire.

use serde_json::Value;

use crate::schema::lower::Target;

/// What a dialect can do and where its definitions keep things: one row per dialect
/// ([`Dialect::facts`]), which every part of toolwright that asks reads, so a new
/// dialect states each fact once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DialectFacts {
    /// The key a definition's function sits under (`function` in Chat Completions), or
    /// `None` when the definition is the function.
    pub function: Option<&'static str>,
    /// The key of the function's parameters schema (`parameters`, `input_schema`,
    /// `parametersJsonSchema`, `inputSchema`).
    pub parameters: &'static str,
    /// Whether code the provider runs can call tools (Anthropic's and OpenAI's
    /// programmatic tool calling: `#[tool(hosted_code)]`).
    pub hosted_code: bool,
    /// Whether tools can be sent unloaded and loaded by a search on the provider's side
    /// (Anthropic's `defer_loading`, `tool_reference` blocks and its own search tool).
    pub deferred_loading: bool,
    /// Whether a definition has a field for whole-call examples (Anthropic's
    /// `input_examples`, MCP's); elsewhere they can go in the description.
    pub examples_field: bool,
    /// Whether a definition can ask for its arguments to be streamed unbuffered as the
    /// model writes them (Anthropic's `eager_input_streaming`: `#[tool(stream_input)]`).
    pub eager_input_streaming: bool,
}

/// How tool definitions are sent: the provider API and, where it has one, its strict
/// mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
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

    /// What the dialect can do and where its definitions keep things.
    ///
    /// ```
    /// # use toolwright::Dialect;
    /// assert_eq!(Dialect::Anthropic { strict: true }.facts().parameters, "input_schema");
    /// assert!(!Dialect::Mcp.facts().hosted_code);
    /// ```
    pub const fn facts(self) -> DialectFacts {
        const fn row(
            function: Option<&'static str>,
            parameters: &'static str,
            hosted_code: bool,
            deferred_loading: bool,
            examples_field: bool,
            eager_input_streaming: bool,
        ) -> DialectFacts {
            DialectFacts {
                function,
                parameters,
                hosted_code,
                deferred_loading,
                examples_field,
                eager_input_streaming,
            }
        }
        match self {
            Dialect::OpenAiChat { .. } => {
                row(Some("function"), "parameters", false, false, false, false)
            }
            Dialect::OpenAiResponses { .. } => row(None, "parameters", true, false, false, false),
            Dialect::Anthropic { .. } => row(None, "input_schema", true, true, true, true),
            Dialect::GeminiParameters => row(None, "parameters", false, false, false, false),
            Dialect::GeminiJsonSchema => {
                row(None, "parametersJsonSchema", false, false, false, false)
            }
            Dialect::Mcp => row(None, "inputSchema", false, false, true, false),
        }
    }

    /// The function of a definition written in this dialect (the definition itself, or
    /// what it nests under `function`).
    pub fn function_of(self, definition: &Value) -> Option<&Value> {
        match self.facts().function {
            Some(key) => definition.get(key),
            None => Some(definition),
        }
    }

    /// The parameters schema of a definition written in this dialect.
    ///
    /// ```
    /// # use toolwright::{tool, Dialect};
    /// /// Say hello.
    /// #[tool(effect = "read_only")]
    /// fn hello(/** Who to greet. */ name: String) -> String { format!("Hello, {name}!") }
    ///
    /// let registry = toolwright::Registry::builder().with(Hello).build().unwrap();
    /// for dialect in Dialect::ALL.into_iter().filter(|d| *d != Dialect::Mcp) {
    ///     let definition = &registry.all_definitions(dialect).unwrap()[0];
    ///     let parameters = dialect.parameters_of(definition).unwrap();
    ///     assert!(parameters["properties"]["name"].is_object(), "{dialect:?}");
    /// }
    /// ```
    pub fn parameters_of(self, definition: &Value) -> Option<&Value> {
        self.function_of(definition)?.get(self.facts().parameters)
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
