//! Tool calls as journaled steps of a [Restate](https://restate.dev) handler (feature
//! `restate`): a run that lasts hours, waits overnight for a person and survives crashes
//! and machines, with every effect once.
//!
//! [`Journal::dispatch`] runs a call through the registry inside Restate's `ctx.run`, so
//! its result is in the invocation's journal: when Restate replays the handler after a
//! crash, the recorded result is served and the tool does not run again. A call whose
//! process died after it started and before its result was journaled is in doubt, and
//! its tool's effect decides, as for a task (`guide::tasks`): a `read_only` or idempotent
//! call, or one that claims its idempotency key, runs again (the key is the run's and the
//! call's, the same on every attempt, so the claim answers it); another `write`,
//! `destructive` or `external` call, or a keyed one whose claim lapsed without an
//! outcome, asks the tool's reconciliation when it has one (and runs again, under a key
//! of its own, only when the world says it did not happen), and otherwise ends "outcome
//! unknown", never run a second time.
//!
//! [`Journal::dispatch_batch`] runs a model turn's calls scheduled by effect, as
//! [`Registry::dispatch_batch`] does: consecutive `read_only` calls together, as one
//! step; every other call alone, in the order listed.
//!
//! A call that needs approval waits on a Restate awakeable: the handler is suspended
//! (a waiting run costs nothing), the awakeable's id and the signed ticket are handed to
//! [`Journal::on_approval`] once, and whoever decides, from any process or machine,
//! resolves the awakeable with the [`ApprovalDecision`] as JSON (Restate's ingress:
//! `POST /restate/awakeables/{id}/resolve`). The decided call runs once, journaled too.
//!
//! The registry must sign tickets with a fixed secret
//! ([`RegistryBuilder::with_approval_secret`](crate::RegistryBuilder::with_approval_secret)):
//! the process that resumes a run after a crash is not the one that issued its tickets.
//!
//! A journal entry is a message to the Restate server, and the server refuses messages
//! over its `worker.invoker.message-size-limit` (32 MiB by default; it warns from 10 MiB).
//! A result's model view is bounded by the tool's output budget; keep full outputs out
//! of the journal with an artifact store
//! ([`RegistryBuilder::with_artifact_store`](crate::RegistryBuilder::with_artifact_store)).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use restate_sdk::context::{ContextAwakeables, ContextSideEffects, RunFuture};
use restate_sdk::errors::{HandlerResult, TerminalError};
use restate_sdk::serde::Json;
use serde::{Deserialize, Serialize};

use crate::approval::{ApprovalDecision, ApprovalTicket};
use crate::call::{ToolCall, ToolResult};
use crate::context::Context;
use crate::dispatch::in_doubt::{self, InDoubt};
use crate::effect::Effect;
use crate::error::{ErrorKind, ToolError};
use crate::output::ModelView;
use crate::registry::Registry;
use crate::tool::{Reconciled, ToolOutput};

/// Who is told that a call waits for a person: the awakeable to resolve, and the ticket
/// to show. Called once per ticket, as a journaled step of its own.
pub type OnApproval = Arc<dyn Fn(&str, &ApprovalTicket) + Send + Sync>;

/// A step's work, boxed so the step's closure has one plain type.
pub type Work<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// A registry's calls, journaled in one Restate run.
#[derive(Clone)]
pub struct Journal {
    registry: Arc<Registry>,
    ctx: Arc<Context>,
    run: String,
    on_approval: Option<OnApproval>,
    max_entry_bytes: usize,
}

/// The largest result a [`Journal`] records by default: below the 10 MiB at which the
/// Restate server warns, and the 32 MiB it refuses.
pub const MAX_ENTRY_BYTES: usize = 8 << 20;

impl Journal {
    /// Calls of `registry` in the run named `run` (a workflow's key, an invocation id:
    /// the same on every attempt of the run, and not shared with another run), with the
    /// context `ctx`.
    pub fn new(registry: Arc<Registry>, ctx: Arc<Context>, run: impl Into<String>) -> Self {
        Self {
            registry,
            ctx,
            run: run.into(),
            on_approval: None,
            max_entry_bytes: MAX_ENTRY_BYTES,
        }
    }

