//! The Streamable HTTP transport, made for the open internet: every connection's wait
//! for its client is bounded ([`HttpLimits`]), connections and calls in flight are
//! capped (503 with `Retry-After` beyond), shutdown drains, and with a
//! [`ResourceServer`] every request carries a bearer token that becomes its caller.
//! rmcp's `StreamableHttpService` speaks the protocol behind it.

mod connections;
mod limits;

use std::borrow::Cow;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::service::Service as _;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::model::ErrorData;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::Value;
use tokio::io::AsyncWriteExt as _;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use self::connections::{Busy, Connection, Connections, Held, Stage};
pub use self::limits::HttpLimits;
use super::McpServer;
use super::auth::{AuthError, ResourceServer, WELL_KNOWN, bearer_token};
use super::messages::{MAX_MESSAGE_BYTES, error_reply, read_message, request_id, too_large};
use crate::policy::Caller;
use crate::registry::Registry;

/// The path Streamable HTTP is served on.
pub(crate) const HTTP_PATH: &str = "/mcp";

/// An [`McpServer`] over Streamable HTTP, with its limits and, optionally, OAuth.
///
/// ```no_run
/// # async fn run(server: toolwright::mcp::McpServer) -> std::io::Result<()> {
/// use toolwright::mcp::{HttpLimits, HttpServer, shutdown_signal};
///
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// HttpServer::new(server)
///     .with_limits(HttpLimits { max_in_flight: 256, ..HttpLimits::default() })
///     .serve_until(listener, shutdown_signal())
///     .await
/// # }
/// ```
pub struct HttpServer {
    server: McpServer,
    limits: HttpLimits,
    auth: Option<ResourceServer>,
}

type Sdk = TowerToHyperService<StreamableHttpService<McpServer, LocalSessionManager>>;

/// What every request of a server shares.
struct Shared {
    sdk: Sdk,
    connections: Arc<Connections>,
    in_flight: Arc<Semaphore>,
    auth: Option<ResourceServer>,
    /// The protected-resource metadata document, rendered once.
    metadata: Bytes,
    registry: Arc<Registry>,
    /// The server's context, for what the registry offers each caller.
    context: Arc<crate::context::Context>,
}

/// What a response holds until it has been sent.
type Holds = (Busy, Option<OwnedSemaphorePermit>);
type Body = Held<Holds>;

impl HttpServer {
    /// `server` with the default [`HttpLimits`] and no authentication (every request is
    /// the server context's caller, if it holds one).
    pub fn new(server: McpServer) -> Self {
        HttpServer {
            server,
            limits: HttpLimits::default(),
            auth: None,
        }
    }

