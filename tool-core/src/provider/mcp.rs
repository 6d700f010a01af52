//! MCP as a wire format: a `Tool` out, a `tools/call` request in, a `CallToolResult`
//! back (the MCP server builds the same from typed parts; a test holds them equal). MCP
//! has no tool choice: the client's model decides.

use serde_json::{Map, Value, json};

use super::{ParseError, missing, text};
use crate::call::{ToolCall, ToolResult};
use crate::content::ContentBlock;
use crate::spec::ToolSpec;
use crate::tool::ToolOutput;

/// An MCP `Tool`: all four annotation hints explicit (MCP's defaults would call an
/// unannotated tool destructive and open-world), `outputSchema` when the result is an
/// object (the only root 2025-06-18 and 2025-11-25 accept).
pub(super) fn definition(spec: &ToolSpec, input_schema: Value) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), json!(spec.name));
    if let Some(title) = &spec.title {
        tool.insert("title".into(), json!(title));
    }
    tool.insert("description".into(), json!(spec.description));
    tool.insert("inputSchema".into(), input_schema);
    if let Some(output) = &spec.output_schema
        && output.get("type") == Some(&json!("object"))
    {
        tool.insert("outputSchema".into(), output.clone());
    }
    let mut annotations = serde_json::to_value(spec.annotations).unwrap_or_else(|_| json!({}));
    if let (Some(title), Value::Object(map)) = (&spec.title, &mut annotations) {
        map.insert("title".into(), json!(title));
    }
    tool.insert("annotations".into(), annotations);
    Value::Object(tool)
}

/// MCP: one `tools/call` request.
pub(super) fn calls(response: &Value) -> Result<Vec<ToolCall>, ParseError> {
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

pub(super) fn result(result: &ToolResult) -> Value {
    let text = || json!({"type": "text", "text": result.for_model()});
    let content = match &result.outcome {
        // The blocks as they are, unless the text was cut to the budget: then the cut
        // text, then the blocks that are not text.
        Ok(ToolOutput::Content(blocks)) => {
            let truncated = result.truncation().is_some();
            let blocks = blocks
                .iter()
                .filter(|block| !(truncated && matches!(block, ContentBlock::Text { .. })));
            // MCP has no tool references: the tool's name, as text.
            let blocks = blocks.map(|block| match block {
                ContentBlock::ToolReference { .. } => {
                    json!({"type": "text", "text": block.to_text()})
                }
                block => serde_json::to_value(block).unwrap_or(Value::Null),
            });
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
