//! The `Tool` trait every `#[tool]` companion implements, and what goes in and out of it.

use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use crate::{Context, ContextType, ToolError, ToolSpec};

/// The future a tool call returns.
pub type ToolFuture<'a> = Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send + 'a>>;

/// A tool a model can call. `#[tool]` implements it on a companion unit struct named
/// after the function in PascalCase (`search_files` → `SearchFiles`); implement it by
/// hand only for tools whose schema is not known at compile time.
pub trait Tool: Send + Sync + 'static {
    /// The tool's contract: name, description, schema, effect. Built once and cached.
    fn spec(&self) -> &ToolSpec;

    /// The types the tool's `#[ctx]` parameters take from the [`Context`].
    fn context_types(&self) -> Vec<ContextType> {
        Vec::new()
    }

    /// Reads the arguments and runs the tool. Arguments that do not deserialize give
    /// an [`ErrorKind::InvalidArguments`](crate::ErrorKind::InvalidArguments) error; the
    /// tool's own errors come back as the [`ToolError`] it chose.
    fn call<'a>(&'a self, ctx: &'a Context, args: Arguments<'a>) -> ToolFuture<'a>;
}

/// A call's arguments as they arrived: a raw JSON string (OpenAI sends them so) or an
/// already-parsed JSON value (Anthropic, Gemini, MCP).
#[derive(Debug, Clone, Copy)]
pub enum Arguments<'a> {
    /// Raw JSON text.
    Json(&'a str),
    /// A parsed JSON value.
    Value(&'a Value),
}

impl<'a> From<&'a str> for Arguments<'a> {
    fn from(json: &'a str) -> Self {
        Arguments::Json(json)
    }
}

impl<'a> From<&'a String> for Arguments<'a> {
    fn from(json: &'a String) -> Self {
        Arguments::Json(json)
    }
}

impl<'a> From<&'a Value> for Arguments<'a> {
    fn from(value: &'a Value) -> Self {
        Arguments::Value(value)
    }
}

/// What a tool returned, as the model will read it.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOutput {
    /// Text, sent as is (a tool that returns `String`).
    Text(String),
    /// A JSON value (a tool that returns any other `Serialize` type).
    Json(Value),
    /// Nothing (a tool that returns `()`).
    Empty,
}

impl ToolOutput {
    /// The output of a returned value: a JSON string becomes text, `null` nothing, any
    /// other value JSON.
    pub fn from_value(value: Value) -> Self {
        match value {
            Value::String(text) => ToolOutput::Text(text),
            Value::Null => ToolOutput::Empty,
            other => ToolOutput::Json(other),
        }
    }

    /// The output as text for a model: text as is, JSON compact, nothing as "".
    pub fn to_text(&self) -> String {
        match self {
            ToolOutput::Text(text) => text.clone(),
            ToolOutput::Json(value) => value.to_string(),
            ToolOutput::Empty => String::new(),
        }
    }
}
