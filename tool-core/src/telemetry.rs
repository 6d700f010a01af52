//! Observability by OpenTelemetry's conventions for generative AI: one `execute_tool`
//! span per call, with `tracing`, the Rust ecosystem's instrumentation layer. With no
//! subscriber, a span costs a check of a static; with `tracing-opentelemetry` (feature
//! `otel` wires it, see [`crate::otel`]) each span is an OpenTelemetry span.
//!
//! Names follow the GenAI semantic conventions, status Development: the "Execute tool
//! span" of semantic-conventions v1.41.0 (`docs/gen-ai/gen-ai-spans.md`) and
//! `docs/gen-ai/execute-tool.md` of open-telemetry/semantic-conventions-genai (span
//! `execute_tool {gen_ai.tool.name}`, kind internal; metric
//! `gen_ai.execute_tool.duration`). toolwright's own attributes share the prefix
//! `toolwright.`.
//!
//! | attribute | when |
//! |---|---|
//! | `gen_ai.operation.name` = `execute_tool`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type` = `function` | always |
//! | `error.type` | the call failed: its category (`invalid_arguments`, `denied`, `timeout`, ...) |
//! | `otel.status_code` = `ERROR`, `otel.status_description` | the call failed: the span's status is Error, described by the category alone (never an argument value) |
//! | `gen_ai.tool.description` | opt-in: [`Telemetry::record_description`] |
//! | `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result` | opt-in: [`Telemetry::record_arguments`], [`Telemetry::record_results`]; cut to [`Telemetry::max_recorded_bytes`], through [`Telemetry::redact`] |
//! | `toolwright.effect`, `toolwright.effect.classified` | the declared effect class, and this call's (a command classified by what it does) |
//! | `toolwright.policy.decision` | `allow`, `deny` or `ask` |
//! | `toolwright.approval.asked` | `true` when the call waits for a person |
//! | `toolwright.idempotency.outcome` | `claimed`, `duplicate`, `conflict` or `store_error`, for a keyed call |
//! | `toolwright.retries` | retries made |
//! | `toolwright.output.truncated`, `toolwright.output.cut`, `toolwright.output.shown_bytes` | the output was cut to its budget: what was cut, what the model got |
//! | `toolwright.batch.turn` | the turn of a batch the call ran in |
//!
//! Child spans time the phases: `read_arguments`, `policy`, `run` (the tool, with its
//! retries) and `fit_output`.

use std::sync::Arc;

use tracing::Span;
use tracing::field::Empty;

use crate::call::ToolCall;
use crate::tool::Tool;

/// What the call spans record beyond the conventions' required attributes. Nothing that
/// carries the model's or the tool's data is recorded unless asked for.
#[derive(Clone)]
#[non_exhaustive]
pub struct Telemetry {
    /// Record `gen_ai.tool.description` (off by default: it is long, and the same on
    /// every call).
    pub record_description: bool,
    /// Record `gen_ai.tool.call.arguments`, the call's arguments as JSON text.
    pub record_arguments: bool,
    /// Record `gen_ai.tool.call.result`, what the model read of the result.
    pub record_results: bool,
    /// The most bytes of arguments or result recorded (default 1,024); longer ones are
    /// cut at a character boundary and end with `…`.
    pub max_recorded_bytes: usize,
    /// Applied to arguments and results before they are recorded (redact secrets).
    pub redact: Option<Redact>,
}

setters!(Telemetry {
    record_description: bool,
    record_arguments: bool,
    record_results: bool,
    max_recorded_bytes: usize,
});

/// A function applied to recorded text (see [`Telemetry::redact`]).
pub type Redact = Arc<dyn Fn(&str) -> String + Send + Sync>;

impl Default for Telemetry {
    fn default() -> Self {
        Telemetry {
            record_description: false,
            record_arguments: false,
            record_results: false,
            max_recorded_bytes: 1024,
            redact: None,
        }
    }
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry")
            .field("record_description", &self.record_description)
            .field("record_arguments", &self.record_arguments)
            .field("record_results", &self.record_results)
            .field("max_recorded_bytes", &self.max_recorded_bytes)
            .field("redact", &self.redact.is_some())
            .finish()
    }
}

impl Telemetry {
    /// Records arguments and results too (cut and redacted as set).
    pub fn with_contents(mut self) -> Self {
        self.record_arguments = true;
        self.record_results = true;
        self
    }

    /// Applies `redact` to arguments and results before they are recorded.
    pub fn with_redaction(
        mut self,
        redact: impl Fn(&str) -> String + Send + Sync + 'static,
    ) -> Self {
        self.redact = Some(Arc::new(redact));
        self
    }

