//! A registry's tools on a [rig](https://docs.rs/rig-agent) agent (feature `rig`, rig
//! 0.44: the newest release that builds with Rust 1.95).
//!
//! ```ignore
//! let agent = AgentBuilder::new(model).toolwright(&RigTools::new(registry)).build();
//! ```
//!
//! Every tool the caller is offered becomes a rig `DynamicTool` whose callback sends the
//! call through [`Registry::dispatch`], with the run's [`Context`] when the runner
//! carries one (`ToolContext::with_scope(Arc<Context>)`), else the adapter's. A hook
//! answers what rig cannot dispatch (an unknown tool name, arguments that are not a JSON
//! object) with toolwright's own answer, the closest names or the parse problem, instead
//! of rig's default of ending the run.
//!
//! How a result reaches the model: a success is its model view as text; an error is a
//! rig `ToolExecutionError` whose model feedback is toolwright's model view (the kind,
//! every problem with its path, the hint), of the rig kind below, with toolwright's kind
//! as its `code` and its `retryable`:
//!
//! | toolwright `ErrorKind` | rig `ToolErrorKind` |
//! |---|---|
//! | `invalid_arguments` | `InvalidArgs` |
//! | `unknown_tool`, `not_found` | `NotFound` |
//! | `denied` | `PermissionDenied`, marked a refusal |
//! | `awaiting_approval` | `PermissionDenied` (not a refusal: nothing was decided) |
//! | `timeout` | `Timeout` |
//! | `cancelled` | `Cancelled` |
//! | `conflict`, `failed`, `internal` | `Other` |
//!
//! Streamed calls: with [`RigTools::stop_hopeless_calls`], the hook reads each argument
//! fragment of a streamed call as rig receives it (rig's `on_tool_call_delta`), against
//! the tool's schema in the adapter's dialect, as [`PartialCall`] does; the first fragment
//! that no further text can make valid (a string where a number goes, an argument the
//! tool does not take, a value past its limit, malformed JSON) stops the run there, before
//! the model writes the rest, with every problem as the reason. Without it, a streamed
//! call is checked once complete, as any call.
//!
//! A call the model was still writing when its turn stopped for the output limit or a
//! filter (rig's `FinishReason::Length` or `ContentFilter` on a turn that ends with the
//! call) never runs, even when its arguments happen to be whole JSON: rig would run it,
//! so the hook skips it, and the model reads that it was cut off and must write it
//! again, shorter.
//!
//! Approval: rig's tools cannot pause a run for a person (its hooks can deny a call or
//! stop the run, not wait for a ticket to be decided elsewhere). A call that needs
//! approval does not run: the model reads that it waits for approval, the run goes on,
//! and the ticket waits in [`RigTools::approvals`] for the host to decide with
//! [`Registry::resume`] and pass the result into the next prompt.

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use rig_agent::agent::{
    AgentBuilder, AgentHook, DispatchAction, DispatchEvent, HookContext, InvalidToolCallAction,
    InvalidToolCallContext, InvalidToolCallReason, ModelTurnAction, ModelTurnFinished,
    NoToolConfig, ObservationAction, StepEventKind, ToolCallDelta, WithBuilderTools,
};
use rig_core::completion::{AssistantContent, FinishReason};
use rustc_hash::FxHashMap;
use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool, ToolContext, ToolErrorKind, ToolExecutionError, ToolOutput};
use serde_json::Value;

use super::{PendingApprovals, Runner};
use crate::call::{CallArguments, ToolCall, ToolResult};
use crate::context::Context;
use crate::dialect::Dialect;
use crate::error::{ErrorKind, ToolError};
use crate::partial::{PartialCall, Verdict};
use crate::registry::Registry;
use crate::schema::lower::LoweringErrors;

/// A registry's tools for a rig agent: the [`DynamicTool`]s, the [`RigHook`] and the
/// calls waiting for approval. Clones share the registry and the waiting list.
#[derive(Clone)]
pub struct RigTools {
    runner: Runner,
    stop_hopeless: bool,
}

