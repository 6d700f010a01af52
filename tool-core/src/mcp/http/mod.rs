//! The Streamable HTTP transport, made for the open internet: every connection's wait
//! for its client is bounded ([`HttpLimits`]), connections and calls in flight are
//! capped (503 with `Retry-After` beyond), shutdown drains, and with a
//! [`ResourceServer`] every request carries a bearer token that becomes its caller.
//! A plain stateless `tools/call` is answered in the connection's task (`direct.rs`);
//! rmcp's `StreamableHttpService` speaks the rest of the protocol.

mod connections;
mod direct;
mod hosts;
mod limits;
mod responses;
mod route;
mod sessions;
mod write_timeout;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::io::AsyncWriteExt as _;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use self::connections::{Busy, Connection, Connections, Held, Stage};
use self::hosts::AllowedHosts;
pub use self::limits::HttpLimits;
use self::route::route;
use self::sessions::Sessions;
use self::write_timeout::WriteTimeout;
use super::McpServer;
use super::auth::ResourceServer;
use super::messages::MAX_MESSAGE_BYTES;
use crate::registry::Registry;

/// What ends a server ([`HttpServer::serve_until`]'s `shutdown`).
type Shutdown<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;
/// A running server.
type Serving<'a> = Pin<Box<dyn Future<Output = io::Result<()>> + Send + 'a>>;

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
///     .with_limits(HttpLimits::default().max_in_flight(256))
///     .serve_until(listener, shutdown_signal())
///     .await
/// # }
/// ```
pub struct HttpServer {
    server: McpServer,
    limits: HttpLimits,
    auth: Option<ResourceServer>,
    allowed_hosts: Vec<String>,
}

type Sdk = TowerToHyperService<StreamableHttpService<McpServer, Sessions>>;

