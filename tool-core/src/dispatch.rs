//! The flow of one call: lookup → arguments → run → output. Every call gets exactly one
//! result carrying its id, whatever fails: an unknown name, malformed arguments, a tool
//! that errs, panics or runs out of time.

use std::any::Any;
use std::borrow::Cow;
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt as _;
use serde::Serialize;
use serde_json::Value;

use crate::arguments::{check_is_object, no_parameters};
use crate::output::{ModelView, OutputBudget, Truncation, fit_json, fit_text, fits};
use crate::{
    Arguments, Context, ErrorKind, Prepared, Problem, Registry, Tool, ToolError, ToolOutput,
};

/// One tool call from a model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCall {
    /// The provider's id for the call; the result carries it back.
    pub id: String,
    /// The tool's name, as the model wrote it.
    pub name: String,
    /// The arguments, as they arrived.
    pub arguments: CallArguments,
    /// Set for calls from a target whose lowering made optional arguments required and
    /// nullable (OpenAI strict): a `null` for an optional argument then means "left out".
    #[serde(skip)]
    pub nulls_mean_absent: bool,
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
    /// The arguments as a borrowed [`Arguments`].
    pub fn as_arguments(&self) -> Arguments<'_> {
        match self {
            CallArguments::Json(json) => Arguments::Json(json),
            CallArguments::Value(value) => Arguments::Value(value),
        }
    }
}

impl ToolCall {
    /// Marks the call as coming from a target where `null` stands for an optional
    /// argument left out (OpenAI strict); see [`ToolCall::nulls_mean_absent`].
    pub fn with_nulls_as_absent(mut self) -> Self {
        self.nulls_mean_absent = true;
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
            nulls_mean_absent: false,
        }
    }
}

/// The result of one call: the full outcome for the harness, and what the model reads.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The id of the call this answers.
    pub call_id: String,
    /// The tool's name, as the call gave it.
    pub name: String,
    /// What the tool returned, or why there is nothing.
    pub outcome: Result<ToolOutput, ToolError>,
    /// The model's view when it differs from the output's own text (JSON rendered, an
    /// error, a cut); `None` when the model reads the output text as it is.
    view: Option<ModelView>,
    /// Repairs made to the arguments before they were read (see
    /// [`Registry::repair_arguments`]).
    pub repairs: Vec<String>,
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
        match &self.outcome {
            Ok(ToolOutput::Text(text)) => text,
            Ok(ToolOutput::Observation { for_model, .. }) => for_model,
            _ => "",
        }
    }

    /// What the model's view left out, when the output was over budget.
    pub fn truncation(&self) -> Option<&Truncation> {
        self.view.as_ref().and_then(|view| view.truncated.as_ref())
    }
}

impl Registry {
    /// Runs one call through lookup, argument checks, the tool and the output budget.
    /// Always returns exactly one result, carrying the call's id; never panics.
    pub async fn dispatch(&self, ctx: &Context, call: ToolCall) -> ToolResult {
        let mut repairs = Vec::new();
        let outcome = self.execute(ctx, &call, &mut repairs).await;
        self.finish(call, outcome, repairs)
    }

    /// Runs `calls` and returns their results in the order the calls were listed, each
    /// carrying its call's id. Calls run one after another, in order.
    // The effect-aware scheduler (reads together, writes alone) plugs in here: it decides
    // the groups, this keeps the one-result-per-call, listed-order contract.
    pub async fn dispatch_batch(&self, ctx: &Context, calls: Vec<ToolCall>) -> Vec<ToolResult> {
        let mut results = Vec::with_capacity(calls.len());
        for call in calls {
            results.push(self.dispatch(ctx, call).await);
        }
        results
    }

    /// Looks the tool up and reads the arguments: every check that happens before the
    /// tool runs. `Ok` holds the tool and its prepared arguments.
    pub fn prepare_call(&self, call: &ToolCall) -> Result<(&dyn Tool, Prepared), ToolError> {
        self.prepare_call_with_repairs(call, &mut Vec::new())
    }

