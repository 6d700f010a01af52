//! A server's tool as a toolwright [`Tool`]: arguments checked here against the server's
//! schema (every problem at once, no round trip), the call sent with its idempotency key
//! and trace context in `_meta`, sent again after a lost connection only when that cannot
//! repeat its effect, and the answer checked against the server's output schema.

use std::sync::Arc;

use rmcp::model::{CallToolRequestParams, InputRequiredResult, MetaObject, RequestMetaObject};
use serde_json::{Map, Value};

use super::answer::{Answer, CancelOnDrop, Pending, yes_to};
use super::link;
use super::shared::{Listed, Shared};
use crate::context::Context;
use crate::effect::Effect;
use crate::error::{ErrorKind, ToolError};
use crate::lint::screen;
use crate::spec::ToolSpec;
use crate::tool::{
    Arguments, CallHooks, CallInfo, Prepared, ReconcileFuture, Reconciled, Tool, ToolFuture,
    ToolOutcome,
};
use crate::validate::Validator;

/// One imported tool.
pub(super) struct RemoteTool {
    pub(super) spec: ToolSpec,
    /// Its name on the server.
    pub(super) remote: Arc<str>,
    pub(super) input: Validator,
    pub(super) output: Option<Validator>,
    pub(super) source: Arc<Shared>,
}

impl Tool for RemoteTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn source(&self) -> Option<Arc<str>> {
        Some(self.source.origin.clone())
    }

    /// Read as a hand-written tool's arguments are, so an imported tool's problems are
    /// worded as a local tool's.
    fn prepare(&self, args: Arguments<'_>) -> Result<Prepared, ToolError> {
        match self.input.read_arguments(&self.spec, args)? {
            Value::Object(object) => Ok(Prepared::new(object)),
            // `read_arguments` refuses what is not an object.
            other => Err(ToolError::invalid_arguments(
                format!(
                    "the arguments of '{}' must be a JSON object, not {other}",
                    self.spec.name
                ),
                Vec::new(),
            )),
        }
    }

    fn run<'a>(&'a self, ctx: &'a Context, args: Prepared) -> ToolFuture<'a> {
        let call = CallInfo {
            id: "",
            idempotency_key: None,
            approved: false,
            tasks: None,
        };
        self.run_call(ctx, call, args)
    }

    fn run_call<'a>(
        &'a self,
        _: &'a Context,
        call: CallInfo<'a>,
        args: Prepared,
    ) -> ToolFuture<'a> {
        ToolFuture::new(async move {
            let arguments = args.downcast::<Map<String, Value>>()?;
            self.send(arguments, call).await
        })
    }

    fn hooks(&self) -> Option<&dyn CallHooks> {
        Some(self)
    }
}

impl CallHooks for RemoteTool {
    /// A keyed call whose process stopped mid-call: when the server had made it a task
    /// (recorded in the registry's task store), the task is followed to its end and its
    /// result is the call's; otherwise whether the server received it is unknown.
    fn reconcile<'a>(
        &'a self,
        _: &'a Context,
        call: CallInfo<'a>,
        _: &'a Prepared,
    ) -> Option<ReconcileFuture<'a>> {
        let (store, key) = (call.tasks?, call.idempotency_key?);
        Some(Box::pin(self.follow_recorded(store, key)))
    }
}

impl RemoteTool {
    /// The reconciliation of a keyed call: the task it became on the server, followed to
    /// its end, decides it.
    async fn follow_recorded(
        &self,
        store: &dyn crate::idempotency::TaskStore,
        key: &str,
    ) -> Reconciled {
        let server = &self.source.name;
        let id = match super::tasks::recall(store, key, server).await {
            Ok(Some(id)) => id,
            Ok(None) => {
                return Reconciled::Unknown(format!(
                    "no task of the MCP server '{server}' was recorded for this call, so whether the server received it is unknown"
                ));
            }
            Err(error) => return Reconciled::Unknown(error),
        };
        let timeout = self.source.settings.call_timeout;
        let service = match self.reconnect(std::time::Instant::now() + timeout).await {
            Ok((service, _)) => service,
            Err(error) => return Reconciled::Unknown(error.message),
        };
        let task = rmcp::model::Task::new(
            id.clone(),
            rmcp::model::TaskStatus::Working,
            String::new(),
            String::new(),
        );
        let following =
            link::detached(async move { super::tasks::follow(&service, task, false).await });
        match tokio::time::timeout(timeout, following).await {
            Ok(Ok(answer)) => Reconciled::Happened(self.answer(answer)),
            Ok(Err(error)) => Reconciled::Unknown(format!(
                "the MCP server '{server}' could not say what became of the call's task {id}: {}",
                link::with_causes(&error)
            )),
            Err(_) => Reconciled::Unknown(format!(
                "the call's task {id} on the MCP server '{server}' did not end within {} ms",
                timeout.as_millis()
            )),
        }
    }

