//! The two transports: newline-delimited JSON-RPC on a pair of streams (stdio), and
//! Streamable HTTP. What the SDK would drop (a line that is not JSON), answer without the
//! request's id (a request it cannot read) or with a bare HTTP 415 still gets a JSON-RPC
//! error the client can match to its request.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::ServiceExt as _;
use rmcp::model::{ClientJsonRpcMessage, ErrorData, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader,
};
use tokio::net::TcpListener;

use super::McpServer;
use crate::validate::json::{show, type_name};

/// The largest message either transport reads, a line on stdio or a request body over
/// HTTP: 16 MiB, rmcp's own line limit. Larger ones get a JSON-RPC error; arguments
/// within it but over the registry's argument limit get an `invalid_arguments` result.
pub(crate) const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// The path Streamable HTTP is served on.
pub(crate) const HTTP_PATH: &str = "/mcp";

impl McpServer {
    /// Serves on standard input and output until the client closes standard input.
    /// Log to standard error: standard output carries only protocol messages.
    pub async fn serve_stdio(self) -> io::Result<()> {
        self.serve_streams(tokio::io::stdin(), tokio::io::stdout())
            .await
    }

    /// Serves newline-delimited JSON-RPC read from `input`, answering on `output`, until
    /// `input` ends (stdio is this on the process's own streams). Each line is parsed
    /// once, here: the SDK receives messages, not text.
    pub async fn serve_streams<R, W>(self, input: R, output: W) -> io::Result<()>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        // One writer for the SDK's replies and the reader's, so lines never interleave.
        let output = Arc::new(tokio::sync::Mutex::new(output));
        let replies = futures_util::sink::unfold(
            output.clone(),
            |output, message: ServerJsonRpcMessage| async move {
                write_line(&output, &message).await?;
                Ok::<_, io::Error>(output)
            },
        );
        let requests = futures_util::stream::unfold(
            (BufReader::new(input), output),
            |(mut input, output)| async move {
                loop {
                    let reply = match read_line(&mut input, MAX_MESSAGE_BYTES).await {
                        Ok(Line::End) => return None,
                        Err(error) => {
                            tracing::debug!(%error, "reading the MCP input failed");
                            return None;
                        }
                        Ok(Line::TooLong) => Some(error_reply(Value::Null, too_large())),
                        Ok(Line::Complete(line)) if line.trim_ascii().is_empty() => None,
                        Ok(Line::Complete(line)) => match read_message(&line) {
                            Ok(message) => return Some((message, (input, output))),
                            Err(reply) => reply,
                        },
                    };
                    if let Some(reply) = reply
                        && write_line(&output, &reply).await.is_err()
                    {
                        return None;
                    }
                }
            },
        );
        match self
            .new_session()
            .serve((Box::pin(replies), Box::pin(requests)))
            .await
        {
            Ok(running) => running.waiting().await.map(drop).map_err(io::Error::other),
            // The client left before its first request: nothing to serve.
            Err(error) => {
                tracing::debug!(%error, "the MCP session ended before it started");
                Ok(())
            }
        }
    }

    /// Serves Streamable HTTP on `addr`, at `/mcp`, until the process ends. Both
    /// protocol eras: sessions for `initialize` clients (2025-11-25 and before), stateless
    /// requests for 2026-07-28. Only loopback `Host` headers are accepted (DNS-rebinding
    /// protection): bind to 127.0.0.1 unless a proxy in front does that check.
    pub async fn serve_http(self, addr: SocketAddr) -> io::Result<()> {
        self.serve_http_on(TcpListener::bind(addr).await?).await
    }

    /// [`McpServer::serve_http`] on a listener you bound (port 0 in a test, say). Serves
    /// until the process ends: a failed `accept` is logged and retried, not returned.
    pub async fn serve_http_on(self, listener: TcpListener) -> io::Result<()> {
        // A plain JSON body for a call that sends nothing before its result (an SSE
        // stream only when a tool reports progress or logs, so nothing is lost).
        let config = StreamableHttpServerConfig::default()
            .with_max_request_body_bytes(MAX_MESSAGE_BYTES)
            .with_json_response(true);
        let server = self;
        let sdk = TowerToHyperService::new(StreamableHttpService::new(
            move || Ok(server.new_session()),
            Arc::new(LocalSessionManager::default()),
            config,
        ));
        loop {
            let stream = accept(&listener).await;
            let sdk = sdk.clone();
            tokio::spawn(async move {
                let route = hyper::service::service_fn(move |request| route(sdk.clone(), request));
                if let Err(error) = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), route)
                    .await
                {
                    tracing::debug!(%error, "MCP HTTP connection ended");
                }
            });
        }
    }
}

