//! What a dispatched call becomes on the wire: MCP's `CallToolResult`, or the
//! unknown-tool protocol error.

use rmcp::model::{CallToolResult, ErrorData};
use serde_json::Value;

use super::APPROVAL_TICKET_META;
use crate::error::ErrorKind;

/// The MCP answer for `result`: the unknown-tool protocol error, or a result.
pub(super) fn render(result: &crate::call::ToolResult) -> Result<CallToolResult, ErrorData> {
    if let Some(error) = result.error()
        && error.kind == ErrorKind::UnknownTool
    {
        return Err(ErrorData::invalid_params(
            format!("Unknown tool: {}", error.message),
            Some(error.to_model_json()),
        ));
    }
    let mut answer = call_tool_result(result)?;
    if let Some(ticket) = &result.ticket {
        let mut meta = answer.meta.take().unwrap_or_default();
        meta.0.insert(
            APPROVAL_TICKET_META.to_owned(),
            serde_json::to_value(ticket).unwrap_or(Value::Null),
        );
        answer.meta = Some(meta);
    }
    Ok(answer)
}

/// `result` as MCP's `CallToolResult`, built from its typed parts (no JSON round trip
/// on the way): the model's view as a text block (a `Content` result's blocks as they
/// are, the cut text first when over budget), `isError`, and `structuredContent` for an
/// object result. The same as `render_results(Dialect::Mcp, ..)` writes (a test holds the
/// two together).
fn call_tool_result(result: &crate::call::ToolResult) -> Result<CallToolResult, ErrorData> {
    use crate::content::ContentBlock as Block;
    use crate::tool::ToolOutput;
    let text = || rmcp::model::ContentBlock::text(result.for_model());
    let content = match &result.outcome {
        Ok(ToolOutput::Content(blocks)) => {
            let truncated = result.truncation().is_some();
            let mut content: Vec<_> = truncated.then(text).into_iter().collect();
            for block in blocks {
                content.push(match block {
                    Block::Text { .. } if truncated => continue,
                    Block::Text { text } => rmcp::model::ContentBlock::text(text.clone()),
                    // MCP has no tool references: the tool's name, as text.
                    Block::ToolReference { .. } => rmcp::model::ContentBlock::text(block.to_text()),
                    // Images, audio and resources are rare: through JSON, once each.
                    other => serde_json::to_value(other)
                        .and_then(serde_json::from_value)
                        .map_err(|error| {
                            ErrorData::internal_error(
                                format!("rendering a content block: {error}"),
                                None,
                            )
                        })?,
                });
            }
            content
        }
        _ => vec![text()],
    };
    let mut answer = if result.is_error() {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    if let Ok(
        ToolOutput::Json(value @ Value::Object(_))
        | ToolOutput::Observation {
            data: value @ Value::Object(_),
            ..
        },
    ) = &result.outcome
    {
        answer.structured_content = Some(value.clone());
    }
    Ok(answer)
}
