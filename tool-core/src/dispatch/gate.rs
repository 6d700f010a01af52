//! The gate: every check a call goes through before it runs (effect, scopes, policy,
//! approval), and the two ways around a plain dispatch: a dry run (every check, nothing
//! runs) and resuming a call a person decided.

use std::panic::AssertUnwindSafe;

use serde_json::Value;

use super::claim::{ClaimKey, Held};
use super::{CallArguments, DryRun, DryRunVerdict, Notes, ToolCall, ToolResult};
use crate::approval::{ApprovalDecision, ApprovalTicket, TicketFault, digest};
use crate::context::Context;
use crate::effect::Effect;
use crate::error::{ErrorKind, ToolError};
use crate::idempotency::scoped_key;
use crate::policy::{Caller, Decision, PolicyRequest, missing_scopes};
use crate::registry::Registry;
use crate::tool::{Arguments, Prepared, Tool, ToolOutcome};

impl Registry {
    /// Every check a call goes through before it runs: lookup, arguments, effect,
    /// scopes, policy and (for [`Gate::Full`]) approval. `Err` is why the call does not
    /// run.
    #[inline]
    pub(super) fn admit<'r>(
        &'r self,
        ctx: &Context,
        call: &ToolCall,
        notes: &mut Notes,
        gate: Gate,
    ) -> Result<Admitted<'r>, ToolError> {
        let crate::arguments::ReadCall {
            tool,
            spec,
            prepared,
            normalized,
        } = crate::telemetry::in_phase!(
            notes.span,
            "read_arguments",
            self.read_call(call, &mut notes.repairs, Some(ctx))
        )?;
        let effect = effect_of(tool, spec, &prepared);
        notes.effect = Some(effect);
        crate::telemetry::record_call(&notes.span, &self.settings.telemetry, tool, call);
        crate::telemetry::record(&notes.span, "toolwright.effect.classified", effect.as_str());
        let caller = ctx.get::<Caller>();
        let read = Read {
            tool,
            spec,
            prepared: &prepared,
            normalized: normalized.as_deref(),
            effect,
            caller,
        };
        crate::telemetry::in_phase!(
            notes.span,
            "policy",
            self.check_caller(call, &read, notes, gate)
        )?;
        let claim = spec.needs_idempotency_key(effect).then(|| {
            let arguments = arguments_value(call, normalized.as_deref());
            ClaimKey::for_call(&spec.name, call, caller, &arguments)
        });
        Ok(Admitted {
            tool,
            spec,
            prepared,
            normalized,
            effect,
            claim,
        })
    }

    /// The checks after the arguments: scopes, and (for [`Gate::Full`]) the policy and
    /// the approval rules. `Err` is why the call does not run.
    #[inline]
    fn check_caller(
        &self,
        call: &ToolCall,
        read: &Read<'_>,
        notes: &mut Notes,
        gate: Gate,
    ) -> Result<(), ToolError> {
        let Read {
            tool,
            spec,
            prepared,
            normalized,
            effect,
            caller,
        } = *read;
        // Scopes are the caller's credentials: checked on every path, approved or not.
        check_scopes(spec, caller).inspect_err(|_| {
            crate::telemetry::record(&notes.span, "toolwright.policy.decision", "deny");
        })?;
        if gate == Gate::Approved {
            return Ok(());
        }
        let arguments = match normalized {
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
        let needed = self.approval_needed(tool, prepared, &request);
        let decision = match &needed {
            Ok(None) => "allow",
            Ok(Some(_)) => "ask",
            Err(_) => "deny",
        };
        crate::telemetry::record(&notes.span, "toolwright.policy.decision", decision);
        let Some(reason) = needed? else {
            return Ok(());
        };
        crate::telemetry::record(&notes.span, "toolwright.approval.asked", true);
        let arguments = arguments_value(call, normalized);
        let ticket = self.issue_ticket(call, &spec.name, arguments, &reason, caller);
        notes.ticket = Some(Box::new(ticket));
        Err(ToolError::new(ErrorKind::AwaitingApproval, format!("'{}' needs a person's approval: {reason}", spec.name))
            .with_retryable(false)
            .with_hint("the call is paused, not failed: tell the user what you want to do and wait for their decision"))
    }

    /// What the policy decides (a policy that errs or panics denies: it fails closed),
    /// and then the tool's own approval rule: `Some(reason)` when a person must approve.
    #[inline]
    fn approval_needed(
        &self,
        tool: &dyn Tool,
        prepared: &Prepared,
        request: &PolicyRequest<'_>,
    ) -> Result<Option<String>, ToolError> {
        let policy = self.policy_for(&request.tool.name);
        let decision = match std::panic::catch_unwind(AssertUnwindSafe(|| policy.decide(request))) {
            Ok(Ok(decision)) => decision,
            Ok(Err(error)) => Decision::deny(format!("the policy could not decide: {error}")),
            Err(_) => Decision::deny("the policy failed while deciding"),
        };
        match decision {
            Decision::Allow => Ok(tool.approval_reason(prepared)),
            Decision::Ask { reason } => Ok(Some(reason)),
            Decision::Deny {
                reason,
                retry_may_help,
            } => {
                let hint = if retry_may_help {
                    "this may be allowed later; ask the user"
                } else {
                    "do not retry this call; tell the user it was refused"
                };
                Err(denied(reason, retry_may_help, hint))
            }
        }
    }

    /// A signed ticket for `call`, which waits for a person's decision.
    fn issue_ticket(
        &self,
        call: &ToolCall,
        tool: &str,
        arguments: Value,
        reason: &str,
        caller: Option<&Caller>,
    ) -> ApprovalTicket {
        let issued_at = unix_seconds();
        let lifetime = self.settings.approvals.lifetime.as_secs();
        let mut ticket = ApprovalTicket {
            call_id: call.id.clone(),
            tool: tool.to_owned(),
            digest: digest(tool, &arguments),
            arguments,
            reason: reason.to_owned(),
            caller: caller.map(|caller| caller.id.clone()),
            origin: call.origin.clone(),
            idempotency_key: call.idempotency_key.clone(),
            issued_at,
            expires_at: issued_at.saturating_add(lifetime),
            signature: String::new(),
        };
        self.settings.approvals.sign(&mut ticket);
        ticket
    }

    #[inline]
    pub(super) fn policy_for(&self, tool: &str) -> &dyn crate::policy::Policy {
        match self
            .tool_settings(tool)
            .and_then(|settings| settings.policy.as_ref())
        {
            Some(policy) => &**policy,
            None => &*self.settings.policy,
        }
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
        let span = crate::telemetry::call_span(&call);
        let mut notes = Notes::new(span.clone());
        let outcome =
            match crate::telemetry::in_span!(span, self.check_ticket(ctx, ticket, &decision)) {
                Err(refusal) => Err(refusal),
                Ok(()) => {
                    use tracing::Instrument as _;
                    self.decide_once(ctx, ticket, decision, &mut call, &mut notes)
                        .instrument(span.clone())
                        .await
                }
            };
        crate::telemetry::in_span!(span, self.finish(call.id, call.name, outcome, notes))
    }

    /// Why `ticket` cannot be decided by the caller in `ctx` with `decision`, if it cannot.
    pub(crate) fn check_ticket(
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
    pub(super) async fn decide_once(
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
}

/// How much of the gate a call goes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Scopes, policy and approval.
    Full,
    /// A person approved this exact call: arguments and scopes are checked again, the
    /// policy and approval rules are not.
    Approved,
}

/// What the checks after the arguments look at.
#[derive(Clone, Copy)]
struct Read<'a> {
    tool: &'a dyn Tool,
    spec: &'a crate::spec::ToolSpec,
    prepared: &'a Prepared,
    /// The arguments as read, when they differ from the call's.
    normalized: Option<&'a Value>,
    effect: Effect,
    caller: Option<&'a Caller>,
}

