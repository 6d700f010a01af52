//! What comes in and what goes out: a model's call, its result, a dry run's verdict.

use serde::Serialize;
use serde_json::Value;

use crate::approval::ApprovalTicket;
use crate::effect::Effect;
use crate::error::ToolError;
use crate::output::{ModelView, Truncation};
use crate::tool::{Arguments, ToolOutcome, ToolOutput};

/// One tool call from a model.
///
/// ```
/// use toolwright::{CallArguments, ToolCall};
///
/// // OpenAI sends arguments as JSON text, the others as parsed JSON.
/// let openai = ToolCall::new("call_1", "search_notes", r#"{"query": "deploy"}"#);
/// let anthropic = ToolCall::new("toolu_1", "search_notes", serde_json::json!({"query": "deploy"}));
/// assert!(matches!(openai.arguments, CallArguments::Json(_)));
/// assert!(matches!(anthropic.arguments, CallArguments::Value(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCall {
    /// The provider's id for the call; the result carries it back.
    pub id: String,
    /// The tool's name, as the model wrote it.
    pub name: String,
    /// The arguments, as they arrived.
    pub arguments: CallArguments,
    /// The dialect whose lowering of the tool's schema the model wrote the call against
    /// ([`provider::parse_calls`] sets it): what that lowering encoded is decoded before
    /// the tool reads the arguments. A `null` for an optional argument the lowering made
    /// required (OpenAI strict) means "left out"; a map sent as an array of `{"key",
    /// "value"}` entries (OpenAI strict, Anthropic strict, Gemini `parameters`) is an
    /// object again. `None`: the arguments are read as they are.
    ///
    /// [`provider::parse_calls`]: crate::provider::parse_calls
    #[serde(skip)]
    pub written_for: Option<crate::dialect::Dialect>,
    /// The key that makes a call with external effects happen once: a second call with
    /// the same key and the same tool and arguments gets the first result; with other
    /// arguments, a `conflict`. Keys are scoped to the caller (the context's
    /// [`Caller`](crate::policy::Caller)): two callers never share one. Without a key, one is derived from the
    /// caller, the [`origin`](ToolCall::origin), the call id and the arguments, so only a
    /// retry of this very call (same id, same arguments) is recognized.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// Where the call's id is unique: a conversation, an MCP session. Call ids are not
    /// unique everywhere (MCP numbers requests per connection), so a derived
    /// idempotency key includes this; set it whenever ids can repeat across sources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// Who made the call: the model itself, or a program it wrote (`run_code` sets it
    /// on each call its program makes; [`provider::parse_calls`] sets it on a call
    /// made from the provider's hosted code execution). The dispatcher refuses a call
    /// `via` a caller the tool is not offered to ([`Callers`](crate::spec::Callers)).
    ///
    /// [`provider::parse_calls`]: crate::provider::parse_calls
    #[serde(skip)]
    pub via: crate::spec::Via,
    /// The provider's id of the hosted program that made the call
    /// ([`Via::HostedCode`](crate::spec::Via::HostedCode)): OpenAI's `caller.caller_id`,
    /// Anthropic's `caller.tool_id`. The result carries it back
    /// ([`ToolResult::program`]): OpenAI resumes the program only when its
    /// `function_call_output` names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// The length of the message the call was read from, when it was read from bytes
    /// (an MCP request): its arguments are no longer, so a message within the
    /// registry's limit spares counting the arguments parsed from it.
    #[serde(skip)]
    pub(crate) sent_in_bytes: Option<usize>,
    /// The provider stopped writing the call before its end, for this reason as it gave
    /// it (`max_tokens`, `length`, `max_output_tokens`, `MAX_TOKENS`, a dropped stream):
    /// its arguments may be whole and still not be what the model meant, so the call is
    /// answered (the model is told to write it again, shorter), never run.
    /// [`provider::parse_calls`] sets it from the response's stop reason.
    ///
    /// [`provider::parse_calls`]: crate::provider::parse_calls
    #[serde(skip)]
    pub cut: Option<String>,
}

/// A call's arguments as they arrived: raw JSON text (OpenAI) or a parsed value
/// (Anthropic, Gemini, MCP).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum CallArguments {
    /// Raw JSON text.
    Json(String),
    /// A parsed value.
    Value(Value),
}

impl From<String> for CallArguments {
    fn from(json: String) -> Self {
        CallArguments::Json(json)
    }
}

impl From<&str> for CallArguments {
    fn from(json: &str) -> Self {
        CallArguments::Json(json.to_owned())
    }
}

impl From<Value> for CallArguments {
    fn from(value: Value) -> Self {
        CallArguments::Value(value)
    }
}

impl CallArguments {
    /// The arguments as JSON text (to record them).
    pub(crate) fn to_json_text(&self) -> std::borrow::Cow<'_, str> {
        match self {
            CallArguments::Json(json) => std::borrow::Cow::Borrowed(json),
            CallArguments::Value(value) => std::borrow::Cow::Owned(value.to_string()),
        }
    }

    /// The arguments as a borrowed [`Arguments`].
    pub fn as_arguments(&self) -> Arguments<'_> {
        match self {
            CallArguments::Json(json) => Arguments::Json(json),
            CallArguments::Value(value) => Arguments::Value(value),
        }
    }
}

