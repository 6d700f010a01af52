//! Calls in and results back, per provider: the model's tool calls parsed from each
//! response shape, each result rendered in the shape the provider expects next.

use std::fmt;

use serde_json::{Map, Value, json};

use super::Dialect;
use crate::content::ContentBlock;
use crate::dispatch::{CallArguments, ToolCall, ToolResult};
use crate::tool::ToolOutput;

/// A provider response that does not have the documented shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// What was expected where.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unexpected provider response: {}", self.message)
    }
}

impl std::error::Error for ParseError {}

fn missing(what: &str) -> ParseError {
    ParseError {
        message: format!("missing {what}"),
    }
}

fn text(value: &Value, what: &str) -> Result<String, ParseError> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| missing(what))
}

/// Prefix of ids toolwright makes up for calls that came without one (Gemini).
pub const SYNTHESIZED_ID_PREFIX: &str = "toolwright-call-";

/// The tool calls in a provider's response (or in the message or content that holds
/// them), in the order the model listed them.
///
/// - OpenAI Chat: `choices[0].message.tool_calls[]` (arguments a JSON string); calls
///   from a strict definition are marked so a `null` means "left out".
/// - OpenAI Responses: `output[]` items of type `function_call` (`call_id` is the id).
/// - Anthropic: `content[]` blocks of type `tool_use`.
/// - Gemini: `candidates[0].content.parts[].functionCall`; calls without an `id` get a
///   stable one from their position (`toolwright-call-0`).
/// - MCP: a `tools/call` request (`params.name`, `params.arguments`), id from the request.
pub fn parse_calls(dialect: Dialect, response: &Value) -> Result<Vec<ToolCall>, ParseError> {
    match dialect {
        Dialect::OpenAiChat { strict } => openai_chat_calls(response, strict),
        Dialect::OpenAiResponses { strict } => openai_responses_calls(response, strict),
        Dialect::Anthropic { .. } => anthropic_calls(response),
        Dialect::GeminiParameters | Dialect::GeminiJsonSchema => gemini_calls(response),
        Dialect::Mcp => mcp_calls(response),
    }
}

/// OpenAI Chat: `choices[0].message.tool_calls[]`.
fn openai_chat_calls(response: &Value, strict: bool) -> Result<Vec<ToolCall>, ParseError> {
    let message = response.pointer("/choices/0/message").unwrap_or(response);
    let calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    calls
        .iter()
        .map(|call| {
            let function = call
                .get("function")
                .ok_or_else(|| missing("tool_calls[].function"))?;
            let arguments = arguments_of(function.get("arguments"));
            let mut parsed = ToolCall::new(
                text(&call["id"], "tool_calls[].id")?,
                text(&function["name"], "function.name")?,
                arguments,
            );
            parsed.nulls_mean_absent = strict;
            Ok(parsed)
        })
        .collect()
}

/// OpenAI Responses: `output[]` items of type `function_call`.
fn openai_responses_calls(response: &Value, strict: bool) -> Result<Vec<ToolCall>, ParseError> {
    let items = response
        .get("output")
        .and_then(Value::as_array)
        .ok_or_else(|| missing("output[]"))?;
    items
        .iter()
        .filter(|item| item.get("type") == Some(&json!("function_call")))
        .map(|item| {
            let arguments = arguments_of(item.get("arguments"));
            let mut parsed = ToolCall::new(
                text(&item["call_id"], "function_call.call_id")?,
                text(&item["name"], "function_call.name")?,
                arguments,
            );
            parsed.nulls_mean_absent = strict;
            Ok(parsed)
        })
        .collect()
}

/// Anthropic: `content[]` blocks of type `tool_use`.
fn anthropic_calls(response: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let blocks = response
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| missing("content[]"))?;
    blocks
        .iter()
        .filter(|block| block.get("type") == Some(&json!("tool_use")))
        .map(|block| {
            let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
            Ok(ToolCall::new(
                text(&block["id"], "tool_use.id")?,
                text(&block["name"], "tool_use.name")?,
                input,
            ))
        })
        .collect()
}

