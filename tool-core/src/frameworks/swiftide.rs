//! A registry as a [swiftide](https://docs.rs/swiftide-agents) `ToolBox` (feature
//! `swiftide`, swiftide 0.32: the newest release that builds with Rust 1.95).
//!
//! ```ignore
//! let mut agent = Agent::builder().llm(&llm).toolwright(&SwiftideTools::new(registry)).build()?;
//! ```
//!
//! Every tool the caller is offered is a swiftide `Tool` whose `invoke` sends the call
//! through [`Registry::dispatch`] with the adapter's [`Context`] (swiftide hands a tool
//! only its agent context, which cannot carry one). Any toolwright error reaches the
//! model as `ToolOutput::Fail` with toolwright's model view (the kind, every problem
//! with its path, the hint): a failure the model can act on, which swiftide does not
//! count toward its retry limit (toolwright's own retries, idempotency and budgets
//! apply instead).
//!
//! swiftide drops a call to a tool it does not have, leaving it unanswered (the next
//! query fails with `UnfulfilledToolCalls`). The hooks added by
//! [`AgentBuilderExt::toolwright`] answer such a call with toolwright's `unknown_tool`
//! (the closest names), so the model can correct itself.
//!
//! Approval is swiftide's human-in-the-loop feedback: a call that needs approval does
//! not run and returns `ToolOutput::FeedbackRequired` with its [`ApprovalTicket`] as the
//! payload, so the agent stops with `StopReason::FeedbackRequired`. The host shows the
//! ticket, answers with `agent.context().feedback_received(&call, &ToolFeedback::approved())`
//! (or `refused`, its payload a string the model reads as the reason) and runs the agent
//! again: the adapter resumes the ticket ([`Registry::resume`]), so the call runs
//! exactly once, as approved.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use serde_json::Value;
use swiftide_agents::{Agent, AgentBuilder};
use swiftide_core::chat_completion::errors::ToolError as SwiftideError;
use swiftide_core::chat_completion::{
    ChatCompletionRequest, ChatCompletionResponse, ToolCall as SwiftideCall, ToolOutput, ToolSpec,
};
use swiftide_core::{AgentContext, Tool, ToolBox, ToolFeedback};

use super::Runner;
use crate::approval::{ApprovalDecision, ApprovalTicket};
use crate::call::{CallArguments, ToolCall, ToolResult};
use crate::context::Context;
use crate::dialect::Dialect;
use crate::registry::Registry;
use crate::schema::lower::LoweringErrors;

/// A registry's tools for a swiftide agent: a `ToolBox`, and the hooks that answer calls
/// to tools the agent does not have. Clones share the registry and the calls waiting
/// for approval.
#[derive(Clone)]
pub struct SwiftideTools {
    runner: Runner,
    turn: Arc<Mutex<Turn>>,
}

/// What the hooks know of the current step: the names the agent offered, and the calls
/// of the model's answer that name none of them.
#[derive(Default)]
struct Turn {
    offered: HashSet<String>,
    unanswered: Vec<SwiftideCall>,
}

impl SwiftideTools {
    /// The tools of `registry`, dispatched with an empty [`Context`], their schemas
    /// lowered for OpenAI's Chat Completions without strict mode (what swiftide's OpenAI
    /// integration sends; [`SwiftideTools::dialect`] to change it).
    pub fn new(registry: Arc<Registry>) -> Self {
        Self {
            runner: Runner::new(registry),
            turn: Arc::default(),
        }
    }

    /// Dispatches with `ctx` (the caller, the session, handles), and offers the tools
    /// its caller may see.
    pub fn with_context(mut self, ctx: Arc<Context>) -> Self {
        self.runner.ctx = ctx;
        self
    }

    /// Lowers the schemas for `dialect`, the provider's; calls are read back against it.
    pub fn dialect(mut self, dialect: Dialect) -> Self {
        self.runner.dialect = dialect;
        self
    }

    /// One swiftide tool per tool the caller is offered; or what the dialect cannot
    /// express.
    pub fn tools(&self) -> Result<Vec<RegistryTool>, LoweringErrors> {
        self.runner
            .offered()?
            .into_iter()
            .map(|tool| {
                let parameters_schema = serde_json::from_value(tool.parameters).ok();
                Ok(RegistryTool {
                    tools: self.clone(),
                    spec: ToolSpec {
                        name: tool.name,
                        description: tool.description,
                        parameters_schema,
                    },
                })
            })
            .collect()
    }

    async fn dispatch(&self, call: ToolCall) -> ToolResult {
        self.runner.dispatch(&self.runner.ctx, call).await
    }

    /// `call`, decided by a person: the ticket resumed with the decision. Without a
    /// ticket (none kept, none in the payload) the call is dispatched again, and asks
    /// again.
    async fn decide(&self, name: &str, call: &SwiftideCall, feedback: ToolFeedback) -> ToolResult {
        let ticket = feedback
            .payload()
            .and_then(|payload| serde_json::from_value::<ApprovalTicket>(payload.clone()).ok())
            .or_else(|| self.runner.approvals.remove(name, call.id()));
        let Some(ticket) = ticket else {
            return self.dispatch(to_toolwright(name, call)).await;
        };
        let decision = match feedback {
            ToolFeedback::Approved { .. } => ApprovalDecision::Approve {
                digest: ticket.digest.clone(),
            },
            ToolFeedback::Refused { payload } => ApprovalDecision::Decline {
                digest: ticket.digest.clone(),
                reason: match payload {
                    Some(Value::String(reason)) => reason,
                    _ => "The person declined the call.".to_owned(),
                },
            },
        };
        self.runner
            .registry
            .resume(&self.runner.ctx, &ticket, decision)
            .await
    }