    /// Whether sending the call again cannot repeat its effect: it has none (a trusted
    /// read-only tool), it is declared idempotent, or it carries a key the server is
    /// known to honour.
    fn replay_safe(&self, keyed: bool) -> bool {
        self.spec.effect == Effect::ReadOnly
            || self.spec.is_idempotent()
            || (keyed && self.source.settings.honours_keys)
    }

    /// The live connection, made again if lost. Nothing was sent yet, so any call may wait:
    /// shortly after a connection was lost (the server restarting), it tries again with
    /// backoff until `deadline`; otherwise it fails at once.
    async fn reconnect(
        &self,
        deadline: std::time::Instant,
    ) -> Result<(Arc<link::Running>, u64), ToolError> {
        let source = &*self.source;
        let mut backoff = std::time::Duration::from_millis(50);
        loop {
            let error = match source.link.service().await {
                Ok(live) => return Ok(live),
                Err(error) => error,
            };
            let restarting = source.link.lost_within(source.settings.call_timeout);
            if !restarting || std::time::Instant::now() + backoff >= deadline {
                return Err(ToolError::retryable(format!(
                    "the MCP server '{}' cannot be reached: {error}",
                    source.name
                ))
                .with_hint("try again in a moment"));
            }
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(std::time::Duration::from_secs(1));
        }
    }

    /// Refuses a call to a tool the server no longer lists as it was imported.
    fn still_listed(&self) -> Result<(), ToolError> {
        let source = &*self.source;
        match source.listed(&self.remote) {
            Listed::Same => Ok(()),
            Listed::Gone => Err(ToolError::new(
                ErrorKind::NotFound,
                format!(
                    "'{}' is no longer offered by the MCP server '{}'",
                    self.spec.name, source.name
                ),
            )
            .with_retryable(false)
            .with_hint("use another tool")),
            Listed::Changed => Err(ToolError::failed(format!(
                "the MCP server '{}' changed the contract of '{}' since it was imported; the call was not sent",
                source.name, self.spec.name
            ))
            .with_hint("use another tool: this one is offered again once its contract is reviewed and imported anew")),
        }
    }

