//! What a server answers to one call, as this client reads it, and what the client
//! sends back: a yes to a server's approval form, and the cancellation of what the
//! caller gave up on (a request, or a task). Shared by the call (remote.rs) and the
//! task it may become (tasks.rs).

use rmcp::model::InputRequiredResult;
use serde_json::{Map, Value};

/// The server's answer to one `tools/call`, as this client reads it.
pub(super) enum Answer {
    /// The result, as JSON (read leniently by [`read_result`]).
    Complete(Value),
    /// The server asks for input before it goes on (2026-07-28; within a task too).
    InputRequired(InputRequiredResult),
}

/// Tells the server what the caller gave up on when dropped before it ended: a request
/// (`notifications/cancelled`) or a task (`tasks/cancel`). Disarmed with `pending = None`.
pub(super) struct CancelOnDrop {
    pub(super) peer: rmcp::service::Peer<rmcp::service::RoleClient>,
    pub(super) pending: Option<Pending>,
}

/// What a [`CancelOnDrop`] cancels.
pub(super) enum Pending {
    Request(rmcp::model::RequestId),
    Task(String),
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let (Some(pending), Ok(runtime)) =
            (self.pending.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let _ = match pending {
                Pending::Request(id) => peer
                    .notify_cancelled(rmcp::model::CancelledNotificationParam::new(
                        Some(id),
                        Some("request abandoned by the caller".to_owned()),
                    ))
                    .await
                    .map_err(drop),
                Pending::Task(id) => peer
                    .cancel_task(rmcp::model::CancelTaskParams::new(id))
                    .await
                    .map_err(drop),
            };
        });
    }
}

/// A person's yes to each of the server's requests, when every one is a form whose
/// required fields are all yes-or-no (an approval, as a toolwright server asks it):
/// each required field `true`. `None` when the server asks for anything else.
pub(super) fn yes_to(required: &InputRequiredResult) -> Option<rmcp::model::InputResponses> {
    let mut responses = rmcp::model::InputResponses::new();
    for (id, request) in required.input_requests.iter().flatten() {
        let request = serde_json::to_value(request).ok()?;
        if request.get("method")?.as_str()? != "elicitation/create" {
            return None;
        }
        let schema = request.pointer("/params/requestedSchema")?;
        let mut content = Map::new();
        for field in schema.get("required")?.as_array()? {
            let field = field.as_str()?;
            if schema
                .pointer(&format!("/properties/{field}/type"))?
                .as_str()?
                != "boolean"
            {
                return None;
            }
            content.insert(field.to_owned(), Value::Bool(true));
        }
        if content.is_empty() {
            return None;
        }
        responses.insert(
            id.clone(),
            serde_json::json!({"action": "accept", "content": content}),
        );
    }
    (!responses.is_empty()).then_some(responses)
}
