//! A `tools/call` result as the imported tool's outcome: read as plain JSON, one block at
//! a time (an unknown or undecodable block costs only itself), checked against the
//! tool's output schema, and screened where the model reads it.

use serde_json::Value;

use crate::content::ContentBlock;
use crate::error::ToolError;
use crate::lint::screen;
use crate::tool::{ToolOutcome, ToolOutput};
use crate::validate::Validator;

/// A `tools/call` result as the tool's outcome, read leniently and one block at a time:
/// a block of a type this client does not know, or an image whose data is not base64,
/// becomes a placeholder naming the type (none of its fields), and the blocks known are
/// kept. `isError` makes it an error; with an `output` schema, the structured content
/// must match. What the model reads is screened: terminal escapes and hidden characters
/// removed (the harness keeps the original, as the result's data).
pub(super) fn read_result(result: Value, output: Option<&Validator>) -> ToolOutcome {
    let Value::Object(mut result) = result else {
        return Err(ToolError::failed("the result is not a JSON object").with_retryable(false));
    };
    let content = match result.remove("content") {
        Some(Value::Array(content)) => content,
        None | Some(Value::Null) => Vec::new(),
        Some(_) => {
            return Err(
                ToolError::failed("the result's `content` is not an array").with_retryable(false)
            );
        }
    };
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let output_blocks = blocks(content);
    if is_error {
        return Err(ToolError::failed(format!(
            "the call failed: {}",
            screen::strip_terminal(&output_blocks.to_text()).0
        ))
        .with_retryable(false));
    }
    let Some(schema) = output else {
        return Ok(for_model(output_blocks));
    };
    let structured = match result.remove("structuredContent") {
        Some(structured) if !structured.is_null() => structured,
        _ => {
            return Err(ToolError::failed(
                "it declares an output schema but sent no structured result",
            ));
        }
    };
    let problems = schema.validate(&structured);
    if problems.is_empty() {
        return Ok(for_model(ToolOutput::Json(structured)));
    }
    let count = problems.len();
    let mut error = ToolError::failed(format!(
        "{count} problem{} with the result: it does not match the tool's output schema",
        if count == 1 { "" } else { "s" }
    ));
    error.problems = problems;
    Err(error)
}

/// The output, and what the model reads of it screened: when the text has terminal
/// escapes or hidden characters, the model reads it without them and the harness keeps
/// the original as data.
fn for_model(output: ToolOutput) -> ToolOutput {
    match output {
        // Nothing is copied for the usual result, which has nothing to strip.
        ToolOutput::Text(text) if !screen::has_terminal(&text) => ToolOutput::Text(text),
        ToolOutput::Text(text) => ToolOutput::Observation {
            for_model: screen::strip_terminal(&text).0,
            data: Value::String(text),
        },
        ToolOutput::Json(value) if !any_string(&value, &screen::has_terminal) => {
            ToolOutput::Json(value)
        }
        ToolOutput::Json(value) => ToolOutput::Observation {
            for_model: screen::strip_terminal(&value.to_string()).0,
            data: value,
        },
        ToolOutput::Content(blocks) => ToolOutput::Content(
            blocks
                .into_iter()
                .map(|block| match block {
                    ContentBlock::Text { text } if screen::has_terminal(&text) => {
                        ContentBlock::Text {
                            text: screen::strip_terminal(&text).0,
                        }
                    }
                    other => other,
                })
                .collect(),
        ),
        other => other,
    }
}

/// Whether any string inside `value` (keys included) satisfies `test`.
fn any_string(value: &Value, test: &impl Fn(&str) -> bool) -> bool {
    match value {
        Value::String(text) => test(text),
        Value::Array(items) => items.iter().any(|item| any_string(item, test)),
        Value::Object(object) => object
            .iter()
            .any(|(key, item)| test(key) || any_string(item, test)),
        _ => false,
    }
}

/// Whether `data` is standard base64 (with its padding), as MCP's image and audio
/// blocks carry.
fn is_base64(data: &str) -> bool {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .is_ok()
}

/// A result's content blocks as a tool output: one text block is text, none is nothing.
/// A block toolwright has no form for (a resource link, a type from a later protocol)
/// becomes a line of text naming it.
fn blocks(content: Vec<Value>) -> ToolOutput {
    let mut blocks: Vec<ContentBlock> = content
        .into_iter()
        .map(|value| {
            let kind = match value.get("type").and_then(Value::as_str) {
                Some(kind) if kind.len() <= 64 => screen::escape(kind),
                Some(_) => "unknown".to_owned(),
                None => "untyped".to_owned(),
            };
            let undecodable = matches!(kind.as_str(), "image" | "audio")
                && !value
                    .get("data")
                    .and_then(Value::as_str)
                    .is_some_and(is_base64);
            let link = (kind == "resource_link")
                .then(|| value.get("uri").and_then(Value::as_str))
                .flatten()
                .map(|uri| screen::escape(&screen::strip_terminal(uri).0));
            let placeholder = move || ContentBlock::Text {
                text: match (&link, undecodable) {
                    (Some(uri), _) => format!("[{kind}: {uri}]"),
                    (None, true) => format!("[{kind} block whose data is not base64: left out]"),
                    (None, false) => format!("[{kind} block]"),
                },
            };
            if undecodable {
                return placeholder();
            }
            serde_json::from_value::<ContentBlock>(value).unwrap_or_else(|_| placeholder())
        })
        .collect();
    match blocks.len() {
        0 => ToolOutput::Empty,
        1 if matches!(blocks[0], ContentBlock::Text { .. }) => {
            let Some(ContentBlock::Text { text }) = blocks.pop() else {
                return ToolOutput::Empty;
            };
            ToolOutput::Text(text)
        }
        _ => ToolOutput::Content(blocks),
    }
}
