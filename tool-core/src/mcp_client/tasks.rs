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