    async fn send(&self, arguments: Map<String, Value>, call: CallInfo<'_>) -> ToolOutcome {
        let (key, approved) = (call.idempotency_key, call.approved);
        // A keyed call the server makes a task is recorded, to be found after a restart.
        let remember = call.tasks.zip(key);
        let source = &*self.source;
        let span = client_span(&source.name, &self.remote);
        let mut params =
            CallToolRequestParams::new(self.remote.to_string()).with_arguments(arguments);
        let mut meta = Map::new();
        if let Some(key) = key {
            meta.insert(
                crate::idempotency::IDEMPOTENCY_KEY_META.to_owned(),
                Value::String(key.to_owned()),
            );
        }
        #[cfg(feature = "otel")]
        if !span.is_disabled() {
            for (name, value) in crate::otel::trace_context(&span) {
                meta.insert(name, Value::String(value));
            }
        }
        if !meta.is_empty() {
            params.meta = Some(RequestMetaObject(MetaObject(meta)));
        }
        let replay_safe = self.replay_safe(key.is_some());
        let rounds = async {
            // The server may ask a person mid-call (2026-07-28's input-required result):
            // asked a first time, the call pauses for toolwright's own approval; once a
            // person approved it, their yes is the answer, and the call goes on.
            for _ in 0..MAX_ROUNDS {
                let response = self
                    .attempt(params.clone(), replay_safe, approved, remember)
                    .await?;
                let Answer::InputRequired(required) = response else {
                    return Ok(response);
                };
                let question = question(&required);
                let question = match question.as_deref() {
                    Some(words) => format!("in its own words, not toolwright's: \"{words}\""),
                    None => "(it wrote no message)".to_owned(),
                };
                if !approved {
                    return Err(ToolError::new(
                        ErrorKind::AwaitingApproval,
                        format!(
                            "the MCP server '{}' asks a person before '{}' goes on; {question}",
                            source.name, self.spec.name
                        ),
                    )
                    .with_retryable(false)
                    .with_hint("the call is paused, not failed: tell the user what the server asks and wait for their decision"));
                }
                params.input_responses = Some(yes_to(&required).ok_or_else(|| {
                    ToolError::failed(format!(
                        "the MCP server '{}' asks for more than a yes or no to go on with '{}'; {question}",
                        source.name, self.spec.name
                    ))
                    .with_retryable(false)
                    .with_hint("this client answers approvals only; its user can answer more with on_elicitation")
                })?);
                params.request_state = required.request_state;
            }
            Err(ToolError::failed(format!(
                "the MCP server '{}' kept asking for input on '{}' after {MAX_ROUNDS} answers",
                source.name, self.spec.name
            ))
            .with_retryable(false))
        };
        let outcome = tracing::Instrument::instrument(rounds, span).await;
        outcome.and_then(|result| self.answer(result))
    }

    /// Sends the call, once more after a lost connection when that is safe.
    async fn attempt(
        &self,
        params: CallToolRequestParams,
        replay_safe: bool,
        approved: bool,
        remember: Option<(&dyn crate::idempotency::TaskStore, &str)>,
    ) -> Result<Answer, ToolError> {
        let source = &*self.source;
        let mut attempts = 0;
        let mut renewed = 0;
        let deadline = std::time::Instant::now() + source.settings.call_timeout;
        loop {
            attempts += 1;
            let (service, generation) = self.reconnect(deadline).await?;
            // A new process or session: its list read and checked before the first call.
            source.check_before_call(generation).await.map_err(|error| {
                ToolError::retryable(format!(
                    "the MCP server '{}' cannot be reached: it was connected again, but its tools could not be listed again, so the call was not sent: {error}",
                    source.name
                ))
                .with_hint("try again in a moment")
            })?;
            self.still_listed()?;
            let seen = source.link.renewals();
            service
                .service()
                .calls_sent
                .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
            let (created, mut tasks) = tokio::sync::mpsc::unbounded_channel();
            let sending = tokio::time::timeout(
                source.settings.call_timeout,
                send_once(&service, &params, approved, remember.map(|_| created)),
            );
            // The task the server makes of the call, recorded while the call goes on.
            let recording = async {
                while let Some(task) = tasks.recv().await {
                    if let Some((store, key)) = remember {
                        super::tasks::remember(store, key, &source.name, &task).await;
                    }
                }
            };
            let (sent, ()) = tokio::join!(sending, recording);
            let error = match sent {
                Ok(Ok(response)) => return Ok(response),
                Ok(Err(error)) => error,
                Err(_) => {
                    // Dropping the request sent `notifications/cancelled`.
                    return Err(ToolError::new(
                        ErrorKind::Timeout,
                        format!(
                            "the MCP server '{}' did not answer '{}' within {} ms; whether it ran is unknown",
                            source.name,
                            self.spec.name,
                            source.settings.call_timeout.as_millis()
                        ),
                    )
                    .with_retryable(replay_safe)
                    .with_hint(unknown_hint(replay_safe)));
                }
            };
            // Refused for want of authorization: nothing ran. With new credentials (a
            // new token, the person signed in, more scopes), the same call once more.
            if let Some(challenge) = super::renewal::auth_challenge(&error) {
                match source
                    .link
                    .renew_at_most(&mut renewed, challenge, seen)
                    .await
                {
                    Ok(()) => {
                        // Not a lost connection: the count of those stays.
                        attempts -= 1;
                        continue;
                    }
                    Err(reason) => {
                        return Err(ToolError::new(
                            ErrorKind::Denied,
                            format!(
                                "the MCP server '{}' refused the call to '{}' for want of authorization (it did not run): {reason}",
                                source.name, self.spec.name
                            ),
                        )
                        .with_retryable(false));
                    }
                }
            }
            let lost = link::is_lost(&error);
            if lost {
                source.link.lost(generation);
            }
            let never_sent = link::never_sent(&error);
            if attempts < 2 && lost && (never_sent || replay_safe) {
                if !never_sent {
                    source
                        .replays
                        .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
                }
                continue;
            }
            return Err(if lost {
                ToolError::new(
                    ErrorKind::OutcomeUnknown,
                    format!(
                        "the connection to the MCP server '{}' was lost during the call to '{}'; whether it ran is unknown",
                        source.name, self.spec.name
                    ),
                )
                .with_retryable(false)
                .with_hint(unknown_hint(replay_safe))
            } else if let rmcp::service::ServiceError::McpError(data) = &error
                && data.code.0 == super::bounded::OVERSIZED
            {
                ToolError::new(
                    ErrorKind::OutcomeUnknown,
                    format!(
                        "'{}' ran on the MCP server '{}', but {}; whether it succeeded is unknown",
                        self.spec.name, source.name, data.message
                    ),
                )
                .with_retryable(false)
                .with_hint(
                    "ask for less (a narrower query, a page) rather than calling again as is",
                )
            } else if let rmcp::service::ServiceError::McpError(data) = &error {
                ToolError::failed(format!(
                    "the MCP server '{}' refused the call to '{}': {} (JSON-RPC error {})",
                    source.name,
                    self.spec.name,
                    screen::escape(&data.message),
                    data.code.0
                ))
                .with_retryable(false)
            } else {
                ToolError::failed(format!(
                    "the call to '{}' on the MCP server '{}' failed: {}",
                    self.spec.name,
                    source.name,
                    link::with_causes(&error)
                ))
                .with_retryable(false)
            });
        }
    }

