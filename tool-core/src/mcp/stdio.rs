//! The stdio transport: newline-delimited JSON-RPC on a pair of streams. Each line is
//! parsed once, here; a line that is not JSON or too long gets a JSON-RPC error.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::ServiceExt as _;
use rmcp::model::{ClientJsonRpcMessage, GetExtensions as _, ServerJsonRpcMessage};
use serde_json::Value;
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader,
};

use super::McpServer;
use super::era::Era;
use super::messages::{
    MAX_MESSAGE_BYTES, MessageBytes, error_reply, read_message, task_requested, too_large,
};

impl McpServer {
    /// Serves on standard input and output until the client closes standard input.
    /// Log to standard error: standard output carries only protocol messages.
    pub fn serve_stdio(self) -> impl Future<Output = io::Result<()>> + Send + 'static {
        self.serve_stdio_boxed()
    }

    /// The stdio server behind a pointer, made here: an `async fn` this small would be
    /// inlined into the user's crate, which would then compile its own copy of the whole
    /// server (rmcp's request handling, the dispatcher) beside this crate's: 0.34 MB of a
    /// stripped release binary (`scripts/measure/mcp-serving-cost`).
    #[inline(never)]
    fn serve_stdio_boxed(self) -> Pin<Box<dyn Future<Output = io::Result<()>> + Send>> {
        Box::pin(self.serve_streams(tokio::io::stdin(), tokio::io::stdout()))
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
        // A server with tasks serves them in both eras: what the session negotiates
        // decides how its task requests are read.
        let era = self.tasks.as_ref().map(|_| Arc::new(Era::default()));
        let outgoing = era.clone();
        let replies = futures_util::sink::unfold(
            output.clone(),
            move |output, message: ServerJsonRpcMessage| {
                let message = match &outgoing {
                    Some(era) => era.outgoing(message),
                    None => message,
                };
                async move {
                    write_line(&output, &message).await?;
                    Ok::<_, io::Error>(output)
                }
            },
        );
        let requests = futures_util::stream::unfold(
            (BufReader::new(input), output, era),
            |(mut input, output, era)| async move {
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
                            Ok(mut message) => {
                                if let ClientJsonRpcMessage::Request(request) = &mut message {
                                    let bytes = MessageBytes(line.len());
                                    let extensions = request.request.extensions_mut();
                                    extensions.insert(bytes);
                                    if let Some(task) = task_requested(&line) {
                                        extensions.insert(task);
                                    }
                                }
                                if let Some(era) = &era {
                                    message = era.incoming(message);
                                }
                                return Some((message, (input, output, era)));
                            }
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