    /// Who is told that a call waits for approval (say, a row in your approvals table,
    /// or a message to the person): the awakeable id to resolve and the ticket. Without
    /// it, a call that needs approval ends `awaiting_approval`, its ticket on the result,
    /// for the run to handle.
    pub fn on_approval(
        mut self,
        on_approval: impl Fn(&str, &ApprovalTicket) + Send + Sync + 'static,
    ) -> Self {
        self.on_approval = Some(Arc::new(on_approval));
        self
    }

    /// The largest result, as JSON, a step records (default [`MAX_ENTRY_BYTES`]; keep it
    /// under the server's `worker.invoker.message-size-limit`). A larger one is recorded
    /// as an error saying the call ran and its result was not kept: keep full outputs out
    /// of results with an artifact store, or lower the tool's output budget.
    pub fn max_entry_bytes(mut self, bytes: usize) -> Self {
        self.max_entry_bytes = bytes;
        self
    }

    /// Runs `call` as journaled steps of the handler whose context is `restate`: its
    /// result from the journal when an earlier attempt recorded it, else decided as the
    /// module says. An error only when Restate itself fails the step.
    ///
    /// The future is boxed: a handler's future must be `Send` for every lifetime of its
    /// context, which rustc cannot prove of nested generic futures (rust#100013).
    pub fn dispatch<'a, 'ctx, C>(
        &'a self,
        restate: &'a C,
        call: ToolCall,
    ) -> Pin<Box<dyn Future<Output = Result<ToolResult, TerminalError>> + Send + 'a>>
    where
        C: JournalContext<'ctx>,
        'ctx: 'a,
    {
        Box::pin(async move {
            let mut results = self.dispatch_batch(restate, vec![call]).await?;
            Ok(results.pop().expect("a result for each call"))
        })
    }

    /// Runs a model turn's `calls` as [`Journal::dispatch`] runs one, scheduled by
    /// effect as [`Registry::dispatch_batch`] schedules them: consecutive `read_only`
    /// calls run together, as one journaled step; every other call runs alone, in the
    /// order listed, a step of its own. The results come in the order of the calls.
    pub fn dispatch_batch<'a, 'ctx, C>(
        &'a self,
        restate: &'a C,
        calls: Vec<ToolCall>,
    ) -> Pin<Box<dyn Future<Output = Result<Vec<ToolResult>, TerminalError>> + Send + 'a>>
    where
        C: JournalContext<'ctx>,
        'ctx: 'a,
    {
        Box::pin(async move {
            let mut results = Vec::with_capacity(calls.len());
            for turn in self.turns(calls) {
                let names: Vec<String> = turn
                    .iter()
                    .map(|c| format!("{} {}", c.id, c.name))
                    .collect();
                let step = format!("toolwright {}", names.join(", "));
                let journal = self.clone();
                let firsts = self
                    .step(restate, &step, move |fresh| {
                        Box::pin(async move {
                            let (registry, ctx) = (&*journal.registry, &*journal.ctx);
                            match <[ToolCall; 1]>::try_from(turn) {
                                Ok([call]) if fresh => vec![registry.dispatch(ctx, call).await],
                                Ok([call]) => vec![journal.in_doubt(call, None).await],
                                // Reads: run again, in doubt or not.
                                Err(reads) => registry.dispatch_batch(ctx, reads).await,
                            }
                        })
                    })
                    .await?;
                for first in firsts {
                    results.push(self.approved(restate, first).await?);
                }
            }
            Ok(results)
        })
    }

    /// `calls`, each with an idempotency key (its own, or the run's and its id: the same
    /// on every attempt), in turns: consecutive `read_only` calls together, every other
    /// call alone.
    fn turns(&self, calls: Vec<ToolCall>) -> Vec<Vec<ToolCall>> {
        let read_only = |call: &ToolCall| {
            (self.registry.get(&call.name))
                .is_some_and(|tool| tool.spec().effect == Effect::ReadOnly)
        };
        let mut turns: Vec<Vec<ToolCall>> = Vec::new();
        for call in calls {
            let call = match call.idempotency_key {
                Some(_) => call,
                None => {
                    let key = format!("restate:{}:{}", self.run, call.id);
                    call.with_idempotency_key(key)
                }
            };
            match turns.last_mut() {
                Some(turn) if read_only(&call) && turn.iter().all(read_only) => turn.push(call),
                _ => turns.push(vec![call]),
            }
        }
        turns
    }