/// A call past every check, ready to run.
pub(super) struct Admitted<'r> {
    pub(super) tool: &'r dyn Tool,
    pub(super) spec: &'r crate::spec::ToolSpec,
    pub(super) prepared: Prepared,
    /// The arguments as read after repairs and decoding, when they differ from the call's.
    /// (Boxed: rare, and the largest field otherwise.)
    pub(super) normalized: Option<Box<Value>>,
    pub(super) effect: Effect,
    /// The key a call with side effects that must not happen twice claims before it runs.
    pub(super) claim: Option<ClaimKey>,
}

/// The call's arguments as a JSON value: as read (after repairs), or as they arrived.
/// The effect of this call: the declared one, or (for a dynamic tool) the classifier's,
/// the riskiest class when it cannot say or panics.
#[inline]
fn effect_of(tool: &dyn Tool, spec: &crate::spec::ToolSpec, prepared: &Prepared) -> Effect {
    match spec.effect {
        Effect::Dynamic => {
            match std::panic::catch_unwind(AssertUnwindSafe(|| tool.effect_of(prepared))) {
                Ok(Effect::Dynamic) | Err(_) => Effect::RISKIEST,
                Ok(effect) => effect,
            }
        }
        declared => declared,
    }
}

/// A denial naming every scope the tool needs and the caller lacks.
#[inline]
fn check_scopes(spec: &crate::spec::ToolSpec, caller: Option<&Caller>) -> Result<(), ToolError> {
    if spec.scopes.is_empty() {
        return Ok(());
    }
    let missing = missing_scopes(spec, caller);
    if missing.is_empty() {
        return Ok(());
    }
    Err(denied(
        format!(
            "'{}' needs the scope{} {}, which the caller does not hold",
            spec.name,
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ")
        ),
        false,
        "ask the user to grant the scope; calling again will not help until then",
    ))
}

pub(super) fn arguments_value(call: &ToolCall, normalized: Option<&Value>) -> Value {
    normalized
        .cloned()
        .unwrap_or_else(|| match &call.arguments {
            CallArguments::Value(value) => value.clone(),
            CallArguments::Json(json) => serde_json::from_str(json).unwrap_or(Value::Null),
        })
}

/// Seconds since the Unix epoch.
pub(super) fn unix_seconds() -> u64 {
    crate::idempotency::unix_millis() / 1000
}

/// A `denied` error.
pub(super) fn denied(message: impl Into<String>, retryable: bool, hint: &str) -> ToolError {
    ToolError::new(ErrorKind::Denied, message)
        .with_retryable(retryable)
        .with_hint(hint)
}