    fn prepare_call_with_repairs(
        &self,
        call: &ToolCall,
        repairs: &mut Vec<String>,
    ) -> Result<(&dyn Tool, Prepared), ToolError> {
        let tool = self.lookup(&call.name)?;
        let spec = tool.spec();
        if let CallArguments::Json(json) = &call.arguments
            && json.len() > self.settings.max_argument_bytes
        {
            return Err(ToolError::invalid_arguments(
                format!("the arguments of '{}' are too large", spec.name),
                vec![Problem::new(
                    "$",
                    format!(
                        "{} bytes of JSON; the limit is {}",
                        json.len(),
                        self.settings.max_argument_bytes
                    ),
                )],
            )
            .with_hint("send smaller arguments; put large content in several calls"));
        }
        let mut repaired = if self.settings.repair {
            self.repair(tool, call, repairs)
        } else {
            None
        };
        if call.nulls_mean_absent {
            // Decode what the strict lowering encoded: `null` for an optional argument
            // that cannot be null means the model left it out.
            let parsed = match (repaired.take(), &call.arguments) {
                (Some(value), _) => Some(value),
                (None, CallArguments::Value(value)) => Some(value.clone()),
                (None, CallArguments::Json(json)) => serde_json::from_str(json).ok(),
            };
            repaired = parsed.map(|mut value| {
                crate::schema::lower::remove_absent_nulls(&mut value, &spec.input_schema);
                value
            });
        }
        let arguments = match &repaired {
            Some(value) => Arguments::Value(value),
            None => call.arguments.as_arguments(),
        };
        if let Arguments::Value(value) = arguments {
            check_is_object(spec, value)?;
        }
        let prepared = std::panic::catch_unwind(AssertUnwindSafe(|| tool.prepare(arguments)))
            .unwrap_or_else(|panic| Err(panicked(&spec.name, "reading its arguments", &*panic)))?;
        Ok((tool, prepared))
    }

    async fn execute(
        &self,
        ctx: &Context,
        call: &ToolCall,
        repairs: &mut Vec<String>,
    ) -> Result<ToolOutput, ToolError> {
        let (tool, prepared) = self.prepare_call_with_repairs(call, repairs)?;
        self.run_prepared(ctx, tool, prepared).await
    }

    /// Runs a tool with arguments [`Registry::prepare_call`] read, catching panics and
    /// enforcing the time limit.
    pub async fn run_prepared(
        &self,
        ctx: &Context,
        tool: &dyn Tool,
        prepared: Prepared,
    ) -> Result<ToolOutput, ToolError> {
        let name = &tool.spec().name;
        let future = match std::panic::catch_unwind(AssertUnwindSafe(|| tool.run(ctx, prepared))) {
            Ok(future) => future,
            Err(panic) => return Err(panicked(name, "starting", &*panic)),
        };
        let guarded = AssertUnwindSafe(future).catch_unwind();
        let finished = match self.timeout_for(name) {
            #[cfg(feature = "tokio")]
            // Boxed, so a dispatch without a time limit does not carry a timer in its
            // state.
            Some(limit) => match Box::pin(tokio::time::timeout(limit, guarded)).await {
                Ok(finished) => finished,
                Err(_) => {
                    return Err(ToolError::new(
                        ErrorKind::Timeout,
                        format!("'{name}' did not finish within {} ms", limit.as_millis()),
                    )
                    .with_hint("try again, or narrow the request so it finishes sooner"));
                }
            },
            _ => guarded.await,
        };
        finished.unwrap_or_else(|panic| Err(panicked(name, "running", &*panic)))
    }

    fn timeout_for(&self, name: &str) -> Option<std::time::Duration> {
        self.settings
            .tool_timeouts
            .get(name)
            .copied()
            .or(self.settings.timeout)
    }

