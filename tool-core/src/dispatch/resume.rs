//! Resuming a call a person decided: the ticket checked (signature, lifetime, caller,
//! digest), spent once in the idempotency store, and an approved call admitted again
//! past the policy and run.

use super::Notes;
use super::claim::{ClaimKey, Held};
use super::gate::{Gate, denied, unix_seconds};
use crate::approval::{ApprovalDecision, ApprovalTicket, TicketFault};
use crate::call::{CallArguments, ToolCall, ToolResult};
use crate::context::Context;
use crate::effect::Effect;
use crate::error::ToolError;
use crate::idempotency::scoped_key;
use crate::policy::Caller;
use crate::registry::Registry;
use crate::tool::ToolOutcome;

impl Registry {
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
        // A ticket an extension issued (a paused program's) resumes its built-in's call.
        if self
            .extensions()
            .any(|extension| extension.issues_tickets())
            && self.check_ticket(ctx, ticket, &decision).is_ok()
        {
            for extension in self.extensions().filter(|e| e.issues_tickets()) {
                if let Some(result) = extension.resume(self, ctx, ticket, &decision).await {
                    return result;
                }
            }
        }
        self.decide(ctx, ticket, decision, 0).await
    }

    /// Carries out `decision` on `ticket`'s call, as [`Registry::resume`] does for a
    /// plain tool. `again`: the how-manieth time the decision is carried out after the
    /// earlier ones were checked not to have taken effect (0 the first time), each under
    /// a ticket claim and an idempotency key of its own (suffixed `~again`).
    pub(crate) async fn decide(
        &self,
        ctx: &Context,
        ticket: &ApprovalTicket,
        decision: ApprovalDecision,
        again: u32,
    ) -> ToolResult {
        let mut call = ToolCall::new(
            ticket.call_id.clone(),
            ticket.tool.clone(),
            ticket.arguments.clone(),
        );
        call.origin.clone_from(&ticket.origin);
        call.idempotency_key = ticket.idempotency_key.as_ref().map(|key| match again {
            0 => key.clone(),
            again => format!("{key}~{again}"),
        });
        let span = crate::telemetry::call_span(&call);
        let mut notes = Notes::new(span.clone());
        let outcome =
            match crate::telemetry::in_span!(span, self.check_ticket(ctx, ticket, &decision)) {
                Err(refusal) => Err(refusal),
                Ok(()) => {
                    use tracing::Instrument as _;
                    self.decide_once(ctx, ticket, decision, &mut call, &mut notes, again)
                        .instrument(span.clone())
                        .await
                }
            };
        let result = crate::telemetry::in_span!(
            span,
            self.finish((call.id, call.name, call.program), outcome, notes)
        );
        crate::history::record(self.settings.run_history, ctx, &call.arguments, &result);
        result
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
    /// a second decision gets the first one's result. `again` as for [`Registry::decide`].
    pub(crate) async fn decide_once<'r>(
        &'r self,
        ctx: &Context,
        ticket: &ApprovalTicket,
        decision: ApprovalDecision,
        call: &mut ToolCall,
        notes: &mut Notes<'r>,
        again: u32,
    ) -> ToolOutcome {
        let again = (again > 0).then(|| again.to_string());
        let key = match &again {
            None => scoped_key(&[Some("ticket"), Some(&ticket.signature)]),
            Some(again) => scoped_key(&[Some("ticket"), Some(&ticket.signature), Some(again)]),
        };
        let claim = ClaimKey {
            key,
            digest: ticket.digest.clone(),
        };
        // The tool's time limit bounds the wait for a decision in flight.
        let limit = self
            .entry(&ticket.tool)
            .and_then(|entry| entry.settings.timeout);
        match self
            .claim(&claim, &ticket.tool, limit, "approval ticket")
            .await
        {
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
