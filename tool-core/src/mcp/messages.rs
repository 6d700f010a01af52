//! The JSON-RPC messages both transports read and the errors they answer with: what
//! the SDK would drop (a line that is not JSON), answer without the request's id (a
//! request it cannot read) or with a bare HTTP 415 still gets a JSON-RPC error the client
//! can match to its request.

use rmcp::model::{ClientJsonRpcMessage, ErrorData};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

use crate::validate::json::{show, type_name};

/// The largest message either transport reads, a line on stdio or a request body over
/// HTTP: 16 MiB, rmcp's own line limit. Larger ones get a JSON-RPC error; arguments
/// within it but over the registry's argument limit get an `invalid_arguments` result.
pub(crate) const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// The length in bytes of the message a request came in, kept in the request's
/// extensions (over HTTP, in its `Parts`'): a call's arguments are no longer, so the
/// registry checks them against its limit at the bytes instead of counting them again.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MessageBytes(pub(crate) usize);

/// The `task` parameter of a 2025-11-25 `tools/call` (`{"task": {"ttl": 60000}}`): the
/// client asks for the call to run as a task. The SDK's types drop it, so each transport
/// reads it from the message's bytes ([`task_requested`]) and keeps it beside
/// [`MessageBytes`]. The time to live it asks for is not read: the server's applies,
/// and every task says what it is.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TaskRequested;

/// The `task` parameter of the `tools/call` in `bytes`, when it has one. Only a message
/// that names `"task"` at all is read a second time.
pub(crate) fn task_requested(bytes: &[u8]) -> Option<TaskRequested> {
    #[derive(serde::Deserialize)]
    struct Message {
        method: Option<String>,
        params: Option<Params>,
    }
    #[derive(serde::Deserialize)]
    struct Params {
        task: Option<Task>,
    }
    #[derive(serde::Deserialize)]
    struct Task {}
    bytes
        .windows(6)
        .any(|window| window == b"\"task\"")
        .then_some(())?;
    let message: Message = serde_json::from_slice(bytes).ok()?;
    message
        .params?
        .task
        .filter(|_| message.method.as_deref() == Some("tools/call"))
        .map(|_| TaskRequested)
}

/// What the transport read of `request`'s message beside the SDK (its length, the
/// `task` parameter the SDK's types drop): in the request's extensions on stdio, in its
/// HTTP request's over Streamable HTTP.
pub(super) fn received<T: Send + Sync + 'static>(
    request: &RequestContext<RoleServer>,
) -> Option<&T> {
    let kept = request.extensions.get::<T>();
    #[cfg(feature = "mcp-http")]
    let kept = kept.or_else(|| {
        let parts = request.extensions.get::<hyper::http::request::Parts>()?;
        parts.extensions.get::<T>()
    });
    kept
}

pub(super) fn too_large() -> ErrorData {
    ErrorData::invalid_request(
        format!("Invalid request: the message is larger than {MAX_MESSAGE_BYTES} bytes"),
        None,
    )
}

pub(super) fn error_reply(id: Value, error: ErrorData) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

/// The message in `bytes`, or why it is none: `Err(Some(reply))` is the JSON-RPC error
/// to send (not JSON: -32700, id null; a request the SDK cannot read: -32602 or -32600
/// with its id), `Err(None)` JSON with no id to answer (a notification or response of
/// another protocol, ignored as the SDK ignores it).
pub(super) fn read_message(bytes: &[u8]) -> Result<ClientJsonRpcMessage, Option<Value>> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let error = match serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
        Ok(message) => return Ok(message),
        Err(error) => error,
    };
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(value) => value,
        Err(error) => {
            let error = ErrorData::parse_error(format!("Parse error: {error}"), None);
            return Err(Some(error_reply(Value::Null, error)));
        }
    };
    let Some(id) = value
        .get("id")
        .filter(|id| id.is_string() || id.is_number())
    else {
        return Err(None);
    };
    let error = match value.get("method").and_then(Value::as_str) {
        Some(method) if value.get("params").is_some() => {
            ErrorData::invalid_params(format!("Invalid params for {method}: {error}"), None)
        }
        _ => ErrorData::invalid_request(format!("Invalid request: {error}"), None),
    };
    Err(Some(error_reply(id.clone(), error)))
}

/// The tool a `tools/call` in `bytes` names, read as the SDK reads the message (the
/// direct path for a plain stateless call has its own reader, `http/direct.rs`).
#[cfg(feature = "mcp-http")]
pub(super) fn called_tool(bytes: &[u8]) -> Option<String> {
    use rmcp::model::{ClientRequest, JsonRpcMessage, JsonRpcRequest};
    match read_message(bytes).ok()? {
        JsonRpcMessage::Request(JsonRpcRequest {
            request: ClientRequest::CallToolRequest(call),
            ..
        }) => Some(call.params.name.into_owned()),
        _ => None,
    }
}

/// The error of a request for a method this server serves whose params the SDK could
/// not read: it arrives as a "custom" request, which would be answered "method not
/// found". `None` for a method this server does not serve.
pub(crate) fn malformed_params(method: &str, params: Option<&Value>) -> Option<ErrorData> {
    if !matches!(method, "tools/call" | "tools/list") {
        return None;
    }
    let message = match params.and_then(|params| params.get("arguments")) {
        Some(arguments) if method == "tools/call" && !arguments.is_object() => format!(
            "Invalid params: tools/call `arguments` must be a JSON object, got {} {}",
            type_name(arguments),
            show(arguments)
        ),
        _ => format!("Invalid params for {method}: the params do not have the shape it takes"),
    };
    Some(ErrorData::invalid_params(message, None))
}

/// The id of the request in `bytes`, `null` when it has none or is not JSON: for an
/// error the transport answers itself (too many calls, shutting down).
#[cfg(feature = "mcp-http")]
pub(super) fn request_id(bytes: &[u8]) -> Value {
    #[derive(serde::Deserialize)]
    struct Id {
        #[serde(default)]
        id: Value,
    }
    serde_json::from_slice::<Id>(bytes)
        .map(|request| request.id)
        .ok()
        .filter(|id| id.is_string() || id.is_number())
        .unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_task_is_requested_by_the_params_of_a_tools_call_only() {
        use super::task_requested;
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"build_report","arguments":{"task":1},"task":{"ttl":60000}}}"#;
        assert!(task_requested(call).is_some());
        let empty =
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"r","task":{}}}"#;
        assert!(task_requested(empty).is_some());
        // An argument named "task" is no request for one, nor is another method's param.
        let argument = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"r","arguments":{"task":{"ttl":1}}}}"#;
        assert!(task_requested(argument).is_none());
        let other =
            br#"{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"r","task":{}}}"#;
        assert!(task_requested(other).is_none());
        assert!(task_requested(b"not json \"task\"").is_none());
    }
}

#[cfg(all(test, feature = "mcp-http"))]
mod http_tests {
    use super::called_tool;

    #[test]
    fn the_called_tool_is_read_from_a_tools_call_only() {
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"a":[1,{"b":2}]},"name":"pay\u0073"}}"#;
        assert_eq!(called_tool(call).as_deref(), Some("pays"));
        assert_eq!(
            called_tool(br#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"name":"x"}}"#),
            None
        );
        assert_eq!(called_tool(b"not json"), None);
    }
}