    /// `text` as recorded: redacted, then cut.
    pub(crate) fn recorded(&self, text: &str) -> String {
        let text = match &self.redact {
            Some(redact) => redact(text),
            None => text.to_owned(),
        };
        if text.len() <= self.max_recorded_bytes {
            return text;
        }
        let mut end = self.max_recorded_bytes;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &text[..end])
    }
}

/// The span of one call. Its fields are declared here, to be recorded as the call goes.
#[inline]
pub(crate) fn call_span(call: &ToolCall) -> Span {
    // One atomic load when no subscriber was ever installed, the common case of a
    // program that does not trace.
    if !tracing::dispatcher::has_been_set() {
        return Span::none();
    }
    listened_call_span(call)
}

fn listened_call_span(call: &ToolCall) -> Span {
    tracing::info_span!(
        target: "toolwright",
        "execute_tool",
        otel.name = format!("execute_tool {}", call.name),
        otel.kind = "internal",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = call.name.as_str(),
        gen_ai.tool.call.id = call.id.as_str(),
        gen_ai.tool.type = "function",
        gen_ai.tool.description = Empty,
        gen_ai.tool.call.arguments = Empty,
        gen_ai.tool.call.result = Empty,
        error.type = Empty,
        otel.status_code = Empty,
        otel.status_description = Empty,
        toolwright.effect = Empty,
        toolwright.effect.classified = Empty,
        toolwright.policy.decision = Empty,
        toolwright.approval.asked = Empty,
        toolwright.idempotency.outcome = Empty,
        toolwright.retries = Empty,
        toolwright.output.truncated = Empty,
        toolwright.output.cut = Empty,
        toolwright.output.shown_bytes = Empty,
        toolwright.batch.turn = Empty,
    )
}

/// A phase of the call whose span is `$call`, as a child of the current span; made only
/// when something listens to the call.
macro_rules! phase {
    ($call:expr, $name:literal) => {
        if $call.is_disabled() {
            tracing::Span::none()
        } else {
            tracing::info_span!(target: "toolwright", $name)
        }
    };
}
pub(crate) use phase;

/// `$body`, run inside a phase span (see [`phase!`]) when something listens to the call
/// whose span is `$call`; run as it is otherwise, with no span made or dropped (and, as
/// for [`in_span!`], nothing copied into a closure).
macro_rules! in_phase {
    ($call:expr, $name:literal, $body:expr) => {
        if $call.is_disabled() {
            $body
        } else {
            tracing::info_span!(target: "toolwright", $name).in_scope(|| $body)
        }
    };
}
pub(crate) use in_phase;

/// Records `value` as `field` of `span`, when something listens: a disabled span would
/// still look the field up by name, on every call.
#[inline]
pub(crate) fn record(span: &Span, field: &str, value: impl tracing::Value) {
    if !span.is_disabled() {
        span.record(field, value);
    }
}

/// `$body`, run inside `$span` when something listens to it. Not a function taking a
/// closure: what the closure would capture (a call's outcome, its notes) is copied into
/// it and out again, on every call, even when the span is off.
macro_rules! in_span {
    ($span:expr, $body:expr) => {
        if $span.is_disabled() {
            $body
        } else {
            $span.in_scope(|| $body)
        }
    };
}
pub(crate) use in_span;

/// Records what the call span shows of `tool` and its arguments, once they are read.
#[inline]
pub(crate) fn record_call(span: &Span, telemetry: &Telemetry, tool: &dyn Tool, call: &ToolCall) {
    if !span.is_disabled() {
        record_call_listened(span, telemetry, tool, call);
    }
}

fn record_call_listened(span: &Span, telemetry: &Telemetry, tool: &dyn Tool, call: &ToolCall) {
    let spec = tool.spec();
    span.record("toolwright.effect", spec.effect.as_str());
    if telemetry.record_description {
        span.record("gen_ai.tool.description", spec.description.as_str());
    }
    if telemetry.record_arguments {
        let arguments = call.arguments.to_json_text();
        span.record("gen_ai.tool.call.arguments", telemetry.recorded(&arguments));
    }
}

#[cfg(test)]
mod tests {
    use super::Telemetry;

    #[test]
    fn recorded_text_is_redacted_then_cut_at_a_character_boundary() {
        let telemetry = Telemetry {
            max_recorded_bytes: 8,
            ..Telemetry::default()
        }
        .with_redaction(|text| text.replace("hunter2", "[redacted]"));
        assert_eq!(telemetry.recorded("pw=hunter2"), "pw=[reda…");
        assert_eq!(telemetry.recorded("ééééé"), "éééé…");
        assert_eq!(telemetry.recorded("short"), "short");
    }
}
