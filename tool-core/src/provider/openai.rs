//! OpenAI: Chat Completions and Responses. Definitions out (`strict` always sent
//! explicitly), calls in (arguments as JSON text), results back, tool choice.

use serde_json::{Value, json};

use super::{ParseError, ToolChoice, missing, text};
use crate::call::{CallArguments, ToolCall, ToolResult};
use crate::dialect::Dialect;

/// A Chat Completions `tools[]` entry.
pub(super) fn chat_definition(name: &str, description: &str, schema: Value, strict: bool) -> Value {
    json!({
        "type": "function",
        "function": {"name": name, "description": description, "parameters": schema, "strict": strict},
    })
}

/// A Responses `tools[]` entry.
pub(super) fn responses_definition(
    name: &str,
    description: &str,
    schema: Value,
    strict: bool,
) -> Value {
    json!({
        "type": "function", "name": name, "description": description, "parameters": schema, "strict": strict,
    })
}

/// OpenAI Chat: `choices[0].message.tool_calls[]`.
pub(super) fn chat_calls(response: &Value, strict: bool) -> Result<Vec<ToolCall>, ParseError> {
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
            parsed.written_for = Some(Dialect::OpenAiChat { strict });
            Ok(parsed)
        })
        .collect()
}

/// OpenAI Responses: `output[]` items of type `function_call`.
pub(super) fn responses_calls(response: &Value, strict: bool) -> Result<Vec<ToolCall>, ParseError> {
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
            parsed.written_for = Some(Dialect::OpenAiResponses { strict });
            // A call made by a `program` item (programmatic tool calling) says so, and
            // names the program its output must name to resume it.
            if item["caller"]["type"] == "program" {
                parsed.via = crate::spec::Via::HostedCode;
                parsed.program = item["caller"]["caller_id"].as_str().map(str::to_owned);
            }
            Ok(parsed)
        })
        .collect()
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

/// One `role: tool` message per result.
pub(super) fn chat_results(results: &[ToolResult]) -> Vec<Value> {
    results
        .iter()
        .map(|r| json!({"role": "tool", "tool_call_id": r.call_id, "content": r.for_model()}))
        .collect()
}

/// `function_call_output` items.
pub(super) fn responses_results(results: &[ToolResult]) -> Vec<Value> {
    results
        .iter()
        .map(|r| {
            let mut output = json!({"type": "function_call_output", "call_id": r.call_id, "output": r.for_model()});
            // The program that made the call resumes only with its output.
            if let Some(program) = &r.program {
                output["caller"] = json!({"type": "program", "caller_id": program});
            }
            output
        })
        .collect()
}

/// `tool_choice` for Chat Completions.
pub(super) fn chat_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
    }
}

/// `tool_choice` for Responses.
pub(super) fn responses_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Tool(name) => json!({"type": "function", "name": name}),
    }
}