    /// Other timeouts and caps.
    pub fn with_limits(mut self, limits: HttpLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Every request must carry a bearer token `auth` accepts; the token's caller is the
    /// caller of its calls.
    pub fn with_auth(mut self, auth: ResourceServer) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Serves on `listener` until the process ends. A failed `accept` is logged and
    /// retried, not returned.
    pub async fn serve(self, listener: TcpListener) -> io::Result<()> {
        self.serve_until(listener, std::future::pending()).await
    }

    /// Serves on `listener` until `shutdown` completes, then stops accepting, lets the
    /// calls in flight finish for [`HttpLimits::shutdown_grace`], answers those still
    /// running with a shutdown error (503, the request's id), closes every connection
    /// and returns. A request arriving during shutdown gets 503 with `Retry-After`.
    pub async fn serve_until(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> io::Result<()> {
        let HttpServer {
            server,
            limits,
            auth,
        } = self;
        let registry = server.registry.clone();
        let context = server.context().clone();
        let tool_scopes: Vec<String> = registry
            .specs()
            .flat_map(|spec| spec.scopes.iter().cloned())
            .collect();
        let metadata = auth
            .as_ref()
            .map(|auth| Bytes::from(auth.metadata(&tool_scopes).to_string()))
            .unwrap_or_default();
        // A plain JSON body for a call that sends nothing before its result (an SSE
        // stream only when a tool reports progress or logs, so nothing is lost).
        let config = StreamableHttpServerConfig::default()
            .with_max_request_body_bytes(MAX_MESSAGE_BYTES)
            .with_json_response(true);
        let sdk = TowerToHyperService::new(StreamableHttpService::new(
            move || Ok(server.new_session()),
            Arc::new(LocalSessionManager::default()),
            config,
        ));
        let shared = Arc::new(Shared {
            sdk,
            in_flight: Arc::new(Semaphore::new(limits.max_in_flight)),
            connections: Connections::new(limits),
            auth,
            metadata,
            registry,
            context,
        });
        let mut shutdown = std::pin::pin!(shutdown);
        loop {
            tokio::select! {
                stream = accept(&listener) => {
                    tokio::spawn(serve_connection(shared.clone(), stream));
                }
                () = &mut shutdown => break,
            }
        }
        let connections = &shared.connections;
        connections.set_stage(Stage::Draining);
        // Connections the kernel queued before the shutdown are taken and answered (503
        // with `Retry-After`) rather than reset with the listener.
        let listener = listener.into_std()?;
        while let Ok((stream, _)) = listener.accept() {
            if let Ok(stream) = stream
                .set_nonblocking(true)
                .and_then(|()| TcpStream::from_std(stream))
            {
                tokio::spawn(serve_connection(shared.clone(), stream));
            }
        }
        drop(listener);
        let grace = connections.limits().shutdown_grace;
        if tokio::time::timeout(grace, connections.until_empty())
            .await
            .is_err()
        {
            connections.set_stage(Stage::Closing);
            // The calls still running answer with the shutdown error, then close.
            if tokio::time::timeout(Duration::from_secs(1), connections.until_empty())
                .await
                .is_err()
            {
                connections.close_all();
                connections.until_empty().await;
            }
        }
        Ok(())
    }
}

impl McpServer {
    /// Serves Streamable HTTP on `addr`, at `/mcp`, until the process ends, with the
    /// default [`HttpLimits`] and no authentication ([`HttpServer`] sets both). Both
    /// protocol eras: sessions for `initialize` clients (2025-11-25 and before),
    /// stateless requests for 2026-07-28. Only loopback `Host` headers are accepted
    /// (DNS-rebinding protection): bind to 127.0.0.1 unless a proxy in front does that
    /// check.
    pub async fn serve_http(self, addr: SocketAddr) -> io::Result<()> {
        self.serve_http_on(TcpListener::bind(addr).await?).await
    }

    /// [`McpServer::serve_http`] on a listener you bound (port 0 in a test, say).
    pub async fn serve_http_on(self, listener: TcpListener) -> io::Result<()> {
        HttpServer::new(self).serve(listener).await
    }
}

/// Completes on SIGINT (Ctrl-C) or, on Unix, SIGTERM: the `shutdown` of
/// [`HttpServer::serve_until`] for a server a supervisor stops.
pub async fn shutdown_signal() {
    let interrupt = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::warn!(%error, "Ctrl-C cannot be watched");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => drop(signal.recv().await),
            Err(error) => {
                tracing::warn!(%error, "SIGTERM cannot be watched");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}

/// The next connection, ready to serve. A failed `accept` (out of file descriptors, a
/// connection reset before it was accepted) leaves the listener good: wait a moment and
/// try again.
async fn accept(listener: &TcpListener) -> TcpStream {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                // Answers are small: without this, each waits up to 40 ms behind the
                // peer's delayed ACK (Nagle's algorithm).
                if let Err(error) = stream.set_nodelay(true) {
                    tracing::debug!(%error, "TCP_NODELAY could not be set");
                }
                return stream;
            }
            Err(error) => {
                tracing::warn!(%error, "accepting an MCP HTTP connection failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Serves one connection until it closes, times out, is closed to make room, or the
/// server shuts down.
async fn serve_connection(shared: Arc<Shared>, stream: TcpStream) {
    let connections = shared.connections.clone();
    let Some(connection) = connections.admit() else {
        refuse(stream, connections.limits().retry_after).await;
        return;
    };
    struct Release(Arc<Connections>, Arc<Connection>);
    impl Drop for Release {
        fn drop(&mut self) {
            self.0.release(&self.1);
        }
    }
    let _release = Release(connections.clone(), connection.clone());
    let io = TokioIo::new(stream);
    let serving_connection = connection.clone();
    let service = hyper::service::service_fn(move |request| {
        let busy = serving_connection.begin();
        route(shared.clone(), request, busy)
    });
    let serving = hyper::server::conn::http1::Builder::new().serve_connection(io, service);
    let mut serving = std::pin::pin!(serving);
    let mut stage = connections.watch_stage();
    let mut draining = false;
    let limits = connections.limits();
    // One timer for the connection's life, looked at when it fires: a request costs no
    // timer of its own. While the connection serves, it looks again an idle timeout on.
    let timer = tokio::time::sleep_until(
        connection
            .deadline(limits)
            .unwrap_or_else(|| tokio::time::Instant::now() + limits.idle_timeout),
    );
    let mut timer = std::pin::pin!(timer);
    loop {
        tokio::select! {
            result = serving.as_mut() => {
                if let Err(error) = result {
                    tracing::debug!(%error, "MCP HTTP connection ended");
                }
                return;
            }
            () = connection.closing() => {
                if connection.evicted() {
                    return;
                }
            }
            () = timer.as_mut() => {
                let now = tokio::time::Instant::now();
                match connection.deadline(limits) {
                    Some(deadline) if deadline <= now => {
                        tracing::debug!("closing an MCP HTTP connection that waited too long for its client");
                        return;
                    }
                    Some(deadline) => timer.as_mut().reset(deadline),
                    None => timer.as_mut().reset(now + limits.idle_timeout),
                }
            }
            _ = stage.changed(), if !draining => {
                draining = true;
                // Idle: close now; serving: close after the answer. A first request on
                // its way is let in, to be answered 503 (`Connection: close`) instead
                // of reset.
                if !connection.expecting_request() {
                    serving.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

/// Answers a connection the server has no room for (every open one is serving).
async fn refuse(mut stream: TcpStream, retry_after: Duration) {
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\nretry-after: {}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        retry_after.as_secs().max(1)
    );
    let _ = tokio::time::timeout(
        Duration::from_secs(1),
        stream.write_all(response.as_bytes()),
    )
    .await;
}

async fn route(
    shared: Arc<Shared>,
    request: Request<Incoming>,
    busy: Busy,
) -> Result<Response<Body>, Infallible> {
    let hold = |response: Response<BoxBody<Bytes, Infallible>>, permit| {
        Ok(response.map(|body| Held::new(body, (busy, permit))))
    };
    let limits = shared.connections.limits();
    if shared.connections.stage() != Stage::Serving {
        // The request's id, for the client to match the answer, if its body comes soon.
        let body = Limited::new(request.into_body(), MAX_MESSAGE_BYTES).collect();
        let id = match tokio::time::timeout(Duration::from_secs(1), body).await {
            Ok(Ok(body)) => request_id(&body.to_bytes()),
            _ => Value::Null,
        };
        return hold(shutting_down(id, limits.retry_after), None);
    }
    let path = request.uri().path();
    if shared.auth.is_some()
        && (path == WELL_KNOWN || path.strip_prefix(WELL_KNOWN) == Some(HTTP_PATH))
    {
        let response = if request.method() == Method::GET {
            json_bytes(StatusCode::OK, shared.metadata.clone())
        } else {
            plain(
                StatusCode::METHOD_NOT_ALLOWED,
                "GET the metadata document".into(),
            )
        };
        return hold(response, None);
    }
    if path != HTTP_PATH {
        let message = format!("not found: MCP is served at {HTTP_PATH}");
        return hold(plain(StatusCode::NOT_FOUND, message.into()), None);
    }
    let (mut parts, body) = request.into_parts();
    let caller = match &shared.auth {
        None => None,
        Some(auth) => match authenticate(auth, &parts.headers).await {
            Ok(caller) => Some(caller),
            Err(response) => return hold(*response, None),
        },
    };
    let Ok(permit) = shared.in_flight.clone().try_acquire_owned() else {
        let error = ErrorData::internal_error(
            "the server is answering as many calls as it takes; retry after the Retry-After delay",
            None,
        );
        let mut response = json_response(
            StatusCode::SERVICE_UNAVAILABLE,
            &error_reply(Value::Null, error),
        );
        retry_after(&mut response, limits.retry_after);
        return hold(response, None);
    };
    let body = match tokio::time::timeout(
        limits.body_read_timeout,
        Limited::new(body, MAX_MESSAGE_BYTES).collect(),
    )
    .await
    {
        Ok(Ok(body)) => body.to_bytes(),
        Ok(Err(_)) => {
            let reply = error_reply(Value::Null, too_large());
            return hold(
                json_response(StatusCode::PAYLOAD_TOO_LARGE, &reply),
                Some(permit),
            );
        }
        Err(_) => {
            let error = ErrorData::invalid_request(
                format!(
                    "Invalid request: the body did not arrive within {} s",
                    limits.body_read_timeout.as_secs_f64()
                ),
                None,
            );
            let mut response = json_response(
                StatusCode::REQUEST_TIMEOUT,
                &error_reply(Value::Null, error),
            );
            close_after(&mut response);
            return hold(response, Some(permit));
        }
    };
    // The scopes a called tool needs that the token lacks: its `denied` result comes
    // with the 403 challenge that lets the client step up.
    let mut lacking = Vec::new();
    if let (Some(auth), Some(caller)) = (&shared.auth, &caller)
        && auth.scope_challenge()
        && let Some(tool) = called_tool(&body).and_then(|name| shared.registry.get(&name))
        // A tool this caller is not offered is unknown to it, not a scope to step up to.
        && (!shared.registry.has_visibility()
            || shared.registry.offered(
                Some(&crate::context::Context::over(shared.context.clone()).with(caller.clone())),
                tool.spec(),
            ))
    {
        lacking = tool
            .spec()
            .scopes
            .iter()
            .filter(|scope| !caller.scopes.contains(*scope))
            .cloned()
            .collect();
    }
    if let Some(caller) = caller {
        parts.extensions.insert(caller);
    }
    let post = parts.method == Method::POST;
    let call = shared
        .sdk
        .call(Request::from_parts(parts, Full::new(body.clone())));
    let mut stage = shared.connections.watch_stage();
    let closing = stage.wait_for(|stage| *stage == Stage::Closing);
    let mut response = tokio::select! {
        response = call => match response {
            Ok(response) => response,
            Err(infallible) => match infallible {},
        },
        _ = closing => {
            return hold(shutting_down(request_id(&body), limits.retry_after), Some(permit));
        }
    };
    // The SDK answers a body it cannot read with a bare 415; say what was wrong, as a
    // JSON-RPC error with the request's id where there is one. (Parsed again only then.)
    if post
        && response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE
        && let Err(Some(reply)) = read_message(&body)
    {
        return hold(json_response(StatusCode::BAD_REQUEST, &reply), Some(permit));
    }
    if !lacking.is_empty()
        && response.status() == StatusCode::OK
        && let Some(auth) = &shared.auth
    {
        let description = "the tool needs scopes this token does not carry";
        *response.status_mut() = StatusCode::FORBIDDEN;
        set_challenge(
            &mut response,
            &auth.challenge(Some(("insufficient_scope", description)), &lacking),
        );
    }
    hold(response, Some(permit))
}

/// The caller `headers` authenticate, or the response that refuses them: 401 with the
/// challenge for a missing or invalid token, 503 when it cannot be checked now, 403 for a
/// token without the scopes every request needs.
async fn authenticate(
    auth: &ResourceServer,
    headers: &hyper::HeaderMap,
) -> Result<Caller, Box<Response<BoxBody<Bytes, Infallible>>>> {
    let required = auth.required_scopes();
    let refuse = |status: StatusCode, error: Option<(&str, &str)>, scopes: &[String]| {
        let message = match error {
            Some((_, description)) => format!("Unauthorized: {description}"),
            None => "Unauthorized: this server needs an OAuth bearer token (see the WWW-Authenticate header)".to_owned(),
        };
        let reply = error_reply(Value::Null, ErrorData::invalid_request(message, None));
        let mut response = json_response(status, &reply);
        set_challenge(&mut response, &auth.challenge(error, scopes));
        Box::new(response)
    };
    let Some(header) = headers.get(header::AUTHORIZATION) else {
        return Err(refuse(StatusCode::UNAUTHORIZED, None, required));
    };
    let token = bearer_token(header.as_bytes(), auth.max_token_bytes()).map_err(|why| {
        refuse(
            StatusCode::UNAUTHORIZED,
            Some(("invalid_token", why)),
            required,
        )
    })?;
    let caller = match auth.authenticator.authenticate(token).await {
        Ok(caller) => caller,
        Err(AuthError::InvalidToken(why)) => {
            return Err(refuse(
                StatusCode::UNAUTHORIZED,
                Some(("invalid_token", &why)),
                required,
            ));
        }
        Err(error @ AuthError::Unavailable(_)) => {
            tracing::warn!(%error, "a bearer token could not be checked");
            let reply = error_reply(
                Value::Null,
                ErrorData::internal_error(error.to_string(), None),
            );
            let mut response = json_response(StatusCode::SERVICE_UNAVAILABLE, &reply);
            retry_after(&mut response, Duration::from_secs(1));
            return Err(Box::new(response));
        }
    };
    let lacking: Vec<String> = required
        .iter()
        .filter(|scope| !caller.scopes.contains(*scope))
        .cloned()
        .collect();
    if !lacking.is_empty() {
        let description = "this server needs scopes the token does not carry";
        return Err(refuse(
            StatusCode::FORBIDDEN,
            Some(("insufficient_scope", description)),
            &lacking,
        ));
    }
    Ok(caller)
}

/// The tool a `tools/call` body calls, read without its arguments.
fn called_tool(body: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Request<'a> {
        #[serde(borrow)]
        method: Cow<'a, str>,
        #[serde(borrow)]
        params: Params<'a>,
    }
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(borrow)]
        name: Cow<'a, str>,
    }
    let request: Request<'_> = serde_json::from_slice(body).ok()?;
    (request.method == "tools/call").then(|| request.params.name.into_owned())
}

fn shutting_down(id: Value, after: Duration) -> Response<BoxBody<Bytes, Infallible>> {
    let error = ErrorData::internal_error(
        "the server is shutting down: this request was not completed (a call cut short may \
         have had part of its effect; retry with the same idempotency key to be safe)",
        None,
    );
    let mut response = json_response(StatusCode::SERVICE_UNAVAILABLE, &error_reply(id, error));
    retry_after(&mut response, after);
    close_after(&mut response);
    response
}

fn set_challenge(response: &mut Response<BoxBody<Bytes, Infallible>>, challenge: &str) {
    if let Ok(value) = HeaderValue::from_str(challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
}

fn retry_after(response: &mut Response<BoxBody<Bytes, Infallible>>, after: Duration) {
    response.headers_mut().insert(
        header::RETRY_AFTER,
        HeaderValue::from(after.as_secs().max(1)),
    );
}

fn close_after(response: &mut Response<BoxBody<Bytes, Infallible>>) {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
}

fn plain(status: StatusCode, body: Bytes) -> Response<BoxBody<Bytes, Infallible>> {
    let mut response = Response::new(Full::new(body).boxed());
    *response.status_mut() = status;
    response
}

fn json_bytes(status: StatusCode, body: Bytes) -> Response<BoxBody<Bytes, Infallible>> {
    let mut response = plain(status, body);
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn json_response(status: StatusCode, value: &Value) -> Response<BoxBody<Bytes, Infallible>> {
    json_bytes(status, Bytes::from(value.to_string()))
}

#[cfg(test)]
mod tests {
    use super::{accept, called_tool};

    #[tokio::test]
    async fn accepted_connections_do_not_wait_for_delayed_acks() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let client = tokio::net::TcpStream::connect(address);
        let (accepted, _client) = tokio::join!(accept(&listener), client);
        assert!(
            accepted.nodelay().unwrap(),
            "TCP_NODELAY is set on every accepted socket"
        );
    }

    #[test]
    fn the_called_tool_is_read_from_a_tools_call_only() {
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"a":[1,{"b":2}]},"name":"pay\u0073"}}"#;
        assert_eq!(called_tool(call).as_deref(), Some("pays"));
        assert_eq!(
            called_tool(br#"{"method":"tools/list","params":{"name":"x"}}"#),
            None
        );
        assert_eq!(called_tool(b"not json"), None);
    }
}
