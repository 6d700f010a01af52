//! `Observation`: a result whose model-facing text the tool chooses itself.

use serde::Serialize;

/// A tool result with two faces: `data` for the harness (logs, UIs, later steps), and
/// the text the model reads. Return it when the raw data would waste the model's context
/// (a 2,000-row query whose model view is a summary) or need explaining.
///
/// ```
/// # use toolwright::{tool, Observation, ToolError};
/// /// Count the lines of the build log.
/// #[tool(effect = "read_only")]
/// fn build_log_stats() -> Observation<Vec<String>> {
///     let lines = vec!["ok".to_owned(); 3];
///     let summary = format!("{} lines, no errors", lines.len());
///     Observation::new(lines, summary)
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Observation<T> {
    /// The full result.
    pub data: T,
    /// What the model reads.
    pub for_model: String,
}

impl<T> Observation<T> {
    /// `data` for the harness, `for_model` for the model.
    pub fn new(data: T, for_model: impl Into<String>) -> Self {
        Self {
            data,
            for_model: for_model.into(),
        }
    }
}

#[diagnostic::do_not_recommend]
impl<T: Serialize> crate::tool::IntoToolOutput for Observation<T> {
    fn into_tool_output(self) -> Result<crate::tool::ToolOutput, crate::error::ToolError> {
        let data = serde_json::to_value(&self.data).map_err(|error| {
            crate::error::ToolError::internal(format!(
                "the tool's result could not be serialized: {error}"
            ))
            .with_retryable(false)
        })?;
        Ok(crate::tool::ToolOutput::Observation {
            data,
            for_model: self.for_model,
        })
    }
}

/// An `Observation<T>` has `T`'s output schema: the schema describes the data.
impl<T: crate::schema::ToolSchema> crate::schema::ToolSchema for Observation<T> {
    fn tool_schema(generator: &mut crate::schema::SchemaGenerator) -> serde_json::Value {
        T::tool_schema(generator)
    }
    fn schema_name() -> Option<std::borrow::Cow<'static, str>> {
        T::schema_name()
    }
    fn schema_id() -> std::borrow::Cow<'static, str> {
        T::schema_id()
    }
}
