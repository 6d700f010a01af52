//! The two transports: newline-delimited JSON-RPC on a pair of streams (stdio), and
//! Streamable HTTP. Both screen each incoming message first, so that what the SDK would
//! drop (a line that is not JSON) or answer without the request's id (a request it cannot
//! read) still gets a JSON-RPC error the client can match to its request.

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
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ErrorData, JsonRpcMessage, JsonRpcRequest};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader,
};
use tokio::net::TcpListener;

use super::McpServer;

/// The largest message either transport reads, a line on stdio or a request body over
/// HTTP: 16 MiB, rmcp's own line limit. Larger ones get a JSON-RPC error; arguments
/// within it but over the registry's argument limit get an `invalid_arguments` result.
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// The path Streamable HTTP is served on.
pub const HTTP_PATH: &str = "/mcp";

impl McpServer {
    /// Serves on standard input and output until the client closes standard input.
    /// Log to standard error: standard output carries only protocol messages.
    pub async fn serve_stdio(self) -> io::Result<()> {
        self.serve_streams(tokio::io::stdin(), tokio::io::stdout())
            .await
    }

    /// Serves newline-delimited JSON-RPC read from `input`, answering on `output`, until
    /// `input` ends (stdio is this on the process's own streams).
    pub async fn serve_streams<R, W>(self, input: R, output: W) -> io::Result<()>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (ours, sdk_side) = tokio::io::duplex(1 << 16);
        let (from_sdk, mut to_sdk) = tokio::io::split(ours);
        let (send_line, mut lines) = tokio::sync::mpsc::channel::<Vec<u8>>(64);
        // One writer, so the SDK's replies and the screen's never interleave in a line.
        let writer = tokio::spawn(async move {
            let mut output = output;
            while let Some(line) = lines.recv().await {
                output.write_all(&line).await?;
                output.flush().await?;
            }
            io::Result::Ok(())
        });
        let replies = {
            let send_line = send_line.clone();
            tokio::spawn(async move {
                let mut from_sdk = BufReader::new(from_sdk);
                loop {
                    let mut line = Vec::new();
                    if from_sdk.read_until(b'\n', &mut line).await? == 0
                        || send_line.send(line).await.is_err()
                    {
                        return io::Result::Ok(());
                    }
                }
            })
        };
        let sdk = tokio::spawn(async move {
            match self.serve(sdk_side).await {
                Ok(running) => running.waiting().await.map(drop).map_err(io::Error::other),
                // The client left before its first request: nothing to serve.
                Err(error) => {
                    tracing::debug!(%error, "the MCP session ended before it started");
                    Ok(())
                }
            }
        });

        let mut input = BufReader::new(input);
        loop {
            let reply = match read_line(&mut input, MAX_MESSAGE_BYTES).await? {
                Line::End => break,
                Line::TooLong => Some(error_reply(Value::Null, too_large())),
                Line::Complete(line) if line.trim_ascii().is_empty() => None,
                Line::Complete(mut line) => match screen(&line) {
                    Some(reply) => Some(reply),
                    None => {
                        line.push(b'\n');
                        to_sdk.write_all(&line).await?;
                        None
                    }
                },
            };
            if let Some(reply) = reply {
                let mut line = serde_json::to_vec(&reply).map_err(io::Error::other)?;
                line.push(b'\n');
                if send_line.send(line).await.is_err() {
                    break;
                }
            }
        }
        to_sdk.shutdown().await?;
        drop(send_line);
        sdk.await.map_err(io::Error::other)??;
        replies.await.map_err(io::Error::other)??;
        writer.await.map_err(io::Error::other)?
    }

    /// Serves Streamable HTTP on `addr`, at [`HTTP_PATH`], until the process ends. Both
    /// protocol eras: sessions for `initialize` clients (2025-11-25 and before), stateless
    /// requests for 2026-07-28. Only loopback `Host` headers are accepted (DNS-rebinding
    /// protection): bind to 127.0.0.1 unless a proxy in front does that check.
    pub async fn serve_http(self, addr: SocketAddr) -> io::Result<()> {
        self.serve_http_on(TcpListener::bind(addr).await?).await
    }

    /// [`McpServer::serve_http`] on a listener you bound (port 0 in a test, say). Serves
    /// until the process ends: a failed `accept` is logged and retried, not returned.
    pub async fn serve_http_on(self, listener: TcpListener) -> io::Result<()> {
        let config =
            StreamableHttpServerConfig::default().with_max_request_body_bytes(MAX_MESSAGE_BYTES);
        let server = self;
        let sdk = TowerToHyperService::new(StreamableHttpService::new(
            move || Ok(server.new_session()),
            Arc::new(LocalSessionManager::default()),
            config,
        ));
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                // Out of file descriptors, a connection reset before it was accepted:
                // the listener is still good, so wait a moment and go on serving.
                Err(error) => {
                    tracing::warn!(%error, "accepting an MCP HTTP connection failed");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            };
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
    if parts.method == Method::POST
        && let Some(reply) = screen(&body)
    {
        return Ok(json_response(StatusCode::BAD_REQUEST, &reply));
    }
    sdk.call(Request::from_parts(parts, Full::new(body))).await
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

/// The methods this server answers whose malformed params the screen reports itself
/// (the SDK would call them unknown methods). Others, including the ones 2026-07-28
/// removed, are the SDK's to answer.
const SERVED: &[&str] = &["tools/call", "tools/list"];

/// The error reply for a message the SDK cannot read, or `None` to pass it on. JSON that
/// is no request (no id) is passed on: the SDK ignores what it may ignore.
fn screen(message: &[u8]) -> Option<Value> {
    let message = message.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(message);
    let error = match serde_json::from_slice::<ClientJsonRpcMessage>(message) {
        // A request for a method this server serves whose params the SDK could not
        // read arrives as a "custom" request, which would be answered "method not found".
        Ok(JsonRpcMessage::Request(JsonRpcRequest {
            request: ClientRequest::CustomRequest(custom),
            ..
        })) if SERVED.contains(&custom.method.as_str()) => {
            "the params do not have the shape the method takes".to_owned()
        }
        Ok(_) => return None,
        Err(error) => error.to_string(),
    };
    let value: Value = match serde_json::from_slice(message) {
        Ok(value) => value,
        Err(error) => {
            let error = ErrorData::parse_error(format!("Parse error: {error}"), None);
            return Some(error_reply(Value::Null, error));
        }
    };
    let id = value
        .get("id")
        .filter(|id| id.is_string() || id.is_number())?;
    let method = value.get("method").and_then(Value::as_str);
    let arguments = value.pointer("/params/arguments");
    let error = match (method, arguments) {
        (Some("tools/call"), Some(arguments)) if !arguments.is_object() => {
            ErrorData::invalid_params(
                format!(
                    "Invalid params: tools/call `arguments` must be a JSON object, got {}",
                    kind_of(arguments)
                ),
                None,
            )
        }
        (Some(method), _) if value.get("params").is_some() => {
            ErrorData::invalid_params(format!("Invalid params for {method}: {error}"), None)
        }
        _ => ErrorData::invalid_request(format!("Invalid request: {error}"), None),
    };
    Some(error_reply(id.clone(), error))
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
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
