//! Tasks as the 2025-11-25 revision has them (its experimental tasks utility), for the
//! clients of that era: the official TypeScript SDK 1.24 and later
//! (`client.experimental.tasks.callToolStream`), the Python SDK 1.23 to 1.29
//! (`session.experimental.call_tool_as_task`), FastMCP 2.14 to 3 (`task=True`). The same
//! [`Tasks`](crate::task::Tasks) as the 2026-07-28 extension (`tasks.rs`), in the other
//! era's wire form:
//!
//! - `initialize` advertises `capabilities.tasks`;
//! - `tools/list` gives each task tool its `execution.taskSupport`;
//! - a `tools/call` with a `task` parameter is answered `{"task": {...}}`; a tool that
//!   requires tasks, called without one, and a tool that forbids them, called with one,
//!   get -32601;
//! - `tasks/get` answers the task, `tasks/result` waits for its end and answers the
//!   call's result (or its JSON-RPC error), asking the client for the approval a task
//!   waits for (`elicitation/create`, marked with the task) on the way; `tasks/list`
//!   pages through the caller's tasks; `tasks/cancel` cancels one that has not ended
//!   (-32602 for one that has, as this era asks);
//! - the session that created a task hears of its status changes
//!   (`notifications/tasks/status`).
//!
//! A tool result with `isError` is a `failed` task here (a `completed` one under the
//! extension); `tasks/result` still answers it.
//!
//! The SDK's types know only the extension's tasks: they have no place for the
//! capability, the `task` parameter (the transports read it: `TaskRequested`) or this
//! era's answers. So each session's transport keeps its era (`era.rs`): it patches the
//! answer to `initialize`, and hands this era's task requests (and `tools/list`) to the
//! SDK as "custom" requests, which [`McpServer::legacy_request`] answers in this era's
//! form.

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientResult, CustomResult, ErrorCode, ErrorData,
    InputRequest, JsonObject, ListToolsResult, ServerRequest, ServerResult,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

use super::tasks::{is_legacy, refused, timestamp};
use super::{APPROVAL_TICKET_META, McpServer, approval};
use crate::spec::TaskSupport;
use crate::task::{TaskStatus, TaskView};

/// The `_meta` key that ties a message to the task it belongs to.
const RELATED_TASK_META: &str = "io.modelcontextprotocol/related-task";

/// The most tasks one `tasks/list` page holds.
const LIST_PAGE: usize = 50;

