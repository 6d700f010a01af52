//! A program that waits for a person: when a call it made needs approval, the run stops
//! at that point, the interpreter's state goes to the idempotency store (so any replica
//! sharing the store and the approval secret can go on with it), and `run_code` answers
//! `awaiting_approval` with the nested call's ticket. Resuming that ticket decides the
//! call once, hands its result (or a `PermissionError` when declined) to the program and
//! runs it on; the calls it made before the pause do not run again.
//!
//! The state never leaves the server: the ticket names it (by its signature), so a
//! client cannot hand back a state of its own; a forged, expired or foreign ticket is
//! refused before the state is read, and a second decision gets the first one's result.

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::run::{Asking, Ended, MadeCall, Origin, Resolution, Run, Tally};
use crate::approval::{ApprovalDecision, ApprovalTicket};
use crate::call::{ToolCall, ToolResult};
use crate::context::Context;
use crate::dispatch::Notes;
use crate::dispatch::claim::{ClaimKey, Held};
use crate::error::{ErrorKind, ToolError};
use crate::idempotency::{Claim, ClaimRequest, Settlement, StoredOutcome, scoped_key};
use crate::registry::Registry;
use crate::spec::Via;
use crate::tool::{ToolFuture, ToolOutcome, ToolOutput};

/// A paused program, as kept in the store.
#[derive(Serialize, Deserialize)]
struct Paused {
    origin: Origin,
    /// `run_code`'s name.
    tool: String,
    tally: Tally,
    /// The interpreter, waiting for the calls of one batch (its own serde form, as
    /// bytes: from this process or a worker's alike).
    state: Vec<u8>,
    /// The batch's calls that ran, with their results.
    resolved: Vec<(u32, Resolution)>,
    /// The call the person decides.
    decided: MadeCall,
    /// The batch's other calls that asked for approval: made again when the program goes
    /// on (they ask again, one at a time).
    again: Vec<MadeCall>,
}

/// The store key a paused program is kept under: named by its ticket.
fn kept_under(ticket: &ApprovalTicket) -> ClaimKey {
    ClaimKey {
        key: scoped_key(&[Some("code-paused"), Some(&ticket.signature)]),
        digest: ticket.digest.clone(),
    }
}

/// The outcome of a run that `ended`: its own, or the pause's.
pub(super) async fn settle(run: &mut Run<'_>, ended: Ended) -> ToolOutcome {
    match ended {
        Ended::Done(outcome) => outcome,
        Ended::Asking(asking) => pause(run, asking).await,
    }
}

/// Stops `run` where it asks: keeps the program in the store, leaves the ticket of the
/// first call that asked for `run`'s result, and answers `awaiting_approval`.
async fn pause(run: &mut Run<'_>, asking: Box<Asking>) -> ToolOutcome {
    let Asking { due, results } = *asking;
    let asking = results
        .iter()
        .position(|result| result.ticket.is_some())
        .unwrap_or(0);
    let Some(ticket) = results.get(asking).and_then(|result| result.ticket.clone()) else {
        return Err(ToolError::internal("a pause without a ticket"));
    };
    let mut resolved = Vec::new();
    let mut again = Vec::new();
    let mut decided = None;
    for (index, (made, result)) in due.into_iter().zip(&results).enumerate() {
        if index == asking {
            decided = Some(made);
        } else if result.ticket.is_some() {
            again.push(made);
        } else {
            resolved.push((made.future.unwrap_or(u32::MAX), run.resolution(result)));
        }
    }
    let Some(decided) = decided else {
        return Err(ToolError::internal("a pause without its call"));
    };
    let question = format!(
        "the program paused: '{}' needs a person's approval ({}). It waits for a decision on this call: {}({})",
        ticket.tool, ticket.reason, ticket.tool, ticket.arguments
    );
    let waiting = match run
        .interpreter
        .as_mut()
        .map(|interpreter| interpreter.keep())
    {
        Some(Ok(state)) => state,
        Some(Err(why)) => {
            return Err(ToolError::internal(format!(
                "the program paused for approval and its interpreter could not be kept ({why}); it did not go on"
            ))
            .with_retryable(false));
        }
        None => return Err(ToolError::internal("a pause without its interpreter")),
    };
    let paused = Paused {
        origin: run.origin.clone(),
        tool: run.call.name.clone(),
        tally: std::mem::take(&mut run.tally),
        state: waiting,
        resolved,
        decided,
        again,
    };
    let kept = postcard::to_allocvec(&paused)
        .map(|bytes| base64::engine::general_purpose::STANDARD.encode(bytes))
        .map_err(|error| error.to_string());
    let kept = match kept {
        Ok(text) => keep(run.registry, &ticket, &paused.tool, text).await,
        Err(why) => Err(why),
    };
    if let Err(why) = kept {
        return Err(ToolError::internal(format!(
            "the program paused for approval and could not be kept ({why}); it did not go on"
        ))
        .with_retryable(false));
    }
    run.code.left.leave(run.call, ticket);
    Err(ToolError::new(ErrorKind::AwaitingApproval, question)
        .with_retryable(false)
        .with_hint("the program is paused, not failed: tell the user what it wants to do and wait for their decision; it goes on from where it stopped"))
}

