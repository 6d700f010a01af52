//! `Dialect`: which provider API a tool definition, a call or a result is written for,
//! and the schema target it lowers to. Below everything that speaks a provider's wire.

use crate::schema::lower::Target;

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
