//! Anthropic Messages: definitions out (and the per-request budgets of strict tools),
//! `tool_use` blocks in, `tool_result` blocks back, tool choice.

use serde_json::{Value, json};

use super::{ParseError, ToolChoice, missing, text};
use crate::call::{ToolCall, ToolResult};
use crate::content::ContentBlock;
use crate::schema::lower::{LoweringError, Target};
use crate::spec::Via;
use crate::tool::ToolOutput;

/// A `tools[]` entry (`strict: true` sent only when set).
pub(super) fn definition(name: &str, description: &str, schema: Value, strict: bool) -> Value {
    let mut tool = json!({"name": name, "description": description, "input_schema": schema});
    if strict {
        tool["strict"] = Value::Bool(true);
    }
    tool
}

/// The code execution tool whose programs may call tools (programmatic tool calling):
/// the version named in `allowed_callers`.
pub(super) const CODE_EXECUTION: &str = "code_execution_20260120";

/// Anthropic's per-request budgets for strict tools, summed over the whole list.
const ANTHROPIC_STRICT_TOOLS: usize = 20;
const ANTHROPIC_OPTIONAL_PARAMETERS: usize = 24;
const ANTHROPIC_UNION_PARAMETERS: usize = 16;

pub(super) fn strict_budgets(definitions: &[Value]) -> Vec<LoweringError> {
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

/// Anthropic: `content[]` blocks of type `tool_use`.
pub(super) fn calls(response: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let blocks = response
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| missing("content[]"))?;
    blocks
        .iter()
        .filter(|block| block.get("type") == Some(&json!("tool_use")))
        .map(|block| {
            let input = block.get("input").cloned().unwrap_or_else(|| json!({}));
            let mut call = ToolCall::new(
                text(&block["id"], "tool_use.id")?,
                text(&block["name"], "tool_use.name")?,
                input,
            );
            // A call made by code the provider runs says so (`caller.type`
            // `code_execution_...`, with the program's `tool_id`).
            if block["caller"]["type"]
                .as_str()
                .is_some_and(|caller| caller.starts_with("code_execution"))
            {
                call.via = Via::HostedCode;
                call.program = block["caller"]["tool_id"].as_str().map(str::to_owned);
            }
            Ok(call)
        })
        .collect()
}

/// One `user` message whose content is every `tool_result` block.
pub(super) fn results(results: &[ToolResult]) -> Vec<Value> {
    let blocks: Vec<Value> = results
        .iter()
        .map(|r| json!({"type": "tool_result", "tool_use_id": r.call_id, "content": content(r), "is_error": r.is_error()}))
        .collect();
    vec![json!({"role": "user", "content": blocks})]
}

/// A `tool_result`'s content: the model's view as a string, or, for a [`Content`]
/// result with an image Claude reads (JPEG, PNG, GIF, WebP) or a tool reference that fit
/// the budget, its blocks: text as text, those images as base64 images, tool references
/// as `tool_reference` blocks, anything else as its placeholder text.
///
/// [`Content`]: crate::content::Content
fn content(result: &ToolResult) -> Value {
    const IMAGES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];
    let readable = |block: &ContentBlock| match block {
        ContentBlock::Image { mime_type, .. } => IMAGES.contains(&mime_type.as_str()),
        ContentBlock::ToolReference { .. } => true,
        _ => false,
    };
    match &result.outcome {
        Ok(ToolOutput::Content(blocks))
            if result.truncation().is_none() && blocks.iter().any(readable) =>
        {
            let blocks = blocks.iter().map(|block| match block {
                ContentBlock::Image { data, mime_type } if readable(block) => {
                    json!({"type": "image", "source": {"type": "base64", "media_type": mime_type, "data": data}})
                }
                ContentBlock::ToolReference { tool_name } => {
                    json!({"type": "tool_reference", "tool_name": tool_name})
                }
                other => json!({"type": "text", "text": other.to_text()}),
            });
            Value::Array(blocks.collect())
        }
        _ => json!(result.for_model()),
    }
}

/// `tool_choice`; `parallel: false` sets `disable_parallel_tool_use`.
pub(super) fn choice(choice: &ToolChoice, parallel: bool) -> Value {
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
