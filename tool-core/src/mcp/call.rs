//! One `tools/call` of a client: the request's context (its authenticated caller over
//! the server's), its idempotency key, an approval retry (`approval.rs`), the dispatch
//! with the tool's feedback forwarded before the result, and the answer; and the
//! [`RESUME_METHOD`](super::RESUME_METHOD) request.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, ProgressNotificationParam,
    ProgressToken, RequestId,
};
use rmcp::service::{RequestContext, RoleServer};

use serde_json::{Map, Value};

use super::messages::MessageBytes;
use super::{IDEMPOTENCY_KEY_META, McpServer, approval, lock, logging, results};
use crate::call::ToolCall;
use crate::context::Context;
use crate::feedback::{self, Feedback, Level};

impl McpServer {
    /// Answers one `tools/call` of this session: `Err` only for a tool that does not
    /// exist (the protocol error the spec asks for); everything else is a result the
    /// model can read. `idempotency_key` is the client's (from `_meta`), if any. What the
    /// tool reports with [`feedback`] goes to `sink`.
    pub async fn call(
        &self,
        id: String,
        params: CallToolRequestParams,
        idempotency_key: Option<String>,
        sink: impl Fn(Feedback) + Send + Sync + 'static,
    ) -> Result<CallToolResult, ErrorData> {
        let arguments = params.arguments.unwrap_or_default();
        let call = tool_call(
            id,
            params.name.into_owned(),
            arguments,
            idempotency_key,
            &self.session,
        );
        let result = feedback::scope(sink, self.registry.dispatch(&self.context, call)).await;
        results::render(&result)
    }

    /// The context a request's calls see: the server's, with the caller its bearer
    /// token authenticated over it (Streamable HTTP with a
    /// [`ResourceServer`](super::auth::ResourceServer)); none over stdio.
    pub(super) fn request_context(&self, request: &RequestContext<RoleServer>) -> Option<Context> {
        #[cfg(feature = "mcp-http")]
        {
            let caller = request
                .extensions
                .get::<hyper::http::request::Parts>()?
                .extensions
                .get::<crate::policy::Caller>();
            caller_context(&self.context, caller)
        }
        #[cfg(not(feature = "mcp-http"))]
        {
            let _ = request;
            None
        }
    }

    /// One `tools/call`: its idempotency key from `_meta`, the call, and the tool's
    /// feedback forwarded to the client before the result.
    pub(super) async fn answer_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let id = request_id(&context.id);
        let key = idempotency_key(context.meta.get(IDEMPOTENCY_KEY_META))?;
        let progress_token = context.meta.get_progress_token();
        let log_level = logging::requested(&context).or(*lock(&self.log_level));
        let request_context = self.request_context(&context);
        let ctx = request_context.as_ref().unwrap_or(&self.context);
        // A retry answering an approval this server asked for (2026-07-28).
        let resumed = match request.request_state.as_deref() {
            None => None,
            Some(_) if !self.client_approval => {
                return Err(ErrorData::invalid_params(
                    "this server does not take approvals from its clients, so no requestState: call the tool without it",
                    None,
                ));
            }
            Some(state) => match approval::answer(
                &request,
                state,
                self.registry.resumes_own_tickets(&request.name),
            )? {
                (ticket, None) => return approval::ask(&ticket).map(CallToolResponse::from),
                (ticket, Some(decision)) => {
                    // A ticket this server did not sign, or another caller's, is refused
                    // before anything runs.
                    self.registry
                        .check_ticket(ctx, &ticket, &decision)
                        .map_err(|refusal| ErrorData::invalid_params(refusal.message, None))?;
                    Some((ticket, decision))
                }
            },
        };
        let ask = self.client_approval && approval::can_ask(&context);
        let route = match resumed {
            None => self.route(&request.name, &context)?,
            Some(_) => super::tasks::Route::Call,
        };
        let arguments = request.arguments.unwrap_or_default();
        let mut call = tool_call(id, request.name.into_owned(), arguments, key, &self.session);
        call.sent_in_bytes = message_bytes(&context);
        if let super::tasks::Route::Task = route {
            return self.start_task(call, &context).await;
        }
        let work = async {
            match resumed {
                Some((ticket, decision)) => self.registry.resume(ctx, &ticket, decision).await,
                None => self.registry.dispatch(ctx, call).await,
            }
        };
        let cancelled = || {
            Err(ErrorData::internal_error(
                "the client cancelled the call",
                None,
            ))
        };
        let result = if progress_token.is_none() && log_level.is_none() {
            // Nothing the tool reports would reach this client: no channel and no second
            // branch to wake (boxed, so the request's future stays small when moved).
            tokio::select! {
                result = Box::pin(work) => result,
                () = context.ct.cancelled() => return cancelled(),
            }
        } else {
            // Feedback leaves the tool through a channel and reaches the client in
            // order, before the result.
            let (send, mut feedback) = tokio::sync::mpsc::unbounded_channel();
            let run = feedback::scope(
                move |message| {
                    let _ = send.send(message);
                },
                work,
            );
            let forward = async {
                while let Some(message) = feedback.recv().await {
                    notify(&context, progress_token.as_ref(), log_level, message).await;
                }
            };
            tokio::select! {
                result = async { tokio::join!(run, forward).0 } => result,
                () = context.ct.cancelled() => return cancelled(),
            }
        };
        match &result.ticket {
            // Ask the person through the client, within the protocol.
            Some(ticket) if ask => approval::ask(ticket).map(CallToolResponse::from),
            _ => results::render(&result).map(CallToolResponse::from),
        }
    }

    /// Answers [`RESUME_METHOD`](super::RESUME_METHOD): the decision on a ticket, run like a `tools/call`.
    /// (`RESUME_TAKES` says what it takes.)
    pub(super) async fn resume(
        &self,
        context: &Context,
        params: Option<&Value>,
    ) -> Result<CallToolResult, ErrorData> {
        #[derive(serde::Deserialize)]
        struct Resume {
            ticket: crate::approval::ApprovalTicket,
            decision: crate::approval::ApprovalDecision,
        }
        let Resume { ticket, decision } = params
            .cloned()
            .map(serde_json::from_value)
            .transpose()
            .map_err(|error| ErrorData::invalid_params(format!("{RESUME_TAKES}: {error}"), None))?
            .ok_or_else(|| ErrorData::invalid_params(RESUME_TAKES, None))?;
        let result = self.registry.resume(context, &ticket, decision).await;
        results::render(&result)
    }
}