/// The next connection, ready to serve. A failed `accept` (out of file descriptors, a
/// connection reset before it was accepted) leaves the listener good: wait a moment and
/// try again.
async fn accept(listener: &TcpListener) -> tokio::net::TcpStream {
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
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
        }
    }
}

type Body = BoxBody<Bytes, Infallible>;

async fn route<S>(sdk: S, request: Request<Incoming>) -> Result<Response<Body>, Infallible>
where
    S: hyper::service::Service<Request<Full<Bytes>>, Response = Response<Body>, Error = Infallible>,
{
    if request.uri().path() != HTTP_PATH {
        let message = format!("not found: MCP is served at {HTTP_PATH}");
        return Ok(plain(StatusCode::NOT_FOUND, message.into()));
    }
    let (parts, body) = request.into_parts();
    let Ok(body) = Limited::new(body, MAX_MESSAGE_BYTES).collect().await else {
        let reply = error_reply(Value::Null, too_large());
        return Ok(json_response(StatusCode::PAYLOAD_TOO_LARGE, &reply));
    };
    let body = body.to_bytes();
    let post = parts.method == Method::POST;
    let response = sdk
        .call(Request::from_parts(parts, Full::new(body.clone())))
        .await?;
    // The SDK answers a body it cannot read with a bare 415; say what was wrong, as a
    // JSON-RPC error with the request's id where there is one. (Parsed again only then.)
    if post
        && response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE
        && let Err(Some(reply)) = read_message(&body)
    {
        return Ok(json_response(StatusCode::BAD_REQUEST, &reply));
    }
    Ok(response)
}

/// Writes one message and its newline.
async fn write_line<W: AsyncWrite + Unpin, T: serde::Serialize>(
    output: &tokio::sync::Mutex<W>,
    message: &T,
) -> io::Result<()> {
    let mut line = serde_json::to_vec(message).map_err(io::Error::other)?;
    line.push(b'\n');
    let mut output = output.lock().await;
    output.write_all(&line).await?;
    output.flush().await
}

fn plain(status: StatusCode, body: Bytes) -> Response<Body> {
    let mut response = Response::new(Full::new(body).boxed());
    *response.status_mut() = status;
    response
}

fn json_response(status: StatusCode, value: &Value) -> Response<Body> {
    let mut response = plain(status, Bytes::from(value.to_string()));
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

fn too_large() -> ErrorData {
    ErrorData::invalid_request(
        format!("Invalid request: the message is larger than {MAX_MESSAGE_BYTES} bytes"),
        None,
    )
}

fn error_reply(id: Value, error: ErrorData) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

/// The message in `bytes`, or why it is none: `Err(Some(reply))` is the JSON-RPC error
/// to send (not JSON: -32700, id null; a request the SDK cannot read: -32602 or -32600
/// with its id), `Err(None)` JSON with no id to answer (a notification or response of
/// another protocol, ignored as the SDK ignores it).
fn read_message(bytes: &[u8]) -> Result<ClientJsonRpcMessage, Option<Value>> {
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

/// The error of a request for a method this server serves whose params the SDK could
/// not read: it arrives as a "custom" request, which would be answered "method not
/// found". `None` for a method this server does not serve.
pub(super) fn malformed_params(method: &str, params: Option<&Value>) -> Option<ErrorData> {
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

enum Line {
    Complete(Vec<u8>),
    TooLong,
    End,
}

/// The next line without its newline, holding at most `max` bytes of it in memory.
async fn read_line<R: AsyncBufRead + Unpin>(input: &mut R, max: usize) -> io::Result<Line> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buffer = input.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(match (too_long, line.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::End,
                // A last line without its newline is still a message.
                (false, false) => Line::Complete(line),
            });
        }
        let newline = buffer.iter().position(|&byte| byte == b'\n');
        let chunk = &buffer[..newline.unwrap_or(buffer.len())];
        if !too_long && line.len() + chunk.len() > max {
            too_long = true;
            line = Vec::new();
        }
        if !too_long {
            line.extend_from_slice(chunk);
        }
        let used = newline.map_or(buffer.len(), |at| at + 1);
        input.consume(used);
        if newline.is_some() {
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Complete(line)
            });
        }
    }
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
