//! The run: the tool itself, with its panics caught, its time limit enforced and its
//! retries made; a claimed call runs inside its claim.

use std::panic::AssertUnwindSafe;

use futures_util::FutureExt as _;

use super::claim::Held;
use super::gate::{Admitted, ReadCall};
use super::{Notes, Run};
use crate::arguments::AsRead;
use crate::call::ToolCall;
use crate::context::Context;
use crate::effect::Effect;
use crate::error::ErrorKind;
use crate::error::panicked;
use crate::event::Event;
use crate::registry::{Entry, Registry};
use crate::tool::{CallInfo, Prepared, ToolFuture, ToolOutcome};

impl Registry {
    /// Runs an admitted call. A call with side effects that must not happen twice claims
    /// its idempotency key first (see [`crate::idempotency`]) and records its outcome
    /// under it; a call that finds the key done gets the first outcome, marked duplicate.
    ///
    /// A call without a key that finishes at once (every synchronous tool) is settled
    /// here: the caller does not suspend and nothing is boxed.
    #[inline(always)]
    pub(super) fn execute<'a, 'r: 'a>(
        &'a self,
        ctx: &'a Context,
        call: &'a ToolCall,
        admitted: Admitted<'a>,
        notes: &'a mut Notes<'r>,
    ) -> Run<'a> {
        let mut admitted = admitted;
        let Some(claim) = admitted.claim.take() else {
            return self.run_with_retries(ctx, call, admitted, None, &notes.span);
        };
        Run::Running(ToolFuture::new(async move {
            let (spec, effect) = (admitted.read.spec, admitted.effect);
            let name = &spec.name;
            let limit = admitted.read.entry.settings.timeout;
            let claimed = self.claim(&claim, name, limit, "idempotency key").await;
            let outcome = match &claimed {
                Ok(()) => "claimed",
                Err(Held::Done(_)) => "duplicate",
                Err(Held::Refused(refusal)) if refusal.kind == ErrorKind::Conflict => "conflict",
                Err(Held::Refused(_)) => "store_error",
            };
            crate::telemetry::record(&notes.span, "toolwright.idempotency.outcome", outcome);
            match claimed {
                Ok(()) => {}
                Err(Held::Done(stored)) => {
                    notes.duplicate = true;
                    return stored.outcome;
                }
                Err(Held::Refused(refusal)) if refusal.kind == ErrorKind::OutcomeUnknown => {
                    let (tool, prepared) = (admitted.read.tool, &admitted.read.prepared);
                    let info = CallInfo {
                        id: &call.id,
                        idempotency_key: Some(&claim.key),
                        approved: admitted.approved,
                        tasks: self.settings.idempotency.store().tasks(),
                    };
                    let asking =
                        (tool.hooks()).and_then(|hooks| hooks.reconcile(ctx, info, prepared));
                    return self
                        .reconcile_in_doubt(&claim, name, asking, effect, refusal)
                        .await;
                }
                Err(Held::Refused(refusal)) => return Err(refusal),
            }
            let builtin = admitted.read.entry.builtin.is_some();
            let run = self.run_with_retries(ctx, call, admitted, Some(&claim.key), &notes.span);
            let outcome = self.holding(&claim, run).await;
            match &outcome {
                Err(error) if error.kind == ErrorKind::AwaitingApproval && !builtin => {
                    self.release(&claim).await;
                }
                _ => self.record(&claim, name, effect, &outcome).await,
            }
            outcome
        }))
    }

    /// Runs the tool (retried where allowed), reporting its start and finish.
    /// `key`: the idempotency key the call holds a claim on, so retrying it cannot repeat
    /// its effect (and the tool may pass it on, [`Tool::run_call`](crate::tool::Tool::run_call)).
    #[inline(always)]
    pub(super) fn run_with_retries<'a>(
        &'a self,
        ctx: &'a Context,
        call: &'a ToolCall,
        admitted: Admitted<'a>,
        key: Option<&'a str>,
        span: &tracing::Span,
    ) -> Run<'a> {
        let Admitted {
            read:
                ReadCall {
                    entry,
                    spec,
                    prepared,
                    arguments,
                    ..
                },
            effect,
            approved,
            ..
        } = admitted;
        let info = CallInfo {
            id: &call.id,
            idempotency_key: key,
            approved,
            tasks: self.settings.idempotency.store().tasks(),
        };
        self.observe(|| Event::Started {
            call_id: call.id.clone(),
            tool: call.name.clone(),
        });
        let retry = entry
            .settings
            .retry
            .filter(|_| effect == Effect::ReadOnly || spec.is_idempotent() || key.is_some());
        let run_span = crate::telemetry::phase!(span, "run");
        let run =
            crate::telemetry::in_span!(run_span, self.start(ctx, call, info, entry, prepared));
        // Looked at in place: a finished outcome is moved once, into the result.
        let settled = run
            .outcome()
            .is_some_and(|outcome| retry.is_none() || !is_retryable(outcome));
        match run.into_ready() {
            Ok(outcome) if settled => Run::Finished(self.finished(call, outcome)),
            run => Run::Running(self.keep_running(
                ctx, call, info, entry, arguments, run, retry, span, run_span,
            )),
        }
    }

    /// The rest of a run that did not finish at once, or that is retried: waits for it,
    /// retries it while it fails with a retryable error, and reports its finish.
    #[allow(clippy::too_many_arguments)]
    fn keep_running<'a>(
        &'a self,
        ctx: &'a Context,
        call: &'a ToolCall,
        info: CallInfo<'a>,
        entry: &'a Entry,
        arguments: AsRead,
        run: Result<ToolOutcome, ToolFuture<'a>>,
        retry: Option<crate::registry::Retry>,
        span: &tracing::Span,
        run_span: tracing::Span,
    ) -> ToolFuture<'a> {
        let span = span.clone();
        ToolFuture::new(tracing::Instrument::instrument(
            async move {
                let mut outcome = match run {
                    Ok(outcome) => outcome,
                    Err(running) => wait(entry, running).await,
                };
                if let Some(retry) = retry {
                    let arguments = arguments.arguments(call);
                    let mut attempt = 1;
                    while attempt < retry.attempts && is_retryable(&outcome) {
                        // On toolwright's own timer: the backoff holds in any executor.
                        crate::timer::sleep(retry.backoff * 2u32.saturating_pow(attempt - 1)).await;
                        attempt += 1;
                        outcome = match entry.tool.prepare(arguments) {
                            // Boxed: a retry is rare, and its run held inline would make
                            // every call in flight carry a second run's state.
                            Ok(prepared) => {
                                Box::pin(self.run_prepared(ctx, call, info, entry, prepared)).await
                            }
                            Err(error) => Err(error),
                        };
                    }
                    // Once, at the end: a field recorded twice is exported twice.
                    if attempt > 1 {
                        crate::telemetry::record(
                            &span,
                            "toolwright.retries",
                            i64::from(attempt - 1),
                        );
                    }
                }
                self.finished(call, outcome)
            },
            run_span,
        ))
    }

    /// The end of a run: reports it.
    #[inline(always)]
    pub(super) fn finished(&self, call: &ToolCall, outcome: ToolOutcome) -> ToolOutcome {
        self.observe(|| Event::Finished {
            call_id: call.id.clone(),
            tool: call.name.clone(),
        });
        outcome
    }

    /// Runs a tool with prepared arguments, catching panics and enforcing the time
    /// limit.
    async fn run_prepared(
        &self,
        ctx: &Context,
        call: &ToolCall,
        info: CallInfo<'_>,
        entry: &Entry,
        prepared: Prepared,
    ) -> ToolOutcome {
        match self.start(ctx, call, info, entry, prepared).into_ready() {
            Ok(outcome) => outcome,
            Err(running) => wait(entry, running).await,
        }
    }

    /// Calls [`Tool::run_call`](crate::tool::Tool::run_call): a synchronous tool does its
    /// work here, so its panic is caught here.
    #[inline]
    pub(super) fn start<'a>(
        &'a self,
        ctx: &'a Context,
        call: &'a ToolCall,
        info: CallInfo<'a>,
        entry: &'a Entry,
        prepared: Prepared,
    ) -> ToolFuture<'a> {
        std::panic::catch_unwind(AssertUnwindSafe(|| match self.extension_of(entry) {
            // An extension's built-in (`search_tools`, `run_code`) reads the registry,
            // which no tool can hold.
            Some(extension) => extension.run(self, ctx, call, prepared),
            None => entry.tool.run_call(ctx, info, prepared),
        }))
        .unwrap_or_else(|panic| {
            ToolFuture::ready(Err(panicked(&entry.tool.spec().name, "running", &*panic)))
        })
    }

    /// Reports an event; built only when someone observes.
    #[inline(always)]
    pub(super) fn observe(&self, event: impl FnOnce() -> Event) {
        if let Some(observer) = &self.settings.observer {
            observer(&event());
        }
    }
}

/// Whether a failed call may succeed if tried again: a `failed` or `timeout` error the
/// tool marked retryable.
pub(super) fn is_retryable(outcome: &ToolOutcome) -> bool {
    matches!(outcome, Err(error) if error.retryable && matches!(error.kind, ErrorKind::Failed | ErrorKind::Timeout))
}

/// Waits for a tool still running, catching its panics and enforcing its time limit.
async fn wait(entry: &Entry, running: ToolFuture<'_>) -> ToolOutcome {
    let name = &entry.tool.spec().name;
    let guarded = AssertUnwindSafe(running).catch_unwind();
    let finished = match entry.settings.timeout {
        #[cfg(feature = "tokio")]
        // Boxed, so a call without a time limit does not carry a timer in its state.
        Some(limit) => match Box::pin(tokio::time::timeout(limit, guarded)).await {
            Ok(finished) => finished,
            Err(_) => {
                return Err(crate::error::ToolError::new(
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