/// Gemini: `candidates[0].content.parts[].functionCall`, ids made up where missing.
fn gemini_calls(response: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let parts = response
        .pointer("/candidates/0/content/parts")
        .or_else(|| response.get("parts"))
        .and_then(Value::as_array)
        .ok_or_else(|| missing("candidates[0].content.parts[]"))?;
    parts
        .iter()
        .filter_map(|part| part.get("functionCall"))
        .enumerate()
        .map(|(index, call)| {
            let id = match call.get("id").and_then(Value::as_str) {
                Some(id) => id.to_owned(),
                None => format!("{SYNTHESIZED_ID_PREFIX}{index}"),
            };
            let args = call.get("args").cloned().unwrap_or_else(|| json!({}));
            Ok(ToolCall::new(
                id,
                text(&call["name"], "functionCall.name")?,
                args,
            ))
        })
        .collect()
}

/// MCP: one `tools/call` request.
fn mcp_calls(response: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let params = response.get("params").ok_or_else(|| missing("params"))?;
    let id = match response.get("id") {
        Some(Value::String(id)) => id.clone(),
        Some(other) if !other.is_null() => other.to_string(),
        _ => return Err(missing("id")),
    };
    let arguments = params
        .get("arguments")
        .cloned()
        .unwrap_or_else(|| json!({}));
    Ok(vec![ToolCall::new(
        id,
        text(&params["name"], "params.name")?,
        arguments,
    )])
}

/// OpenAI's `arguments`: JSON text (as documented), or an object some compatible servers
/// send instead; missing means none.
fn arguments_of(arguments: Option<&Value>) -> CallArguments {
    match arguments {
        Some(Value::String(json)) => CallArguments::Json(json.clone()),
        Some(other) => CallArguments::Value(other.clone()),
        None => CallArguments::Json(String::new()),
    }
}

/// The results in the shape the provider expects next, in the order given:
///
/// - OpenAI Chat: one `role: tool` message per result, with `tool_call_id`.
/// - OpenAI Responses: `function_call_output` items.
/// - Anthropic: one `user` message whose content is every `tool_result` block, results
///   first, with `is_error` (a [`Content`](crate::content::Content) result's images as image
///   blocks).
/// - Gemini: one `user` turn of `functionResponse` parts (`{"output": ...}` or
///   `{"error": ...}`).
/// - MCP: one `CallToolResult` per result: `content` (the model's view as a text block;
///   a [`Content`](crate::content::Content) result's own blocks), `isError`, and
///   `structuredContent` when the output is a JSON object (never on an error).
pub fn render_results(dialect: Dialect, results: &[ToolResult]) -> Vec<Value> {
    match dialect {
        Dialect::OpenAiChat { .. } => results
            .iter()
            .map(|r| json!({"role": "tool", "tool_call_id": r.call_id, "content": r.for_model()}))
            .collect(),
        Dialect::OpenAiResponses { .. } => results
            .iter()
            .map(|r| json!({"type": "function_call_output", "call_id": r.call_id, "output": r.for_model()}))
            .collect(),
        Dialect::Anthropic { .. } => {
            let blocks: Vec<Value> = results
                .iter()
                .map(|r| json!({"type": "tool_result", "tool_use_id": r.call_id, "content": anthropic_content(r), "is_error": r.is_error()}))
                .collect();
            vec![json!({"role": "user", "content": blocks})]
        }
        Dialect::GeminiParameters | Dialect::GeminiJsonSchema => {
            let parts: Vec<Value> = results.iter().map(gemini_part).collect();
            vec![json!({"role": "user", "parts": parts})]
        }
        Dialect::Mcp => results.iter().map(mcp_result).collect(),
    }
}

