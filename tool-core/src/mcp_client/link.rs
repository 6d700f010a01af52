//! The connection to one server: how to reach it (a child process's stdio, or Streamable
//! HTTP), the handshake in either protocol era, and a new connection (a new session)
//! when the old one is gone. What the server sends unasked is answered here: list
//! changes are passed on; sampling and elicitation are refused (no capability declared).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::credentials::{Grant, Secret, Tokens};
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, Implementation,
    ProtocolVersion,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt as _, NotificationContext, Peer, RoleClient,
    RunningService, ServiceError,
};

/// Where a server is.
#[derive(Debug)]
pub(super) enum Endpoint {
    /// A program started as a child, speaking over its stdin and stdout. Kept as a
    /// `std` command (which can be read back) so it can be started again.
    Stdio(std::process::Command),
    /// A Streamable HTTP endpoint.
    Http {
        url: String,
        /// A bearer token to send as it is (never logged).
        authorization: Option<Secret>,
        /// How OAuth access tokens are had (client credentials, a person's sign-in).
        oauth: Option<Grant>,
    },
}

impl Endpoint {
    /// What a person calls it in an error: the program, or the URL.
    pub(super) fn describe(&self) -> String {
        match self {
            Endpoint::Stdio(command) => {
                format!("stdio: {}", command.get_program().to_string_lossy())
            }
            Endpoint::Http { url, .. } => url.clone(),
        }
    }
}

/// Why a connection could not be made.
#[derive(Debug)]
#[non_exhaustive]
pub enum ConnectError {
    /// The program could not be started.
    Spawn(std::io::Error),
    /// The handshake failed (the server is down, refused, or spoke no MCP we know).
    Handshake(String),
    /// The handshake did not finish in time.
    Timeout(Duration),
    /// Listing the tools failed.
    List(String),
    /// No access token could be had (the authorization server's metadata, the client's
    /// credentials, the token request).
    Auth(String),
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnectError::Spawn(error) => write!(f, "the server could not be started: {error}"),
            ConnectError::Handshake(error) => write!(f, "the MCP handshake failed: {error}"),
            ConnectError::Timeout(limit) => {
                write!(
                    f,
                    "the server did not answer the handshake within {} ms",
                    limit.as_millis()
                )
            }
            ConnectError::List(error) => write!(f, "listing the server's tools failed: {error}"),
            ConnectError::Auth(error) => write!(f, "no access token for the server: {error}"),
        }
    }
}

impl std::error::Error for ConnectError {}

/// What answers a server's request for a person's input (elicitation), when the user
/// installs one ([`McpSourceBuilder::on_elicitation`](super::McpSourceBuilder::on_elicitation)).
pub(super) type Elicit = Arc<
    dyn Fn(ElicitRequestParams) -> std::pin::Pin<Box<dyn Future<Output = ElicitResult> + Send>>
        + Send
        + Sync,
>;

/// What the server tells the client unasked, and how its requests are answered.
#[derive(Clone, Default)]
pub(super) struct Handler {
    /// Rung when the server says its tool list changed (for a watcher).
    pub(super) changed: Arc<tokio::sync::Notify>,
    /// Set then too: the list is read again before the next call.
    pub(super) dirty: Arc<std::sync::atomic::AtomicBool>,
    /// Answers elicitation; without it an elicitation request (a 2025-11-25 server's,
    /// which waits on the connection) is declined, and an input-required result becomes
    /// toolwright's own approval.
    pub(super) elicit: Option<Elicit>,
    /// The version `initialize` asks for, when one before 2026-07-28 is set.
    pub(super) initialize_version: Option<ProtocolVersion>,
    /// Calls sent, and elicitation requests answered: a server gets at most
    /// [`MAX_ELICITATIONS`] per call sent on the connection, then a refusal.
    pub(super) calls_sent: Arc<AtomicU64>,
    elicited: Arc<AtomicU64>,
}

/// How many elicitation requests (2025-11-25's, on the connection) a server may send per
/// call sent; past it, each is refused with an error (a server that asks again after
/// every answer cannot keep a person, or the handler, busy without end).
pub const MAX_ELICITATIONS: u64 = 10;

impl Handler {
    pub(super) fn new(elicit: Option<Elicit>) -> Self {
        Handler {
            elicit,
            ..Handler::default()
        }
    }

