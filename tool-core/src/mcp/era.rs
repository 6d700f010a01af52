//! What a session's transport knows of its protocol era, for a server with tasks: the
//! answer to `initialize` says it (and, in 2025-11-25, gets `capabilities.tasks`), and
//! in a 2025-11-25 session the requests of that revision's tasks utility reach the
//! handler as "custom" requests, which `legacy_tasks.rs` answers in that revision's form.
//! The SDK's types know only the 2026-07-28 extension's tasks, so this is done on the
//! messages: stdio.rs keeps an [`Era`] in its sink and stream, `http/sessions.rs` in each
//! session's transport.

use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, CustomRequest, CustomResult, GetExtensions as _,
    ProtocolVersion, ServerJsonRpcMessage, ServerResult,
};
use serde_json::{Value, json};

use super::messages::TaskRequested;

/// What a session's transport knows of the session's protocol era, for a server with
/// tasks: whether its `initialize` negotiated 2025-11-25 or earlier.
#[derive(Debug, Default)]
pub(super) struct Era {
    legacy: AtomicBool,
}

impl Era {
    /// A message on its way to the client: the answer to `initialize` sets the era, and
    /// in 2025-11-25 gets `capabilities.tasks` (tasks for `tools/call`, listed and
    /// cancelled).
    pub(super) fn outgoing(&self, message: ServerJsonRpcMessage) -> ServerJsonRpcMessage {
        let ServerJsonRpcMessage::Response(mut response) = message else {
            return message;
        };
        if let ServerResult::InitializeResult(result) = &response.result
            && result.protocol_version < ProtocolVersion::V_2026_07_28
            && let Ok(mut value) = serde_json::to_value(result)
        {
            self.legacy.store(true, Ordering::Release);
            value["capabilities"]["tasks"] = json!({
                "list": {},
                "cancel": {},
                "requests": { "tools": { "call": {} } },
            });
            response.result = ServerResult::CustomResult(CustomResult(value));
        }
        ServerJsonRpcMessage::Response(response)
    }

    /// A message from the client: in a 2025-11-25 session, `tasks/get`, `tasks/cancel`,
    /// `tasks/update`, `tools/list` and a `tools/call` with a `task` parameter become
    /// "custom" requests (same method, params and extensions) for
    /// `McpServer::legacy_request`; everything else goes to the SDK as it came.
    pub(super) fn incoming(&self, message: ClientJsonRpcMessage) -> ClientJsonRpcMessage {
        let ClientJsonRpcMessage::Request(mut request) = message else {
            return message;
        };
        let ours = match &request.request {
            ClientRequest::GetTaskRequest(_)
            | ClientRequest::CancelTaskRequest(_)
            | ClientRequest::UpdateTaskRequest(_)
            | ClientRequest::ListToolsRequest(_) => true,
            ClientRequest::CallToolRequest(call) => has_task(call.extensions()),
            _ => false,
        };
        if ours && self.legacy.load(Ordering::Acquire) {
            let extensions = request.request.extensions().clone();
            if let Ok(Value::Object(mut value)) = serde_json::to_value(&request.request) {
                let method = value
                    .get("method")
                    .and_then(Value::as_str)
                    .map(str::to_owned);
                if let Some(method) = method {
                    let mut custom = CustomRequest::new(method, value.remove("params"));
                    custom.extensions = extensions;
                    request.request = ClientRequest::CustomRequest(custom);
                }
            }
        }
        ClientJsonRpcMessage::Request(request)
    }
}

/// Whether a request's extensions hold a [`TaskRequested`], on either transport.
fn has_task(extensions: &rmcp::model::Extensions) -> bool {
    let kept = extensions.get::<TaskRequested>().is_some();
    #[cfg(feature = "mcp-http")]
    let kept = kept
        || extensions
            .get::<hyper::http::request::Parts>()
            .is_some_and(|parts| parts.extensions.get::<TaskRequested>().is_some());
    kept
}