    fn lookup(&self, name: &str) -> Result<&dyn Tool, ToolError> {
        if let Some(tool) = self.get(name) {
            return Ok(tool);
        }
        let shown: Cow<'_, str> = if name.chars().count() > 64 {
            format!("{}...", name.chars().take(64).collect::<String>()).into()
        } else {
            name.into()
        };
        let names = self.closest_names(name);
        let closest = names
            .first()
            .copied()
            .filter(|close| strsim::jaro_winkler(name, close) > 0.7);
        let message = match closest {
            Some(close) => format!("there is no tool named '{shown}'; did you mean '{close}'?"),
            None => format!("there is no tool named '{shown}'"),
        };
        let listed: Vec<&str> = names.iter().copied().take(20).collect();
        let more = names.len().saturating_sub(listed.len());
        let hint = if names.is_empty() {
            "no tools are available".to_owned()
        } else if more > 0 {
            format!(
                "available tools, closest first: {} (and {more} more)",
                listed.join(", ")
            )
        } else {
            format!("available tools, closest first: {}", listed.join(", "))
        };
        Err(ToolError::new(ErrorKind::UnknownTool, message).with_hint(hint))
    }

    /// The explicit, logged repairs of [`Registry::repair_arguments`].
    fn repair(&self, tool: &dyn Tool, call: &ToolCall, repairs: &mut Vec<String>) -> Option<Value> {
        let spec = tool.spec();
        let parsed: Cow<'_, Value> = match &call.arguments {
            CallArguments::Value(value) => Cow::Borrowed(value),
            CallArguments::Json(json) if json.trim().is_empty() => Cow::Owned(Value::Null),
            CallArguments::Json(json) => Cow::Owned(serde_json::from_str(json).ok()?),
        };
        let (repaired, what) = match &*parsed {
            Value::String(text) => match serde_json::from_str::<Value>(text) {
                Ok(object @ Value::Object(_)) => (
                    object,
                    "the arguments were a JSON object inside a string; read the object",
                ),
                _ => return None,
            },
            Value::Null if no_parameters(spec) => (
                Value::Object(serde_json::Map::new()),
                "the arguments were empty or null for a tool without parameters; read them as {}",
            ),
            _ => return None,
        };
        tracing::warn!(tool = %spec.name, call_id = %call.id, repair = what, "repaired tool call arguments");
        repairs.push(what.to_owned());
        Some(repaired)
    }

    fn finish(
        &self,
        call: ToolCall,
        outcome: Result<ToolOutput, ToolError>,
        repairs: Vec<String>,
    ) -> ToolResult {
        let budget = self
            .settings
            .tool_budgets
            .get(&call.name)
            .copied()
            .unwrap_or(self.settings.budget);
        let view = self.model_view(&call, &outcome, budget);
        ToolResult {
            call_id: call.id,
            name: call.name,
            outcome,
            view,
            repairs,
        }
    }

    /// The model's view, or `None` when it is the output's own text (no copy made).
    fn model_view(
        &self,
        call: &ToolCall,
        outcome: &Result<ToolOutput, ToolError>,
        budget: OutputBudget,
    ) -> Option<ModelView> {
        let store = &self.settings.artifacts;
        let save = |content: &str| store.save(&call.name, &call.id, content);
        match outcome {
            Ok(
                ToolOutput::Text(text)
                | ToolOutput::Observation {
                    for_model: text, ..
                },
            ) => (!fits(text, budget)).then(|| fit_text(text.clone(), budget, save)),
            Ok(ToolOutput::Json(value)) => Some(fit_json(value, budget, save)),
            Ok(ToolOutput::Empty) => None,
            Err(error) => {
                let text = error.to_model_text();
                if fits(&text, budget) {
                    Some(ModelView {
                        text,
                        truncated: None,
                    })
                } else {
                    Some(fit_json(&error.to_model_json(), budget, save))
                }
            }
        }
    }
}

/// The `internal` error of a tool that panicked: the process keeps serving.
fn panicked(tool: &str, during: &str, panic: &(dyn Any + Send)) -> ToolError {
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
