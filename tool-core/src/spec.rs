//! `ToolSpec`: the contract of one tool, as the registry and the providers see it.

use serde::Serialize;
use serde_json::Value;

use crate::effect::{Annotations, Effect};

/// The contract of one tool: what the model is shown and what the runtime enforces.
/// `#[tool]` builds it from the function's signature and rustdoc.
///
/// What follows from the fields is computed, not stored: the MCP
/// [`annotations`](ToolSpec::annotations), whether the tool is
/// [idempotent](ToolSpec::is_idempotent), whether a call
/// [needs an idempotency key](ToolSpec::needs_idempotency_key). The serialized form
/// (the [`contract`](crate::Registry::contract)) shows them beside the fields.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The name the model calls it by: `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`, valid for every
    /// provider.
    pub name: String,
    /// A human-readable title (MCP `title`), when one was given.
    pub title: Option<String>,
    /// What the tool does and when to use it: the doc comment without its `# Arguments`,
    /// `# Errors`, `# Panics`, `# Examples` and `# Safety` sections.
    pub description: String,
    /// JSON Schema 2020-12 of the arguments object.
    pub input_schema: Value,
    /// JSON Schema 2020-12 of the result, when the return type has one.
    pub output_schema: Option<Value>,
    /// The effect class.
    pub effect: Effect,
    /// What calling it twice with the same arguments does (`#[tool(idempotent = ...)]`).
    pub idempotence: Idempotence,
    /// Declared to reach beyond the local system (`#[tool(open_world)]`; an external
    /// tool always does).
    pub open_world: bool,
    /// Whole calls' arguments that show the model how the tool is used
    /// (`#[tool(example = ...)]`), each one a call the tool accepts (checked when the
    /// registry is built).
    pub examples: Vec<Value>,
    /// Scopes the caller must hold (`#[tool(scopes = ["payments:write"])]`).
    pub scopes: Vec<String>,
    /// Who may call it: the model directly, a program the model wrote and the registry
    /// runs (`run_code`), or both (`#[tool(callers = "code")]`); see [`Callers`].
    pub callers: Callers,
    /// Also offered to the code a provider runs on its own servers
    /// (`#[tool(hosted_code)]`): Anthropic's programmatic tool calling (the definition
    /// gains `allowed_callers` and, since hosted code cannot call a strict tool, loses
    /// `strict`) and OpenAI's (`allowed_callers` with `programmatic`, and the result's
    /// `output_schema`). Off unless declared: [`callers`](ToolSpec::callers) alone never
    /// changes what a provider is sent. It needs callers that include programs.
    pub hosted_code: bool,
    /// The arguments are streamed as the model writes them, unbuffered
    /// (`#[tool(stream_input)]`): Anthropic's `eager_input_streaming: true`, for a tool
    /// whose arguments are long (a file's content) and read while they arrive
    /// ([`PartialCall`](crate::partial::PartialCall)). The provider then may send partial
    /// or invalid JSON; a call it did not finish is answered, never run. Other dialects
    /// have no such field.
    pub stream_input: bool,
    /// Whether a call may run as a task that outlives its request (MCP Tasks:
    /// `#[tool(task = "optional")]`); see [`TaskSupport`].
    pub task: TaskSupport,
    /// Some argument is read through serde's buffered content (an internally tagged or
    /// untagged enum, a flattened field), where serde takes more than the schema says (a
    /// struct from an array): the fast path then checks the arguments against the schema
    /// as well. Set by `#[tool]`; not part of the contract.
    pub(crate) reads_buffered: bool,
}

/// Who may call a tool: the model, in a call of its own ([`Via::Model`]), a program the
/// model wrote and the registry runs (`run_code`, [`Via::Code`]), or both. The
/// dispatcher enforces it on every call, not only in what each caller is shown. The code
/// a provider runs ([`Via::HostedCode`]) is a third caller, offered a tool only when the
/// tool also declares [`hosted_code`](ToolSpec::hosted_code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Callers {
    /// Not declared: a read-only tool is offered to both, every other tool only to the
    /// model directly, so a program can reach a tool with side effects only once its
    /// author opts in (`callers = "code"` or `"any"`).
    #[default]
    Undeclared,
    /// Only the model, directly.
    Direct,
    /// Only programs (`run_code`; a provider's hosted code execution too, when the tool
    /// declares [`hosted_code`](ToolSpec::hosted_code)): the model sees the tool as a
    /// function of the program's API, not as a tool of its own.
    Code,
    /// Both.
    Any,
}

/// Where a call comes from, for [`Callers`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Via {
    /// The model's own tool call.
    #[default]
    Model,
    /// A program toolwright runs (`run_code`).
    Code,
    /// A program the provider runs on its servers (Anthropic's code execution, OpenAI's
    /// programmatic tool calling), which marks the calls it makes
    /// ([`ToolCall::program`](crate::ToolCall::program) names it).
    HostedCode,
}

impl Callers {
    /// The rule in force for a tool of `effect`: never [`Callers::Undeclared`].
    pub fn resolved(self, effect: Effect) -> Callers {
        match (self, effect) {
            (Callers::Undeclared, Effect::ReadOnly) => Callers::Any,
            (Callers::Undeclared, _) => Callers::Direct,
            (declared, _) => declared,
        }
    }

    /// Whether a call `via` is allowed, for a tool of `effect`: hosted code counts as a
    /// program here (whether the tool is offered to it at all is
    /// [`ToolSpec::hosted_code`]'s to say).
    pub fn allow(self, effect: Effect, via: Via) -> bool {
        matches!(
            (self.resolved(effect), via),
            (Callers::Any, _)
                | (Callers::Direct, Via::Model)
                | (Callers::Code, Via::Code | Via::HostedCode)
        )
    }
}

