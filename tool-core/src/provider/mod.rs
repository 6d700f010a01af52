//! Providers' wire formats: tool definitions out (each lowered for its target), tool
//! calls in, results back, tool choice. One file per provider holds its definitions,
//! calls, results and (except MCP, which has none) tool choice (`openai.rs`,
//! `anthropic.rs`, `gemini.rs`, `mcp.rs`); this file holds the entry points, which pick
//! one by [`Dialect`] (its facts: `crate::dialect`), and what the dialects share: the
//! examples, eager-streaming and hosted-code fields, and the stop reasons.

mod anthropic;
mod gemini;
pub(crate) mod mcp;
mod openai;

use std::fmt;

use serde_json::Value;

use crate::call::{ToolCall, ToolResult};
use crate::dialect::Dialect;
use crate::schema::lower::{LoweringErrors, lower_schema};
use crate::spec::ToolSpec;

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
pub fn definition(spec: &ToolSpec, dialect: Dialect) -> Result<Value, LoweringErrors> {
    if dialect == Dialect::Mcp {
        return mcp_tool(spec).map(|tool| tool.to_json());
    }
    let schema = lower_schema(&spec.name, &spec.input_schema, dialect.target())?;
    let (name, description) = (spec.name.as_str(), spec.description.as_str());
    let mut definition = match dialect {
        Dialect::OpenAiChat { strict } => {
            openai::chat_definition(name, description, schema, strict)
        }
        Dialect::OpenAiResponses { strict } => {
            openai::responses_definition(name, description, schema, strict)
        }
        Dialect::Anthropic { strict } => anthropic::definition(name, description, schema, strict),
        Dialect::GeminiParameters => gemini::parameters_definition(name, description, schema),
        Dialect::GeminiJsonSchema => gemini::json_schema_definition(name, description, schema),
        Dialect::Mcp => unreachable!("MCP's definition is its tool parts'"),
    };
    // Whole-call examples where the dialect has a place for them: Anthropic's
    // `input_examples` (MCP's are in its tool parts).
    if !spec.examples.is_empty() && dialect.facts().examples_field {
        definition["input_examples"] = Value::Array(encoded_examples(spec, dialect));
    }
    if spec.stream_input && dialect.facts().eager_input_streaming {
        definition["eager_input_streaming"] = Value::Bool(true);
    }
    Ok(definition)
}

/// `spec`'s MCP tool, in the parts both its JSON and the MCP server's typed `Tool` are
/// written from; or what MCP cannot express.
pub(crate) fn mcp_tool(spec: &ToolSpec) -> Result<mcp::ToolParts<'_>, LoweringErrors> {
    let Value::Object(schema) =
        lower_schema(&spec.name, &spec.input_schema, Dialect::Mcp.target())?
    else {
        return Err(vec![crate::schema::lower::LoweringError {
            tool: spec.name.clone(),
            path: String::new(),
            target: Dialect::Mcp.target(),
            reason: "MCP takes an input schema that is an object; give the tool one".to_owned(),
        }]
        .into());
    };
    Ok(mcp::ToolParts::of(
        spec,
        schema,
        encoded_examples(spec, Dialect::Mcp),
    ))
}

/// A call's arguments as a model of `dialect` writes them, given arguments for the
/// tool's own schema: what the lowering changed is encoded the same way (a map as an
/// array of `{"key", "value"}` entries where objects must list their fields, an optional
/// argument left out as `null` where every property is required). The dispatcher decodes
/// such a call ([`ToolCall::written_for`]); examples shown to a model are encoded
/// with it.
///
/// ```
/// # use toolwright::{tool, Dialect, Tool};
/// # use std::collections::HashMap;
/// /// Tag a file.
/// #[tool(effect = "write")]
/// fn tag(path: String, tags: HashMap<String, String>, note: Option<String>) {}
///
/// let sent = toolwright::provider::encode_arguments(
///     Tag.spec(),
///     Dialect::OpenAiChat { strict: true },
///     &serde_json::json!({"path": "a", "tags": {"k": "v"}}),
/// );
/// assert_eq!(sent, serde_json::json!({"path": "a", "tags": [{"key": "k", "value": "v"}], "note": null}));
/// ```
pub fn encode_arguments(spec: &ToolSpec, dialect: Dialect, arguments: &Value) -> Value {
    crate::schema::lower::encode_value(arguments, &spec.input_schema, dialect.target())
}

