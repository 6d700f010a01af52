//! Scheduling a batch by effect: consecutive reads run together, a write runs alone in
//! the order the model listed it (writes to different `#[arg(resource)]` values may
//! share a turn), destructive, external and unclassifiable calls run alone; a call that
//! ends the run (a final result) runs last. Results come
//! back in listed order, matched by call id, whatever finishes first; a cancelled batch
//! still answers every call.

use std::future::Future;
use std::sync::Mutex;

use futures_util::StreamExt as _;
use futures_util::future::select;

use super::Notes;
use super::gate::{Admitted, Gate};
use crate::call::{ToolCall, ToolResult};
use crate::context::Context;
use crate::effect::Effect;
use crate::error::{ErrorKind, ToolError};
use crate::registry::Registry;
use crate::tool::ToolOutput;

/// One call of a batch, after the checks.
struct Slot<'r> {
    call: ToolCall,
    notes: Notes<'r>,
    admitted: Option<Admitted<'r>>,
    /// A refusal at the gate.
    outcome: Option<Result<ToolOutput, ToolError>>,
    /// The result of a call that ran, answered (and recorded in the run's history) as
    /// soon as it finished, so a later call of the batch sees it.
    result: Option<ToolResult>,
}

impl Registry {
    /// Runs `calls` and returns their results in the order the calls were listed, each
    /// carrying its call's id. Consecutive read-only calls run concurrently (at most
    /// [`RegistryBuilder::with_max_concurrency`](crate::RegistryBuilder::with_max_concurrency) at a time); every other call runs alone, in
    /// listed order, except writes to different resources, which may share a turn.
    pub async fn dispatch_batch(&self, ctx: &Context, calls: Vec<ToolCall>) -> Vec<ToolResult> {
        self.dispatch_batch_until(ctx, calls, std::future::pending())
            .await
    }

    /// [`Registry::dispatch_batch`], stopped when `cancel` completes: every call that
    /// did not finish gets a `cancelled` result (the tools' futures are dropped).
    pub async fn dispatch_batch_until(
        &self,
        ctx: &Context,
        calls: Vec<ToolCall>,
        cancel: impl Future<Output = ()>,
    ) -> Vec<ToolResult> {
        // Every check first, in listed order: nothing runs before all are admitted.
        let slots: Vec<Slot<'_>> = calls
            .into_iter()
            .map(|call| self.admit_slot(ctx, call))
            .collect();
        let turns = plan_turns(&slots, |slot| {
            (slot.notes.entry)
                .and_then(|entry| self.extension_of(entry))
                .is_some_and(|extension| extension.ends_run())
        });
        let slots: Vec<Mutex<Slot<'_>>> = slots.into_iter().map(Mutex::new).collect();

        {
            let run_all = async {
                for (number, turn) in turns.iter().enumerate() {
                    let slots = &slots;
                    // By value (`copied`): a closure taking `&usize` would make this
                    // future `Send` only for one lifetime, and a batch inside a run that
                    // must be `Send` (a program's calls, `run_code`) would not compile.
                    let runs = turn.iter().copied().map(move |index: usize| {
                        let slot = &slots[index];
                        async move {
                            let (call, admitted, mut notes) = {
                                let mut guard =
                                    slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                                let Some(admitted) = guard.admitted.take() else {
                                    return;
                                };
                                (
                                    guard.call.clone(),
                                    admitted,
                                    std::mem::take(&mut guard.notes),
                                )
                            };
                            let span = notes.span.clone();
                            crate::telemetry::record(&span, "toolwright.batch.turn", number as i64);
                            let run = self.execute(ctx, &call, admitted, &mut notes);
                            let outcome =
                                tracing::Instrument::instrument(run.outcome(), span).await;
                            self.take_left_ticket(ctx, &call, &outcome, &mut notes);
                            let span = notes.span.clone();
                            let arguments = call.arguments;
                            let result = crate::telemetry::in_span!(
                                span,
                                self.finish((call.id, call.name, call.program), outcome, notes)
                            );
                            crate::history::record(
                                self.settings.run_history,
                                ctx,
                                &arguments,
                                &result,
                            );
                            let mut guard =
                                slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                            guard.result = Some(result);
                        }
                    });
                    futures_util::stream::iter(runs)
                        .buffer_unordered(self.settings.max_concurrency.max(1))
                        .collect::<Vec<()>>()
                        .await;
                }
            };
            let run_all = std::pin::pin!(run_all);
            let cancel = std::pin::pin!(cancel);
            // On cancel the unfinished runs are dropped with this scope; their slots
            // have no outcome and get `cancelled` below.
            let _ = select(run_all, cancel).await;
        }

        slots
            .into_iter()
            .map(|slot| self.answer_slot(ctx, slot))
            .collect()
    }

