//! A registry's tools in [async-openai](https://docs.rs/async-openai)'s types (feature
//! `async-openai`, types only: no HTTP client or TLS is added), for Chat Completions and
//! Responses.
//!
//! Each direction is one function: the definitions into the request
//! ([`chat_tools`], [`responses_tools`]), the calls out of the response
//! ([`chat_calls`], [`responses_calls`]), and [`answer_chat`] / [`answer_responses`],
//! which run every call of a response through [`Registry::dispatch_batch`] (read-only
//! calls in parallel, writes in order) and give the messages or items to send back. The
//! definitions are toolwright's own wire JSON ([`Registry::definitions`]), read into
//! async-openai's types, so strict mode, the lowering and the encoding of calls are the
//! dialect's: `strict: true` sends strict schemas and reads the calls' `null`s as
//! "left out".
//!
//! Results go back as text, toolwright's model view: Chat Completions' tool message and
//! Responses' `function_call_output` have no error flag, so an error says what it is in
//! its first words (`invalid_arguments: ...`, every problem with its path).

use async_openai::types::chat::{
    ChatCompletionMessageToolCalls, ChatCompletionRequestMessage, ChatCompletionRequestToolMessage,
    ChatCompletionRequestToolMessageContent, ChatCompletionResponseMessage, ChatCompletionTools,
};
use async_openai::types::responses::{
    FunctionCallOutput, FunctionCallOutputItemParam, InputItem, Item, OutputItem,
    ProgramToolCallCaller, Tool, ToolCallCaller,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Answered;
use crate::call::{CallArguments, ToolCall, ToolResult};
use crate::context::Context;
use crate::dialect::Dialect;
use crate::registry::Registry;
use crate::schema::lower::{LoweringError, LoweringErrors};

/// The Chat Completions `tools` of the tools the caller in `ctx` is offered; strict
/// schemas when `strict`. Or what the dialect cannot express.
pub fn chat_tools(
    registry: &Registry,
    ctx: &Context,
    strict: bool,
) -> Result<Vec<ChatCompletionTools>, LoweringErrors> {
    read_definitions(registry, ctx, Dialect::OpenAiChat { strict })
}

/// The Responses `tools` of the tools the caller in `ctx` is offered; strict schemas
/// when `strict`. Or what the dialect cannot express.
pub fn responses_tools(
    registry: &Registry,
    ctx: &Context,
    strict: bool,
) -> Result<Vec<Tool>, LoweringErrors> {
    read_definitions(registry, ctx, Dialect::OpenAiResponses { strict })
}

/// The tool calls of an assistant message, in order, read against the lowering of
/// [`chat_tools`] with the same `strict`. A custom (free-form) tool call is read as a
/// call with its input as the arguments: toolwright's tools take JSON, so the model is
/// told what is wrong with it rather than left without an answer.
pub fn chat_calls(message: &ChatCompletionResponseMessage, strict: bool) -> Vec<ToolCall> {
    let dialect = Dialect::OpenAiChat { strict };
    message
        .tool_calls
        .iter()
        .flatten()
        .map(|call| {
            let (id, name, arguments) = match call {
                ChatCompletionMessageToolCalls::Function(call) => {
                    (&call.id, &call.function.name, &call.function.arguments)
                }
                ChatCompletionMessageToolCalls::Custom(call) => {
                    (&call.id, &call.custom_tool.name, &call.custom_tool.input)
                }
            };
            ToolCall::new(
                id.clone(),
                name.clone(),
                CallArguments::Json(arguments.clone()),
            )
            .written_for(dialect)
        })
        .collect()
}

/// The tool calls of a choice, as [`chat_calls`] reads its message; when the choice
/// stopped for the output limit or a filter (`finish_reason` `length`,
/// `content_filter`), its last call is marked [`cut`](ToolCall::cut): the registry
/// answers it (write it again, shorter), never runs it.
pub fn choice_calls(choice: &async_openai::types::chat::ChatChoice, strict: bool) -> Vec<ToolCall> {
    use async_openai::types::chat::FinishReason;
    let mut calls = chat_calls(&choice.message, strict);
    let reason = match choice.finish_reason {
        Some(FinishReason::Length) => Some("length"),
        Some(FinishReason::ContentFilter) => Some("content_filter"),
        _ => None,
    };
    if let (Some(reason), Some(last)) = (reason, calls.last_mut()) {
        last.cut = Some(format!("the provider stopped it: {reason}"));
    }
    calls
}

/// The function calls among a response's output items, in order, read against the
/// lowering of [`responses_tools`] with the same `strict`. An item whose `status` is
/// `incomplete` (the response stopped while the model wrote it) is marked
/// [`cut`](ToolCall::cut): answered, never run.
pub fn responses_calls(output: &[OutputItem], strict: bool) -> Vec<ToolCall> {
    let dialect = Dialect::OpenAiResponses { strict };
    output
        .iter()
        .filter_map(|item| match item {
            OutputItem::FunctionCall(call) => {
                let mut parsed = ToolCall::new(
                    call.call_id.clone(),
                    call.name.clone(),
                    CallArguments::Json(call.arguments.clone()),
                )
                .written_for(dialect);
                if call.status == Some(async_openai::types::responses::OutputStatus::Incomplete) {
                    parsed.cut = Some("the provider stopped it: incomplete".to_owned());
                }
                // A call a program made (programmatic tool calling) names it.
                Some(match &call.caller {
                    Some(ToolCallCaller::Program(program)) => {
                        parsed.made_by_program(program.caller_id.clone())
                    }
                    _ => parsed,
                })
            }
            _ => None,
        })
        .collect()
}

/// Runs every tool call of `message` (one `dispatch_batch`) and gives the results with
/// the `role: tool` messages that answer them, one per call, in the calls' order.
pub async fn answer_chat(
    registry: &Registry,
    ctx: &Context,
    message: &ChatCompletionResponseMessage,
    strict: bool,
) -> Answered<ChatCompletionRequestMessage> {
    let results = registry
        .dispatch_batch(ctx, chat_calls(message, strict))
        .await;
    let messages = results.iter().map(chat_result).collect();
    Answered { results, messages }
}

/// Runs every function call in `output` (one `dispatch_batch`) and gives the results
/// with the `function_call_output` items that answer them, in the calls' order.
pub async fn answer_responses(
    registry: &Registry,
    ctx: &Context,
    output: &[OutputItem],
    strict: bool,
) -> Answered<InputItem> {
    let results = registry
        .dispatch_batch(ctx, responses_calls(output, strict))
        .await;
    let messages = results.iter().map(responses_result).collect();
    Answered { results, messages }
}

/// The `role: tool` message that answers `result`'s call: its model view.
pub fn chat_result(result: &ToolResult) -> ChatCompletionRequestMessage {
    ChatCompletionRequestMessage::Tool(ChatCompletionRequestToolMessage {
        content: ChatCompletionRequestToolMessageContent::Text(result.for_model().to_owned()),
        tool_call_id: result.call_id.clone(),
    })
}

/// The `function_call_output` item that answers `result`'s call: its model view.
pub fn responses_result(result: &ToolResult) -> InputItem {
    InputItem::Item(Item::FunctionCallOutput(FunctionCallOutputItemParam {
        call_id: Some(result.call_id.clone()),
        output: FunctionCallOutput::Text(result.for_model().to_owned()),
        id: None,
        status: None,
        name: None,
        namespace: None,
        caller: result.program.as_ref().map(|program| {
            ToolCallCaller::Program(ProgramToolCallCaller {
                caller_id: program.clone(),
            })
        }),
    }))
}

/// The definitions of `dialect`, each read into async-openai's type for it.
fn read_definitions<T: DeserializeOwned>(
    registry: &Registry,
    ctx: &Context,
    dialect: Dialect,
) -> Result<Vec<T>, LoweringErrors> {
    let definitions = registry.definitions(ctx, dialect)?;
    let mut read = Vec::with_capacity(definitions.len());
    let mut errors = Vec::new();
    for definition in definitions {
        let name = definition
            .pointer("/function/name")
            .or_else(|| definition.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        match serde_json::from_value(definition) {
            Ok(tool) => read.push(tool),
            Err(error) => errors.push(LoweringError {
                tool: name,
                path: String::new(),
                target: dialect.target(),
                reason: format!("async-openai cannot read this definition: {error}"),
            }),
        }
    }
    if errors.is_empty() {
        Ok(read)
    } else {
        Err(errors.into())
    }
}