/// A tool declared callable from the provider's own code (`#[tool(hosted_code)]`, with
/// callers that include programs), offered to it: Anthropic's programmatic tool calling
/// (`allowed_callers`, with the code execution tool; a strict tool cannot be called from
/// code, so such a tool is sent without `strict`) and OpenAI's (`allowed_callers` with
/// `programmatic`, and the result's `output_schema`). Other dialects have no such caller.
/// `callers` alone (our `run_code`) changes nothing here.
fn offer_to_hosted_code(spec: &ToolSpec, dialect: Dialect, definition: &mut Value) {
    use crate::spec::{Callers, Via};
    if !spec.offered_via(Via::HostedCode) {
        return;
    }
    let direct = spec.callers.resolved(spec.effect) == Callers::Any;
    let callers = |code_caller: &str| {
        let code = Value::from(code_caller);
        Value::Array(if direct {
            vec![Value::from("direct"), code]
        } else {
            vec![code]
        })
    };
    match dialect {
        Dialect::Anthropic { .. } => {
            definition["allowed_callers"] = callers(anthropic::CODE_EXECUTION);
            if let Some(tool) = definition.as_object_mut() {
                tool.remove("strict");
            }
        }
        Dialect::OpenAiResponses { .. } => {
            definition["allowed_callers"] = callers("programmatic");
            if let Some(output) = &spec.output_schema {
                definition["output_schema"] = output.clone();
            }
        }
        _ => {}
    }
}

/// The tool's examples as a model of `dialect` would write them.
fn encoded_examples(spec: &ToolSpec, dialect: Dialect) -> Vec<Value> {
    spec.examples
        .iter()
        .map(|example| encode_arguments(spec, dialect, example))
        .collect()
}

/// Appends an "Examples:" paragraph, one call a line, to a definition's description.
fn describe_examples(definition: &mut Value, examples: &[Value]) {
    let description = match definition.get_mut("function") {
        Some(function) => &mut function["description"],
        None => &mut definition["description"],
    };
    let mut text = description.as_str().unwrap_or_default().to_owned();
    text.push_str("\n\nExamples:");
    for example in examples {
        text.push('\n');
        text.push_str(&example.to_string());
    }
    *description = Value::String(text);
}

/// Every definition of `specs` in `dialect`, in order, with the examples in each
/// description where asked and the dialect has no field for them; or every construct,
/// in every tool, that the dialect cannot express.
pub(crate) fn definitions<'a>(
    specs: impl ExactSizeIterator<Item = &'a ToolSpec>,
    dialect: Dialect,
    examples_in_descriptions: bool,
) -> Result<Vec<Value>, LoweringErrors> {
    let mut definitions = Vec::with_capacity(specs.len());
    let mut errors = Vec::new();
    let describe = examples_in_descriptions && !dialect.facts().examples_field;
    for spec in specs {
        match definition(spec, dialect) {
            Ok(mut value) => {
                if describe && !spec.examples.is_empty() {
                    describe_examples(&mut value, &encoded_examples(spec, dialect));
                }
                offer_to_hosted_code(spec, dialect, &mut value);
                definitions.push(value);
            }
            Err(found) => errors.extend(found),
        }
    }
    if dialect == (Dialect::Anthropic { strict: true }) {
        errors.extend(anthropic::strict_budgets(&definitions));
    }
    if errors.is_empty() {
        Ok(definitions)
    } else {
        Err(errors.into())
    }
}

/// Whether a tool is in a caller's list of definitions, and how.
pub(crate) enum Listing {
    Hidden,
    Shown,
    /// Sent with `defer_loading: true` (Anthropic loads it when a search references it).
    #[cfg_attr(not(feature = "search"), allow(dead_code))]
    Deferred,
}

