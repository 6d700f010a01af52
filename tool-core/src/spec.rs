//! `ToolSpec`: the contract of one tool, as the registry and the providers see it.

use serde::Serialize;
use serde_json::Value;

use crate::effect::{Annotations, Effect};

/// The contract of one tool: what the model is shown and what the runtime enforces.
/// `#[tool]` builds it from the function's signature and rustdoc.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    /// The name the model calls it by: `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`, valid for every
    /// provider.
    pub name: String,
    /// A human-readable title (MCP `title`), when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does and when to use it: the doc comment without its `# Arguments`,
    /// `# Errors`, `# Panics`, `# Examples` and `# Safety` sections.
    pub description: String,
    /// JSON Schema 2020-12 of the arguments object.
    pub input_schema: Value,
    /// JSON Schema 2020-12 of the result, when the return type has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// The effect class.
    pub effect: Effect,
    /// Calling it twice with the same arguments has no further effect.
    pub idempotent: bool,
    /// It reaches beyond the local system.
    pub open_world: bool,
    /// MCP annotations derived from `effect`, `idempotent` and `open_world`.
    pub annotations: Annotations,
    /// Whole calls' arguments that show the model how the tool is used
    /// (`#[tool(example = ...)]`), each one a call the tool accepts (checked when the
    /// tool is registered).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Value>,
    /// Scopes the caller must hold (`#[tool(scopes = ["payments:write"])]`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// Declared `idempotent = false`: its side effects must not happen twice, so calls
    /// run with an idempotency key.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deduplicate: bool,
    /// Some argument is read through serde's buffered content (an internally tagged or
    /// untagged enum, a flattened field), where serde takes more than the schema says (a
    /// struct from an array): the fast path then checks the arguments against the schema
    /// as well. Set by `#[tool]`; not part of the contract.
    #[serde(skip)]
    pub reads_buffered: bool,
}

impl ToolSpec {
    /// A spec with the given contract; annotations are derived from the effect and its
    /// modifiers.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
        effect: Effect,
    ) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: description.into(),
            input_schema,
            output_schema: None,
            effect,
            idempotent: false,
            open_world: false,
            annotations: effect.annotations(false, false),
            examples: Vec::new(),
            scopes: Vec::new(),
            deduplicate: false,
            reads_buffered: false,
        }
    }

    /// Sets the title.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the output schema.
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Sets the scopes a caller must hold.
    pub fn with_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Whether a call with `effect` runs with an idempotency key (a second call with the
    /// same key returns the first result instead of acting again): external effects, and
    /// side effects of a tool that is not idempotent.
    pub fn needs_idempotency_key(&self, effect: Effect) -> bool {
        match effect {
            Effect::External => true,
            Effect::Write | Effect::Destructive => self.deduplicate,
            _ => false,
        }
    }

    /// Sets the `idempotent` and `open_world` modifiers and re-derives the annotations.
    pub fn with_modifiers(mut self, idempotent: bool, open_world: bool) -> Self {
        self.annotations = self.effect.annotations(idempotent, open_world);
        self.idempotent = self.annotations.idempotent_hint;
        self.open_world = self.annotations.open_world_hint;
        self
    }
}

/// Whether `name` is a tool name every provider accepts:
/// `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`.
pub fn is_valid_tool_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    matches!(bytes.first(), Some(b) if b.is_ascii_alphabetic() || *b == b'_')
        && bytes.len() <= 64
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
}

#[cfg(test)]
mod tests {
    use super::is_valid_tool_name;

    #[test]
    fn tool_names_follow_the_strictest_provider() {
        for good in ["a", "_x", "read_file", "Search-2", &"a".repeat(64)] {
            assert!(is_valid_tool_name(good), "{good}");
        }
        for bad in [
            "",
            "2fast",
            "-x",
            "has space",
            "dot.ted",
            "é",
            &"a".repeat(65),
        ] {
            assert!(!is_valid_tool_name(bad), "{bad}");
        }
    }
}