    /// The server's answer as the tool's outcome.
    fn answer(&self, response: Answer) -> ToolOutcome {
        let server = &self.source.name;
        let result = match response {
            Answer::Complete(result) => result,
            // An input-required answer was handled by the rounds in `send`.
            Answer::InputRequired(_) => {
                return Err(ToolError::failed(format!(
                    "the MCP server '{server}' kept asking for input on '{}'",
                    self.spec.name
                ))
                .with_retryable(false));
            }
        };
        super::result::read_result(result, self.output.as_ref()).map_err(|error| {
            let mut wrapped = ToolError::failed(format!(
                "{}: '{}' on the MCP server '{server}'",
                error.message, self.spec.name
            ))
            .with_retryable(false);
            wrapped.problems = error.problems;
            wrapped
        })
    }
}

/// One `tools/call`, its answer read as JSON (rmcp's typed result would refuse a whole
/// result for one block it does not know). Dropped before the answer, the request is
/// cancelled.
async fn send_once(
    service: &Arc<link::Running>,
    params: &CallToolRequestParams,
    approved: bool,
    created: Option<tokio::sync::mpsc::UnboundedSender<rmcp::model::Task>>,
) -> Result<Answer, rmcp::service::ServiceError> {
    let (service, mut params) = (service.clone(), params.clone());
    link::detached(async move {
        let elicit = service.service().elicit.clone();
        let mut state_only = 0u32;
        for _ in 0..rmcp::model::DEFAULT_MRTR_MAX_ROUNDS {
            let answer = match send_one(&service, &params).await? {
                Sent::Answer(answer) => answer,
                Sent::Task(task) => {
                    if let Some(created) = &created {
                        let _ = created.send(task.clone());
                    }
                    return super::tasks::follow(&service, task, approved).await;
                }
            };
            // With an answer installed, the server's questions within the call
            // (2026-07-28) are put to it, and the call sent again with the answers.
            let (Answer::InputRequired(required), Some(elicit)) = (&answer, &elicit) else {
                return Ok(answer);
            };
            let mut responses = rmcp::model::InputResponses::new();
            for (key, request) in required.input_requests.iter().flatten() {
                let rmcp::model::InputRequest::Elicitation(request) = request else {
                    return Err(rmcp::service::ServiceError::McpError(
                        rmcp::model::ErrorData::invalid_request(
                            "this client answers elicitation requests only",
                            None,
                        ),
                    ));
                };
                let answered = elicit(request.params.clone()).await;
                responses.insert(
                    key.clone(),
                    serde_json::to_value(answered).unwrap_or(Value::Null),
                );
            }
            if responses.is_empty() {
                // Only state to echo: wait a little more each time.
                state_only += 1;
                tokio::time::sleep(std::time::Duration::from_millis(50 * u64::from(state_only)))
                    .await;
            } else {
                state_only = 0;
            }
            params.input_responses = (!responses.is_empty()).then_some(responses);
            params.request_state = required.request_state.clone();
        }
        Err(rmcp::service::ServiceError::InputRequiredRoundsExceeded {
            max_rounds: rmcp::model::DEFAULT_MRTR_MAX_ROUNDS,
        })
    })
    .await
}

