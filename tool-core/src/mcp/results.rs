//! What a dispatched call becomes on the wire: MCP's `CallToolResult`, or the
//! unknown-tool protocol error.

use rmcp::model::{CallToolResult, ErrorData};
use serde_json::Value;

use super::{APPROVAL_TICKET_META, SOURCE_META};
use crate::error::ErrorKind;
use crate::provider::mcp::{Part, ResultParts};

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
    if let Some(source) = &result.source {
        let mut meta = answer.meta.take().unwrap_or_default();
        meta.0
            .insert(SOURCE_META.to_owned(), Value::from(&**source));
        answer.meta = Some(meta);
    }
    Ok(answer)
}

/// `result` as MCP's `CallToolResult`, from the parts its JSON form is written from too
/// (`crate::provider::mcp::ResultParts`): no JSON round trip on the way but for images,
/// audio and resources.
fn call_tool_result(result: &crate::call::ToolResult) -> Result<CallToolResult, ErrorData> {
    let parts = ResultParts::of(result);
    let content = parts
        .content
        .into_iter()
        .map(|part| match part {
            Part::Text(text) => Ok(rmcp::model::ContentBlock::text(text.into_owned())),
            // Images, audio and resources are rare: through JSON, once each.
            Part::Block(block) => serde_json::to_value(block)
                .and_then(serde_json::from_value)
                .map_err(|error| {
                    ErrorData::internal_error(format!("rendering a content block: {error}"), None)
                }),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut answer = if parts.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    answer.structured_content = parts.structured.cloned();
    Ok(answer)
}