    /// `first`, or, when it waits for approval and someone is told of approvals, the
    /// call as the person decided it: the run waits on an awakeable (suspended), and the
    /// decided call is a step of its own.
    async fn approved<'ctx, C>(
        &self,
        restate: &C,
        first: ToolResult,
    ) -> Result<ToolResult, TerminalError>
    where
        C: JournalContext<'ctx>,
    {
        let Some(ticket) = first.ticket.clone().filter(|_| {
            self.on_approval.is_some()
                && first
                    .error()
                    .is_some_and(|error| error.kind == ErrorKind::AwaitingApproval)
        }) else {
            return Ok(first);
        };
        let step = format!("toolwright {} {}", first.call_id, first.name);
        let (awakeable, decision) = restate.awakeable_json::<ApprovalDecision>();
        let announce = self.on_approval.clone();
        let (shown, id) = (ticket.clone(), awakeable.clone());
        let asked: Work<HandlerResult<()>> = Box::pin(async move {
            if let Some(announce) = announce {
                announce(&id, &shown);
            }
            Ok(())
        });
        restate.journaled(format!("{step}: asked"), asked).await?;
        let decision = decision.await?;
        let journal = self.clone();
        let mut decided = self
            .step(restate, &format!("{step}: decided"), move |fresh| {
                Box::pin(async move {
                    let (registry, ctx) = (&*journal.registry, &*journal.ctx);
                    vec![if fresh {
                        registry.resume(ctx, &ticket, decision).await
                    } else {
                        let call = ticket_call(&ticket);
                        journal.in_doubt(call, Some((*ticket, decision))).await
                    }]
                })
            })
            .await?;
        Ok(decided.pop().expect("the decided call's result"))
    }

    /// A journaled step that knows whether it runs for the first time: a marker step is
    /// journaled before it, so when the marker comes from the journal and the step still
    /// runs, an earlier attempt started the step and died before recording its result.
    /// Its results over [`Journal::max_entry_bytes`] together are recorded, the largest
    /// first, as calls that ran and were not kept.
    async fn step<'ctx, C>(
        &self,
        restate: &C,
        name: &str,
        work: impl FnOnce(bool) -> Work<Vec<ToolResult>> + Send + 'static,
    ) -> Result<Vec<ToolResult>, TerminalError>
    where
        C: JournalContext<'ctx>,
    {
        let (registry, max) = (self.registry.clone(), self.max_entry_bytes);
        let fresh = Arc::new(AtomicBool::new(false));
        let marked = fresh.clone();
        let mark: Work<HandlerResult<()>> = Box::pin(async move {
            marked.store(true, Ordering::SeqCst);
            Ok(())
        });
        restate.journaled(format!("{name}: started"), mark).await?;
        let run: Work<HandlerResult<Json<Vec<Recorded>>>> = Box::pin(async move {
            let fresh = fresh.load(Ordering::SeqCst);
            let results = work(fresh).await;
            // Run again in doubt, a keyed call can find its key still claimed by the
            // attempt that died: not an outcome to keep. Restate retries the step, and by
            // then the claim's lease is over and the store answers.
            if let Some(claimed) = results.iter().find(|r| !fresh && still_claimed(r)) {
                return Err(format!(
                    "'{}' was in doubt and its idempotency key is still claimed by the attempt that stopped; retrying once the claim's lease is over",
                    claimed.name
                )
                .into());
            }
            Ok(Json(fitted(&registry, results, max)))
        });
        let Json(recorded) = restate.journaled(name.to_owned(), run).await?;
        Ok(recorded.into_iter().map(Into::into).collect())
    }

    /// A call an earlier attempt started and never recorded: decided by its effect. Run
    /// again, a decided call is decided again (`decided`: the ticket and the decision), so
    /// it neither asks a second time nor runs twice where the ticket's record says it ran.
    ///
    /// Where the store cannot tell whether the earlier attempt took effect (its claim
    /// lapsed without an outcome), the tool's reconciliation, when it has one, can: it
    /// happened, and its result is the call's; it did not, and the call runs again, under
    /// a claim of its own (Restate runs one attempt of a run at a time, and the lapsed
    /// claim says no earlier one still runs the tool). That, again, up to [`AGAIN`] times.
    async fn in_doubt(
        &self,
        call: ToolCall,
        decided: Option<(ApprovalTicket, ApprovalDecision)>,
    ) -> ToolResult {
        let (registry, ctx) = (&*self.registry, &*self.ctx);
        let mut result = match in_doubt::verdict(registry, ctx, &call, decided.is_some()) {
            InDoubt::Run => match &decided {
                Some((ticket, decision)) => registry.resume(ctx, ticket, decision.clone()).await,
                None => registry.dispatch(ctx, call.clone()).await,
            },
            InDoubt::Reconcile => return in_doubt::reconciled(registry, ctx, call).await,
            InDoubt::Fail(message) => {
                let error =
                    ToolError::new(ErrorKind::OutcomeUnknown, message).with_retryable(false);
                in_doubt::finished(registry, call.clone(), Err(error))
            }
        };
        for again in 1..=AGAIN {
            let unknown = (result.error()).is_some_and(|e| e.kind == ErrorKind::OutcomeUnknown);
            if !unknown {
                break;
            }
            match in_doubt::ask(registry, ctx, &call).await {
                Err(_) => break,
                Ok(Reconciled::Happened(outcome)) => {
                    return in_doubt::finished(registry, call, outcome);
                }
                Ok(Reconciled::Unknown(why)) => {
                    let error = in_doubt::unknown(&call.name, &why);
                    return in_doubt::finished(registry, call, Err(error));
                }
                Ok(Reconciled::DidNotHappen) => {}
            }
            result = match &decided {
                Some((ticket, decision)) => {
                    registry.decide(ctx, ticket, decision.clone(), again).await
                }
                None => {
                    let key = call.idempotency_key.as_deref().unwrap_or(&call.id);
                    let rekeyed = call.clone().with_idempotency_key(format!("{key}~{again}"));
                    registry.dispatch(ctx, rekeyed).await
                }
            };
        }
        result
    }
}