impl RigTools {
    /// The tools of `registry`, dispatched with an empty [`Context`] unless the run
    /// carries one, their schemas lowered for OpenAI's Chat Completions without strict
    /// mode (what rig's providers send; [`RigTools::dialect`] to change it).
    pub fn new(registry: Arc<Registry>) -> Self {
        Self {
            runner: Runner::new(registry),
            stop_hopeless: false,
        }
    }

    /// Dispatches with `ctx` (the caller, the session, handles) when the run carries no
    /// context of its own, and offers the tools `ctx`'s caller may see.
    pub fn with_context(mut self, ctx: Arc<Context>) -> Self {
        self.runner.ctx = ctx;
        self
    }

    /// Lowers the schemas for `dialect`: the provider rig sends them to (Gemini's
    /// subset, a strict OpenAI mode). Calls are read back against the same lowering.
    pub fn dialect(mut self, dialect: Dialect) -> Self {
        self.runner.dialect = dialect;
        self
    }

    /// Reads streamed calls as they are written, and stops the run at the first
    /// fragment that makes a call hopeless (see the module's docs): the model stops
    /// spending tokens on a call that cannot run, and the run's error carries what the
    /// model would have read (every problem, with its path) for the host to send back.
    pub fn stop_hopeless_calls(mut self) -> Self {
        self.stop_hopeless = true;
        self
    }

    /// The calls that wait for a person's approval, with their tickets.
    pub fn approvals(&self) -> &PendingApprovals {
        &self.runner.approvals
    }

    /// One rig tool per tool the caller is offered; or what the dialect cannot express.
    pub fn tools(&self) -> Result<Vec<DynamicTool>, LoweringErrors> {
        Ok(self
            .runner
            .offered()?
            .into_iter()
            .filter_map(|tool| {
                let name = ToolName::new(tool.name.clone()).ok()?;
                let runner = self.runner.clone();
                let tool_name: Arc<str> = tool.name.into();
                Some(DynamicTool::new_with_context(
                    name,
                    tool.description,
                    tool.parameters,
                    move |run: &mut ToolContext, arguments: Value| {
                        let runner = runner.clone();
                        let tool_name = tool_name.clone();
                        let ctx = run.scope::<Context>();
                        Box::pin(async move {
                            let ctx = ctx.unwrap_or_else(|| runner.ctx.clone());
                            let call = ToolCall::new(next_call_id(), &*tool_name, arguments);
                            to_rig(&runner.dispatch(&ctx, call).await)
                        })
                    },
                ))
            })
            .collect())
    }

    /// The hook that answers calls rig cannot dispatch (a name no tool has, arguments
    /// that are not a JSON object) with toolwright's answer, as a skipped call whose
    /// reason the model reads, instead of ending the run.
    pub fn hook(&self) -> RigHook {
        RigHook(self.clone())
    }
}