/// Writes a paused program (`text`, its state in base64) under its ticket.
async fn keep(
    registry: &Registry,
    ticket: &ApprovalTicket,
    tool: &str,
    text: String,
) -> Result<(), String> {
    let under = kept_under(ticket);
    let idempotency = &registry.settings.idempotency;
    let store = idempotency.store();
    // Kept as long as the ticket is accepted.
    let retention = registry.settings.approvals.lifetime + std::time::Duration::from_secs(3600);
    let request = ClaimRequest {
        key: &under.key,
        digest: &under.digest,
        tool,
        lease: idempotency.lease,
        retention,
    };
    match store
        .claim(request)
        .await
        .map_err(|error| error.to_string())?
    {
        Claim::Claimed => {}
        other => return Err(format!("its key was taken ({other:?})")),
    }
    let stored = StoredOutcome {
        tool: tool.to_owned(),
        outcome: Ok(ToolOutput::Text(text)),
    };
    store
        .settle(
            &under.key,
            &under.digest,
            Settlement::Done(stored),
            retention,
        )
        .await
        .map_err(|error| error.to_string())
}

/// The program paused under `ticket`: `Ok(None)` when there is none (the ticket is a
/// direct call's).
async fn load(
    registry: &Registry,
    code: &super::Code,
    ticket: &ApprovalTicket,
) -> Result<Option<Paused>, String> {
    let under = kept_under(ticket);
    let idempotency = &registry.settings.idempotency;
    let store = idempotency.store();
    let tool = code.mode.tool_name();
    let request = ClaimRequest {
        key: &under.key,
        digest: &under.digest,
        tool,
        lease: idempotency.lease,
        retention: idempotency.retention_for_store(),
    };
    match store
        .claim(request)
        .await
        .map_err(|error| error.to_string())?
    {
        Claim::Done(StoredOutcome {
            outcome: Ok(ToolOutput::Text(text)),
            ..
        }) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|error| error.to_string())?;
            postcard::from_bytes(&bytes)
                .map(Some)
                .map_err(|error| format!("the kept state does not read back: {error}"))
        }
        Claim::Claimed => {
            // Nothing was kept: the claim just made is given back.
            store
                .settle(
                    &under.key,
                    &under.digest,
                    Settlement::Release,
                    idempotency.retention,
                )
                .await
                .map_err(|error| error.to_string())?;
            Ok(None)
        }
        _ => Ok(None),
    }
}

/// `Registry::resume` for a ticket a paused program issued: decides its call once and
/// runs the program on. `None` when the ticket is not a paused program's.
pub(super) async fn resume_paused(
    code: &super::Code,
    registry: &Registry,
    ctx: &Context,
    ticket: &ApprovalTicket,
    decision: &ApprovalDecision,
) -> Option<ToolResult> {
    {
        let paused = match load(registry, code, ticket).await {
            Ok(paused) => paused?,
            Err(why) => {
                let outer =
                    ToolCall::new(ticket.call_id.clone(), code.mode.tool_name(), Value::Null);
                let error = ToolError::internal(format!(
                    "the paused program could not be read ({why}), so nothing ran"
                ))
                .with_retryable(true);
                return Some(registry.finish(
                    (outer.id, outer.name, None),
                    Err(error),
                    Notes::default(),
                ));
            }
        };
        let mut outer = ToolCall::new(paused.origin.id.clone(), paused.tool.clone(), Value::Null);
        outer.origin.clone_from(&paused.origin.origin);
        let span = crate::telemetry::call_span(&outer);
        let mut notes = Notes::new(span.clone());
        notes.entry = registry.entry(&paused.tool);
        let effect = notes
            .entry
            .map_or(crate::effect::Effect::RISKIEST, |entry| {
                entry.tool.spec().effect
            });
        notes.effect = Some(effect);
        // The program goes on once: a second decision gets the first one's result.
        let once = ClaimKey {
            key: scoped_key(&[Some("code-resumed"), Some(&ticket.signature)]),
            digest: ticket.digest.clone(),
        };
        let outcome = match registry
            .claim(&once, &paused.tool, None, "approval ticket")
            .await
        {
            Err(Held::Done(stored)) => {
                notes.duplicate = true;
                stored.outcome
            }
            Err(Held::Refused(refusal)) => Err(refusal),
            Ok(()) => {
                let going_on = go_on(registry, ctx, code, ticket, decision, paused, &outer);
                let going_on = tracing::Instrument::instrument(going_on, span.clone());
                let run = crate::dispatch::Run::Running(ToolFuture::new(going_on));
                let outcome = registry.holding(&once, run).await;
                registry.record(&once, &outer.name, effect, &outcome).await;
                outcome
            }
        };
        registry.take_left_ticket(ctx, &outer, &outcome, &mut notes);
        Some(crate::telemetry::in_span!(
            span,
            registry.finish((outer.id.clone(), outer.name.clone(), None), outcome, notes)
        ))
    }
}

