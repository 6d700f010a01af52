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
//! Approval: rig's tools cannot pause a run for a person (its hooks can deny a call or
//! stop the run, not wait for a ticket to be decided elsewhere). A call that needs
//! approval does not run: the model reads that it waits for approval, the run goes on,
//! and the ticket waits in [`RigTools::approvals`] for the host to decide with
//! [`Registry::resume`] and pass the result into the next prompt.

use std::future::Future;
use std::sync::Arc;

use rig_agent::agent::{
    AgentBuilder, AgentHook, HookContext, InvalidToolCallAction, InvalidToolCallContext,
    InvalidToolCallReason, NoToolConfig, WithBuilderTools,
};
use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool, ToolContext, ToolErrorKind, ToolExecutionError, ToolOutput};
use serde_json::Value;

use super::{PendingApprovals, Runner};
use crate::call::{CallArguments, ToolCall, ToolResult};
use crate::context::Context;
use crate::dialect::Dialect;
use crate::error::{ErrorKind, ToolError};
use crate::registry::Registry;
use crate::schema::lower::LoweringErrors;

/// A registry's tools for a rig agent: the [`DynamicTool`]s, the [`RigHook`] and the
/// calls waiting for approval. Clones share the registry and the waiting list.
#[derive(Clone)]
pub struct RigTools(Runner);

impl RigTools {
    /// The tools of `registry`, dispatched with an empty [`Context`] unless the run
    /// carries one, their schemas lowered for OpenAI's Chat Completions without strict
    /// mode (what rig's providers send; [`RigTools::dialect`] to change it).
    pub fn new(registry: Arc<Registry>) -> Self {
        Self(Runner::new(registry))
    }

    /// Dispatches with `ctx` (the caller, the session, handles) when the run carries no
    /// context of its own, and offers the tools `ctx`'s caller may see.
    pub fn with_context(mut self, ctx: Arc<Context>) -> Self {
        self.0.ctx = ctx;
        self
    }

    /// Lowers the schemas for `dialect`: the provider rig sends them to (Gemini's
    /// subset, a strict OpenAI mode). Calls are read back against the same lowering.
    pub fn dialect(mut self, dialect: Dialect) -> Self {
        self.0.dialect = dialect;
        self
    }

    /// The calls that wait for a person's approval, with their tickets.
    pub fn approvals(&self) -> &PendingApprovals {
        &self.0.approvals
    }

    /// One rig tool per tool the caller is offered; or what the dialect cannot express.
    pub fn tools(&self) -> Result<Vec<DynamicTool>, LoweringErrors> {
        Ok(self
            .0
            .offered()?
            .into_iter()
            .filter_map(|tool| {
                let name = ToolName::new(tool.name.clone()).ok()?;
                let runner = self.0.clone();
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
        let runner = &self.0.0;
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
