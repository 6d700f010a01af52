//! What a dispatched call becomes on the wire: MCP's `CallToolResult`, or the
//! unknown-tool protocol error.

use rmcp::model::{CallToolResult, ErrorData};
use serde_json::Value;

use super::{APPROVAL_TICKET_META, DUPLICATE_META, SOURCE_META};
use crate::content::ContentBlock;
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
    let marks = [
        (
            APPROVAL_TICKET_META,
            result
                .ticket
                .as_ref()
                .map(|ticket| serde_json::to_value(ticket).unwrap_or(Value::Null)),
        ),
        (
            DUPLICATE_META,
            result.duplicate.then_some(Value::Bool(true)),
        ),
        (SOURCE_META, result.source.as_deref().map(Value::from)),
    ];
    for (key, value) in marks {
        if let Some(value) = value {
            answer
                .meta
                .get_or_insert_with(Default::default)
                .0
                .insert(key.to_owned(), value);
        }
    }
    Ok(answer)
}

/// `result` as MCP's `CallToolResult`, from the parts its JSON form is written from too
/// (`crate::provider::mcp::ResultParts`), with no JSON round trip on the way.
fn call_tool_result(result: &crate::call::ToolResult) -> Result<CallToolResult, ErrorData> {
    let parts = ResultParts::of(result);
    let content = parts
        .content
        .into_iter()
        .map(|part| match part {
            Part::Text(text) => Ok(rmcp::model::ContentBlock::text(text.into_owned())),
            Part::Block(block) => rmcp_block(block),
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

/// An image, audio or resource block as rmcp's, built from its fields (reading it from
/// JSON would link rmcp's content deserializers into every server).
fn rmcp_block(block: &ContentBlock) -> Result<rmcp::model::ContentBlock, ErrorData> {
    use rmcp::model::{ContentBlock as Block, ResourceContents};
    Ok(match block {
        ContentBlock::Text { text } => Block::text(text.clone()),
        ContentBlock::Image { data, mime_type } => Block::image(data.clone(), mime_type.clone()),
        ContentBlock::Audio { data, mime_type } => Block::audio(data.clone(), mime_type.clone()),
        ContentBlock::Resource { resource } => {
            let uri = resource.uri.clone();
            let mime_type = Some(resource.mime_type.clone());
            Block::resource(match (&resource.text, &resource.blob) {
                (Some(text), _) => ResourceContents::TextResourceContents {
                    uri,
                    mime_type,
                    text: text.clone(),
                    meta: None,
                },
                (None, Some(blob)) => ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob: blob.clone(),
                    meta: None,
                },
                (None, None) => {
                    return Err(ErrorData::internal_error(
                        format!("the resource block {uri} has neither text nor blob"),
                        None,
                    ));
                }
            })
        }
        other => Block::text(other.to_text()),
    })
}
