//! Gemini: function declarations out (`parameters` or `parametersJsonSchema`),
//! `functionCall` parts in (ids made up where missing), `functionResponse` parts back,
//! `toolConfig`.

use serde_json::{Map, Value, json};

use super::{ParseError, SYNTHESIZED_ID_PREFIX, ToolChoice, missing, text};
use crate::call::{ToolCall, ToolResult};
use crate::tool::ToolOutput;

/// A function declaration with `parameters` (left unset for a function without any).
pub(super) fn parameters_definition(name: &str, description: &str, schema: Value) -> Value {
    let mut declaration = json!({"name": name, "description": description});
    if schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty())
    {
        declaration["parameters"] = schema;
    }
    declaration
}

/// A function declaration with `parametersJsonSchema`.
pub(super) fn json_schema_definition(name: &str, description: &str, schema: Value) -> Value {
    json!({"name": name, "description": description, "parametersJsonSchema": schema})
}

/// Gemini: `candidates[0].content.parts[].functionCall`, ids made up where missing.
pub(super) fn calls(response: &Value) -> Result<Vec<ToolCall>, ParseError> {
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

/// One `user` turn of `functionResponse` parts.
pub(super) fn results(results: &[ToolResult]) -> Vec<Value> {
    let parts: Vec<Value> = results.iter().map(part).collect();
    vec![json!({"role": "user", "parts": parts})]
}

fn part(result: &ToolResult) -> Value {
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

/// `toolConfig.functionCallingConfig`.
pub(super) fn choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!({"functionCallingConfig": {"mode": "AUTO"}}),
        ToolChoice::None => json!({"functionCallingConfig": {"mode": "NONE"}}),
        ToolChoice::Required => json!({"functionCallingConfig": {"mode": "ANY"}}),
        ToolChoice::Tool(name) => {
            json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [name]}})
        }
    }
}