/// What every request of a server shares.
struct Shared {
    sdk: Sdk,
    connections: Arc<Connections>,
    in_flight: Arc<Semaphore>,
    auth: Option<ResourceServer>,
    /// The names a request's `Host` may give (DNS-rebinding protection).
    hosts: AllowedHosts,
    /// The protected-resource metadata document, rendered once.
    metadata: Bytes,
    registry: Arc<Registry>,
    /// The server's context, for what the registry offers each caller.
    context: Arc<crate::context::Context>,
    /// The server answers approvals inside MCP (such calls go through rmcp).
    client_approval: bool,
    /// The tools whose calls rmcp answers: those with `x-mcp-header` arguments (whose
    /// headers rmcp checks) and, when the server serves tasks, those that may run as
    /// tasks.
    through_sdk: rustc_hash::FxHashSet<String>,
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
            allowed_hosts: Vec::new(),
        }
    }

    /// Other timeouts and caps.
    pub fn with_limits(mut self, limits: HttpLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Every request must carry a bearer token `auth` accepts; the token's caller is the
    /// caller of its calls. The host of its resource URL is answered too (see
    /// [`HttpServer::with_allowed_hosts`]).
    pub fn with_auth(mut self, auth: ResourceServer) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Also answer requests whose `Host` is one of `hosts` (`tools.example.com`, any
    /// port; or `tools.example.com:8443`, that port only).
    ///
    /// A request is answered only when its `Host` names the server: loopback names
    /// always, the host of the [`ResourceServer`]'s resource URL when there is one, and
    /// these. Every other host gets 403, so a web page cannot reach the server through a
    /// name its author controls (DNS rebinding). A public deployment without OAuth names
    /// its public host here; one behind a proxy that rewrites `Host` needs nothing.
    pub fn with_allowed_hosts(
        mut self,
        hosts: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.allowed_hosts.extend(hosts.into_iter().map(Into::into));
        self
    }

    /// Serves on `listener` until the process ends. A failed `accept` is logged and
    /// retried, not returned.
    pub fn serve(self, listener: TcpListener) -> impl Future<Output = io::Result<()>> + Send {
        self.serve_until(listener, std::future::pending())
    }

    /// Serves on `listener` until `shutdown` completes, then stops accepting, lets the
    /// calls in flight finish for [`HttpLimits::shutdown_grace`], answers those still
    /// running with a shutdown error (503, the request's id), closes every connection
    /// and returns. A request arriving during shutdown gets 503 with `Retry-After`.
    pub fn serve_until<'a>(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'a,
    ) -> impl Future<Output = io::Result<()>> + Send + 'a {
        self.serve_boxed(listener, Box::pin(shutdown))
    }

    /// The server behind a pointer, made here and not generic: otherwise every crate
    /// that serves would compile its own copy of the whole HTTP server (as for
    /// [`McpServer::serve_stdio`]).
    #[inline(never)]
    fn serve_boxed<'a>(self, listener: TcpListener, shutdown: Shutdown<'a>) -> Serving<'a> {
        Box::pin(self.run(listener, shutdown))
    }

    async fn run(self, listener: TcpListener, shutdown: Shutdown<'_>) -> io::Result<()> {
        let HttpServer {
            server,
            limits,
            auth,
            allowed_hosts,
        } = self;
        let hosts = AllowedHosts::new(auth.as_ref().map(ResourceServer::resource), &allowed_hosts);
        tracing::debug!(hosts = ?hosts.names(), "MCP HTTP answers these hosts");
        let registry = server.registry.clone();
        let context = server.context().clone();
        let client_approval = server.client_approval;
        let serves_tasks = server.tasks.is_some();
        let through_sdk = server
            .tools
            .iter()
            .filter(|tool| {
                let properties = tool.input_schema.get("properties");
                let headers = properties
                    .and_then(serde_json::Value::as_object)
                    .is_some_and(|properties| {
                        properties
                            .values()
                            .any(|property| property.get("x-mcp-header").is_some())
                    });
                let task = serves_tasks
                    && registry.get(&tool.name).is_some_and(|known| {
                        known.spec().task != crate::spec::TaskSupport::Forbidden
                    });
                headers || task
            })
            .map(|tool| tool.name.to_string())
            .collect();
        let tool_scopes: Vec<String> = registry
            .specs()
            .flat_map(|spec| spec.scopes.iter().cloned())
            .collect();
        let metadata = auth
            .as_ref()
            .map(|auth| Bytes::from(auth.metadata(&tool_scopes).to_string()))
            .unwrap_or_default();
        // A plain JSON body for a call that sends nothing before its result (an SSE
        // stream only when a tool reports progress or logs, so nothing is lost). The
        // `Host` check is `route`'s, for every path (hosts.rs).
        let config = StreamableHttpServerConfig::default()
            .with_max_request_body_bytes(MAX_MESSAGE_BYTES)
            .with_json_response(true)
            .disable_allowed_hosts();
        let sdk = TowerToHyperService::new(StreamableHttpService::new(
            move || Ok(server.new_session()),
            Arc::new(Sessions {
                tasks: serves_tasks,
                ..Sessions::default()
            }),
            config,
        ));
        let shared = Arc::new(Shared {
            sdk,
            in_flight: Arc::new(Semaphore::new(limits.max_in_flight)),
            connections: Connections::new(limits),
            auth,
            hosts,
            metadata,
            registry,
            context,
            client_approval,
            through_sdk,
        });
        let mut shutdown = shutdown;
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
    /// (DNS-rebinding protection): bind to 127.0.0.1, or serve a public name with
    /// [`HttpServer::with_allowed_hosts`].
    pub async fn serve_http(self, addr: SocketAddr) -> io::Result<()> {
        self.serve_http_on(TcpListener::bind(addr).await?).await
    }

    /// [`McpServer::serve_http`] on a listener you bound (port 0 in a test, say).
    pub fn serve_http_on(
        self,
        listener: TcpListener,
    ) -> impl Future<Output = io::Result<()>> + Send {
        HttpServer::new(self).serve(listener)
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
    let io = TokioIo::new(WriteTimeout::new(
        stream,
        connections.limits().write_timeout,
    ));
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

#[cfg(test)]
mod tests {
    use super::accept;

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
}
