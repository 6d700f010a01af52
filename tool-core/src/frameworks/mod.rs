//! toolwright tools inside the agent frameworks Rust users already run, one module and
//! one cargo feature per framework: `rig`, `async_openai`, `genai`, `swiftide`.
//!
//! Each is a thin translation and nothing more: the tools a caller is offered come from
//! [`Registry::definitions_for`] in the dialect the framework speaks, and every call goes
//! through [`Registry::dispatch`] (or [`Registry::dispatch_batch`]), so validation with
//! every problem at once, effects, policies, idempotency, approval tickets, budgets and
//! telemetry hold exactly as they do without a framework. What the model reads back is
//! toolwright's model view ([`ToolResult::for_model`]), never a Rust `Display`.
//!
//! This file holds what the four share: the offered tools as name, description and
//! parameters, and the calls waiting for a person.

#[cfg(feature = "async-openai")]
pub mod async_openai;
#[cfg(feature = "genai")]
pub mod genai;
#[cfg(feature = "rig")]
pub mod rig;
#[cfg(feature = "swiftide")]
pub mod swiftide;

#[cfg(any(feature = "rig", feature = "swiftide"))]
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;

#[cfg(any(feature = "rig", feature = "swiftide"))]
use crate::approval::ApprovalTicket;
#[cfg(any(feature = "rig", feature = "swiftide"))]
use crate::call::ToolCall;
use crate::call::ToolResult;
use crate::context::Context;
use crate::dialect::Dialect;
use crate::registry::Registry;
use crate::schema::lower::LoweringErrors;

/// One tool as a framework declares it: its name, description and the JSON Schema of
/// its arguments, lowered for the dialect the framework's provider speaks.
#[cfg_attr(
    not(any(feature = "rig", feature = "genai", feature = "swiftide")),
    allow(dead_code)
)]
pub(crate) struct Offered {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) parameters: Value,
}

/// The tools the caller in `ctx` is offered, in `dialect`, read from their definitions
/// ([`Registry::definitions_for`]: visibility, toggles and deferred loading decide). A
/// provider-hosted tool (one without parameters, such as Anthropic's tool search) has no
/// counterpart in a framework's own tool list and is left out.
#[cfg_attr(
    not(any(feature = "rig", feature = "genai", feature = "swiftide")),
    allow(dead_code)
)]
pub(crate) fn offered(
    registry: &Registry,
    ctx: &Context,
    dialect: Dialect,
) -> Result<Vec<Offered>, LoweringErrors> {
    let parameters_field = match dialect {
        Dialect::OpenAiChat { .. } | Dialect::OpenAiResponses { .. } => "parameters",
        Dialect::Anthropic { .. } => "input_schema",
        Dialect::GeminiParameters => "parameters",
        Dialect::GeminiJsonSchema => "parametersJsonSchema",
        Dialect::Mcp => "inputSchema",
    };
    let definitions = registry.definitions_for(ctx, dialect)?;
    Ok(definitions
        .into_iter()
        .filter_map(|mut definition| {
            let tool = match definition.get_mut("function") {
                Some(function) => function.take(),
                None => definition,
            };
            let Value::Object(mut tool) = tool else {
                return None;
            };
            let name = tool.remove("name")?.as_str()?.to_owned();
            let parameters = tool.remove(parameters_field)?;
            let description = match tool.remove("description") {
                Some(Value::String(description)) => description,
                _ => String::new(),
            };
            Some(Offered {
                name,
                description,
                parameters,
            })
        })
        .collect())
}

/// A response's calls, answered: the results (with their errors, effects and approval
/// tickets, for the host) and the framework's messages that carry them back to the
/// model, one per call, in the calls' order.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Answered<M> {
    /// Every call's result. A call that waits for approval has its ticket here.
    pub results: Vec<ToolResult>,
    /// What to append to the conversation.
    pub messages: Vec<M>,
}

/// What an adapter that runs the tools for a framework (rig, swiftide) holds: the
/// registry, the context it dispatches with, the dialect its definitions are lowered for
/// (calls are read back against it), and the calls waiting for approval.
#[cfg(any(feature = "rig", feature = "swiftide"))]
#[derive(Clone)]
pub(crate) struct Runner {
    pub(crate) registry: Arc<Registry>,
    pub(crate) ctx: Arc<Context>,
    pub(crate) dialect: Dialect,
    pub(crate) approvals: PendingApprovals,
}

#[cfg(any(feature = "rig", feature = "swiftide"))]
impl Runner {
    /// `registry`'s tools with an empty context, lowered for OpenAI's Chat Completions
    /// without strict mode (what both frameworks' OpenAI providers send).
    pub(crate) fn new(registry: Arc<Registry>) -> Self {
        Self {
            registry,
            ctx: Arc::new(Context::new()),
            dialect: Dialect::OpenAiChat { strict: false },
            approvals: PendingApprovals::default(),
        }
    }

    /// The tools the context's caller is offered.
    pub(crate) fn offered(&self) -> Result<Vec<Offered>, LoweringErrors> {
        offered(&self.registry, &self.ctx, self.dialect)
    }

    /// Dispatches `call` with `ctx`, read against the dialect, and keeps its ticket if it
    /// waits for approval.
    pub(crate) async fn dispatch(&self, ctx: &Context, call: ToolCall) -> ToolResult {
        let result = self
            .registry
            .dispatch(ctx, call.written_for(self.dialect))
            .await;
        self.approvals.keep(&result);
        result
    }
}

/// Calls that wait for a person's approval, with the tickets their dispatch issued,
/// for a framework that runs the tools itself (so the host never sees their results):
/// the host takes them, asks, and decides each with [`Registry::resume`]. Clones share
/// the same list.
#[cfg(any(feature = "rig", feature = "swiftide"))]
#[derive(Debug, Clone, Default)]
pub struct PendingApprovals(Arc<Mutex<Vec<ApprovalTicket>>>);

#[cfg(any(feature = "rig", feature = "swiftide"))]
impl PendingApprovals {
    /// The tickets waiting now, oldest first; the list is left empty.
    pub fn take(&self) -> Vec<ApprovalTicket> {
        std::mem::take(&mut *self.lock())
    }

    /// Whether no call is waiting.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    /// Keeps `result`'s ticket, if it carries one.
    pub(crate) fn keep(&self, result: &ToolResult) {
        if let Some(ticket) = &result.ticket {
            self.lock().push((**ticket).clone());
        }
    }

    /// The ticket of the call `call_id` of tool `tool`, taken out of the list.
    #[cfg_attr(not(feature = "swiftide"), allow(dead_code))]
    pub(crate) fn remove(&self, tool: &str, call_id: &str) -> Option<ApprovalTicket> {
        let mut tickets = self.lock();
        let at = tickets
            .iter()
            .position(|ticket| ticket.call_id == call_id && ticket.tool == tool)?;
        Some(tickets.remove(at))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<ApprovalTicket>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
