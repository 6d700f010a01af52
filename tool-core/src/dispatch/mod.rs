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

use crate::approval::{ApprovalDecision, ApprovalTicket, TicketFault, digest};
use crate::arguments::{check_is_object, no_parameters};
use crate::idempotency::{Claim, ClaimRequest, Settlement, StoredOutcome, scoped_key};
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
    /// The key that makes a call with external effects happen once: a second call with
    /// the same key and the same tool and arguments gets the first result; with other
    /// arguments, a `conflict`. Keys are scoped to the caller (the context's
    /// [`Caller`]): two callers never share one. Without a key, one is derived from the
    /// caller, the [`origin`](ToolCall::origin), the call id and the arguments, so only a
    /// retry of this very call (same id, same arguments) is recognized.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// Where the call's id is unique: a conversation, an MCP session. Call ids are not
    /// unique everywhere (MCP numbers requests per connection), so a derived
    /// idempotency key includes this; set it whenever ids can repeat across sources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
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
            nulls_mean_absent: false,
            idempotency_key: None,
            origin: None,
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
                let arguments = arguments_value(call, normalized.as_deref());
                let issued_at = unix_seconds();
                let lifetime = self.settings.approvals.lifetime.as_secs();
                let mut ticket = ApprovalTicket {
                    call_id: call.id.clone(),
                    tool: spec.name.clone(),
                    digest: digest(&spec.name, &arguments),
                    arguments,
                    reason: reason.clone(),
                    caller: caller.map(|caller| caller.id.clone()),
                    origin: call.origin.clone(),
                    idempotency_key: call.idempotency_key.clone(),
                    issued_at,
                    expires_at: issued_at.saturating_add(lifetime),
                    signature: String::new(),
                };
                self.settings.approvals.sign(&mut ticket);
                notes.ticket = Some(Box::new(ticket));
                return Err(ToolError::new(ErrorKind::AwaitingApproval, format!("'{}' needs a person's approval: {reason}", spec.name))
                    .with_retryable(false)
                    .with_hint("the call is paused, not failed: tell the user what you want to do and wait for their decision"));
            }
        }
        let claim = spec.needs_idempotency_key(effect).then(|| {
            let arguments = arguments_value(call, normalized.as_deref());
            ClaimKey::for_call(&spec.name, call, caller, &arguments)
        });
        Ok(Admitted {
            tool,
            prepared,
            normalized,
            effect,
            claim,
        })
    }

    /// Runs an admitted call. A call with side effects that must not happen twice claims
    /// its idempotency key first (see [`crate::idempotency`]) and records its outcome
    /// under it; a call that finds the key done gets the first outcome, marked duplicate.
    ///
    /// A call without a key that finishes at once (every synchronous tool) is settled
    /// here and the future is ready: the caller does not suspend and nothing is boxed.
    fn execute<'a>(
        &'a self,
        ctx: &'a Context,
        call: &'a ToolCall,
        admitted: Admitted<'a>,
        notes: &'a mut Notes,
    ) -> ToolFuture<'a> {
        let Admitted {
            tool,
            prepared,
            normalized,
            effect,
            claim,
        } = admitted;
        let Some(claim) = claim else {
            return self.run_with_retries(ctx, call, tool, prepared, normalized, effect, false);
        };
        ToolFuture::new(async move {
            let name = &tool.spec().name;
            match self.claim(&claim, name, "idempotency key").await {
                Ok(()) => {}
                Err(Held::Done(stored)) => {
                    notes.duplicate = true;
                    return stored.outcome;
                }
                Err(Held::Refused(refusal)) => return Err(refusal),
            }
            let run = self.run_with_retries(ctx, call, tool, prepared, normalized, effect, true);
            let outcome = self.holding(&claim, run).await;
            self.record(&claim, name, effect, &outcome).await;
            outcome
        })
    }

    /// Runs the tool (retried where allowed), reporting its start and finish.
    #[allow(clippy::too_many_arguments)]
    fn run_with_retries<'a>(
        &'a self,
        ctx: &'a Context,
        call: &'a ToolCall,
        tool: &'a dyn Tool,
        prepared: Prepared,
        normalized: Option<Box<Value>>,
        effect: Effect,
        keyed: bool,
    ) -> ToolFuture<'a> {
        self.observe(|| Event::Started {
            call_id: call.id.clone(),
            tool: call.name.clone(),
        });
        let retry = self
            .settings
            .retries
            .get(&call.name)
            .copied()
            .filter(|_| effect == Effect::ReadOnly || tool.spec().idempotent || keyed);
        let run = self.start(ctx, tool, prepared).into_ready();
        match run {
            Ok(outcome) if retry.is_none() || !is_retryable(&outcome) => {
                ToolFuture::ready(self.finished(call, outcome))
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
                self.finished(call, outcome)
            }),
        }
    }

    /// The end of a run: reports it.
    fn finished(&self, call: &ToolCall, outcome: ToolOutcome) -> ToolOutcome {
        self.observe(|| Event::Finished {
            call_id: call.id.clone(),
            tool: call.name.clone(),
        });
        outcome
    }

    /// Claims `claim` for a call of `tool`. An attempt in flight with the same key is
    /// waited for, within the call's own time limit. `what` names the key in messages.
    async fn claim(&self, claim: &ClaimKey, tool: &str, what: &str) -> Result<(), Held> {
        let settings = &self.settings.idempotency;
        let store = settings.store();
        let request = ClaimRequest {
            key: &claim.key,
            digest: &claim.digest,
            tool,
            lease: settings.lease,
            retention: settings.retention_for_store(),
        };
        let wait = self
            .timeout_for(tool)
            .map_or(settings.wait, |limit| limit.min(settings.wait));
        let mut started = None;
        let mut pause = std::time::Duration::from_millis(5);
        loop {
            let refusal = match store.claim(request).await {
                Ok(Claim::Claimed) => return Ok(()),
                Ok(Claim::Done(stored)) => return Err(Held::Done(stored)),
                Ok(Claim::Mismatch { tool: first }) => ToolError::new(
                    ErrorKind::Conflict,
                    format!(
                        "this {what} was already used for another call (of '{first}', or with other arguments), so this call did not run"
                    ),
                )
                .with_retryable(false)
                .with_hint("a new call needs a new idempotency key; to repeat the first call, send its exact arguments"),
                Ok(Claim::Unknown) => ToolError::new(
                    ErrorKind::Conflict,
                    format!(
                        "an earlier attempt with this {what} started and never reported how it ended (it was cut off, or its process stopped), so whether it took effect is unknown; this call did not run"
                    ),
                )
                .with_retryable(false)
                .with_hint("check the outside world (the payment, the message) before acting again; if it did not happen, call again with a new idempotency key"),
                Ok(Claim::InFlight) => {
                    // The clock is read only when there is something to wait for.
                    let since = *started.get_or_insert_with(std::time::Instant::now);
                    #[cfg(feature = "tokio")]
                    if since.elapsed() + pause <= wait {
                        tokio::time::sleep(pause).await;
                        pause = (pause * 2).min(std::time::Duration::from_millis(250));
                        continue;
                    }
                    let _ = (since, wait, &mut pause);
                    ToolError::new(
                        ErrorKind::Conflict,
                        format!("an earlier attempt with this {what} is still running, so this call did not run"),
                    )
                    .with_retryable(true)
                    .with_hint("wait a little and call again with the same key: you will get the first attempt's result")
                }
                Err(error) => ToolError::internal(format!(
                    "the idempotency store ({}) failed: {error}",
                    store.name()
                ))
                .with_retryable(true)
                .with_hint("the call did not run; it is safe to retry later"),
            };
            return Err(Held::Refused(refusal));
        }
    }

    /// Waits for `run`, renewing `claim`'s lease every third of it while the tool runs,
    /// so a long call keeps its key and a crashed process's key is free of it soon.
    async fn holding(&self, claim: &ClaimKey, run: ToolFuture<'_>) -> ToolOutcome {
        #[cfg(feature = "tokio")]
        {
            use futures_util::future::{Either, select};
            let run = match run.into_ready() {
                Ok(outcome) => return outcome,
                Err(running) => running,
            };
            let settings = &self.settings.idempotency;
            let every = (settings.lease / 3).max(std::time::Duration::from_millis(10));
            let mut run = std::pin::pin!(run);
            loop {
                let tick = std::pin::pin!(tokio::time::sleep(every));
                match select(run.as_mut(), tick).await {
                    Either::Left((outcome, _)) => return outcome,
                    Either::Right(((), _)) => {
                        let store = settings.store();
                        if let Err(error) =
                            store.renew(&claim.key, &claim.digest, settings.lease).await
                        {
                            tracing::warn!(
                                store = store.name(),
                                %error,
                                "could not renew a claim's lease; if the call outlives it, the next attempt is told its outcome is unknown"
                            );
                        }
                    }
                }
            }
        }
        #[cfg(not(feature = "tokio"))]
        run.await
    }

    /// Records how a claimed call ended (see [`settlement_for`]).
    async fn record(&self, claim: &ClaimKey, tool: &str, effect: Effect, outcome: &ToolOutcome) {
        let settings = &self.settings.idempotency;
        let store = settings.store();
        let settlement = settlement_for(tool, effect, outcome);
        if let Err(error) = store
            .settle(&claim.key, &claim.digest, settlement, settings.retention)
            .await
        {
            tracing::error!(
                store = store.name(),
                %error,
                "could not record how a claimed call ended; a retry with its key will be told its outcome is unknown"
            );
        }
    }

    /// Resumes a call that was waiting for approval. The ticket must be one this
    /// registry signed (or a registry sharing its secret), unexpired, issued to the
    /// caller in `ctx`, and the decision must name its digest: a decision never approves
    /// another call. An edited call is validated again. A ticket is spent by its first
    /// decision: deciding it again returns the first result, marked duplicate, and
    /// never runs the tool a second time.
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
        call.origin.clone_from(&ticket.origin);
        call.idempotency_key.clone_from(&ticket.idempotency_key);
        let mut notes = Notes::default();
        let outcome = match self.check_ticket(ctx, ticket, &decision) {
            Err(refusal) => Err(refusal),
            Ok(()) => {
                self.decide_once(ctx, ticket, decision, &mut call, &mut notes)
                    .await
            }
        };
        self.finish(call.id, call.name, outcome, notes)
    }

    /// Why `ticket` cannot be decided by the caller in `ctx` with `decision`, if it cannot.
    fn check_ticket(
        &self,
        ctx: &Context,
        ticket: &ApprovalTicket,
        decision: &ApprovalDecision,
    ) -> Result<(), ToolError> {
        let caller = ctx.get::<Caller>().map(|caller| caller.id.as_str());
        let again = "ask for approval of this exact call again";
        match self
            .settings
            .approvals
            .check(ticket, caller, unix_seconds())
        {
            Err(TicketFault::Forged) => Err(denied(
                "this approval ticket was not issued by this server, or was changed after it was issued (its signature does not verify), so the call did not run",
                false,
                again,
            )),
            Err(TicketFault::Expired) => Err(denied(
                format!(
                    "this approval ticket expired (at {} seconds since the Unix epoch), so the call did not run",
                    ticket.expires_at
                ),
                false,
                again,
            )),
            Err(TicketFault::OtherCaller) => Err(denied(
                "this approval ticket was issued to another caller, so the call did not run",
                false,
                "only the caller the ticket was issued to can resume it",
            )),
            Ok(()) if decision.digest() != ticket.digest => Err(denied(
                "the approval does not match this call (its digest differs), so the call did not run",
                false,
                again,
            )),
            Ok(()) => Ok(()),
        }
    }

    /// Carries out `decision` once: the ticket is claimed in the idempotency store, so
    /// a second decision gets the first one's result.
    async fn decide_once(
        &self,
        ctx: &Context,
        ticket: &ApprovalTicket,
        decision: ApprovalDecision,
        call: &mut ToolCall,
        notes: &mut Notes,
    ) -> ToolOutcome {
        let claim = ClaimKey {
            key: scoped_key(&[Some("ticket"), Some(&ticket.signature)]),
            digest: ticket.digest.clone(),
        };
        match self.claim(&claim, &ticket.tool, "approval ticket").await {
            Ok(()) => {}
            Err(Held::Done(stored)) => {
                notes.duplicate = true;
                return stored.outcome;
            }
            Err(Held::Refused(refusal)) => return Err(refusal),
        }
        let outcome = match decision {
            ApprovalDecision::Decline { reason, .. } => Err(denied(
                format!("a person declined this call: {reason}"),
                false,
                "do not retry it; tell the user it was declined",
            )),
            ApprovalDecision::Approve { .. } | ApprovalDecision::ApproveWithEdits { .. } => {
                if let ApprovalDecision::ApproveWithEdits { arguments, .. } = decision {
                    call.arguments = CallArguments::Value(arguments);
                }
                let call = &*call;
                match self.admit(ctx, call, notes, Gate::Approved) {
                    Ok(admitted) => {
                        let run = self.execute(ctx, call, admitted, notes);
                        self.holding(&claim, run).await
                    }
                    Err(refusal) => Err(refusal),
                }
            }
        };
        let effect = notes.effect.unwrap_or(Effect::RISKIEST);
        self.record(&claim, &ticket.tool, effect, &outcome).await;
        outcome
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
    /// The key a call with side effects that must not happen twice claims before it runs.
    claim: Option<ClaimKey>,
}