/// A provider response that does not have the documented shape.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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

pub(crate) fn missing(what: &str) -> ParseError {
    ParseError {
        message: format!("missing {what}"),
    }
}

pub(crate) fn text(value: &Value, what: &str) -> Result<String, ParseError> {
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
///
/// Where the response says the model was stopped before it finished (its output limit,
/// or a filter: Chat's `finish_reason` `"length"` or `"content_filter"`, Responses'
/// `status: "incomplete"`, Anthropic's `stop_reason` `"max_tokens"` or
/// `"model_context_window_exceeded"`, Gemini's `finishReason` `"MAX_TOKENS"`,
/// `"SAFETY"` or `"RECITATION"`) and the last thing it wrote is a call, that call is marked [`cut`](ToolCall::cut): the registry answers
/// it (write it again, shorter) and never runs it.
///
/// ```
/// # use toolwright::{tool, Context, Dialect, Registry};
/// # use toolwright::provider::parse_calls;
/// /// Write a file.
/// #[tool(effect = "write")]
/// fn write_file(/** The file. */ path: String, /** Its content. */ content: String) {}
///
/// let response = serde_json::json!({
///     "stop_reason": "max_tokens",
///     "content": [{"type": "tool_use", "id": "toolu_1", "name": "write_file",
///                  "input": {"path": "notes.md", "content": "The first half of"}}]
/// });
/// let calls = parse_calls(Dialect::Anthropic { strict: false }, &response).unwrap();
/// assert!(calls[0].cut.is_some());
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let registry = Registry::builder().with(WriteFile).build().unwrap();
/// let answered = registry.dispatch(&Context::new(), calls[0].clone()).await;
/// assert!(answered.for_model().contains("was cut off before its end"));
/// # });
/// ```
pub fn parse_calls(dialect: Dialect, response: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let mut calls = parse_listed(dialect, response)?;
    if let Some(reason) = cut_reason(dialect, response)
        && ends_with_a_call(dialect, response)
        && let Some(last) = calls.last_mut()
    {
        last.cut = Some(reason);
    }
    Ok(calls)
}

/// Why the response says the model stopped before it finished writing, when it does:
/// its output limit (OpenAI Chat `finish_reason: "length"`, Responses `status:
/// "incomplete"`, Anthropic `stop_reason: "max_tokens"` or
/// `"model_context_window_exceeded"`, Gemini `finishReason: "MAX_TOKENS"`), or a filter
/// that stopped it.
fn cut_reason(dialect: Dialect, response: &Value) -> Option<String> {
    let reason = match dialect {
        Dialect::OpenAiChat { .. } => response
            .pointer("/choices/0/finish_reason")
            .and_then(Value::as_str)
            .filter(|reason| matches!(*reason, "length" | "content_filter"))?
            .to_owned(),
        Dialect::OpenAiResponses { .. } => {
            if response.get("status").and_then(Value::as_str) != Some("incomplete") {
                return None;
            }
            responses_incomplete_reason(response.get("incomplete_details")).to_owned()
        }
        Dialect::Anthropic { .. } => response
            .get("stop_reason")
            .and_then(Value::as_str)
            .filter(|reason| matches!(*reason, "max_tokens" | "model_context_window_exceeded"))?
            .to_owned(),
        Dialect::GeminiParameters | Dialect::GeminiJsonSchema => response
            .pointer("/candidates/0/finishReason")
            .and_then(Value::as_str)
            .filter(|reason| matches!(*reason, "MAX_TOKENS" | "SAFETY" | "RECITATION"))?
            .to_owned(),
        Dialect::Mcp => return None,
    };
    Some(format!("the provider stopped it: {reason}"))
}

/// The reason an OpenAI Responses `incomplete_details` gives, when it is one the API
/// documents (`max_output_tokens`, `content_filter`); any other text, which a broken or
/// hostile server could make as long as it likes, reads as plain `incomplete`, since it
/// is copied into what the model reads.
pub(crate) fn responses_incomplete_reason(details: Option<&Value>) -> &'static str {
    match details
        .and_then(|details| details.get("reason"))
        .and_then(Value::as_str)
    {
        Some("max_output_tokens") => "max_output_tokens",
        Some("content_filter") => "content_filter",
        _ => "incomplete",
    }
}