/// A `tool_result`'s content: the model's view as a string, or, for a [`Content`]
/// result with an image Claude reads (JPEG, PNG, GIF, WebP) that fit the budget, its
/// blocks: text as text, those images as base64 images, anything else as its
/// placeholder text.
///
/// [`Content`]: crate::content::Content
fn anthropic_content(result: &ToolResult) -> Value {
    const IMAGES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];
    let readable = |block: &ContentBlock| matches!(block, ContentBlock::Image { mime_type, .. } if IMAGES.contains(&mime_type.as_str()));
    match &result.outcome {
        Ok(ToolOutput::Content(blocks))
            if result.truncation().is_none() && blocks.iter().any(readable) =>
        {
            let blocks = blocks.iter().map(|block| match block {
                ContentBlock::Image { data, mime_type } if readable(block) => {
                    json!({"type": "image", "source": {"type": "base64", "media_type": mime_type, "data": data}})
                }
                other => json!({"type": "text", "text": other.to_text()}),
            });
            Value::Array(blocks.collect())
        }
        _ => json!(result.for_model()),
    }
}

fn gemini_part(result: &ToolResult) -> Value {
    let response = match &result.outcome {
        Err(_) => {
            json!({"error": serde_json::from_str::<Value>(result.for_model()).unwrap_or_else(|_| json!(result.for_model()))})
        }
        // JSON the model may read as JSON, when it fit the budget whole.
        Ok(ToolOutput::Json(value)) if result.truncation().is_none() => json!({"output": value}),
        Ok(_) => json!({"output": result.for_model()}),
    };
    let mut call = Map::new();
    if !result.call_id.starts_with(SYNTHESIZED_ID_PREFIX) {
        call.insert("id".into(), json!(result.call_id));
    }
    call.insert("name".into(), json!(result.name));
    call.insert("response".into(), response);
    json!({"functionResponse": call})
}

fn mcp_result(result: &ToolResult) -> Value {
    let text = || json!({"type": "text", "text": result.for_model()});
    let content = match &result.outcome {
        // The blocks as they are, unless the text was cut to the budget: then the cut
        // text, then the blocks that are not text.
        Ok(ToolOutput::Content(blocks)) => {
            let truncated = result.truncation().is_some();
            let blocks = blocks
                .iter()
                .filter(|block| !(truncated && matches!(block, ContentBlock::Text { .. })));
            let blocks = blocks.map(|block| serde_json::to_value(block).unwrap_or(Value::Null));
            truncated.then(text).into_iter().chain(blocks).collect()
        }
        _ => vec![text()],
    };
    let mut out = json!({"content": content, "isError": result.is_error()});
    if let Ok(
        ToolOutput::Json(value @ Value::Object(_))
        | ToolOutput::Observation {
            data: value @ Value::Object(_),
            ..
        },
    ) = &result.outcome
    {
        out["structuredContent"] = value.clone();
    }
    out
}

/// How the model may use the tools on its next turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// No tool calls.
    None,
    /// At least one tool call.
    Required,
    /// A call of this tool.
    Tool(String),
}

/// `tool_choice` (OpenAI, Anthropic) or `toolConfig` (Gemini) for `choice`.
/// `parallel: false` asks for at most one call per turn where the provider has that knob
/// (Anthropic's `disable_parallel_tool_use`; for OpenAI set `parallel_tool_calls: false`
/// beside it).
pub fn tool_choice(dialect: Dialect, choice: &ToolChoice, parallel: bool) -> Value {
    match dialect {
        Dialect::OpenAiChat { .. } => match choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
        },
        Dialect::OpenAiResponses { .. } => match choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Tool(name) => json!({"type": "function", "name": name}),
        },
        Dialect::Anthropic { .. } => {
            let mut value = match choice {
                ToolChoice::Auto => json!({"type": "auto"}),
                ToolChoice::None => return json!({"type": "none"}),
                ToolChoice::Required => json!({"type": "any"}),
                ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
            };
            if !parallel {
                value["disable_parallel_tool_use"] = Value::Bool(true);
            }
            value
        }
        Dialect::GeminiParameters | Dialect::GeminiJsonSchema => match choice {
            ToolChoice::Auto => json!({"functionCallingConfig": {"mode": "AUTO"}}),
            ToolChoice::None => json!({"functionCallingConfig": {"mode": "NONE"}}),
            ToolChoice::Required => json!({"functionCallingConfig": {"mode": "ANY"}}),
            ToolChoice::Tool(name) => {
                json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [name]}})
            }
        },
        // MCP has no tool choice: the client's model decides.
        Dialect::Mcp => Value::Null,
    }
}