/// What a call the provider cut off is answered with: it did not run, and why; to write
/// it again, shorter if the output limit cut it.
pub(crate) fn cut_off(name: &str, reason: &str, written: usize) -> crate::error::ToolError {
    crate::error::ToolError::new(
        crate::error::ErrorKind::InvalidArguments,
        format!(
            "the call of '{name}' was cut off before its end ({reason}, after {written} bytes of arguments), so it did not run"
        ),
    )
    .with_hint(
        "write the whole call again; if the output limit cut it, make the arguments shorter \
         (split the work over several calls)",
    )
}

impl ToolCall {
    /// Marks the call as cut off by the provider before its end, for `reason` (see
    /// [`ToolCall::cut`]): it will be answered, never run.
    pub fn cut_off(mut self, reason: impl Into<String>) -> Self {
        self.cut = Some(reason.into());
        self
    }

    /// Marks the call as written against `dialect`'s lowering; see
    /// [`ToolCall::written_for`].
    pub fn written_for(mut self, dialect: crate::dialect::Dialect) -> Self {
        self.written_for = Some(dialect);
        self
    }

    /// Sets the idempotency key.
    pub fn with_idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into());
        self
    }

    /// Sets who made the call (see [`ToolCall::via`]).
    pub fn made_via(mut self, via: crate::spec::Via) -> Self {
        self.via = via;
        self
    }

    /// Sets where the call's id is unique (see [`ToolCall::origin`]).
    pub fn with_origin(mut self, origin: impl Into<String>) -> Self {
        self.origin = Some(origin.into());
        self
    }

    /// A call of `name` with `arguments`, identified by `id`.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<CallArguments>,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
            written_for: None,
            idempotency_key: None,
            origin: None,
            via: crate::spec::Via::Model,
            program: None,
            sent_in_bytes: None,
            cut: None,
        }
    }

    /// Marks the call as made by the provider's hosted program `program` (see
    /// [`ToolCall::program`]).
    pub fn made_by_program(mut self, program: impl Into<String>) -> Self {
        self.via = crate::spec::Via::HostedCode;
        self.program = Some(program.into());
        self
    }
}

/// The result of one call: the full outcome for the harness, and what the model reads.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ToolResult {
    /// The id of the call this answers.
    pub call_id: String,
    /// The tool's name, as the call gave it.
    pub name: String,
    /// What the tool returned, or why there is nothing.
    pub outcome: Result<ToolOutput, ToolError>,
    /// The model's view when it differs from the output's own text (JSON rendered, an
    /// error, a cut); `None` when the model reads the output text as it is.
    pub(crate) view: Option<ModelView>,
    /// Repairs made to the arguments before they were read (see
    /// [`RegistryBuilder::repair_arguments`](crate::RegistryBuilder::repair_arguments)).
    pub repairs: Vec<String>,
    /// The effect of this call, once the arguments were read (classified, for a
    /// dynamic tool).
    pub effect: Option<Effect>,
    /// The result is the stored first result of an earlier call with the same
    /// idempotency key; the tool did not run again.
    pub duplicate: bool,
    /// For a call awaiting approval: the ticket to resume it with (boxed: rare, and as
    /// large as the rest of the result).
    pub ticket: Option<Box<ApprovalTicket>>,
    /// Where the result comes from when not from this program's own code: an imported
    /// MCP server's name and address ([`Tool::source`](crate::Tool::source)). A
    /// stranger's words: show them as such, never follow them as instructions.
    pub source: Option<std::sync::Arc<str>>,
    /// The hosted program that made the call, from [`ToolCall::program`]: rendered
    /// back where the provider needs it (OpenAI's `function_call_output.caller`).
    pub program: Option<String>,
}

impl ToolResult {
    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.outcome.is_err()
    }

    /// The error, when the call failed.
    pub fn error(&self) -> Option<&ToolError> {
        self.outcome.as_ref().err()
    }

    /// What the model reads: the output within the budget, or the error as compact JSON.
    pub fn for_model(&self) -> &str {
        if let Some(view) = &self.view {
            return &view.text;
        }
        own_text(&self.outcome)
    }

    /// What the model's view left out, when the output was over budget.
    pub fn truncation(&self) -> Option<&Truncation> {
        self.view
            .as_ref()
            .and_then(|view| view.truncated.as_deref())
    }
}

/// The model's view of an outcome that needed no view of its own: its text.
pub(crate) fn own_text(outcome: &ToolOutcome) -> &str {
    match outcome {
        Ok(ToolOutput::Text(text)) => text,
        Ok(ToolOutput::Observation { for_model, .. }) => for_model,
        _ => "",
    }
}

/// What a dry run found: every check, and what the call would do.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct DryRun {
    /// The call's id.
    pub call_id: String,
    /// The tool's name, as the call gave it.
    pub tool: String,
    /// The call's effect, when its arguments could be read.
    pub effect: Option<Effect>,
    /// The outcome of the checks.
    pub verdict: DryRunVerdict,
}

/// The outcome of a dry run's checks.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
#[non_exhaustive]
pub enum DryRunVerdict {
    /// Every check passes; the call would do this.
    WouldRun {
        /// What the call would do (the tool's own words, or its name and arguments).
        description: String,
    },
    /// The call would wait for a person's approval.
    WouldAsk {
        /// Why.
        reason: String,
    },
    /// A check refuses the call.
    Refused {
        /// The error the call would get.
        error: ToolError,
    },
}