/// A key to claim in the idempotency store, with the digest of the call claiming it.
struct ClaimKey {
    key: String,
    digest: String,
}

impl ClaimKey {
    /// The key of `call` to `tool` with `arguments` (as read), scoped to its caller: the
    /// call's own key, or one derived from its origin, id and digest.
    fn for_call(tool: &str, call: &ToolCall, caller: Option<&Caller>, arguments: &Value) -> Self {
        let digest = digest(tool, arguments);
        let caller = caller.map(|caller| caller.id.as_str());
        let key = match &call.idempotency_key {
            Some(key) => scoped_key(&[Some("key"), caller, Some(key)]),
            None => scoped_key(&[
                Some("call"),
                caller,
                call.origin.as_deref(),
                Some(&call.id),
                Some(&digest),
            ]),
        };
        Self { key, digest }
    }
}

/// Why a claim did not make the call runnable.
enum Held {
    /// The key's first call finished: its outcome.
    Done(StoredOutcome),
    /// The call must not run: why.
    Refused(ToolError),
}

/// What the store keeps of a claimed call's outcome: a finished call's outcome (also a
/// deliberate error), the key freed again after a failure the tool says may be retried,
/// and "unknown" for an external call that was cut off (a timeout, a cancellation, a
/// panic), whose effect may or may not have happened. A local call that was cut off
/// frees its key.
fn settlement_for(tool: &str, effect: Effect, outcome: &ToolOutcome) -> Settlement {
    match outcome {
        Err(error)
            if matches!(
                error.kind,
                ErrorKind::Timeout | ErrorKind::Cancelled | ErrorKind::Internal
            ) =>
        {
            if effect == Effect::External {
                Settlement::Unknown
            } else {
                Settlement::Release
            }
        }
        Err(error) if error.retryable => Settlement::Release,
        outcome => Settlement::Done(StoredOutcome {
            tool: tool.to_owned(),
            outcome: outcome.clone(),
        }),
    }
}

/// The call's arguments as a JSON value: as read (after repairs), or as they arrived.
fn arguments_value(call: &ToolCall, normalized: Option<&Value>) -> Value {
    normalized
        .cloned()
        .unwrap_or_else(|| match &call.arguments {
            CallArguments::Value(value) => value.clone(),
            CallArguments::Json(json) => serde_json::from_str(json).unwrap_or(Value::Null),
        })
}

/// Seconds since the Unix epoch.
fn unix_seconds() -> u64 {
    crate::idempotency::unix_millis() / 1000
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