/// Decides the paused call and runs the program on from the pause.
async fn go_on<'a>(
    registry: &'a Registry,
    ctx: &'a Context,
    code: &'a super::Code,
    ticket: &'a ApprovalTicket,
    decision: &'a ApprovalDecision,
    paused: Paused,
    outer: &'a ToolCall,
) -> ToolOutcome {
    let Paused {
        origin,
        tally,
        state,
        mut resolved,
        decided,
        again,
        ..
    } = paused;
    // The call as the ticket has it (its arguments as validated), made by the program.
    let mut call = ToolCall::new(
        ticket.call_id.clone(),
        ticket.tool.clone(),
        ticket.arguments.clone(),
    )
    .made_via(Via::Code);
    call.origin.clone_from(&ticket.origin);
    call.idempotency_key.clone_from(&ticket.idempotency_key);
    if call.id != decided.id {
        return Err(
            ToolError::internal("the ticket is not the paused call's").with_retryable(false)
        );
    }
    let span = crate::telemetry::call_span(&call);
    let mut notes = Notes::new(span.clone());
    let outcome = tracing::Instrument::instrument(
        registry.decide_once(ctx, ticket, decision.clone(), &mut call, &mut notes, 0),
        span.clone(),
    )
    .await;
    let result = crate::telemetry::in_span!(
        span,
        registry.finish((call.id.clone(), call.name.clone(), None), outcome, notes)
    );
    let mut run = Run::new(registry, ctx, code, outer, origin);
    run.tally = tally;
    run.tally.pending.extend(again);
    resolved.push((decided.future.unwrap_or(u32::MAX), run.resolution(&result)));
    // The batch's results go in one at a time, the decided call's first.
    resolved.reverse();
    run.tally.ready.extend(resolved);
    let budget = run.budget();
    let (interpreter, stop) =
        super::isolation::Interpreter::resumed(code, state, &budget, &mut run.tally.printed);
    run.interpreter = Some(interpreter);
    let ended = run.drive(stop).await;
    settle(&mut run, ended).await
}

/// Approval tickets paused programs leave for their `run_code` calls' results (the
/// tool's outcome has no room for one). Keyed by the address of the call, which is alive
/// and pinned while it runs, and checked against its id: a ticket a dropped run left
/// behind never reaches a later call that happens to sit at the same address.
#[derive(Default)]
pub(super) struct LeftTickets(std::sync::Mutex<Vec<(usize, Box<ApprovalTicket>)>>);

impl LeftTickets {
    fn slot(call: &ToolCall) -> usize {
        std::ptr::from_ref(call) as usize
    }

    /// Leaves `ticket` for `call`'s result.
    fn leave(&self, call: &ToolCall, ticket: Box<ApprovalTicket>) {
        let mut left = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        left.push((Self::slot(call), ticket));
    }

    /// The ticket left for `call`, if any.
    pub(super) fn take(&self, call: &ToolCall) -> Option<Box<ApprovalTicket>> {
        let mut left = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // The nested ticket's id is the run's id, `/`, the call's number.
        let index = left.iter().position(|(slot, ticket)| {
            *slot == Self::slot(call) && ticket.call_id.starts_with(&format!("{}/", call.id))
        })?;
        Some(left.swap_remove(index).1)
    }
}