impl McpServer {
    /// A "custom" request of a 2025-11-25 session to a server with tasks ([`Era`]): the
    /// tasks utility's methods, and the task forms of `tools/call` and `tools/list`,
    /// answered in this era's form; `None` for any other method.
    pub(super) async fn legacy_request(
        &self,
        method: &str,
        params: Option<Value>,
        context: RequestContext<RoleServer>,
    ) -> Option<Result<CustomResult, ErrorData>> {
        if self.tasks.is_none() || !is_legacy(&context) {
            return None;
        }
        let id = || task_id(params.as_ref());
        let answer = match method {
            "tools/call" => match params.map(serde_json::from_value::<CallToolRequestParams>) {
                Some(Ok(params)) => self.legacy_call(params, context).await,
                _ => Err(ErrorData::invalid_params(
                    "Invalid params for tools/call: the params do not have the shape it takes",
                    None,
                )),
            },
            "tools/list" => {
                let listed = rmcp::ServerHandler::list_tools(self, None, context).await;
                listed.map(|listed| self.with_task_support(listed))
            }
            "tasks/get" => match id() {
                Ok(id) => self.legacy_get(&id, &context).await,
                Err(error) => Err(error),
            },
            "tasks/cancel" => match id() {
                Ok(id) => self.legacy_cancel(&id, &context).await,
                Err(error) => Err(error),
            },
            "tasks/result" => match id() {
                Ok(id) => self.legacy_result(&id, &context).await,
                Err(error) => Err(error),
            },
            "tasks/list" => {
                let cursor = params
                    .as_ref()
                    .and_then(|params| params.get("cursor"))
                    .and_then(Value::as_str);
                self.legacy_list(cursor, &context).await
            }
            "tasks/update" => Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "tasks/update is the 2026-07-28 tasks extension's: in this session, answer a task's questions as tasks/result asks them",
                None,
            )),
            _ => return None,
        };
        Some(answer.map(CustomResult))
    }

    /// `tools/list` with each task tool's `execution.taskSupport`.
    fn with_task_support(&self, listed: ListToolsResult) -> Value {
        let mut value = serde_json::to_value(&listed).unwrap_or(Value::Null);
        if let Some(object) = value.as_object_mut() {
            object.remove("resultType");
        }
        let tools = value.get_mut("tools").and_then(Value::as_array_mut);
        for tool in tools.into_iter().flatten() {
            let support = tool
                .get("name")
                .and_then(Value::as_str)
                .and_then(|name| self.registry.get(name))
                .map(|known| known.spec().task)
                .filter(|support| *support != TaskSupport::Forbidden);
            if let (Some(support), Some(tool)) = (support, tool.as_object_mut()) {
                tool.insert("execution".into(), json!({ "taskSupport": support }));
            }
        }
        value
    }

    /// A `tools/call` with a `task` parameter: `{"task": {...}}` when it became one, the
    /// call's own answer when it did not (a refusal, a tool that does not exist).
    async fn legacy_call(
        &self,
        params: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let watcher = (
            context.peer.clone(),
            self.task_context(&context),
            self.asks(&context),
        );
        let mut result = match rmcp::ServerHandler::call_tool(self, params, context).await? {
            CallToolResponse::Task(created) => {
                self.watch(created.task.task_id.clone(), watcher);
                let mut task = serde_json::to_value(&created.task).unwrap_or(Value::Null);
                if let Some(task) = task.as_object_mut() {
                    rename(task, "ttlMs", "ttl");
                    rename(task, "pollIntervalMs", "pollInterval");
                }
                return Ok(json!({ "task": task }));
            }
            other => ServerResult::from(other),
        };
        result.strip_result_type_for_legacy_peer();
        result.strip_non_object_output_for_legacy_peer();
        serde_json::to_value(result)
            .map_err(|error| ErrorData::internal_error(error.to_string(), None))
    }

    /// Sends `notifications/tasks/status` to the session that created the task `id` each
    /// time its status (as this era shows it) changes, until it ends or the session
    /// does. Read from the store at the task's poll interval, as a polling client would:
    /// a task another replica runs is watched as well. Clients may not rely on it (the
    /// revision says so), so nothing is lost when a notification is.
    fn watch(
        &self,
        id: String,
        (peer, ctx, ask): (
            rmcp::Peer<RoleServer>,
            std::sync::Arc<crate::context::Context>,
            bool,
        ),
    ) {
        let Some(tasks) = self.tasks.clone() else {
            return;
        };
        tokio::spawn(async move {
            let mut shown = Value::String("working".into());
            loop {
                let Ok(view) = tasks.get(ctx.clone(), &id).await else {
                    return;
                };
                let task = wire(&view, ask);
                if task["status"] != shown {
                    shown = task["status"].clone();
                    let notification = rmcp::model::CustomNotification::new(
                        "notifications/tasks/status",
                        Some(task),
                    );
                    let sent = peer
                        .send_notification(rmcp::model::ServerNotification::CustomNotification(
                            notification,
                        ))
                        .await;
                    if sent.is_err() {
                        return;
                    }
                }
                if view.status.is_terminal() {
                    return;
                }
                let pause = view.poll_interval_ms.clamp(20, 5_000);
                tokio::time::sleep(Duration::from_millis(pause)).await;
            }
        });
    }

    /// Whether a task waiting for approval asks this client: the server takes
    /// approvals from clients and the client declared elicitation.
    fn asks(&self, context: &RequestContext<RoleServer>) -> bool {
        self.client_approval
            && context
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.elicitation.is_some())
    }

    /// `tasks/get`.
    async fn legacy_get(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let view = self
            .served_tasks()?
            .get(self.task_context(context), id)
            .await
            .map_err(refused)?;
        let ask = self.asks(context);
        let mut task = wire(&view, ask);
        if let Some(ticket) = view.ticket.as_ref().filter(|_| !ask) {
            task["_meta"] = json!({ APPROVAL_TICKET_META: ticket });
        }
        Ok(task)
    }

    /// `tasks/cancel`: the task, now cancelled; -32602 for one that already ended.
    async fn legacy_cancel(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let tasks = self.served_tasks()?;
        let ctx = self.task_context(context);
        let view = tasks.get(ctx.clone(), id).await.map_err(refused)?;
        if view.status.is_terminal() {
            return Err(ErrorData::invalid_params(
                format!(
                    "Cannot cancel task: already in terminal status '{}'",
                    view.status.as_str()
                ),
                None,
            ));
        }
        let view = tasks.cancel(&ctx, id).await.map_err(refused)?;
        Ok(wire(&view, false))
    }

    /// `tasks/list`: one page of the caller's tasks, oldest first.
    async fn legacy_list(
        &self,
        cursor: Option<&str>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let ctx = self.task_context(context);
        let (views, next) = self
            .served_tasks()?
            .list(&ctx, cursor, LIST_PAGE)
            .await
            .map_err(refused)?;
        let ask = self.asks(context);
        let tasks: Vec<Value> = views.iter().map(|view| wire(view, ask)).collect();
        let mut page = json!({ "tasks": tasks });
        if let Some(next) = next {
            page["nextCursor"] = Value::String(next);
        }
        Ok(page)
    }

    /// `tasks/result`: waits until the task ends (polling the store, so a task another
    /// replica runs ends here too) and answers its call's result, marked with the task,
    /// or the JSON-RPC error it ended with. A task waiting for approval asks this client
    /// when it may ([`McpServer::with_client_approval`] and elicitation), once per wait.
    async fn legacy_result(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let tasks = self.served_tasks()?;
        let ctx = self.task_context(context);
        let mut asked = None;
        loop {
            let view = tasks.get(ctx.clone(), id).await.map_err(refused)?;
            match view.status {
                TaskStatus::Completed => {
                    let mut result = match view.result {
                        Some(Value::Object(result)) => result,
                        _ => JsonObject::new(),
                    };
                    let meta = result
                        .entry("_meta")
                        .or_insert_with(|| Value::Object(JsonObject::new()));
                    if let Some(meta) = meta.as_object_mut() {
                        meta.insert(RELATED_TASK_META.into(), json!({ "taskId": id }));
                    }
                    return Ok(Value::Object(result));
                }
                TaskStatus::Failed => {
                    let error = view.error.unwrap_or(Value::Null);
                    return Err(serde_json::from_value(error).unwrap_or_else(|_| {
                        ErrorData::internal_error(
                            view.message.unwrap_or_else(|| "the task failed".into()),
                            None,
                        )
                    }));
                }
                TaskStatus::Cancelled => {
                    return Err(ErrorData::internal_error(
                        format!("the task {id} was cancelled: it has no result"),
                        None,
                    ));
                }
                TaskStatus::InputRequired if self.asks(context) => {
                    if let Some(ticket) = view
                        .ticket
                        .filter(|ticket| asked.as_deref() != Some(ticket.digest.as_str()))
                    {
                        asked = Some(ticket.digest.clone());
                        self.ask_for(id, &ticket, context).await?;
                        continue;
                    }
                }
                TaskStatus::Working | TaskStatus::InputRequired => {}
            }
            let pause = Duration::from_millis(view.poll_interval_ms.clamp(20, 1000));
            tokio::select! {
                () = tokio::time::sleep(pause) => {}
                () = context.ct.cancelled() => {
                    return Err(ErrorData::internal_error("the client cancelled tasks/result", None));
                }
            }
        }
    }

    /// Asks the client for the approval the task `id` waits for (an `elicitation/create`
    /// marked with the task) and decides the task with the answer. A client that
    /// answers nothing usable leaves the task waiting.
    async fn ask_for(
        &self,
        id: &str,
        ticket: &crate::approval::ApprovalTicket,
        context: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let mut asking = approval::asking(ticket)?;
        let Some(InputRequest::Elicitation(mut request)) = asking.pop_first().map(|(_, r)| r)
        else {
            return Ok(());
        };
        let mut meta = rmcp::model::RequestMetaObject::new();
        meta.0
            .0
            .insert(RELATED_TASK_META.into(), json!({ "taskId": id }));
        if let rmcp::model::ElicitRequestParams::FormElicitationParams { meta: slot, .. } =
            &mut request.params
        {
            *slot = Some(meta);
        }
        let answer = context
            .peer
            .send_request(ServerRequest::ElicitRequest(request))
            .await;
        let Ok(ClientResult::ElicitResult(answer)) = answer else {
            tracing::debug!(
                task = id,
                "the client gave no answer to the task's approval"
            );
            return Ok(());
        };
        let responses = [(
            "approval".to_owned(),
            serde_json::to_value(answer).unwrap_or(Value::Null),
        )]
        .into_iter()
        .collect();
        if let Some(decision) = approval::decision(&responses, &ticket.digest)? {
            // Decided already (another tasks/result asked too): the task goes on as it is.
            let _ = self
                .served_tasks()?
                .decide(self.task_context(context), id, decision)
                .await;
        }
        Ok(())
    }
}

