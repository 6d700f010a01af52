//! The gate: every check a call goes through before it runs (effect, scopes, policy,
//! approval), and the dry run (every check, nothing runs). Resuming a call a person
//! decided is `resume.rs`.

use std::panic::AssertUnwindSafe;

use serde_json::Value;

use super::Notes;
use super::claim::ClaimKey;
use crate::approval::{ApprovalTicket, digest};
use crate::arguments::AsRead;
use crate::call::{DryRun, DryRunVerdict, ToolCall};
use crate::context::Context;
use crate::effect::Effect;
use crate::error::{ErrorKind, ToolError};
use crate::policy::{Caller, Decision, PolicyRequest, missing_scopes};
use crate::registry::{Entry, Registry};
use crate::spec::Via;
use crate::tool::{Prepared, Tool};

impl Registry {
    /// Every check a call goes through before it runs: lookup, arguments, effect,
    /// scopes, policy and (for [`Gate::Full`]) approval. `Err` is why the call does not
    /// run.
    #[inline]
    pub(super) fn admit<'r>(
        &'r self,
        ctx: &Context,
        call: &ToolCall,
        notes: &mut Notes<'r>,
        gate: Gate,
    ) -> Result<Admitted<'r>, ToolError> {
        let read = crate::telemetry::in_phase!(
            notes.span,
            "read_arguments",
            self.read_call(call, &mut notes.repairs, Some(ctx))
        )?;
        notes.entry = Some(read.entry);
        let effect = effect_of(read.tool, read.spec, &read.prepared);
        notes.effect = Some(effect);
        crate::telemetry::record_call(&notes.span, &self.settings.telemetry, read.tool, call);
        crate::telemetry::record(&notes.span, "toolwright.effect.classified", effect.as_str());
        let caller = ctx.get::<Caller>();
        crate::telemetry::in_phase!(
            notes.span,
            "policy",
            self.check_caller(call, &read, effect, caller, notes, gate)
        )?;
        let claim = read.spec.needs_idempotency_key(effect).then(|| {
            let arguments = read.arguments.to_value(call);
            ClaimKey::for_call(&read.spec.name, call, caller, &arguments)
        });
        Ok(Admitted {
            read,
            effect,
            claim,
            approved: gate == Gate::Approved,
        })
    }

    /// The checks after the arguments: scopes, and (for [`Gate::Full`]) the policy and
    /// the approval rules. `Err` is why the call does not run.
    #[inline]
    fn check_caller(
        &self,
        call: &ToolCall,
        read: &ReadCall<'_>,
        effect: Effect,
        caller: Option<&Caller>,
        notes: &mut Notes<'_>,
        gate: Gate,
    ) -> Result<(), ToolError> {
        let ReadCall {
            entry,
            tool,
            spec,
            prepared,
            arguments: read_arguments,
        } = read;
        let (tool, spec) = (*tool, *spec);
        // Scopes are the caller's credentials: checked on every path, approved or not.
        check_scopes(spec, caller).inspect_err(|_| {
            crate::telemetry::record(&notes.span, "toolwright.policy.decision", "deny");
        })?;
        if gate == Gate::Approved {
            return Ok(());
        }
        let request = PolicyRequest {
            tool: spec,
            effect,
            arguments: read_arguments.arguments(call),
            caller,
            call_id: &call.id,
        };
        let needed = approval_needed(&*entry.settings.policy, tool, prepared, &request);
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
        let arguments = read_arguments.to_value(call);
        let ticket = self.issue_ticket(call, &spec.name, arguments, &reason, caller);
        notes.ticket = Some(Box::new(ticket));
        Err(ToolError::new(ErrorKind::AwaitingApproval, format!("'{}' needs a person's approval: {reason}", spec.name))
            .with_retryable(false)
            .with_hint("the call is paused, not failed: tell the user what you want to do and wait for their decision"))
    }

    /// A signed ticket for `call`, which waits for a person's decision.
    pub(super) fn issue_ticket(
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

    /// Every check a call would go through (lookup, arguments, scopes, policy,
    /// approval), and what it would do; nothing runs and nothing changes.
    pub fn dry_run(&self, ctx: &Context, call: &ToolCall) -> DryRun {
        let mut notes = Notes::default();
        let verdict = match self.admit(ctx, call, &mut notes, Gate::Full) {
            Ok(admitted) => {
                let description = admitted
                    .read
                    .tool
                    .hooks()
                    .and_then(|hooks| hooks.describe_call(&admitted.read.prepared))
                    .unwrap_or_else(|| {
                        let arguments = admitted.read.arguments.to_text(call);
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
}

/// What the policy decides (a policy that errs or panics denies: it fails closed),
/// and then the tool's own approval rule: `Some(reason)` when a person must approve.
#[inline]
fn approval_needed(
    policy: &dyn crate::policy::Policy,
    tool: &dyn Tool,
    prepared: &Prepared,
    request: &PolicyRequest<'_>,
) -> Result<Option<String>, ToolError> {
    let decision = match std::panic::catch_unwind(AssertUnwindSafe(|| policy.decide(request))) {
        Ok(Ok(decision)) => decision,
        Ok(Err(error)) => Decision::deny(format!("the policy could not decide: {error}")),
        Err(_) => Decision::deny("the policy failed while deciding"),
    };
    match decision {
        Decision::Allow => Ok(tool
            .hooks()
            .and_then(|hooks| hooks.approval_reason(prepared))),
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

impl Registry {
    /// Looks the tool up as the caller in `ctx` sees the registry, and reads the
    /// arguments.
    #[inline]
    pub(super) fn read_call(
        &self,
        call: &ToolCall,
        repairs: &mut Vec<String>,
        ctx: Option<&Context>,
    ) -> Result<ReadCall<'_>, ToolError> {
        if let Some(reason) = &call.cut {
            let written = call.arguments.to_json_text().len();
            return Err(crate::call::cut_off(&call.name, reason, written));
        }
        let entry = self.lookup(ctx, &call.name)?;
        let tool = &*entry.tool;
        let spec = tool.spec();
        if !spec.offered_via(call.via) {
            return Err(not_offered_via(spec, call.via));
        }
        let limits = crate::arguments::Limits {
            max_bytes: self.settings.max_argument_bytes,
            repair: self.settings.repair,
        };
        let (prepared, arguments) = crate::arguments::read(tool, spec, call, limits, repairs)?;
        Ok(ReadCall {
            entry,
            tool,
            spec,
            prepared,
            arguments,
        })
    }
}

/// A call whose tool was found and whose arguments were read.
pub(super) struct ReadCall<'r> {
    pub(super) entry: &'r Entry,
    pub(super) tool: &'r dyn Tool,
    /// The tool's spec (asked of the tool once per call).
    pub(super) spec: &'r crate::spec::ToolSpec,
    pub(super) prepared: Prepared,
    /// The arguments as read.
    pub(super) arguments: AsRead,
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

/// A call past every check, ready to run: its tool, entry and arguments as read, its
/// effect, and the key it claims when its side effects must not happen twice.
pub(super) struct Admitted<'r> {
    pub(super) read: ReadCall<'r>,
    pub(super) effect: Effect,
    pub(super) claim: Option<ClaimKey>,
    /// A person approved this exact call.
    pub(super) approved: bool,
}

/// The effect of this call: the declared one, or (for a dynamic tool) the classifier's,
/// the riskiest class when it cannot say or panics.
#[inline]
fn effect_of(tool: &dyn Tool, spec: &crate::spec::ToolSpec, prepared: &Prepared) -> Effect {
    match spec.effect {
        Effect::Dynamic => {
            let classified = AssertUnwindSafe(|| tool.hooks().and_then(|h| h.effect_of(prepared)));
            match std::panic::catch_unwind(classified) {
                Ok(None | Some(Effect::Dynamic)) | Err(_) => Effect::RISKIEST,
                Ok(Some(effect)) => effect,
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

/// Seconds since the Unix epoch.
pub(super) fn unix_seconds() -> u64 {
    crate::idempotency::unix_millis() / 1000
}

/// The refusal of a call from a caller the tool is not offered to (`#[tool(callers)]`),
/// before its arguments are read.
#[cold]
fn not_offered_via(spec: &crate::spec::ToolSpec, via: Via) -> ToolError {
    match via {
        Via::Code => denied(
            format!(
                "'{}' is not offered to programs: the model calls it directly, as a tool of its own",
                spec.name
            ),
            false,
            "finish the program with what it has, and call this tool outside it",
        ),
        Via::HostedCode => denied(
            format!(
                "'{}' is not offered to the provider's code execution",
                spec.name
            ),
            false,
            if spec.offered_via(Via::Model) {
                "finish the program with what it has, and call this tool outside it, as a tool of its own"
            } else {
                "call it from a program you run with the code tool (run_code)"
            },
        ),
        Via::Model => denied(
            format!(
                "'{}' is offered only to programs: call it from code, not as a tool of its own",
                spec.name
            ),
            false,
            "call it inside the program you run with the code tool",
        ),
    }
}

/// A `denied` error.
pub(super) fn denied(message: impl Into<String>, retryable: bool, hint: &str) -> ToolError {
    ToolError::new(ErrorKind::Denied, message)
        .with_retryable(retryable)
        .with_hint(hint)
}