/// How many times a [`Journal`] runs a call in doubt again, each after its tool's
/// reconciliation said the attempt before did not take effect (each cut by a crash of
/// its own), before it reports the outcome unknown.
const AGAIN: u32 = 8;

/// The contexts of Restate's handlers (service, virtual object, workflow), as a
/// [`Journal`] uses them: a journaled step and an awakeable, as futures known to be
/// `Send` (each is implemented for the concrete context type, where rustc sees that it
/// is; through the SDK's generic traits it cannot).
pub trait JournalContext<'ctx>: Sync + private::Sealed {
    /// `ctx.run(work).name(name)`.
    fn journaled<T>(&self, name: String, work: Work<HandlerResult<T>>) -> Pending<'_, T>
    where
        T: restate_sdk::serde::Serialize + restate_sdk::serde::Deserialize + Send + 'static;

    /// `ctx.awakeable()`, its value read as JSON.
    fn awakeable_json<T>(&self) -> (String, Pending<'ctx, T>)
    where
        T: serde::de::DeserializeOwned + Send + 'static;
}

/// A journaled step or an awakeable, pending.
pub type Pending<'a, T> = Pin<Box<dyn Future<Output = Result<T, TerminalError>> + Send + 'a>>;

mod private {
    pub trait Sealed {}
}

macro_rules! journal_context {
    ($($context:ident),*) => {$(
        impl private::Sealed for restate_sdk::context::$context<'_> {}

        impl<'ctx> JournalContext<'ctx> for restate_sdk::context::$context<'ctx> {
            fn journaled<T>(&self, name: String, work: Work<HandlerResult<T>>) -> Pending<'_, T>
            where
                T: restate_sdk::serde::Serialize + restate_sdk::serde::Deserialize + Send + 'static,
            {
                Box::pin(self.run(move || work).name(name))
            }

            fn awakeable_json<T>(&self) -> (String, Pending<'ctx, T>)
            where
                T: serde::de::DeserializeOwned + Send + 'static,
            {
                let (id, value) = self.awakeable::<Json<T>>();
                (id, Box::pin(async move { value.await.map(|Json(value)| value) }))
            }
        }
    )*};
}

journal_context!(Context, ObjectContext, WorkflowContext);

/// How many bytes `value` takes as JSON (counted, not written).
fn json_len(value: &impl Serialize) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// `results` as one journal entry of at most `max` bytes of JSON where it can be: the
/// largest replaced first by an error saying it ran and was not kept, each at most once
/// (a limit smaller than those errors leaves them as they are rather than loop).
fn fitted(registry: &Registry, results: Vec<ToolResult>, max: usize) -> Vec<Recorded> {
    let mut recorded: Vec<(usize, bool, Recorded)> = results
        .into_iter()
        .map(|result| {
            let recorded = Recorded::from(result);
            (json_len(&recorded), false, recorded)
        })
        .collect();
    while recorded.iter().map(|(size, ..)| size).sum::<usize>() > max {
        let largest = (recorded.iter_mut())
            .filter(|(_, replaced, _)| !replaced)
            .max_by_key(|(size, ..)| *size);
        let Some((size, replaced, largest)) = largest else {
            break;
        };
        *largest = Recorded::from(too_large(registry, largest, *size, max));
        *size = json_len(&*largest);
        *replaced = true;
    }
    recorded
        .into_iter()
        .map(|(.., recorded)| recorded)
        .collect()
}