    /// The tool list may have changed.
    pub(super) fn list_changed(&self) {
        self.dirty.store(true, Ordering::Release);
        self.changed.notify_one();
    }
}

impl rmcp::ClientHandler for Handler {
    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        self.list_changed();
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::model::ErrorData> {
        let answered = self.elicited.fetch_add(1, Ordering::AcqRel);
        if answered >= self.calls_sent.load(Ordering::Acquire) * MAX_ELICITATIONS {
            return Err(rmcp::model::ErrorData::invalid_request(
                format!(
                    "this client answers at most {MAX_ELICITATIONS} elicitation requests per call"
                ),
                None,
            ));
        }
        Ok(match &self.elicit {
            Some(elicit) => elicit(request).await,
            None => ElicitResult::new(rmcp::model::ElicitationAction::Decline),
        })
    }

    /// No roots were given (toolwright declares no roots capability): an error, not an
    /// empty list a server would read as "no files may be touched" or "any".
    #[allow(deprecated)] // roots (SEP-2577): still asked by 2025-11-25 servers
    async fn list_roots(
        &self,
        _: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ListRootsResult, rmcp::model::ErrorData> {
        Err(rmcp::model::ErrorData::method_not_found::<
            rmcp::model::ListRootsRequestMethod,
        >())
    }

    fn get_info(&self) -> ClientConfig {
        // Declared whether or not an answer is installed: a 2026-07-28 server then asks
        // within the call (input-required), which becomes toolwright's own approval.
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(
            rmcp::model::ElicitationCapability::new()
                .with_form(rmcp::model::FormElicitationCapability::default()),
        );
        // Tasks (2026-07-28's extension): a call the server makes a task is followed
        // (polled, its approval answered, cancelled when given up) until its result.
        capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(
                rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                Default::default(),
            );
        let config = ClientConfig::new(
            capabilities,
            Implementation::new("toolwright", env!("CARGO_PKG_VERSION")),
        );
        match &self.initialize_version {
            Some(version) => config.with_protocol_version(version.clone()),
            None => config,
        }
    }
}

pub(super) type Running = RunningService<RoleClient, Handler>;

/// The live connection, and which one it is (each reconnection counts one up).
struct Current {
    service: Arc<Running>,
    generation: u64,
}

/// The connection to one server, made again when lost.
pub(super) struct Link {
    pub(super) endpoint: Endpoint,
    pub(super) handler: Handler,
    pub(super) connect_timeout: Duration,
    /// The protocol version to speak; `None`: the newest the server speaks.
    pub(super) version: Option<ProtocolVersion>,
    current: Mutex<Option<Current>>,
    /// One reconnection at a time.
    reconnecting: tokio::sync::Mutex<()>,
    generations: AtomicU64,
    /// The HTTP client holding the OAuth access token, kept across connections.
    pub(super) oauth: Tokens,
    /// How many connections were made (the first included).
    pub(super) connections: AtomicU64,
    /// The longest message read from a stdio server, in bytes.
    pub(super) message_bytes: usize,
    /// When a connection was last found lost: a safe call waits for the server to be
    /// back for a while after it, instead of failing at once.
    lost_at: Mutex<Option<std::time::Instant>>,
}

impl Link {
    pub(super) fn new(
        endpoint: Endpoint,
        handler: Handler,
        connect_timeout: Duration,
        version: Option<ProtocolVersion>,
    ) -> Self {
        let mut handler = handler;
        handler.initialize_version = version.clone().filter(ProtocolVersion::has_initialize);
        Self {
            endpoint,
            handler,
            connect_timeout,
            version,
            current: Mutex::new(None),
            reconnecting: tokio::sync::Mutex::new(()),
            generations: AtomicU64::new(0),
            oauth: Tokens::default(),
            connections: AtomicU64::new(0),
            message_bytes: rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH,
            lost_at: Mutex::new(None),
        }
    }

    /// Whether a connection was lost within `window`.
    pub(super) fn lost_within(&self, window: Duration) -> bool {
        self.lost_at
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some_and(|at| at.elapsed() <= window)
    }

    /// The generation of the latest connection (0 before the first).
    pub(super) fn generation(&self) -> u64 {
        self.generations.load(Ordering::Acquire)
    }

    fn live(&self) -> Option<(Arc<Running>, u64)> {
        let current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        let current = current.as_ref()?;
        let alive = !current.service.is_closed() && !current.service.peer().is_transport_closed();
        if !alive {
            *self.lost_at.lock().unwrap_or_else(PoisonError::into_inner) =
                Some(std::time::Instant::now());
        }
        alive.then(|| (current.service.clone(), current.generation))
    }