/// Whether a tool's calls may run as tasks: answered at once with a task the client
/// polls, the call running on, its state kept in the registry's store so that it
/// outlives the request, the connection and the process (MCP Tasks). Declared on the
/// tool (`#[tool(task = "optional")]`) or given in its settings
/// ([`ToolSettings::task`](crate::ToolSettings::task)); never guessed. Lowered to
/// MCP's `execution.taskSupport`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskSupport {
    /// Calls complete within their request (the default).
    #[default]
    Forbidden,
    /// A client that supports tasks gets one; any other client waits for the result
    /// as for any call.
    Optional,
    /// Calls run only as tasks: a client that does not support tasks is told so.
    Required,
}

impl TaskSupport {
    /// The name MCP gives it (`forbidden`, `optional`, `required`).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

/// What calling a tool twice with the same arguments does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Idempotence {
    /// Not declared: a read-only tool is idempotent; a tool with side effects is not
    /// assumed to be, and is not retried.
    #[default]
    Undeclared,
    /// Declared `idempotent = true`: a second call has no further effect, so a failed
    /// call may be retried ([`Retry`](crate::Retry)).
    Idempotent,
    /// Declared `idempotent = false`: its side effects must not happen twice, so its
    /// calls run with an idempotency key.
    NotIdempotent,
}

impl ToolSpec {
    /// A spec with the given contract, its modifiers undeclared.
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
            idempotence: Idempotence::Undeclared,
            open_world: false,
            examples: Vec::new(),
            scopes: Vec::new(),
            callers: Callers::Undeclared,
            hosted_code: false,
            stream_input: false,
            task: TaskSupport::Forbidden,
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

    /// Sets who may call the tool.
    pub fn with_callers(mut self, callers: Callers) -> Self {
        self.callers = callers;
        self
    }

    /// Offers the tool to the code a provider runs as well (see
    /// [`hosted_code`](ToolSpec::hosted_code)).
    pub fn with_hosted_code(mut self, hosted_code: bool) -> Self {
        self.hosted_code = hosted_code;
        self
    }

    /// Streams the arguments as the model writes them (see
    /// [`stream_input`](ToolSpec::stream_input)).
    pub fn with_stream_input(mut self, stream_input: bool) -> Self {
        self.stream_input = stream_input;
        self
    }

    /// Sets whether a call may run as a task (see [`TaskSupport`]).
    pub fn with_task(mut self, task: TaskSupport) -> Self {
        self.task = task;
        self
    }

    /// Whether a call `via` may call this tool (its declared [`Callers`], or the
    /// default for its effect; for hosted code, [`hosted_code`](ToolSpec::hosted_code)
    /// as well).
    pub fn offered_via(&self, via: Via) -> bool {
        (via != Via::HostedCode || self.hosted_code) && self.callers.allow(self.effect, via)
    }

    /// Sets what calling the tool twice does.
    pub fn with_idempotence(mut self, idempotence: Idempotence) -> Self {
        self.idempotence = idempotence;
        self
    }

    /// Declares that the tool reaches beyond the local system.
    pub fn with_open_world(mut self, open_world: bool) -> Self {
        self.open_world = open_world;
        self
    }

    /// The MCP annotations the effect and the modifiers imply (all four hints explicit).
    pub fn annotations(&self) -> Annotations {
        self.effect
            .annotations(self.idempotence == Idempotence::Idempotent, self.open_world)
    }

    /// Whether a second call with the same arguments has no further effect: a read-only
    /// tool, or one declared idempotent.
    pub fn is_idempotent(&self) -> bool {
        self.annotations().idempotent_hint
    }

    /// Whether a call with `effect` runs with an idempotency key (a second call with the
    /// same key returns the first result instead of acting again): external effects, and
    /// side effects of a tool declared not idempotent.
    pub fn needs_idempotency_key(&self, effect: Effect) -> bool {
        match effect {
            Effect::External => true,
            Effect::Write | Effect::Destructive => self.idempotence == Idempotence::NotIdempotent,
            _ => false,
        }
    }
}

/// The contract as JSON: the fields, and the hints they imply (`idempotent`,
/// `open_world` and the MCP `annotations`), so a review sees what a client is told.
impl Serialize for ToolSpec {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        let annotations = self.annotations();
        let mut out = serializer.serialize_struct("ToolSpec", 14)?;
        out.serialize_field("name", &self.name)?;
        if let Some(title) = &self.title {
            out.serialize_field("title", title)?;
        }
        out.serialize_field("description", &self.description)?;
        out.serialize_field("input_schema", &self.input_schema)?;
        if let Some(output_schema) = &self.output_schema {
            out.serialize_field("output_schema", output_schema)?;
        }
        out.serialize_field("effect", &self.effect)?;
        out.serialize_field("idempotent", &annotations.idempotent_hint)?;
        out.serialize_field("open_world", &annotations.open_world_hint)?;
        out.serialize_field("annotations", &annotations)?;
        if !self.examples.is_empty() {
            out.serialize_field("examples", &self.examples)?;
        }
        if !self.scopes.is_empty() {
            out.serialize_field("scopes", &self.scopes)?;
        }
        if self.idempotence == Idempotence::NotIdempotent {
            out.serialize_field("deduplicate", &true)?;
        }
        if self.callers != Callers::Undeclared {
            out.serialize_field("callers", &self.callers)?;
        }
        if self.hosted_code {
            out.serialize_field("hosted_code", &true)?;
        }
        if self.task != TaskSupport::Forbidden {
            out.serialize_field("task", &self.task)?;
        }
        out.end()
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