/// A task in this era's form: `ttl` and `pollInterval`, a tool error `failed`, a task
/// waiting for an approval nobody here asks for `working` (its ticket is in `_meta`).
fn wire(view: &TaskView, ask: bool) -> Value {
    let tool_error = view.status == TaskStatus::Completed
        && view
            .result
            .as_ref()
            .and_then(|result| result.get("isError"))
            .and_then(Value::as_bool)
            == Some(true);
    let (status, message) = match view.status {
        TaskStatus::Completed if tool_error => (
            "failed",
            Some("the tool answered with an error: read it with tasks/result".to_owned()),
        ),
        TaskStatus::InputRequired if !ask => (
            "working",
            Some(format!(
                "waiting for a person's approval (the ticket is in _meta[\"{APPROVAL_TICKET_META}\"])"
            )),
        ),
        status => (status.as_str(), view.message.clone()),
    };
    let mut task = json!({
        "taskId": view.id,
        "status": status,
        "createdAt": timestamp(view.created_at),
        "lastUpdatedAt": timestamp(view.updated_at),
        "ttl": view.ttl_ms,
        "pollInterval": view.poll_interval_ms,
    });
    if let Some(message) = message {
        task["statusMessage"] = Value::String(message);
    }
    task
}

/// Moves `object[from]` to `object[to]`.
fn rename(object: &mut JsonObject, from: &str, to: &str) {
    if let Some(value) = object.remove(from) {
        object.insert(to.to_owned(), value);
    }
}

/// The `taskId` of a request's params, or the invalid params it is without one.
fn task_id(params: Option<&Value>) -> Result<String, ErrorData> {
    params
        .and_then(|params| params.get("taskId"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| ErrorData::invalid_params("the params need a taskId (a string)", None))
}