/// Whether the last thing the model wrote in `response` is a tool call (the one a stop
/// cut short): calls before it, and calls followed by text, were written whole.
fn ends_with_a_call(dialect: Dialect, response: &Value) -> bool {
    fn last(list: Option<&Value>) -> Option<&Value> {
        list.and_then(Value::as_array)
            .and_then(|items| items.last())
    }
    match dialect {
        // Chat puts the calls after the message's text.
        Dialect::OpenAiChat { .. } => true,
        Dialect::OpenAiResponses { .. } => {
            last(response.get("output")).is_some_and(|item| item["type"] == "function_call")
        }
        Dialect::Anthropic { .. } => {
            last(response.get("content")).is_some_and(|block| block["type"] == "tool_use")
        }
        Dialect::GeminiParameters | Dialect::GeminiJsonSchema => {
            last(response.pointer("/candidates/0/content/parts"))
                .is_some_and(|part| part.get("functionCall").is_some())
        }
        Dialect::Mcp => false,
    }
}

/// The calls `response` lists, as written.
fn parse_listed(dialect: Dialect, response: &Value) -> Result<Vec<ToolCall>, ParseError> {
    match dialect {
        Dialect::OpenAiChat { strict } => openai::chat_calls(response, strict),
        Dialect::OpenAiResponses { strict } => openai::responses_calls(response, strict),
        Dialect::Anthropic { .. } => {
            anthropic::calls(response).map(|calls| written_for(calls, dialect))
        }
        Dialect::GeminiParameters | Dialect::GeminiJsonSchema => {
            gemini::calls(response).map(|calls| written_for(calls, dialect))
        }
        Dialect::Mcp => mcp::calls(response),
    }
}

/// The calls, marked as written against `dialect`'s lowering.
fn written_for(mut calls: Vec<ToolCall>, dialect: Dialect) -> Vec<ToolCall> {
    for call in &mut calls {
        call.written_for = Some(dialect);
    }
    calls
}

/// The results in the shape the provider expects next, in the order given:
///
/// - OpenAI Chat: one `role: tool` message per result, with `tool_call_id`.
/// - OpenAI Responses: `function_call_output` items.
/// - Anthropic: one `user` message whose content is every `tool_result` block, results
///   first, with `is_error` (a [`Content`](crate::content::Content) result's images as image
///   blocks, its tool references as `tool_reference` blocks).
/// - Gemini: one `user` turn of `functionResponse` parts (`{"output": ...}` or
///   `{"error": ...}`).
/// - MCP: one `CallToolResult` per result: `content` (the model's view as a text block;
///   a [`Content`](crate::content::Content) result's own blocks), `isError`, and
///   `structuredContent` when the output is a JSON object (never on an error).
pub fn render_results(dialect: Dialect, results: &[ToolResult]) -> Vec<Value> {
    match dialect {
        Dialect::OpenAiChat { .. } => openai::chat_results(results),
        Dialect::OpenAiResponses { .. } => openai::responses_results(results),
        Dialect::Anthropic { .. } => anthropic::results(results),
        Dialect::GeminiParameters | Dialect::GeminiJsonSchema => gemini::results(results),
        Dialect::Mcp => results
            .iter()
            .map(|result| mcp::ResultParts::of(result).to_json())
            .collect(),
    }
}

/// How the model may use the tools on its next turn.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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
        Dialect::OpenAiChat { .. } => openai::chat_choice(choice),
        Dialect::OpenAiResponses { .. } => openai::responses_choice(choice),
        Dialect::Anthropic { .. } => anthropic::choice(choice, parallel),
        Dialect::GeminiParameters | Dialect::GeminiJsonSchema => gemini::choice(choice),
        // MCP has no tool choice: the client's model decides.
        Dialect::Mcp => Value::Null,
    }
}
