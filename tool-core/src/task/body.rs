//! What a task is, as its store keeps it: the call it runs (enough to run it again), its
//! status and what goes with the status (the result, the error, the ticket), and who
//! runs it until when. One JSON body per task row (`crate::idempotency::TaskRow`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::approval::{ApprovalDecision, ApprovalTicket};
use crate::call::ToolCall;
use crate::idempotency::{StoreError, TaskRow};

/// Where a task is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// The call is running (or about to).
    Working,
    /// The call waits for a person's decision (its approval ticket is on the task).
    InputRequired,
    /// The call finished: its result (an error result too) is on the task.
    Completed,
    /// The call could not finish, or whether it took effect is unknown: the error is on
    /// the task.
    Failed,
    /// The caller cancelled the task.
    Cancelled,
}

impl TaskStatus {
    /// Whether the task is over (`completed`, `failed`, `cancelled`).
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    /// The status as MCP writes it (`working`, `input_required`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }
}

/// The call a task runs, as kept: enough to run it again after a crash.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct StoredCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

impl StoredCall {
    pub fn of(call: &ToolCall) -> Self {
        StoredCall {
            id: call.id.clone(),
            name: call.name.clone(),
            arguments: crate::arguments::AsRead::SENT.to_value(call),
            origin: call.origin.clone(),
            idempotency_key: call.idempotency_key.clone(),
        }
    }

    pub fn to_call(&self) -> ToolCall {
        let mut call = ToolCall::new(self.id.clone(), self.name.clone(), self.arguments.clone());
        call.origin.clone_from(&self.origin);
        call.idempotency_key.clone_from(&self.idempotency_key);
        call
    }
}

/// A task's state: the row's body.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Body {
    pub call: StoredCall,
    /// The digest of the tool and the arguments as sent: the same key with another call
    /// is a conflict, never this task.
    pub digest: String,
    pub status: TaskStatus,
    /// Whether the call was handed to the dispatcher: before that, a crash cost nothing
    /// and the call can simply run.
    #[serde(default)]
    pub started: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `completed`: the result as the protocol writes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// `failed`: the error as the protocol writes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// `input_required`: the ticket the decision answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<ApprovalTicket>,
    /// A decided ticket being run: after a crash, the decision is run again (a spent
    /// ticket answers with its first result, never a second run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<(ApprovalTicket, ApprovalDecision)>,
    /// The process running the call, and until when it holds it without renewing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<String>,
    #[serde(default)]
    pub lease_until: u64,
    pub updated_at: u64,
    pub ttl_ms: u64,
    pub poll_ms: u64,
}

impl Body {
    pub fn read(row: &TaskRow) -> Result<Self, StoreError> {
        serde_json::from_str(&row.body)
            .map_err(|error| StoreError::new(format!("the task {} is corrupted: {error}", row.id)))
    }

    /// `row` with this body written into it, one version on.
    pub fn written_over(&self, row: &TaskRow) -> Result<TaskRow, StoreError> {
        Ok(TaskRow {
            version: row.version + 1,
            body: serde_json::to_string(self).map_err(StoreError::new)?,
            ..row.clone()
        })
    }
}