/// What is recorded in place of a result too large for a journal entry.
fn too_large(registry: &Registry, result: &Recorded, size: usize, max: usize) -> ToolResult {
    let error = ToolError::new(
        ErrorKind::Failed,
        format!(
            "'{}' ran, but its result ({size} bytes as JSON) is over the {max} bytes a journal entry may hold here, so it was not kept",
            result.name
        ),
    )
    .with_retryable(false)
    .with_hint("do not call it again for the same thing: it took effect; the harness should keep full outputs out of results (an artifact store, or a smaller output budget)");
    let notes = crate::dispatch::Notes {
        entry: registry.entry(&result.name),
        ..Default::default()
    };
    let call = (
        result.call_id.clone(),
        result.name.clone(),
        result.program.clone(),
    );
    registry.finish(call, Err(error), notes)
}

/// Whether `result` says its key is claimed by an attempt still running (as far as the
/// store knows), so the call did not run.
fn still_claimed(result: &ToolResult) -> bool {
    result
        .error()
        .is_some_and(|error| error.kind == ErrorKind::Conflict && error.retryable)
}

/// The call a ticket approves, for deciding it when its process died mid-run.
fn ticket_call(ticket: &ApprovalTicket) -> ToolCall {
    let call = ToolCall::new(
        ticket.call_id.clone(),
        ticket.tool.clone(),
        ticket.arguments.clone(),
    );
    match &ticket.idempotency_key {
        Some(key) => call.with_idempotency_key(key.clone()),
        None => call,
    }
}

/// A result as the journal keeps it.
#[derive(Serialize, Deserialize)]
struct Recorded {
    call_id: String,
    name: String,
    outcome: Result<ToolOutput, ToolError>,
    view: Option<ModelView>,
    repairs: Vec<String>,
    effect: Option<Effect>,
    duplicate: bool,
    ticket: Option<Box<ApprovalTicket>>,
    source: Option<String>,
    program: Option<String>,
}

impl From<ToolResult> for Recorded {
    fn from(result: ToolResult) -> Self {
        Recorded {
            call_id: result.call_id,
            name: result.name,
            outcome: result.outcome,
            view: result.view,
            repairs: result.repairs,
            effect: result.effect,
            duplicate: result.duplicate,
            ticket: result.ticket,
            source: result.source.map(|source| source.to_string()),
            program: result.program,
        }
    }
}

impl From<Recorded> for ToolResult {
    fn from(recorded: Recorded) -> Self {
        ToolResult {
            call_id: recorded.call_id,
            name: recorded.name,
            outcome: recorded.outcome,
            view: recorded.view,
            repairs: recorded.repairs,
            effect: recorded.effect,
            duplicate: recorded.duplicate,
            ticket: recorded.ticket,
            source: recorded.source.map(Into::into),
            program: recorded.program,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(name: &str, text: &str) -> ToolResult {
        let registry = Registry::builder().build().unwrap();
        let call = (format!("c-{name}"), name.to_owned(), None);
        let notes = crate::dispatch::Notes::default();
        registry.finish(call, Ok(ToolOutput::Text(text.to_owned())), notes)
    }

    #[test]
    fn the_largest_results_give_way_until_the_entry_fits_and_a_tiny_limit_ends() {
        let registry = Registry::builder().build().unwrap();
        let results = || vec![result("small", "ok"), result("big", &"x".repeat(5_000))];
        let kept = fitted(&registry, results(), 2_000);
        assert!(matches!(&kept[0].outcome, Ok(ToolOutput::Text(text)) if text == "ok"));
        let error = kept[1].outcome.as_ref().unwrap_err();
        assert!(error.message.contains("was not kept"), "{}", error.message);
        // A limit below even the errors' size: each result replaced once, then it stops.
        let tiny = fitted(&registry, results(), 10);
        assert!(tiny.iter().all(|r| r.outcome.is_err()));
    }
}
