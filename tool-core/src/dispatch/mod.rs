//! The flow of one call: lookup → arguments → effect → scopes and policy → approval →
//! idempotency → run → output. Every call gets exactly one result carrying its id,
//! whatever fails: an unknown name, malformed arguments, a denial, a tool that errs,
//! panics or runs out of time.
//!
//! One file per phase: `gate.rs` (effect, scopes, policy, approval; `dry_run`),
//! `resume.rs` (a call a person decided), `in_doubt.rs` (a call whose process died
//! before it recorded its end),
//! `claim.rs` (the idempotency claim around a run), `run.rs` (the tool itself: panics,
//! time limits, retries), `view.rs` (the result and what the model reads of it) and
//! `schedule.rs` (batches by effect). What comes in and goes out (`ToolCall`,
//! `ToolResult`, `DryRun`) is `crate::call`; reading the arguments is `crate::arguments`.
//!
//! The phases a synchronous call goes through (`admit`, `execute`, `run_with_retries`,
//! `start`, `finish` and what they call) are marked `#[inline]`, some `always`: they
//! compile into the dispatch future as one function, so a finished outcome (96 bytes) and
//! the arguments read (48) are moved once rather than through every phase's frame. What
//! that saves is measured, not assumed: `scripts/measure/callgrind-dispatch`.

pub(crate) mod claim;
mod gate;
// Only what keeps calls beyond their request decides calls in doubt.
#[cfg(any(feature = "mcp", feature = "restate"))]
pub(crate) mod in_doubt;
mod resume;
mod run;
mod schedule;
mod view;

use crate::approval::ApprovalTicket;
use crate::call::{ToolCall, ToolResult};
use crate::context::Context;
use crate::effect::Effect;
use crate::error::ToolError;
use crate::registry::{Entry, Registry};
use crate::tool::{Prepared, Tool, ToolFuture, ToolOutcome};
use tracing::Instrument as _;

pub(crate) use gate::Gate;

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
    /// let registry = Registry::builder().with(Hello).build().unwrap();
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
            let span = crate::telemetry::call_span(&call);
            let mut notes = Notes::new(span.clone());
            // A finished run: no suspension, no span entered again.
            let outcome = match crate::telemetry::in_span!(span, {
                match self.admit(ctx, &call, &mut notes, Gate::Full) {
                    Ok(admitted) => self.execute(ctx, &call, admitted, &mut notes),
                    Err(refusal) => Run::Finished(Err(refusal)),
                }
            }) {
                Run::Finished(outcome) => outcome,
                Run::Running(running) => running.instrument(span.clone()).await,
            };
            self.take_left_ticket(ctx, &call, &outcome, &mut notes);
            // Recorded from the parts, before the result is made: the result is then the
            // future's output as it is made, not copied out of a local (37 instructions a
            // call, callgrind).
            if self.settings.run_history {
                crate::history::record_parts(ctx, &call, notes.effect, &outcome);
            }
            crate::telemetry::in_span!(
                span,
                self.finish((call.id, call.name, call.program), outcome, notes)
            )
        }
    }

    /// Looks the tool up and reads the arguments (no policy, no run). `Ok` holds the tool
    /// and its prepared arguments.
    pub fn prepare_call(&self, call: &ToolCall) -> Result<(&dyn Tool, Prepared), ToolError> {
        self.read_call(call, &mut Vec::new(), None)
            .map(|read| (read.tool, read.prepared))
    }
}

impl Registry {
    /// The result of a call answered without running it (a streamed call that was cut or
    /// could not be valid): `error`, with the call's id, as the model reads any error.
    pub(crate) fn answer_unrun(&self, call: &ToolCall, error: ToolError) -> ToolResult {
        let notes = Notes::new(crate::telemetry::call_span(call));
        self.finish(
            (call.id.clone(), call.name.clone(), call.program.clone()),
            Err(error),
            notes,
        )
    }

    /// The ticket of a call that ended awaiting approval while it ran, into its result:
    /// one a built-in left (a program paused for a nested call's approval), or, for a
    /// tool that asked itself (an imported MCP tool whose server asks a person), a ticket
    /// for this call, whose approval runs it again with
    /// [`CallInfo::approved`](crate::tool::CallInfo::approved) set.
    #[inline]
    pub(crate) fn take_left_ticket(
        &self,
        ctx: &Context,
        call: &ToolCall,
        outcome: &ToolOutcome,
        notes: &mut Notes<'_>,
    ) {
        let Err(error) = outcome else {
            return;
        };
        if notes.ticket.is_some() || error.kind != crate::error::ErrorKind::AwaitingApproval {
            return;
        }
        notes.ticket = (notes.entry)
            .and_then(|entry| self.extension_of(entry))
            .and_then(|extension| extension.left_ticket(call));
        if notes.ticket.is_none()
            && let Some(entry) = notes.entry
            && entry.builtin.is_none()
        {
            let caller = ctx.get::<crate::policy::Caller>();
            let arguments = crate::arguments::AsRead::SENT.to_value(call);
            let ticket = self.issue_ticket(
                call,
                &entry.tool.spec().name,
                arguments,
                &error.message,
                caller,
            );
            notes.ticket = Some(Box::new(ticket));
        }
    }
}

/// What the pipeline learned about a call on the way, for its result.
pub(crate) struct Notes<'r> {
    /// The entry of the call's tool, once it is looked up: its settings, resolved when
    /// the registry was built.
    pub(crate) entry: Option<&'r Entry>,
    /// The call's `execute_tool` span (disabled when nothing listens).
    pub(crate) span: tracing::Span,
    /// When the call began, for the duration metric (when metrics are on).
    #[cfg(feature = "otel")]
    pub(super) started: Option<std::time::Instant>,
    pub(super) repairs: Vec<String>,
    pub(crate) effect: Option<Effect>,
    pub(crate) duplicate: bool,
    /// Boxed: rare, and large enough to double what every call carries.
    pub(crate) ticket: Option<Box<ApprovalTicket>>,
}

impl Notes<'_> {
    pub(crate) fn new(span: tracing::Span) -> Self {
        Notes {
            entry: None,
            span,
            #[cfg(feature = "otel")]
            started: crate::otel::metrics_on().then(std::time::Instant::now),
            repairs: Vec::new(),
            effect: None,
            duplicate: false,
            ticket: None,
        }
    }
}

impl Default for Notes<'_> {
    fn default() -> Self {
        Notes::new(tracing::Span::none())
    }
}

/// A run after its synchronous part: finished (every synchronous tool, and every call
/// refused before it ran), or still running. Not a [`ToolFuture`]: wrapping a finished
/// outcome in one and taking it out again would copy it twice on every call.
pub(crate) enum Run<'a> {
    Finished(ToolOutcome),
    Running(ToolFuture<'a>),
}

impl Run<'_> {
    /// The outcome, once the run finishes.
    pub(super) async fn outcome(self) -> ToolOutcome {
        match self {
            Run::Finished(outcome) => outcome,
            Run::Running(running) => running.await,
        }
    }
}
