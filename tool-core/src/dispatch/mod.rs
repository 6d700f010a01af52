//! The flow of one call: lookup → arguments → effect → scopes and policy → approval →
//! idempotency → run → output. Every call gets exactly one result carrying its id,
//! whatever fails: an unknown name, malformed arguments, a denial, a tool that errs,
//! panics or runs out of time.

mod schedule;

use std::any::Any;
use std::borrow::Cow;
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt as _;
use serde::Serialize;
use serde_json::Value;

use crate::approval::{ApprovalDecision, ApprovalTicket, digest};
use crate::arguments::{check_is_object, no_parameters};
use crate::idempotency::StoredOutcome;
use crate::output::{ModelView, OutputBudget, Truncation, fit_json, fit_text, fits};
use crate::policy::{Caller, Decision, PolicyRequest, missing_scopes};
use crate::{
    Arguments, Context, Effect, ErrorKind, Prepared, Problem, Registry, Tool, ToolError,
    ToolFuture, ToolOutcome, ToolOutput,
};

pub use schedule::Event;

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
    /// Set for calls from a target whose lowering made optional arguments required and
    /// nullable (OpenAI strict): a `null` for an optional argument then means "left out".
    #[serde(skip)]
    pub nulls_mean_absent: bool,
    /// The key that makes a call with external effects happen once (a second call with
    /// the same key gets the first result). Without one, `<tool>:<call id>` is used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
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

    /// Sets the idempotency key.
    pub fn with_idempotency_key(mut self, key: impl Into<String>) -> Self {
        self.idempotency_key = Some(key.into());
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
            idempotency_key: None,
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
    /// The effect of this call, once the arguments were read (classified, for a
    /// dynamic tool).
    pub effect: Option<Effect>,
    /// The result is the stored first result of an earlier call with the same
    /// idempotency key; the tool did not run again.
    pub duplicate: bool,
    /// For a call awaiting approval: the ticket to resume it with (boxed: rare, and as
    /// large as the rest of the result).
    pub ticket: Option<Box<ApprovalTicket>>,
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
    /// Runs one call through every check, the tool and the output budget. Always returns
    /// exactly one result, carrying the call's id; never panics.
    ///
    /// ```
    /// # use toolwright::{tool, Context, ErrorKind, Registry, ToolCall};
    /// /// Say hello.
    /// #[tool(effect = "read_only")]
    /// fn hello(name: String) -> String { format!("Hello, {name}!") }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let registry = Registry::new().with(Hello);
    /// let ok = registry.dispatch(&Context::new(), ToolCall::new("1", "hello", r#"{"name": "Ada"}"#)).await;
    /// assert_eq!(ok.for_model(), "Hello, Ada!");
    /// let typo = registry.dispatch(&Context::new(), ToolCall::new("2", "helo", "{}")).await;
    /// assert_eq!(typo.error().unwrap().kind, ErrorKind::UnknownTool);
    /// assert_eq!(typo.call_id, "2");
    /// # });
    /// ```
    // Not an `async fn`: its future would hold the call twice (as the argument and as
    // the local it is moved into), and be copied that much larger on every move.
    #[allow(clippy::manual_async_fn)]
    pub fn dispatch<'a>(
        &'a self,
        ctx: &'a Context,
        call: ToolCall,
    ) -> impl Future<Output = ToolResult> + Send + 'a {
        async move {
            let mut notes = Notes::default();
            let run = match self.admit(ctx, &call, &mut notes, Gate::Full) {
                Ok(admitted) => self.execute(ctx, &call, admitted, &mut notes),
                Err(refusal) => ToolFuture::ready(Err(refusal)),
            };
            // A finished run is ready on the first poll: no suspension.
            let outcome = run.await;
            self.finish(call.id, call.name, outcome, notes)
        }
    }

    /// Looks the tool up and reads the arguments (no policy, no run). `Ok` holds the tool
    /// and its prepared arguments.
    pub fn prepare_call(&self, call: &ToolCall) -> Result<(&dyn Tool, Prepared), ToolError> {
        self.prepare_call_with_repairs(call, &mut Vec::new())
            .map(|(tool, prepared, _)| (tool, prepared))
    }

    /// Every check a call goes through before it runs: lookup, arguments, effect,
    /// scopes, policy and (for [`Gate::Full`]) approval. `Err` is why the call does not
    /// run.
    fn admit<'r>(
        &'r self,
        ctx: &Context,
        call: &ToolCall,
        notes: &mut Notes,
        gate: Gate,
    ) -> Result<Admitted<'r>, ToolError> {
        let (tool, prepared, normalized) =
            self.prepare_call_with_repairs(call, &mut notes.repairs)?;
        let spec = tool.spec();
        // A declared effect is the effect; only a dynamic tool classifies each call.
        let effect = match spec.effect {
            Effect::Dynamic => {
                match std::panic::catch_unwind(AssertUnwindSafe(|| tool.effect_of(&prepared))) {
                    Ok(Effect::Dynamic) | Err(_) => Effect::RISKIEST,
                    Ok(effect) => effect,
                }
            }
            declared => declared,
        };
        notes.effect = Some(effect);
        // Scopes are the caller's credentials: checked on every path, approved or not.
        let caller = ctx.get::<Caller>();
        let missing = missing_scopes(spec, caller);
        if !missing.is_empty() {
            return Err(denied(
                format!(
                    "'{}' needs the scope{} {}, which the caller does not hold",
                    spec.name,
                    if missing.len() == 1 { "" } else { "s" },
                    missing.join(", ")
                ),
                false,
                "ask the user to grant the scope; calling again will not help until then",
            ));
        }
        if gate == Gate::Full {
            let arguments = match normalized.as_deref() {
                Some(value) => Arguments::Value(value),
                None => call.arguments.as_arguments(),
            };
            let request = PolicyRequest {
                tool: spec,
                effect,
                arguments,
                caller,
                call_id: &call.id,
            };
            let policy = self.policy_for(&spec.name);
            let decision = match std::panic::catch_unwind(AssertUnwindSafe(|| {
                policy.decide(&request)
            })) {
                Ok(Ok(decision)) => decision,
                // A policy that errs or panics fails closed.
                Ok(Err(error)) => Decision::deny(format!("the policy could not decide: {error}")),
                Err(_) => Decision::deny("the policy failed while deciding"),
            };
            let ask = match decision {
                Decision::Allow => tool.approval_reason(&prepared),
                Decision::Ask { reason } => Some(reason),
                Decision::Deny {
                    reason,
                    retry_may_help,
                } => {
                    let hint = if retry_may_help {
                        "this may be allowed later; ask the user"
                    } else {
                        "do not retry this call; tell the user it was refused"
                    };
                    return Err(denied(reason, retry_may_help, hint));
                }
            };
            if let Some(reason) = ask {
                let arguments =
                    normalized
                        .as_deref()
                        .cloned()
                        .unwrap_or_else(|| match &call.arguments {
                            CallArguments::Value(value) => value.clone(),
                            CallArguments::Json(json) => {
                                serde_json::from_str(json).unwrap_or(Value::Null)
                            }
                        });
                let ticket = ApprovalTicket {
                    call_id: call.id.clone(),
                    tool: spec.name.clone(),
                    digest: digest(&spec.name, &arguments),
                    arguments,
                    reason: reason.clone(),
                };
                notes.ticket = Some(Box::new(ticket));
                return Err(ToolError::new(ErrorKind::AwaitingApproval, format!("'{}' needs a person's approval: {reason}", spec.name))
                    .with_retryable(false)
                    .with_hint("the call is paused, not failed: tell the user what you want to do and wait for their decision"));
            }
        }
        let idempotency_key = spec.needs_idempotency_key(effect).then(|| {
            call.idempotency_key
                .clone()
                .unwrap_or_else(|| format!("{}:{}", spec.name, call.id))
        });
        Ok(Admitted {
            tool,
            prepared,
            normalized,
            effect,
            idempotency_key,
        })
    }

    /// Runs an admitted call: the first result of an earlier call with its idempotency
    /// key, or the tool (retried where allowed), its outcome stored under the key.
    ///
    /// A tool that finishes at once (every synchronous tool) is settled here and the
    /// future is ready: the caller does not suspend and nothing is boxed. Only a tool
    /// still running, or a failure to retry, continues in a boxed future.
    fn execute<'a>(
        &'a self,
        ctx: &'a Context,
        call: &'a ToolCall,
        admitted: Admitted<'a>,
        notes: &mut Notes,
    ) -> ToolFuture<'a> {
        let Admitted {
            tool,
            prepared,
            normalized,
            effect,
            idempotency_key,
            ..
        } = admitted;
        if let Some(key) = &idempotency_key {
            match self.settings.idempotency.get(key) {
                Ok(Some(stored)) => {
                    notes.duplicate = true;
                    return ToolFuture::ready(stored.outcome);
                }
                Ok(None) => {}
                Err(error) => {
                    // Without the store we cannot know whether this already happened.
                    return ToolFuture::ready(Err(ToolError::internal(format!(
                        "the idempotency store failed: {error}"
                    ))
                    .with_hint("the call did not run; it is safe to retry later")
                    .with_retryable(true)));
                }
            }
        }
        self.observe(|| Event::Started {
            call_id: call.id.clone(),
            tool: call.name.clone(),
        });
        let retry = self.settings.retries.get(&call.name).copied().filter(|_| {
            effect == Effect::ReadOnly || tool.spec().idempotent || idempotency_key.is_some()
        });
        let run = self.start(ctx, tool, prepared).into_ready();
        match run {
            Ok(outcome) if retry.is_none() || !is_retryable(&outcome) => {
                ToolFuture::ready(self.settle(call, idempotency_key.as_deref(), outcome))
            }
            run => ToolFuture::new(async move {
                let mut outcome = match run {
                    Ok(outcome) => outcome,
                    Err(running) => self.wait(tool, running).await,
                };
                if let Some(retry) = retry {
                    let arguments = match normalized.as_deref() {
                        Some(value) => Arguments::Value(value),
                        None => call.arguments.as_arguments(),
                    };
                    let mut attempt = 1;
                    while attempt < retry.attempts && is_retryable(&outcome) {
                        #[cfg(feature = "tokio")]
                        tokio::time::sleep(retry.backoff * 2u32.saturating_pow(attempt - 1)).await;
                        attempt += 1;
                        outcome = match tool.prepare(arguments) {
                            Ok(prepared) => self.run_prepared(ctx, tool, prepared).await,
                            Err(error) => Err(error),
                        };
                    }
                }
                self.settle(call, idempotency_key.as_deref(), outcome)
            }),
        }
    }

    /// The end of a run: reports it, and stores a completed outcome under the call's
    /// idempotency key.
    fn settle(&self, call: &ToolCall, key: Option<&str>, outcome: ToolOutcome) -> ToolOutcome {
        self.observe(|| Event::Finished {
            call_id: call.id.clone(),
            tool: call.name.clone(),
        });
        if let Some(key) = key {
            let completed = !matches!(&outcome, Err(e) if matches!(e.kind, ErrorKind::Timeout | ErrorKind::Cancelled | ErrorKind::Internal));
            if completed {
                let stored = StoredOutcome {
                    tool: call.name.clone(),
                    outcome: outcome.clone(),
                };
                if let Err(error) = self.settings.idempotency.put(key, &stored) {
                    tracing::error!(key, %error, "could not store an idempotency key; a retry of this call would run again");
                }
            }
        }
        outcome
    }

    /// Resumes a call that was waiting for approval. The decision must name the
    /// ticket's digest, and the ticket must still match its arguments: a decision never
    /// approves another call. An edited call is validated again.
    pub async fn resume(
        &self,
        ctx: &Context,
        ticket: &ApprovalTicket,
        decision: ApprovalDecision,
    ) -> ToolResult {
        let mut call = ToolCall::new(
            ticket.call_id.clone(),
            ticket.tool.clone(),
            ticket.arguments.clone(),
        );
        let mut notes = Notes::default();
        let genuine = digest(&ticket.tool, &ticket.arguments) == ticket.digest;
        let outcome = if !genuine || decision.digest() != ticket.digest {
            Err(denied(
                "the approval does not match this call (its digest differs), so the call did not run",
                false,
                "ask for approval of this exact call again",
            ))
        } else {
            match decision {
                ApprovalDecision::Decline { reason, .. } => Err(denied(
                    format!("a person declined this call: {reason}"),
                    false,
                    "do not retry it; tell the user it was declined",
                )),
                ApprovalDecision::Approve { .. } | ApprovalDecision::ApproveWithEdits { .. } => {
                    if let ApprovalDecision::ApproveWithEdits { arguments, .. } = decision {
                        call.arguments = CallArguments::Value(arguments);
                    }
                    match self.admit(ctx, &call, &mut notes, Gate::Approved) {
                        Ok(admitted) => self.execute(ctx, &call, admitted, &mut notes).await,
                        Err(refusal) => Err(refusal),
                    }
                }
            }
        };
        self.finish(call.id, call.name, outcome, notes)
    }

    /// Every check a call would go through (lookup, arguments, scopes, policy,
    /// approval), and what it would do; nothing runs and nothing changes.
    pub fn dry_run(&self, ctx: &Context, call: &ToolCall) -> DryRun {
        let mut notes = Notes::default();
        let verdict = match self.admit(ctx, call, &mut notes, Gate::Full) {
            Ok(admitted) => {
                let description = admitted
                    .tool
                    .describe_call(&admitted.prepared)
                    .unwrap_or_else(|| {
                        let arguments = admitted.normalized.as_deref().map_or_else(
                            || match &call.arguments {
                                CallArguments::Json(json) => json.clone(),
                                CallArguments::Value(value) => value.to_string(),
                            },
                            Value::to_string,
                        );
                        format!("would call '{}' with {arguments}", call.name)
                    });
                DryRunVerdict::WouldRun { description }
            }
            Err(error) if error.kind == ErrorKind::AwaitingApproval => DryRunVerdict::WouldAsk {
                reason: notes.ticket.map(|t| t.reason).unwrap_or_default(),
            },
            Err(error) => DryRunVerdict::Refused { error },
        };
        DryRun {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            effect: notes.effect,
            verdict,
        }
    }

    fn prepare_call_with_repairs(
        &self,
        call: &ToolCall,
        repairs: &mut Vec<String>,
    ) -> Result<ReadCall<'_>, ToolError> {
        let tool = self.lookup(&call.name)?;
        let spec = tool.spec();
        let limit = self.settings.max_argument_bytes;
        let size = match &call.arguments {
            CallArguments::Json(json) => (json.len() > limit).then(|| json.len().to_string()),
            // Already parsed (Anthropic, Gemini, MCP): count its JSON text, stopping at
            // the limit.
            CallArguments::Value(value) => {
                (encoded_len_up_to(value, limit) > limit).then(|| format!("more than {limit}"))
            }
        };
        if let Some(size) = size {
            return Err(ToolError::invalid_arguments(
                format!("the arguments of '{}' are too large", spec.name),
                vec![Problem::new(
                    "$",
                    format!("{size} bytes of JSON; the limit is {limit}"),
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
        Ok((tool, prepared, repaired.map(Box::new)))
    }

    /// Runs a tool with arguments [`Registry::prepare_call`] read, catching panics and
    /// enforcing the time limit.
    pub async fn run_prepared(
        &self,
        ctx: &Context,
        tool: &dyn Tool,
        prepared: Prepared,
    ) -> ToolOutcome {
        match self.start(ctx, tool, prepared).into_ready() {
            Ok(outcome) => outcome,
            Err(running) => self.wait(tool, running).await,
        }
    }

    /// Calls [`Tool::run`]: a synchronous tool does its work here, so its panic is
    /// caught here.
    fn start<'a>(
        &self,
        ctx: &'a Context,
        tool: &'a dyn Tool,
        prepared: Prepared,
    ) -> ToolFuture<'a> {
        std::panic::catch_unwind(AssertUnwindSafe(|| tool.run(ctx, prepared))).unwrap_or_else(
            |panic| ToolFuture::ready(Err(panicked(&tool.spec().name, "running", &*panic))),
        )
    }

    /// Waits for a tool still running, catching its panics and enforcing the time limit.
    async fn wait(&self, tool: &dyn Tool, running: ToolFuture<'_>) -> ToolOutcome {
        let name = &tool.spec().name;
        let guarded = AssertUnwindSafe(running).catch_unwind();
        let finished = match self.timeout_for(name) {
            #[cfg(feature = "tokio")]
            // Boxed, so a call without a time limit does not carry a timer in its state.
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

    /// The tool named `name`, or the `unknown_tool` error naming the closest ones.
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
            .filter(|close| crate::similarity::jaro_winkler(name, close) > 0.7);
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

    /// The result of call `call_id` to `name`. (Not the `ToolCall` itself: moving it
    /// here would copy all of it, arguments included, for two strings.)
    fn finish(
        &self,
        call_id: String,
        name: String,
        outcome: ToolOutcome,
        notes: Notes,
    ) -> ToolResult {
        let per_tool = &self.settings.tool_budgets;
        let own = if per_tool.is_empty() {
            None
        } else {
            per_tool.get(&name).copied()
        };
        let budget = own.unwrap_or(self.settings.budget);
        let view = self.model_view(&name, &call_id, &outcome, budget);
        ToolResult {
            call_id,
            name,
            outcome,
            view,
            repairs: notes.repairs,
            effect: notes.effect,
            duplicate: notes.duplicate,
            ticket: notes.ticket,
        }
    }

    fn policy_for(&self, tool: &str) -> &dyn crate::policy::Policy {
        let per_tool = &self.settings.tool_policies;
        match (per_tool.is_empty(), per_tool.get(tool)) {
            (false, Some(policy)) => &**policy,
            _ => &*self.settings.policy,
        }
    }

    /// Reports an event; built only when someone observes.
    fn observe(&self, event: impl FnOnce() -> Event) {
        if let Some(observer) = &self.settings.observer {
            observer(&event());
        }
    }

    /// The model's view, or `None` when it is the output's own text (no copy made).
    fn model_view(
        &self,
        name: &str,
        call_id: &str,
        outcome: &ToolOutcome,
        budget: OutputBudget,
    ) -> Option<ModelView> {
        let store = &self.settings.artifacts;
        let save = |content: &str| store.save(name, call_id, content);
        match outcome {
            Ok(
                ToolOutput::Text(text)
                | ToolOutput::Observation {
                    for_model: text, ..
                },
            ) => (!fits(text, budget)).then(|| fit_text(text.clone(), budget, save)),
            Ok(ToolOutput::Json(value)) => Some(fit_json(value, budget, save)),
            Ok(ToolOutput::Content(blocks)) => {
                Some(fit_text(crate::content::text_of(blocks), budget, save))
            }
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

/// Whether a failed call may succeed if tried again: a `failed` or `timeout` error the
/// tool marked retryable.
fn is_retryable(outcome: &ToolOutcome) -> bool {
    matches!(outcome, Err(error) if error.retryable && matches!(error.kind, ErrorKind::Failed | ErrorKind::Timeout))
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

/// What the pipeline learned about a call on the way, for its result.
#[derive(Debug, Default)]
struct Notes {
    repairs: Vec<String>,
    effect: Option<Effect>,
    duplicate: bool,
    /// Boxed: rare, and large enough to double what every call carries.
    ticket: Option<Box<ApprovalTicket>>,
}

/// How much of the gate a call goes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gate {
    /// Scopes, policy and approval.
    Full,
    /// A person approved this exact call: arguments and scopes are checked again, the
    /// policy and approval rules are not.
    Approved,
}

/// A call whose tool was found and whose arguments were read: the tool, its prepared
/// arguments, and the arguments as read when repairs or decoding changed them.
type ReadCall<'r> = (&'r dyn Tool, Prepared, Option<Box<Value>>);

/// A call past every check, ready to run.
struct Admitted<'r> {
    tool: &'r dyn Tool,
    prepared: Prepared,
    /// The arguments as read after repairs and decoding, when they differ from the call's.
    /// (Boxed: rare, and the largest field otherwise.)
    normalized: Option<Box<Value>>,
    effect: Effect,
    idempotency_key: Option<String>,
}

/// A `denied` error.
fn denied(message: impl Into<String>, retryable: bool, hint: &str) -> ToolError {
    ToolError::new(ErrorKind::Denied, message)
        .with_retryable(retryable)
        .with_hint(hint)
}

/// What a dry run found: every check, and what the call would do.
#[derive(Debug, Clone, PartialEq, Serialize)]
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

/// The length of `value` as compact JSON, counted up to just past `limit`.
fn encoded_len_up_to(value: &Value, limit: usize) -> usize {
    struct Counter {
        bytes: usize,
        limit: usize,
    }
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.bytes += buf.len();
            if self.bytes > self.limit {
                // Stops the serializer: the answer is known.
                return Err(std::io::Error::other("over the limit"));
            }
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter { bytes: 0, limit };
    let _ = serde_json::to_writer(&mut counter, value);
    counter.bytes
}