/// rig's call ids do not reach a tool's callback; toolwright's ids (in events, tickets,
/// idempotency) are made up per process.
fn next_call_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("rig-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// A result as rig's tool outcome, the model view in both arms.
fn to_rig(result: &ToolResult) -> Result<ToolOutput, ToolExecutionError> {
    let Some(error) = result.error() else {
        return Ok(ToolOutput::text(result.for_model()));
    };
    let text = result.for_model();
    let rig_error = match error.kind {
        ErrorKind::Denied => ToolExecutionError::refused(text),
        kind => ToolExecutionError::new(rig_kind(kind), text),
    };
    Err(rig_error
        .with_code(error.kind.as_str())
        .with_retryable(error.retryable)
        .with_model_feedback(text))
}

fn rig_kind(kind: ErrorKind) -> ToolErrorKind {
    match kind {
        ErrorKind::InvalidArguments => ToolErrorKind::InvalidArgs,
        ErrorKind::UnknownTool | ErrorKind::NotFound => ToolErrorKind::NotFound,
        ErrorKind::Denied | ErrorKind::AwaitingApproval => ToolErrorKind::PermissionDenied,
        ErrorKind::Timeout => ToolErrorKind::Timeout,
        ErrorKind::Cancelled => ToolErrorKind::Cancelled,
        ErrorKind::Conflict
        | ErrorKind::OutcomeUnknown
        | ErrorKind::Failed
        | ErrorKind::Internal => ToolErrorKind::Other,
    }
}

/// The [`AgentHook`] of [`RigTools::hook`].
pub struct RigHook(RigTools);

impl AgentHook for RigHook {
    fn name(&self) -> Option<String> {
        Some("toolwright".to_owned())
    }

    fn on_invalid_tool_call(
        &self,
        _ctx: &HookContext,
        event: &InvalidToolCallContext,
    ) -> impl Future<Output = Option<InvalidToolCallAction>> + Send {
        let runner = &self.0.runner;
        let call = match &event.reason {
            InvalidToolCallReason::UnknownTool
            | InvalidToolCallReason::MalformedArguments { .. } => {
                let arguments = match &event.args {
                    Some(raw) => CallArguments::Json(raw.clone()),
                    None => CallArguments::Value(Value::Object(Default::default())),
                };
                Some(ToolCall::new(
                    next_call_id(),
                    event.tool_name.clone(),
                    arguments,
                ))
            }
            // The tool choice forbids the tool (and what rig adds later): rig's rule,
            // rig's answer.
            _ => None,
        };
        async move {
            let call = call?;
            let result = runner.dispatch(&runner.ctx, call).await;
            // A name rig did not know but the registry does (a tool turned on since the
            // agent was built) ran: its output is the answer, as for any other.
            let reason = result.for_model().to_owned();
            Some(InvalidToolCallAction::Skip { reason })
        }
    }

    fn on_tool_call_delta(
        &self,
        hook: &HookContext,
        event: ToolCallDelta<'_>,
    ) -> impl Future<Output = ObservationAction> + Send {
        let action = self.read(hook, &event);
        async move { action }
    }

    fn on_model_turn_finished(
        &self,
        hook: &HookContext,
        event: ModelTurnFinished<'_>,
    ) -> impl Future<Output = ModelTurnAction> + Send {
        let reason = match event.finish_reason {
            Some(FinishReason::Length) => Some("length"),
            Some(FinishReason::ContentFilter) => Some("content_filter"),
            _ => None,
        };
        if let Some(reason) = reason
            && let Some(AssistantContent::ToolCall(call)) = event.content.last()
        {
            hook.scratchpad().insert(CutCall {
                turn: event.turn,
                id: call.id.to_string(),
                reason,
            });
        }
        async { ModelTurnAction::Continue }
    }

    fn on_dispatch(
        &self,
        hook: &HookContext,
        event: DispatchEvent<'_>,
    ) -> impl Future<Output = DispatchAction> + Send {
        let runner = &self.0.runner;
        let cut = hook.scratchpad().get::<CutCall>().filter(|cut| {
            event.turn == cut.turn && event.call_id.is_some_and(|id| id.to_string() == cut.id)
        });
        let call = cut.zip(event.tool_name()).map(|(cut, name)| {
            let mut call = ToolCall::new(cut.id, name, event.tool_args().unwrap_or_default());
            call.cut = Some(cut.reason.to_owned());
            call
        });
        async move {
            match call {
                // The gate answers a cut call without running it.
                Some(call) => {
                    let answer = runner.dispatch(&runner.ctx, call).await;
                    DispatchAction::skip(answer.for_model())
                }
                None => DispatchAction::Proceed,
            }
        }
    }

    fn observes(&self, kind: StepEventKind) -> bool {
        match kind {
            StepEventKind::InvalidToolCall
            | StepEventKind::ModelTurnFinished
            | StepEventKind::ToolDispatch => true,
            StepEventKind::ToolCallDelta => self.0.stop_hopeless,
            _ => false,
        }
    }
}

/// The call a turn ended with when the turn stopped for the output limit or a filter.
#[derive(Clone)]
struct CutCall {
    turn: usize,
    id: String,
    reason: &'static str,
}

self_cell::self_cell!(
    /// A streamed call being read, with the registry its reading borrows.
    struct Streamed {
        owner: Arc<Registry>,
        #[not_covariant]
        dependent: PartialCall,
    }
);

/// The run's streamed calls, by their part in the model's turn (kept in rig's run
/// scratchpad, so each run has its own).
#[derive(Clone, Default)]
struct StreamedCalls(Arc<Mutex<FxHashMap<usize, Streamed>>>);

impl RigHook {
    /// Reads one fragment: stop the run when it makes its call hopeless.
    fn read(&self, hook: &HookContext, event: &ToolCallDelta<'_>) -> ObservationAction {
        let runner = &self.0.runner;
        let calls = hook
            .scratchpad()
            .update::<StreamedCalls, _>(|calls| calls.clone());
        let mut calls = calls.0.lock().unwrap_or_else(PoisonError::into_inner);
        let part = event.part.index();
        // A call's first fragment (rig's aggregate is the fragment itself) starts its
        // reading; parts are numbered again in each turn. A call whose name is not known
        // yet is left to the check at its end.
        if event.aggregated.len() == event.delta.len() {
            calls.remove(&part);
            if !event.tool_name.is_empty() {
                let (ctx, dialect) = (&runner.ctx, runner.dialect);
                let name = event.tool_name.to_owned();
                let streamed = Streamed::new(runner.registry.clone(), |registry| {
                    registry.partial_call_in(ctx, dialect, next_call_id(), name)
                });
                calls.insert(part, streamed);
            }
        }
        let Some(streamed) = calls.get_mut(&part) else {
            return ObservationAction::Continue;
        };
        let answer = streamed.with_dependent_mut(|_, call| match call.push(event.delta) {
            // No problems: a tool the caller is not offered, which rig's invalid-call
            // hook answers with the closest names.
            Verdict::Hopeless { problems, .. } if !problems.is_empty() => call.answer_now(),
            _ => None,
        });
        match answer {
            Some(result) => {
                calls.remove(&part);
                ObservationAction::stop(result.for_model())
            }
            None => ObservationAction::Continue,
        }
    }
}

/// `.toolwright(&tools)` on rig's agent builder: the tools and the hook in one call.
pub trait AgentBuilderExt {
    /// Adds every tool of `tools` (the caller's, lowered for its dialect) and its hook.
    ///
    /// # Panics
    ///
    /// When a tool's schema cannot be expressed in the dialect; [`RigTools::tools`]
    /// returns those problems instead (and `Registry::check` finds them in a test).
    fn toolwright(self, tools: &RigTools) -> AgentBuilder<WithBuilderTools>;
}

impl AgentBuilderExt for AgentBuilder<NoToolConfig> {
    fn toolwright(self, tools: &RigTools) -> AgentBuilder<WithBuilderTools> {
        self.add_hook(tools.hook())
            .dynamic_tools(expect_tools(tools))
    }
}

impl AgentBuilderExt for AgentBuilder<WithBuilderTools> {
    fn toolwright(self, tools: &RigTools) -> AgentBuilder<WithBuilderTools> {
        expect_tools(tools)
            .into_iter()
            .fold(self.add_hook(tools.hook()), |builder, tool| {
                builder.dynamic_tool(tool)
            })
    }
}

fn expect_tools(tools: &RigTools) -> Vec<DynamicTool> {
    tools
        .tools()
        .unwrap_or_else(|errors| panic!("{}", ToolError::internal(errors.to_string())))
}
