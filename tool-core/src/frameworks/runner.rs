//! What the adapters that run the tools themselves (rig, swiftide) share: the registry
//! they dispatch through, and the calls waiting for a person's approval.

use std::sync::{Arc, Mutex, PoisonError};

use super::offered::{Offered, offered};
use crate::approval::ApprovalTicket;
use crate::call::{ToolCall, ToolResult};
use crate::context::Context;
use crate::dialect::Dialect;
use crate::registry::Registry;
use crate::schema::lower::LoweringErrors;

/// What an adapter that runs the tools for a framework (rig, swiftide) holds: the
/// registry, the context it dispatches with, the dialect its definitions are lowered for
/// (calls are read back against it), and the calls waiting for approval.
#[derive(Clone)]
pub(crate) struct Runner {
    pub(crate) registry: Arc<Registry>,
    pub(crate) ctx: Arc<Context>,
    pub(crate) dialect: Dialect,
    pub(crate) approvals: PendingApprovals,
}

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
#[derive(Debug, Clone, Default)]
pub struct PendingApprovals(Arc<Mutex<Vec<ApprovalTicket>>>);

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
