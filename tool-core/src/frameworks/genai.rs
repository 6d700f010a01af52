//! A registry's tools in [genai](https://docs.rs/genai)'s types (feature `genai`; genai
//! is added without its default TLS stack: the user's own dependency on genai chooses).
//!
//! genai speaks many providers through one `ChatRequest`; each provider takes its own
//! subset of JSON Schema. [`dialect`] names the one toolwright lowers to for the adapter
//! genai will use (OpenAI-compatible providers: Chat Completions; `OpenAIResp`:
//! Responses; Anthropic and Bedrock: Anthropic's; Gemini and Vertex: Gemini's JSON
//! Schema), and [`tools`], [`calls`] and [`answer`] take it, so the definitions sent and
//! the calls read back agree.
//!
//! genai's `ToolResponse` is text with no error flag: the model reads toolwright's model
//! view, which says what kind of error it is in its first words, every problem with its
//! path.

use genai::adapter::AdapterKind;
use genai::chat::{Tool, ToolResponse};

use super::Answered;
use super::offered::offered;
use crate::call::{CallArguments, ToolCall, ToolResult};
use crate::context::Context;
use crate::dialect::Dialect;
use crate::registry::Registry;
use crate::schema::lower::LoweringErrors;

/// The dialect whose lowering the provider behind `adapter` accepts.
pub fn dialect(adapter: AdapterKind) -> Dialect {
    match adapter {
        AdapterKind::OpenAIResp => Dialect::OpenAiResponses { strict: false },
        AdapterKind::Anthropic | AdapterKind::BedrockApi => Dialect::Anthropic { strict: false },
        AdapterKind::Gemini | AdapterKind::Vertex => Dialect::GeminiJsonSchema,
        // The Interactions API takes `parameters`, the OpenAPI subset.
        AdapterKind::GeminiIx => Dialect::GeminiParameters,
        // OpenAI itself, and the providers genai reaches through OpenAI's wire (Groq,
        // DeepSeek, xAI, Ollama, ...).
        _ => Dialect::OpenAiChat { strict: false },
    }
}

/// genai's tools for what the caller in `ctx` is offered, lowered for `dialect`; strict
/// (genai's `with_strict`) when the dialect is. Or what the dialect cannot express.
pub fn tools(
    registry: &Registry,
    ctx: &Context,
    dialect: Dialect,
) -> Result<Vec<Tool>, LoweringErrors> {
    let strict = matches!(
        dialect,
        Dialect::OpenAiChat { strict: true }
            | Dialect::OpenAiResponses { strict: true }
            | Dialect::Anthropic { strict: true }
    );
    Ok(offered(registry, ctx, dialect)?
        .into_iter()
        .map(|tool| {
            let genai_tool = Tool::new(tool.name)
                .with_description(tool.description)
                .with_schema(tool.parameters);
            if strict {
                genai_tool.with_strict(true)
            } else {
                genai_tool
            }
        })
        .collect())
}

/// genai's tool calls as toolwright's, read against `dialect`'s lowering.
pub fn calls(calls: &[genai::chat::ToolCall], dialect: Dialect) -> Vec<ToolCall> {
    calls
        .iter()
        .map(|call| {
            let arguments = match &call.fn_arguments {
                // Arguments some providers send as JSON text: read as text, so a parse
                // problem is reported as one.
                serde_json::Value::String(text) => CallArguments::Json(text.clone()),
                other => CallArguments::Value(other.clone()),
            };
            ToolCall::new(call.call_id.clone(), call.fn_name.clone(), arguments)
                .written_for(dialect)
        })
        .collect()
}

/// The tool calls of a genai response, read as [`calls`] reads them. When the response
/// stopped for its output limit or a filter (`StopReason::MaxTokens`,
/// `StopReason::ContentFilter`), genai keeps the call the model was writing, its input a
/// string where it does not parse: that call, the last, is marked
/// [`cut`](ToolCall::cut), and the registry answers it (write it again, shorter) without
/// running it.
pub fn response_calls(response: &genai::chat::ChatResponse, dialect: Dialect) -> Vec<ToolCall> {
    use genai::chat::StopReason;
    let listed: Vec<genai::chat::ToolCall> = response.tool_calls().into_iter().cloned().collect();
    let mut calls = calls(&listed, dialect);
    let cut = match &response.stop_reason {
        Some(StopReason::MaxTokens(reason) | StopReason::ContentFilter(reason)) => Some(reason),
        _ => None,
    };
    if let (Some(reason), Some(last)) = (cut, calls.last_mut()) {
        last.cut = Some(format!("the provider stopped it: {reason}"));
    }
    calls
}

/// [`answer`] for a whole genai response: its calls as [`response_calls`] reads them (a
/// call the response's stop cut off is answered, never run), one batch, and the
/// `ToolResponse`s in the calls' order.
pub async fn answer_response(
    registry: &Registry,
    ctx: &Context,
    dialect: Dialect,
    response: &genai::chat::ChatResponse,
) -> Answered<ToolResponse> {
    let results = registry
        .dispatch_batch(ctx, response_calls(response, dialect))
        .await;
    let messages = results.iter().map(self::response).collect();
    Answered { results, messages }
}

/// Feeds one event of a genai stream (`exec_chat_stream`) to `turn`
/// ([`Registry::streamed_turn`](crate::Registry::streamed_turn), in the adapter's
/// dialect): each `ToolCallChunk` is read as it comes (genai gives some providers'
/// arguments as the text so far, others' piece by piece: both are read once), and `End`
/// ends the turn, its captured stop reason cutting the last call when it is the output
/// limit or a filter. A stream that never reaches `End` cuts every call it left open.
pub fn stream_event(turn: &mut crate::partial::StreamedTurn<'_>, event: &genai::chat::ChatStreamEvent) {
    use genai::chat::{ChatStreamEvent, StopReason};
    match event {
        ChatStreamEvent::ToolCallChunk(chunk) => {
            let call = &chunk.tool_call;
            let text = match &call.fn_arguments {
                serde_json::Value::String(text) => text.clone(),
                serde_json::Value::Null => String::new(),
                other => other.to_string(),
            };
            turn.call_text(&call.call_id, &call.fn_name, &text);
        }
        ChatStreamEvent::End(end) => {
            let cut = match &end.captured_stop_reason {
                Some(StopReason::MaxTokens(reason) | StopReason::ContentFilter(reason)) => {
                    Some(reason.as_str())
                }
                _ => None,
            };
            turn.ended(cut);
        }
        _ => {}
    }
}

/// The `ToolResponse` that answers `result`'s call: its model view, with the tool's
/// name (Gemini matches responses by name).
pub fn response(result: &ToolResult) -> ToolResponse {
    ToolResponse::new(result.call_id.clone(), result.for_model()).with_fn_name(result.name.clone())
}

/// Runs every call (one [`Registry::dispatch_batch`]) and gives the results with the
/// `ToolResponse`s that answer them, in the calls' order. Append them with
/// `ChatMessage::from(answered.messages)`.
pub async fn answer(
    registry: &Registry,
    ctx: &Context,
    dialect: Dialect,
    tool_calls: &[genai::chat::ToolCall],
) -> Answered<ToolResponse> {
    let results = registry
        .dispatch_batch(ctx, calls(tool_calls, dialect))
        .await;
    let messages = results.iter().map(response).collect();
    Answered { results, messages }
}