/// What one `tools/call` request came back with.
enum Sent {
    Answer(Answer),
    /// The server made the call a task (2026-07-28's extension), to be followed.
    Task(rmcp::model::Task),
}

/// One `tools/call` request and its answer.
async fn send_one(
    service: &link::Running,
    params: &CallToolRequestParams,
) -> Result<Sent, rmcp::service::ServiceError> {
    use rmcp::model::{ClientRequest, CustomRequest, GetMeta as _, ServerResult};
    let mut params = params.clone();
    let meta = params.meta.take();
    let value = serde_json::to_value(&params).unwrap_or(Value::Null);
    let mut request = CustomRequest::new("tools/call", Some(value));
    if let Some(meta) = meta {
        request.get_meta_mut().extend(meta);
    }
    let handle = service
        .send_request_with_option(
            ClientRequest::CustomRequest(request),
            rmcp::service::PeerRequestOptions::no_options(),
        )
        .await?;
    let mut guard = CancelOnDrop {
        peer: service.peer().clone(),
        pending: Some(Pending::Request(handle.id.clone())),
    };
    let result = handle.await_response().await;
    guard.pending = None;
    Ok(match result? {
        ServerResult::InputRequiredResult(required) => {
            Sent::Answer(Answer::InputRequired(required))
        }
        ServerResult::CreateTaskResult(created) => Sent::Task(created.task),
        ServerResult::CustomResult(custom) => Sent::Answer(Answer::Complete(custom.0)),
        other => Sent::Answer(Answer::Complete(
            serde_json::to_value(other).unwrap_or(Value::Null),
        )),
    })
}

/// How many input-required answers one call may take.
const MAX_ROUNDS: usize = 3;

/// What the server asks, in words (its elicitation messages, hidden characters removed).
fn question(required: &InputRequiredResult) -> Option<String> {
    let messages: Vec<String> = required
        .input_requests
        .iter()
        .flatten()
        .filter_map(|(_, request)| {
            let request = serde_json::to_value(request).ok()?;
            let message = request.pointer("/params/message")?.as_str()?;
            Some(crate::lint::screen::strip_hidden(message).0)
        })
        .collect();
    (!messages.is_empty()).then(|| messages.join("; "))
}

/// What to do after a call whose outcome is unknown.
fn unknown_hint(replay_safe: bool) -> &'static str {
    if replay_safe {
        "calling again is safe: it cannot repeat the effect"
    } else {
        "check whether it took effect before calling again"
    }
}

/// The client span of one remote call (OpenTelemetry's MCP conventions), made only when
/// a subscriber was ever set.
fn client_span(server: &str, tool: &str) -> tracing::Span {
    if !tracing::dispatcher::has_been_set() {
        return tracing::Span::none();
    }
    tracing::info_span!(
        target: "toolwright",
        "tools/call",
        otel.name = format!("tools/call {tool}"),
        otel.kind = "client",
        mcp.method.name = "tools/call",
        gen_ai.tool.name = tool,
        toolwright.mcp.server = server,
    )
}