    /// The live connection's peer and generation, connecting first if there is none (or
    /// the one there was is closed). Nothing is sent on a closed connection, so a call
    /// that waits here has not reached the server.
    pub(super) async fn service(&self) -> Result<(Arc<Running>, u64), ConnectError> {
        if let Some(live) = self.live() {
            return Ok(live);
        }
        let _one = self.reconnecting.lock().await;
        if let Some(live) = self.live() {
            return Ok(live);
        }
        let service = Arc::new(self.connect().await?);
        self.listen_for_changes(service.peer()).await;
        let generation = self.generations.fetch_add(1, Ordering::AcqRel) + 1;
        let old = self
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .replace(Current {
                service: service.clone(),
                generation,
            });
        self.connections.fetch_add(1, Ordering::AcqRel);
        if let Some(old) = old {
            old.service.cancellation_token().cancel();
        }
        // A new session may list other tools than the last one did.
        if generation > 1 {
            self.handler.list_changed();
        }
        Ok((service, generation))
    }

    /// On 2026-07-28, a server tells of list changes only on a stream the client opens
    /// for them (`subscriptions/listen`); earlier, it sends them unasked (the handler).
    async fn listen_for_changes(&self, peer: &Peer<RoleClient>) {
        let Some(info) = peer.peer_info() else {
            return;
        };
        let announces = info
            .capabilities
            .tools
            .as_ref()
            .and_then(|tools| tools.list_changed)
            .unwrap_or(false);
        if info.protocol_version.has_initialize() || !announces {
            return;
        }
        let filter = rmcp::model::SubscriptionFilter::builder()
            .tools_list_changed()
            .build();
        match peer.listen(filter).await {
            Ok(mut subscription) => {
                let handler = self.handler.clone();
                tokio::spawn(async move {
                    while let Ok(Some(notification)) = subscription.next().await {
                        if matches!(
                            notification,
                            rmcp::model::ServerNotification::ToolListChangedNotification(_)
                        ) {
                            handler.list_changed();
                        }
                    }
                });
            }
            Err(error) => {
                tracing::debug!(%error, "the server refused a stream of tool list changes");
            }
        }
    }

    /// Forgets connection `generation` after a call on it lost the transport: the next
    /// call connects again.
    pub(super) fn lost(&self, generation: u64) {
        let mut current = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        if current
            .as_ref()
            .is_some_and(|current| current.generation == generation)
            && let Some(old) = current.take()
        {
            old.service.cancellation_token().cancel();
            *self.lost_at.lock().unwrap_or_else(PoisonError::into_inner) =
                Some(std::time::Instant::now());
        }
    }

    /// Closes the connection (a child process is stopped).
    pub(super) fn close(&self) {
        if let Some(old) = self
            .current
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            old.service.cancellation_token().cancel();
        }
    }

    /// A new connection: the handshake of the newest protocol the server speaks (server
    /// discovery on 2026-07-28, `initialize` before it), or of the version set. A server
    /// that refuses it for want of authorization is asked again with new credentials, at
    /// most [`MAX_RENEWALS`] times.
    async fn connect(&self) -> Result<Running, ConnectError> {
        let mut renewed = 0;
        loop {
            let seen = self.renewals();
            let error = match self.handshake().await? {
                Ok(running) => return Ok(running),
                Err(error) => error,
            };
            let Some(challenge) = error.auth_challenge() else {
                return Err(ConnectError::Handshake(with_causes(&error)));
            };
            self.renew_at_most(&mut renewed, challenge, seen)
                .await
                .map_err(ConnectError::Auth)?;
        }
    }

