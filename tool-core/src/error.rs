//! Errors as data: what the model reads when a call goes wrong.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The category of a [`ToolError`]: tells the model (and the harness) what kind of
/// failure it was and what may help.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorKind {
    /// The arguments do not match the tool's schema; the problems say where.
    InvalidArguments,
    /// No tool has that name.
    UnknownTool,
    /// The policy refused the call; it did not run.
    Denied,
    /// The thing the call names does not exist.
    NotFound,
    /// The call conflicts with the current state (for example a stale edit).
    Conflict,
    /// The call took longer than its limit.
    Timeout,
    /// The call was cancelled before it finished.
    Cancelled,
    /// The call waits for a person's approval; it has not run.
    AwaitingApproval,
    /// The call was sent (or started) and then cut off before it said how it ended (a
    /// connection lost mid-call, a process that stopped): it may or may not have taken
    /// effect. Never retryable as it is: check the outside world first. A keyed call with
    /// this outcome is never run again under its key.
    OutcomeUnknown,
    /// The tool ran and failed.
    Failed,
    /// A bug or a misconfiguration on the harness side; not the model's fault.
    Internal,
}

impl ErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 11] = [
        ErrorKind::InvalidArguments,
        ErrorKind::UnknownTool,
        ErrorKind::Denied,
        ErrorKind::NotFound,
        ErrorKind::Conflict,
        ErrorKind::Timeout,
        ErrorKind::Cancelled,
        ErrorKind::AwaitingApproval,
        ErrorKind::OutcomeUnknown,
        ErrorKind::Failed,
        ErrorKind::Internal,
    ];

    /// The name on the wire (`invalid_arguments`, ...).
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidArguments => "invalid_arguments",
            ErrorKind::UnknownTool => "unknown_tool",
            ErrorKind::Denied => "denied",
            ErrorKind::NotFound => "not_found",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::AwaitingApproval => "awaiting_approval",
            ErrorKind::OutcomeUnknown => "outcome_unknown",
            ErrorKind::Failed => "failed",
            ErrorKind::Internal => "internal",
        }
    }

    /// Whether the same call, corrected or simply repeated, may succeed. The model
    /// corrects invalid arguments and unknown names; a timeout may pass on a second try.
    pub const fn retryable_by_default(self) -> bool {
        matches!(
            self,
            ErrorKind::InvalidArguments | ErrorKind::UnknownTool | ErrorKind::Timeout
        )
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem with a call's arguments: where it is (a JSON path such as
/// `$.currency`), and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Problem {
    /// JSON path of the offending value; `$` is the arguments object.
    pub path: String,
    /// What was expected and what came, in one sentence.
    pub message: String,
}

impl Problem {
    /// A problem at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// An error a tool call ends with. The model reads it as data (category, whether to
/// retry, a message, a hint, the argument problems); the harness keeps the typed value.
///
/// Return it from a tool (`Result<T, ToolError>`) to choose the category:
/// `ToolError::not_found("no customer C-7")`. Any other error type that implements
/// `Display` becomes [`ErrorKind::Failed`]; implement `From<YourError> for ToolError` to
/// choose categories for your own errors.
///
/// ```
/// use toolwright::{ErrorKind, ToolError};
///
/// let error = ToolError::not_found("no customer C-7").with_hint("look the customer up first");
/// assert_eq!(error.kind, ErrorKind::NotFound);
/// assert!(!error.retryable);
/// assert_eq!(
///     error.to_model_text(),
///     r#"{"ok":false,"error":"not_found","retryable":false,"message":"no customer C-7","hint":"look the customer up first"}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolError {
    /// The category.
    #[serde(rename = "error")]
    pub kind: ErrorKind,
    /// Whether retrying (with corrected arguments, or as is) may help.
    pub retryable: bool,
    /// What went wrong, for the model.
    pub message: String,
    /// What to do instead, when there is something to say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Every problem with the arguments, for `invalid_arguments`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<Problem>,
}

impl ToolError {
    /// An error of `kind`, retryable as the kind usually is.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            retryable: kind.retryable_by_default(),
            message: message.into(),
            hint: None,
            problems: Vec::new(),
        }
    }

    /// The arguments are wrong; `problems` lists each.
    pub fn invalid_arguments(message: impl Into<String>, problems: Vec<Problem>) -> Self {
        let mut error = Self::new(ErrorKind::InvalidArguments, message);
        error.problems = problems;
        error
    }

    /// What the call names does not exist.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::NotFound, message)
    }

    /// The call conflicts with the current state.
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Conflict, message)
    }

    /// The tool failed; retrying will not help.
    pub fn failed(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Failed, message)
    }

    /// The tool failed in a way that may pass on a later try (a busy service).
    pub fn retryable(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Failed, message).with_retryable(true)
    }

    /// A harness-side bug or misconfiguration.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Internal, message)
    }

    /// Adds what to do instead.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Overrides whether retrying may help.
    pub fn with_retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// The compact JSON the model reads:
    /// `{"ok":false,"error":"not_found","retryable":false,"message":"..."}`.
    pub fn to_model_json(&self) -> serde_json::Value {
        serde_json::to_value(self.model_view()).unwrap_or_default()
    }

    /// [`ToolError::to_model_json`] as text, without building a JSON value first.
    pub fn to_model_text(&self) -> String {
        serde_json::to_string(&self.model_view()).unwrap_or_default()
    }

    fn model_view(&self) -> ModelError<'_> {
        ModelError {
            ok: false,
            error: self.kind,
            retryable: self.retryable,
            message: &self.message,
            hint: self.hint.as_deref(),
            problems: &self.problems,
        }
    }
}

/// The shape the model reads; `ok: false` first, so a reader knows at once.
#[derive(Serialize)]
struct ModelError<'a> {
    ok: bool,
    error: ErrorKind,
    retryable: bool,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    hint: Option<&'a str>,
    #[serde(skip_serializing_if = "<[Problem]>::is_empty")]
    problems: &'a [Problem],
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)?;
        for problem in &self.problems {
            write!(f, "\n  {problem}")?;
        }
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ToolError {}

/// The `internal` error of a tool that panicked: the process keeps serving.
pub(crate) fn panicked(tool: &str, during: &str, panic: &(dyn std::any::Any + Send)) -> ToolError {
    let detail = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned());
    let detail: String = detail.chars().take(200).collect();
    tracing::error!(tool, during, panic = %detail, "tool panicked");
    ToolError::internal(format!(
        "'{tool}' failed unexpectedly while {during} (it panicked: {detail})"
    ))
    .with_hint("this is a bug in the tool, not a problem with the call; do not retry the same call")
    .with_retryable(false)
}
