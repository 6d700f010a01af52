//! Tasks over MCP (2026-07-28's `io.modelcontextprotocol/tasks` extension, SEP-2663): a
//! `tools/call` of a tool that allows tasks, from a client that declares the extension,
//! is answered with a task (`resultType: "task"`); `tasks/get` reads it (its result once
//! `completed`, the approval it waits for when `input_required`), `tasks/update` answers
//! that approval, `tasks/cancel` cancels it. The tasks themselves are
//! [`crate::task::Tasks`], kept in the registry's store.

use std::sync::Arc;

use rmcp::model::{
    CallToolResponse, CancelTaskParams, ClientCapabilities, CreateTaskResult, DetailedTask,
    ErrorCode, ErrorData, GetTaskParams, GetTaskResult, JsonObject, ProtocolVersion, Task,
    TaskPayload, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

use super::messages::TaskRequested;
use super::{APPROVAL_TICKET_META, McpServer, approval, results};
use crate::call::{ToolCall, ToolResult};
use crate::context::Context;
use crate::spec::TaskSupport;
use crate::task::{TaskError, TaskStatus, TaskView, Tasks};

/// How a finished call is kept for `tasks/get`: the `CallToolResult` a `tools/call`
/// would have answered, or the protocol error it would have been.
pub(super) fn render(result: &ToolResult) -> Result<Value, Value> {
    match results::render(result) {
        Ok(answer) => serde_json::to_value(answer).map_err(
            |error| json!({ "code": -32603, "message": format!("writing the result: {error}") }),
        ),
        Err(error) => Err(serde_json::to_value(error).unwrap_or(Value::Null)),
    }
}

/// What a `tools/call` of `tool` becomes for this client.
pub(super) enum Route {
    /// A call answered within its request.
    Call,
    /// A task.
    Task,
}

impl McpServer {
    /// Serves tasks (MCP Tasks: the 2026-07-28 extension `io.modelcontextprotocol/tasks`,
    /// and the 2025-11-25 revision's tasks for clients of that revision): a call of a tool
    /// that allows them (`#[tool(task = "optional")]` or `"required"`, or
    /// [`ToolSettings::task`](crate::ToolSettings::task)), from a client that asks for one
    /// (declaring the extension; in 2025-11-25, with a `task` parameter), is answered at
    /// once with a task the client polls; the call runs
    /// on, its state kept in the registry's idempotency store (see [`crate::task`]: ids
    /// bound to the caller and the idempotency key, what a crash leaves). Clients that
    /// do not declare tasks get the result within the request, except from a tool that
    /// requires tasks. `Err` when the store keeps no tasks.
    ///
    /// ```
    /// # use toolwright::mcp::McpServer;
    /// # use toolwright::task::TaskSettings;
    /// # use toolwright::{tool, Context, Registry};
    /// /// Build the yearly report: minutes of work.
    /// #[tool(effect = "read_only", task = "optional")]
    /// async fn yearly_report(/** The year. */ year: u16) -> String { format!("report {year}") }
    ///
    /// let registry = Registry::builder().with(YearlyReport).build().unwrap();
    /// let server = McpServer::new(registry, Context::new())
    ///     .unwrap()
    ///     .with_tasks(TaskSettings::new())
    ///     .unwrap();
    /// # let _ = server;
    /// ```
    pub fn with_tasks(
        mut self,
        settings: crate::task::TaskSettings,
    ) -> Result<Self, super::SetupError> {
        let tasks = crate::task::Tasks::new(self.registry.clone(), settings, render)
            .map_err(super::SetupError::Tasks)?;
        self.tasks = Some(tasks);
        Ok(self)
    }

    /// The tasks this server serves ([`with_tasks`](McpServer::with_tasks)): where a
    /// person's decision on a task waiting for approval is given
    /// ([`Tasks::decide`](crate::task::Tasks::decide)) when clients do not decide.
    pub fn tasks(&self) -> Option<&crate::task::Tasks> {
        self.tasks.as_ref()
    }

    /// Whether a call of `tool` from this client runs as a task: the server has tasks,
    /// the tool allows them and the client asked for one, as its protocol era asks
    /// (2026-07-28: it declared the extension; 2025-11-25: the call has a `task`
    /// parameter). A tool that requires tasks, called without one, is refused with what
    /// the era prescribes (the capability it lacks; "method not found").
    pub(super) fn route(
        &self,
        tool: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<Route, ErrorData> {
        let Some(support) = self.registry.get(tool).map(|tool| tool.spec().task) else {
            return Ok(Route::Call);
        };
        if self.tasks.is_none() {
            return Ok(Route::Call);
        }
        if is_legacy(context) {
            return legacy_route(tool, support, context);
        }
        if support == TaskSupport::Forbidden {
            return Ok(Route::Call);
        }
        let declared = context
            .client_capabilities()
            .is_some_and(|capabilities| capabilities.supports_tasks());
        match (declared, support) {
            (true, _) => Ok(Route::Task),
            (false, TaskSupport::Required) => Err(ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            )),
            (false, _) => Ok(Route::Call),
        }
    }

    pub(super) fn served_tasks(&self) -> Result<&Tasks, ErrorData> {
        self.tasks
            .as_ref()
            .ok_or_else(ErrorData::method_not_found::<rmcp::model::GetTaskMethod>)
    }

    /// The context a task of this request runs in: the request's (its caller over the
    /// server's), owned, since the task outlives the request.
    pub(super) fn task_context(&self, context: &RequestContext<RoleServer>) -> Arc<Context> {
        Arc::new(
            self.request_context(context)
                .unwrap_or_else(|| Context::over(self.context.clone())),
        )
    }

    /// Starts `call` as a task.
    pub(super) async fn start_task(
        &self,
        call: ToolCall,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tasks = self.served_tasks()?;
        match tasks.start(self.task_context(context), call).await {
            Ok(view) => Ok(CallToolResponse::Task(CreateTaskResult::new(task(&view)))),
            // Refusals the model can act on are results, as any refused call's.
            Err(refusal) => Ok(CallToolResponse::Complete(
                rmcp::model::CallToolResult::error(vec![rmcp::model::ContentBlock::text(
                    refusal.to_string(),
                )]),
            )),
        }
    }

    /// `tasks/get`.
    pub(super) async fn get_task(
        &self,
        request: GetTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let view = self
            .served_tasks()?
            .get(self.task_context(context), &request.task_id)
            .await
            .map_err(refused)?;
        let ticket = view
            .ticket
            .clone()
            .filter(|_| view.status == TaskStatus::InputRequired && !self.client_approval);
        let mut answer = GetTaskResult::new(self.detailed(view)?);
        if let Some(ticket) = ticket {
            let mut meta = rmcp::model::MetaObject::default();
            meta.0.insert(
                APPROVAL_TICKET_META.to_owned(),
                serde_json::to_value(ticket).unwrap_or(Value::Null),
            );
            answer.meta = Some(meta);
        }
        Ok(answer)
    }

    /// `tasks/update`: the answer to the approval a task waits for. Acknowledged also
    /// when it answers nothing the task asks (the task stays as it is); refused for a
    /// task this caller does not have, or a server that takes no approvals from clients.
    pub(super) async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if !self.client_approval {
            return Err(ErrorData::invalid_params(
                "this server does not take approvals from its clients: the task waits for a decision made elsewhere (Tasks::decide)",
                None,
            ));
        }
        let tasks = self.served_tasks()?;
        let ctx = self.task_context(context);
        let view = tasks
            .get(ctx.clone(), &request.task_id)
            .await
            .map_err(refused)?;
        // Answers to nothing the task asks now (it asks nothing, or other keys) are
        // acknowledged and ignored, as the extension asks: the task stays as it is.
        let Some(ticket) = view
            .ticket
            .filter(|_| view.status == TaskStatus::InputRequired)
        else {
            return Ok(());
        };
        let Some(decision) = approval::decision(&request.input_responses, &ticket.digest)? else {
            return Ok(());
        };
        match tasks.decide(ctx, &request.task_id, decision).await {
            // Decided in between (another update, another replica): nothing to add.
            Ok(_) | Err(TaskError::Invalid(_)) => Ok(()),
            Err(error) => Err(refused(error)),
        }
    }

    /// `tasks/cancel`: acknowledged, also for a task that already ended (which stays as
    /// it ended).
    pub(super) async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let ctx = self.task_context(context);
        self.served_tasks()?
            .cancel(&ctx, &request.task_id)
            .await
            .map(drop)
            .map_err(refused)
    }

    /// A task as `tasks/get` answers it. A task waiting for approval asks the client
    /// when the client may decide ([`McpServer::with_client_approval`]); otherwise it is
    /// `working`, its ticket in `_meta` for whoever decides.
    fn detailed(&self, view: TaskView) -> Result<DetailedTask, ErrorData> {
        let object = |value: Option<Value>| match value {
            Some(Value::Object(object)) => object,
            _ => JsonObject::new(),
        };
        let mut base = task(&view);
        let payload = match view.status {
            TaskStatus::Working => TaskPayload::Working,
            TaskStatus::Cancelled => TaskPayload::Cancelled,
            TaskStatus::Completed => TaskPayload::Completed {
                result: object(view.result),
            },
            TaskStatus::Failed => TaskPayload::Failed {
                error: object(view.error),
            },
            TaskStatus::InputRequired => match &view.ticket {
                Some(ticket) if self.client_approval => TaskPayload::InputRequired {
                    input_requests: approval::asking(ticket)?,
                },
                _ => {
                    base.status_message = Some(format!(
                        "waiting for a person's approval (the ticket is in _meta[\"{APPROVAL_TICKET_META}\"])"
                    ));
                    TaskPayload::Working
                }
            },
        };
        Ok(DetailedTask::new(base, payload))
    }
}