    /// One handshake: its error kept whole (it may carry an authorization challenge).
    async fn handshake(
        &self,
    ) -> Result<Result<Running, rmcp::service::ClientInitializeError>, ConnectError> {
        let lifecycle = match &self.version {
            None => ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(ProtocolVersion::V_2025_11_25),
            },
            Some(version) if version.has_initialize() => ClientLifecycleMode::Initialize,
            Some(version) => ClientLifecycleMode::Discover {
                preferred_versions: vec![version.clone()],
            },
        };
        let handler = self.handler.clone();
        let handshake = match &self.endpoint {
            Endpoint::Stdio(command) => {
                let mut command = tokio_command(command);
                command
                    .stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::inherit());
                let mut child = command.spawn().map_err(ConnectError::Spawn)?;
                let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
                    return Err(ConnectError::Spawn(std::io::Error::other(
                        "the child's stdin or stdout could not be had",
                    )));
                };
                // The server's lines within the message limit; the child ends with them.
                let stdout =
                    super::bounded::BoundedLines::new(stdout, Some(child), self.message_bytes);
                Box::pin(detached(
                    handler.serve_with_lifecycle((stdout, stdin), lifecycle),
                )) as std::pin::Pin<Box<dyn Future<Output = _> + Send>>
            }
            Endpoint::Http {
                url,
                oauth: Some(grant),
                ..
            } => {
                install_tls_provider();
                let client = self
                    .oauth
                    .client(url, grant)
                    .await
                    .map_err(ConnectError::Auth)?;
                let config =
                    rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
                        url.as_str(),
                    );
                let transport =
                    rmcp::transport::StreamableHttpClientTransport::with_client(client, config);
                Box::pin(detached(handler.serve_with_lifecycle(transport, lifecycle)))
            }
            Endpoint::Http {
                url, authorization, ..
            } => {
                install_tls_provider();
                let mut config =
                    rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
                        url.as_str(),
                    );
                if let Some(Secret(token)) = authorization {
                    // The transport sends it as `Authorization: Bearer <token>`.
                    config = config.auth_header(token.clone());
                }
                let transport = rmcp::transport::StreamableHttpClientTransport::from_config(config);
                Box::pin(detached(handler.serve_with_lifecycle(transport, lifecycle)))
            }
        };
        tokio::time::timeout(self.connect_timeout, handshake)
            .await
            .map_err(|_| ConnectError::Timeout(self.connect_timeout))
    }
}

/// Runs `future` on a task of its own and waits for it. rmcp's tasks (the connection's,
/// a request's) take the tracing span current where they start: started from a call,
/// they would hold the call's spans open as long as the connection lives, and the trace
/// would never end. A task of its own starts with none. Dropping the wait aborts the
/// task (and a request it was sending is cancelled).
pub(super) async fn detached<T: Send + 'static>(
    future: impl Future<Output = T> + Send + 'static,
) -> T {
    struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);
    impl<T> Drop for AbortOnDrop<T> {
        fn drop(&mut self) {
            self.0.abort();
        }
    }
    let mut task = AbortOnDrop(tokio::spawn(future));
    match (&mut task.0).await {
        Ok(value) => value,
        // A panic is passed on, for the dispatcher to report; the task is only
        // cancelled by dropping this wait, or by the runtime shutting down.
        Err(error) => match error.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(_) => panic!("the runtime shut down during a call to an MCP server"),
        },
    }
}

/// `error` and every error under it, so the reason (refused, reset, a certificate) is
/// not lost behind "error sending request".
pub(super) fn with_causes(error: &dyn std::error::Error) -> String {
    crate::lint::screen::escape(&causes(error))
}

fn causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// A fresh tokio command from the one the user gave (a command is spent when started).
fn tokio_command(command: &std::process::Command) -> tokio::process::Command {
    let mut fresh = tokio::process::Command::new(command.get_program());
    fresh.args(command.get_args());
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => fresh.env(key, value),
            None => fresh.env_remove(key),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        fresh.current_dir(dir);
    }
    fresh.kill_on_drop(true);
    fresh
}

/// rustls with ring as the process's TLS provider, unless one is installed already.
fn install_tls_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing the race to another thread installing one is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

/// Whether a failed request certainly never reached the server: the connection was
/// refused, or closed before anything was sent. Anything else (a reset mid-request, no
/// answer) leaves the call's outcome unknown.
pub(super) fn never_sent(error: &ServiceError) -> bool {
    let ServiceError::TransportSend(error) = error else {
        return false;
    };
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error.error.as_ref());
    while let Some(current) = source {
        if let Some(io) = current.downcast_ref::<std::io::Error>()
            && matches!(
                io.kind(),
                std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::NotFound
            )
        {
            return true;
        }
        source = current.source();
    }
    false
}

/// Whether `error` means the connection is gone (so the next call reconnects).
pub(super) fn is_lost(error: &ServiceError) -> bool {
    matches!(
        error,
        ServiceError::TransportSend(_) | ServiceError::TransportClosed
    )
}