    /// One call of a batch through the gate.
    fn admit_slot<'r>(&'r self, ctx: &Context, call: ToolCall) -> Slot<'r> {
        let span = crate::telemetry::call_span(&call);
        let mut notes = Notes::new(span.clone());
        let (admitted, outcome) = match crate::telemetry::in_span!(span, {
            self.admit(ctx, &call, &mut notes, Gate::Full)
        }) {
            Ok(admitted) => (Some(admitted), None),
            Err(refusal) => (None, Some(Err(refusal))),
        };
        Slot {
            call,
            notes,
            admitted,
            outcome,
            result: None,
        }
    }

    /// The result of one call of a batch: its outcome, or `cancelled` when the batch
    /// stopped before it finished.
    fn answer_slot(&self, ctx: &Context, slot: Mutex<Slot<'_>>) -> ToolResult {
        let slot = slot
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(result) = slot.result {
            return result;
        }
        let outcome = slot.outcome.unwrap_or_else(|| {
            Err(ToolError::new(
                ErrorKind::Cancelled,
                format!(
                    "the batch was cancelled before '{}' finished",
                    slot.call.name
                ),
            )
            .with_hint("the call may or may not have taken effect; check before calling again"))
        });
        let span = slot.notes.span.clone();
        let result = crate::telemetry::in_span!(span, {
            self.finish(
                (slot.call.id, slot.call.name, slot.call.program),
                outcome,
                slot.notes,
            )
        });
        crate::history::record(
            self.settings.run_history,
            ctx,
            &slot.call.arguments,
            &result,
        );
        result
    }
}

/// Turns of admitted calls, in listed order: a turn of consecutive reads, a turn of
/// writes to pairwise different resources, or a turn of one call.
fn plan_turns<'r>(slots: &[Slot<'r>], ends_run: impl Fn(&Slot<'r>) -> bool) -> Vec<Vec<usize>> {
    #[derive(PartialEq)]
    enum Kind {
        Reads,
        Writes(Vec<String>),
        Alone,
    }
    let mut turns: Vec<(Kind, Vec<usize>)> = Vec::new();
    let mut last = Vec::new();
    for (index, slot) in slots.iter().enumerate() {
        let Some(admitted) = &slot.admitted else {
            continue;
        };
        if ends_run(slot) {
            last.push(index);
            continue;
        }
        // Only writes share a turn by resource; a single dispatch never asks.
        let resource = match admitted.effect {
            Effect::Write => (admitted.read.tool.hooks())
                .and_then(|hooks| hooks.resource_key(&admitted.read.prepared)),
            _ => None,
        };
        let joined = match (turns.last_mut(), admitted.effect, &resource) {
            (Some((Kind::Reads, members)), Effect::ReadOnly, _) => {
                members.push(index);
                true
            }
            (Some((Kind::Writes(resources), members)), Effect::Write, Some(resource))
                if !resources.contains(resource) =>
            {
                resources.push(resource.clone());
                members.push(index);
                true
            }
            _ => false,
        };
        if !joined {
            let kind = match (admitted.effect, &resource) {
                (Effect::ReadOnly, _) => Kind::Reads,
                (Effect::Write, Some(resource)) => Kind::Writes(vec![resource.clone()]),
                _ => Kind::Alone,
            };
            turns.push((kind, vec![index]));
        }
    }
    // A call that ends the run (a final result) after every other: what it checks has
    // happened.
    (turns.into_iter().map(|(_, members)| members))
        .chain(last.into_iter().map(|index| vec![index]))
        .collect()
}