/// Whether the session speaks the 2025-11-25 revision (or an earlier one): its tasks
/// are this module's.
pub(super) fn is_legacy(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| version < ProtocolVersion::V_2026_07_28)
}

/// Whether a call of `tool` (whose task support is `support`) runs as a task in a
/// 2025-11-25 session: when the client asked with a `task` parameter.
fn legacy_route(
    tool: &str,
    support: TaskSupport,
    context: &RequestContext<RoleServer>,
) -> Result<Route, ErrorData> {
    let requested = super::messages::received::<TaskRequested>(context).is_some();
    match (requested, support) {
        (true, TaskSupport::Forbidden) => Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("'{tool}' does not run as a task: call it without the task parameter"),
            None,
        )),
        (true, _) => Ok(Route::Task),
        (false, TaskSupport::Required) => Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!(
                "'{tool}' runs only as a task: call it with a task parameter (\"task\": {{}}) and read its result with tasks/result"
            ),
            None,
        )),
        (false, _) => Ok(Route::Call),
    }
}

/// The task's base fields.
pub(super) fn task(view: &TaskView) -> Task {
    let status = match view.status {
        TaskStatus::Working => rmcp::model::TaskStatus::Working,
        TaskStatus::InputRequired => rmcp::model::TaskStatus::InputRequired,
        TaskStatus::Completed => rmcp::model::TaskStatus::Completed,
        TaskStatus::Failed => rmcp::model::TaskStatus::Failed,
        TaskStatus::Cancelled => rmcp::model::TaskStatus::Cancelled,
    };
    let mut task = Task::new(
        view.id.clone(),
        status,
        timestamp(view.created_at),
        timestamp(view.updated_at),
    )
    .with_ttl_ms(view.ttl_ms)
    .with_poll_interval_ms(view.poll_interval_ms);
    task.status_message.clone_from(&view.message);
    task
}

/// Unix milliseconds as ISO 8601 (`2026-12-05T09:30:00.000Z`).
pub(super) fn timestamp(millis: u64) -> String {
    i64::try_from(millis)
        .ok()
        .and_then(chrono::DateTime::from_timestamp_millis)
        .map(|time| time.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .unwrap_or_default()
}

/// A refused task operation as the protocol error it is.
pub(super) fn refused(error: TaskError) -> ErrorData {
    match error {
        TaskError::Store(_) => ErrorData::internal_error(error.to_string(), None),
        _ => ErrorData::invalid_params(error.to_string(), None),
    }
}
