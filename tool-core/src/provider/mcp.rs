//! MCP as a wire format: a `Tool` out, a `tools/call` request in, a `CallToolResult`
//! back. Each is written once, as parts ([`ToolParts`], [`ResultParts`]), which the JSON
//! form here and the MCP server's typed values (`crate::mcp`) both come from. MCP has no
//! tool choice: the client's model decides.

use serde_json::{Map, Value, json};

use super::{ParseError, missing, text};
use crate::call::{ToolCall, ToolResult};
use crate::content::ContentBlock;
use crate::effect::Annotations;
use crate::spec::{TaskSupport, ToolSpec};
use crate::tool::ToolOutput;

/// An MCP `Tool`, in parts: the JSON definition ([`ToolParts::to_json`]) and the MCP
/// server's typed `Tool` are both written from these, so they cannot drift apart.
pub(crate) struct ToolParts<'a> {
    pub(crate) name: &'a str,
    pub(crate) title: Option<&'a str>,
    pub(crate) description: &'a str,
    /// The lowered input schema, whole-call examples included.
    pub(crate) input_schema: Map<String, Value>,
    /// The output schema when the result is an object (the only root 2025-06-18 and
    /// 2025-11-25 accept).
    pub(crate) output_schema: Option<&'a Map<String, Value>>,
    /// All four hints explicit: MCP's defaults would call an unannotated tool
    /// destructive and open-world.
    pub(crate) annotations: Annotations,
    /// Whether calls may run as tasks: `execution.taskSupport` (2025-11-25), written
    /// only when a tool allows tasks (absent means forbidden).
    pub(crate) task: TaskSupport,
}

impl<'a> ToolParts<'a> {
    /// The parts of `spec`'s tool: its input schema lowered for MCP, and its whole-call
    /// examples as a model writes them (the `examples` keyword of the input schema).
    pub(super) fn of(
        spec: &'a ToolSpec,
        mut input_schema: Map<String, Value>,
        examples: Vec<Value>,
    ) -> Self {
        if !examples.is_empty() {
            input_schema.insert("examples".into(), Value::Array(examples));
        }
        ToolParts {
            name: &spec.name,
            title: spec.title.as_deref(),
            description: &spec.description,
            input_schema,
            output_schema: spec
                .output_schema
                .as_ref()
                .and_then(Value::as_object)
                .filter(|output| output.get("type") == Some(&json!("object"))),
            annotations: spec.annotations(),
            task: spec.task,
        }
    }

    /// The `Tool` as `tools/list` sends it.
    pub(crate) fn to_json(&self) -> Value {
        let mut tool = Map::new();
        tool.insert("name".into(), json!(self.name));
        if let Some(title) = self.title {
            tool.insert("title".into(), json!(title));
        }
        tool.insert("description".into(), json!(self.description));
        tool.insert(
            "inputSchema".into(),
            Value::Object(self.input_schema.clone()),
        );
        if let Some(output) = self.output_schema {
            tool.insert("outputSchema".into(), Value::Object(output.clone()));
        }
        let mut annotations = Map::new();
        let Annotations {
            read_only_hint,
            destructive_hint,
            idempotent_hint,
            open_world_hint,
        } = self.annotations;
        annotations.insert("readOnlyHint".into(), json!(read_only_hint));
        annotations.insert("destructiveHint".into(), json!(destructive_hint));
        annotations.insert("idempotentHint".into(), json!(idempotent_hint));
        annotations.insert("openWorldHint".into(), json!(open_world_hint));
        if let Some(title) = self.title {
            annotations.insert("title".into(), json!(title));
        }
        tool.insert("annotations".into(), Value::Object(annotations));
        if self.task != TaskSupport::Forbidden {
            tool.insert(
                "execution".into(),
                json!({ "taskSupport": self.task.as_str() }),
            );
        }
        Value::Object(tool)
    }
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

/// A `CallToolResult`, in parts: the JSON form ([`ResultParts::to_json`]) and the MCP
/// server's typed result are both written from these.
pub(crate) struct ResultParts<'a> {
    /// The content blocks: the model's view as text, or a `Content` result's own blocks
    /// (the cut text first when over budget).
    pub(crate) content: Vec<Part<'a>>,
    pub(crate) is_error: bool,
    /// An object result, as `structuredContent` (never on an error).
    pub(crate) structured: Option<&'a Value>,
}

/// One content block of a result.
pub(crate) enum Part<'a> {
    Text(std::borrow::Cow<'a, str>),
    /// An image, audio or resource block, as it is.
    Block(&'a ContentBlock),
}

impl<'a> ResultParts<'a> {
    pub(crate) fn of(result: &'a ToolResult) -> Self {
        let text = || Part::Text(result.for_model().into());
        let content = match &result.outcome {
            // The blocks as they are, unless the text was cut to the budget: then the cut
            // text, then the blocks that are not text.
            Ok(ToolOutput::Content(blocks)) => {
                let truncated = result.truncation().is_some();
                let blocks = blocks
                    .iter()
                    .filter(|block| !(truncated && matches!(block, ContentBlock::Text { .. })))
                    .map(|block| match block {
                        ContentBlock::Text { text } => Part::Text(text.as_str().into()),
                        // MCP has no tool references: the tool's name, as text.
                        ContentBlock::ToolReference { .. } => Part::Text(block.to_text().into()),
                        block => Part::Block(block),
                    });
                truncated.then(text).into_iter().chain(blocks).collect()
            }
            _ => vec![text()],
        };
        let structured = match &result.outcome {
            Ok(
                ToolOutput::Json(value @ Value::Object(_))
                | ToolOutput::Observation {
                    data: value @ Value::Object(_),
                    ..
                },
            ) => Some(value),
            _ => None,
        };
        ResultParts {
            content,
            is_error: result.is_error(),
            structured,
        }
    }

    /// The `CallToolResult` as JSON.
    pub(crate) fn to_json(&self) -> Value {
        let content: Vec<Value> = self
            .content
            .iter()
            .map(|part| match part {
                Part::Text(text) => json!({"type": "text", "text": text}),
                Part::Block(block) => serde_json::to_value(block).unwrap_or(Value::Null),
            })
            .collect();
        let mut out = json!({"content": content, "isError": self.is_error});
        if let Some(structured) = self.structured {
            out["structuredContent"] = structured.clone();
        }
        out
    }
}