    /// Answers the calls of the last answer that named no tool of the agent's, with
    /// toolwright's `unknown_tool`.
    async fn answer_unknown(&self, agent: &Agent) -> anyhow::Result<()> {
        let unanswered = std::mem::take(&mut self.lock_turn().unanswered);
        for call in unanswered {
            let result = self.dispatch(to_toolwright(call.name(), &call)).await;
            agent
                .add_message(swiftide_core::chat_completion::ChatMessage::ToolOutput(
                    call,
                    ToolOutput::fail(result.for_model()),
                ))
                .await?;
        }
        Ok(())
    }

    fn lock_turn(&self) -> std::sync::MutexGuard<'_, Turn> {
        self.turn.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// swiftide's call as toolwright's: its id, and its arguments as the JSON text they came as.
fn to_toolwright(name: &str, call: &SwiftideCall) -> ToolCall {
    let arguments = match call.args() {
        Some(text) => CallArguments::Json(text.to_owned()),
        None => CallArguments::Value(Value::Object(Default::default())),
    };
    ToolCall::new(call.id(), name, arguments)
}

/// A result as swiftide's output: its model view, as text or as a failure.
fn to_swiftide(result: &ToolResult) -> ToolOutput {
    if let Some(ticket) = &result.ticket {
        return ToolOutput::FeedbackRequired(serde_json::to_value(ticket).ok());
    }
    match result.error() {
        Some(_) => ToolOutput::fail(result.for_model()),
        None => ToolOutput::text(result.for_model()),
    }
}

/// One registry tool, as swiftide calls it.
#[derive(Clone)]
pub struct RegistryTool {
    tools: SwiftideTools,
    spec: ToolSpec,
}

#[async_trait]
impl Tool for RegistryTool {
    async fn invoke(
        &self,
        agent_context: &dyn AgentContext,
        tool_call: &SwiftideCall,
    ) -> Result<ToolOutput, SwiftideError> {
        let result = match agent_context.has_received_feedback(tool_call).await {
            Some(feedback) => {
                self.tools
                    .decide(&self.spec.name, tool_call, feedback)
                    .await
            }
            None => {
                self.tools
                    .dispatch(to_toolwright(&self.spec.name, tool_call))
                    .await
            }
        };
        Ok(to_swiftide(&result))
    }

    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.spec.name)
    }

    fn tool_spec(&self) -> ToolSpec {
        self.spec.clone()
    }
}

#[async_trait]
impl ToolBox for SwiftideTools {
    async fn available_tools(&self) -> anyhow::Result<Vec<Box<dyn Tool>>> {
        Ok(self
            .tools()?
            .into_iter()
            .map(|tool| Box::new(tool) as Box<dyn Tool>)
            .collect())
    }

    fn name(&self) -> Cow<'_, str> {
        Cow::Borrowed("toolwright")
    }
}

/// `.toolwright(&tools)` on swiftide's agent builder: the toolbox and the hooks that
/// answer calls to tools the agent does not have.
pub trait AgentBuilderExt {
    /// Adds `tools` as a toolbox, and its hooks.
    fn toolwright(&mut self, tools: &SwiftideTools) -> &mut Self;
}

impl AgentBuilderExt for AgentBuilder {
    fn toolwright(&mut self, tools: &SwiftideTools) -> &mut Self {
        let (offer, answer, close) = (tools.clone(), tools.clone(), tools.clone());
        self.add_toolbox(tools.clone())
            .before_completion(move |_agent: &Agent, request: &mut ChatCompletionRequest| {
                note_offered(&offer, request);
                Box::pin(async { Ok(()) })
            })
            .after_completion(
                move |_agent: &Agent, response: &mut ChatCompletionResponse| {
                    note_unknown(&answer, response);
                    Box::pin(async { Ok(()) })
                },
            )
            .after_each(move |agent: &Agent| {
                let close = close.clone();
                Box::pin(async move { close.answer_unknown(agent).await })
            })
    }
}

/// Keeps the names of every tool the agent offers in this step (its own and other
/// toolboxes' too).
fn note_offered(tools: &SwiftideTools, request: &ChatCompletionRequest) {
    tools.lock_turn().offered = request
        .tools_spec()
        .iter()
        .map(|spec| spec.name.clone())
        .collect();
}

/// Keeps the calls of the model's answer that name no offered tool: swiftide will not
/// answer them.
fn note_unknown(tools: &SwiftideTools, response: &ChatCompletionResponse) {
    let mut turn = tools.lock_turn();
    let unknown: Vec<SwiftideCall> = response
        .tool_calls
        .iter()
        .flatten()
        .filter(|call| !turn.offered.contains(call.name()))
        .cloned()
        .collect();
    turn.unanswered = unknown;
}