/// Sends one message of a running tool: progress when the request carried a progress
/// token, a log message at or above the level the client asked for.
async fn notify(
    context: &RequestContext<RoleServer>,
    progress_token: Option<&ProgressToken>,
    log_level: Option<Level>,
    message: Feedback,
) {
    let sent = match message {
        Feedback::Progress {
            progress,
            total,
            message,
        } => {
            let Some(token) = progress_token else { return };
            let mut param = ProgressNotificationParam::new(token.clone(), progress);
            param.total = total;
            param.message = message;
            context.peer.notify_progress(param).await
        }
        Feedback::Log { level, message } => {
            if log_level.is_none_or(|wanted| level < wanted) {
                return;
            }
            logging::send(&context.peer, level, message).await
        }
    };
    if let Err(error) = sent {
        tracing::debug!(%error, "a tool's feedback could not be sent");
    }
}

pub(super) fn request_id(id: &RequestId) -> String {
    match id {
        RequestId::Number(number) => number.to_string(),
        RequestId::String(text) => text.to_string(),
    }
}

/// The dispatcher's call for a `tools/call`, on either path (rmcp's and the direct one
/// for a plain stateless call): the request's id, the tool and its arguments, the
/// client's idempotency key, and the session the id is unique in.
pub(super) fn tool_call(
    id: String,
    name: String,
    arguments: Map<String, Value>,
    idempotency_key: Option<String>,
    session: &str,
) -> ToolCall {
    let mut call = ToolCall::new(id, name, Value::Object(arguments)).with_origin(session);
    call.idempotency_key = idempotency_key;
    call
}

/// The client's idempotency key: `_meta["dev.toolwright/idempotency-key"]`, a string.
pub(super) fn idempotency_key(meta: Option<&Value>) -> Result<Option<String>, ErrorData> {
    match meta {
        None => Ok(None),
        Some(Value::String(key)) => Ok(Some(key.clone())),
        Some(other) => Err(ErrorData::invalid_params(
            format!(
                "_meta[\"{IDEMPOTENCY_KEY_META}\"] must be a string, got {}",
                crate::validate::json::type_name(other)
            ),
            None,
        )),
    }
}

/// The context a request's calls see: the server's, with the caller its bearer token
/// authenticated over it; `None` when no token named one (the server's own applies).
#[cfg(feature = "mcp-http")]
pub(super) fn caller_context(
    server: &std::sync::Arc<Context>,
    caller: Option<&crate::policy::Caller>,
) -> Option<Context> {
    caller.map(|caller| Context::over(server.clone()).with(caller.clone()))
}

/// The length of the message `request` came in ([`MessageBytes`]), on either transport.
pub(super) fn message_bytes(request: &RequestContext<RoleServer>) -> Option<usize> {
    super::messages::received::<MessageBytes>(request).map(|bytes| bytes.0)
}

/// The value of the HTTP header `name` of the request `request` came in, when it came
/// over Streamable HTTP and the value is text; none over stdio.
pub(super) fn http_header<'a>(
    request: &'a RequestContext<RoleServer>,
    name: &str,
) -> Option<&'a str> {
    #[cfg(feature = "mcp-http")]
    {
        let parts = request.extensions.get::<hyper::http::request::Parts>()?;
        parts.headers.get(name)?.to_str().ok()
    }
    #[cfg(not(feature = "mcp-http"))]
    {
        let _ = (request, name);
        None
    }
}

/// What [`RESUME_METHOD`](super::RESUME_METHOD) takes, for a client that sent something else.
const RESUME_TAKES: &str = "toolwright/resume takes {\"ticket\": <the ticket from the result's \
    _meta[\"dev.toolwright/approval-ticket\"], unchanged>, \"decision\": {\"decision\": \
    \"approve\", \"digest\": <the ticket's digest>}} (or {\"decision\": \"decline\", \
    \"digest\": ..., \"reason\": ...}, or {\"decision\": \"approve_with_edits\", \"digest\": \
    ..., \"arguments\": {...}})";

/// The answer to [`RESUME_METHOD`](super::RESUME_METHOD) on a server that did not allow
/// clients to decide tickets: what would turn it on, and who decides meanwhile.
pub(super) fn resume_off() -> ErrorData {
    ErrorData::new(
        rmcp::model::ErrorCode::METHOD_NOT_FOUND,
        "toolwright/resume is off on this server: clients may decide approval tickets only \
         when the server allows it, with `McpServer::with_client_approval()` (the example \
         server: `--client-approval`); until then the harness decides them \
         (`Registry::resume`)",
        None,
    )
}
