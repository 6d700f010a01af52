//! A call the server made a task (2026-07-28's `io.modelcontextprotocol/tasks`): polled
//! at the server's interval until it ends, its questions answered as a call's are (the
//! installed elicitation answer, else the person's approval toolwright asked for), and
//! cancelled when the caller gives up on it (its time limit, or the call dropped).

use std::time::Duration;

use rmcp::model::{
    ErrorData, GetTaskParams, InputRequiredResult, Task, TaskPayload, UpdateTaskParams,
};
use rmcp::service::ServiceError;
use serde_json::Value;

use super::answer::{Answer, CancelOnDrop, Pending, yes_to};
use super::link;

/// Follows `task` to its end: its result as the call's answer, its failure as the
/// server's error. A question the client cannot answer yet (a person's approval, not
/// given) comes back as an input-required answer, the task left waiting.
pub(super) async fn follow(
    service: &link::Running,
    task: Task,
    approved: bool,
) -> Result<Answer, ServiceError> {
    let peer = service.peer().clone();
    let mut guard = CancelOnDrop {
        peer: peer.clone(),
        pending: Some(Pending::Task(task.task_id.clone())),
    };
    let id = task.task_id;
    let mut interval = pause(task.poll_interval_ms);
    let elicit = service.service().elicit.clone();
    loop {
        tokio::time::sleep(interval).await;
        let got = peer.get_task(GetTaskParams::new(id.clone())).await?;
        let detailed = got.task;
        interval = pause(detailed.task.poll_interval_ms);
        let answered = match detailed.payload {
            TaskPayload::Completed { result } => Ok(Answer::Complete(Value::Object(result))),
            TaskPayload::Failed { error } => Err(ServiceError::McpError(
                serde_json::from_value(Value::Object(error.clone())).unwrap_or_else(|_| {
                    ErrorData::internal_error(
                        format!("the task failed: {}", Value::Object(error)),
                        None,
                    )
                }),
            )),
            TaskPayload::Cancelled => Err(ServiceError::McpError(ErrorData::internal_error(
                format!(
                    "the server cancelled the task{}",
                    detailed
                        .task
                        .status_message
                        .map(|why| format!(": {why}"))
                        .unwrap_or_default()
                ),
                None,
            ))),
            TaskPayload::InputRequired { input_requests } => {
                let required = InputRequiredResult::new(Some(input_requests), None);
                let responses = match &elicit {
                    Some(elicit) => {
                        let mut responses = rmcp::model::InputResponses::new();
                        for (key, request) in required.input_requests.iter().flatten() {
                            let rmcp::model::InputRequest::Elicitation(request) = request else {
                                continue;
                            };
                            let answer = elicit(request.params.clone()).await;
                            responses.insert(
                                key.clone(),
                                serde_json::to_value(answer).unwrap_or(Value::Null),
                            );
                        }
                        Some(responses).filter(|responses| !responses.is_empty())
                    }
                    None if approved => yes_to(&required),
                    None => None,
                };
                match responses {
                    Some(responses) => {
                        peer.update_task(UpdateTaskParams::new(id.clone(), responses))
                            .await?;
                        continue;
                    }
                    // Left waiting for the person: asked again, the call finds it.
                    None => Ok(Answer::InputRequired(required)),
                }
            }
            _ => continue,
        };
        guard.pending = None;
        return answered;
    }
}

/// The pause before the next poll: the server's interval, within 20 ms and 5 s.
fn pause(interval_ms: Option<u64>) -> Duration {
    Duration::from_millis(interval_ms.unwrap_or(1_000).clamp(20, 5_000))
}

/// Where a call the server made a task is recorded, in the registry's task store: under
/// the call's idempotency key (caller-scoped), so that after a restart the call's
/// reconciliation finds the task instead of sending the call again.
fn record_id(key: &str) -> String {
    format!("mcp-client-task/{key}")
}

/// What the record holds.
#[derive(serde::Serialize, serde::Deserialize)]
struct Recorded {
    /// The server's name, as the source calls it.
    server: String,
    /// The task's id on that server.
    task: String,
}

/// Records that the call keyed `key` became `task` on `server`. A failure to record is
/// logged: the call goes on, and only a restart in its middle would miss the record.
pub(super) async fn remember(
    store: &dyn crate::idempotency::TaskStore,
    key: &str,
    server: &str,
    task: &Task,
) {
    let now = crate::idempotency::unix_millis();
    let body = Recorded {
        server: server.to_owned(),
        task: task.task_id.clone(),
    };
    let mut row = crate::idempotency::TaskRow {
        id: record_id(key),
        owner: "dev.toolwright/mcp-client".to_owned(),
        version: 1,
        created_at: now,
        expires_at: now.saturating_add(task.ttl_ms.unwrap_or(24 * 3_600_000)),
        body: serde_json::to_string(&body).unwrap_or_default(),
    };
    // A key used again after a retryable failure: the newer task replaces the older.
    let written = match store.insert(&row, now).await {
        Ok(None) => Ok(true),
        Ok(Some(existing)) => {
            row.version = existing.version + 1;
            store.replace(&row, now).await
        }
        Err(error) => Err(error),
    };
    if !matches!(written, Ok(true)) {
        tracing::warn!(
            server,
            task = %task.task_id,
            "could not record the task a call became; after a restart its outcome is unknown"
        );
    }
}

/// The task the call keyed `key` became on `server`, if one was recorded.
pub(super) async fn recall(
    store: &dyn crate::idempotency::TaskStore,
    key: &str,
    server: &str,
) -> Result<Option<String>, String> {
    let row = store
        .get(&record_id(key), crate::idempotency::unix_millis())
        .await
        .map_err(|error| format!("the task store failed: {error}"))?;
    Ok(row
        .and_then(|row| serde_json::from_str::<Recorded>(&row.body).ok())
        .filter(|recorded| recorded.server == server)
        .map(|recorded| recorded.task))
}
