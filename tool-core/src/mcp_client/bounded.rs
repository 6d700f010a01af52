//! A stdio server's output, one message (line) at a time, none longer than the limit: a
//! line over it is dropped as it arrives (never held whole), and the request it answers
//! is failed at once, with the size and the limit, instead of waiting out its deadline.
//! Its id is read from the line's first and last bytes (kept while the rest is skipped);
//! an oversized line whose id cannot be found ends the connection, which fails every
//! call out on it, as a lost connection does.

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

/// How many bytes of an oversized line's start and end are kept to find its id.
const KEPT: usize = 4096;

/// The JSON-RPC error code of the answer made for an oversized message (in the range
/// JSON-RPC leaves to implementations).
pub(super) const OVERSIZED: i32 = -32099;

/// The child's stdout (and the child itself, killed when the connection drops it),
/// line by line within `limit` bytes.
pub(super) struct BoundedLines<R> {
    inner: R,
    /// Held so that the process ends with the connection (`kill_on_drop`).
    _child: Option<tokio::process::Child>,
    limit: usize,
    /// The line being read.
    line: Vec<u8>,
    /// Bytes ready for the reader (whole lines).
    ready: Vec<u8>,
    ready_at: usize,
    /// While skipping an oversized line: its start, its last bytes, and its length.
    skipping: Option<Skipped>,
    ended: bool,
}

struct Skipped {
    head: Vec<u8>,
    tail: Vec<u8>,
    length: usize,
}

impl<R: AsyncRead + Unpin> BoundedLines<R> {
    pub(super) fn new(inner: R, child: Option<tokio::process::Child>, limit: usize) -> Self {
        BoundedLines {
            inner,
            _child: child,
            limit,
            line: Vec::new(),
            ready: Vec::new(),
            ready_at: 0,
            skipping: None,
            ended: false,
        }
    }

    /// Takes in `bytes` read from the server.
    fn take_in(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() && !self.ended {
            let newline = bytes.iter().position(|&b| b == b'\n');
            let (part, rest) = match newline {
                Some(at) => (&bytes[..at], &bytes[at + 1..]),
                None => (bytes, &[][..]),
            };
            if let Some(skipped) = &mut self.skipping {
                skipped.length += part.len();
                skipped.tail.extend_from_slice(part);
                if skipped.tail.len() > 2 * KEPT {
                    skipped.tail.drain(..skipped.tail.len() - KEPT);
                }
            } else if self.line.len() + part.len() > self.limit {
                let mut head = std::mem::take(&mut self.line);
                head.extend_from_slice(&part[..part.len().min(KEPT)]);
                let length = head.len() + part.len().saturating_sub(KEPT);
                let tail = part[part.len().saturating_sub(KEPT)..].to_vec();
                head.truncate(KEPT);
                self.line = Vec::new();
                self.skipping = Some(Skipped { head, tail, length });
            } else {
                self.line.extend_from_slice(part);
            }
            if newline.is_some() {
                self.end_line();
            }
            bytes = rest;
        }
    }

    /// A line ended: passed on, or the answer made for an oversized one.
    fn end_line(&mut self) {
        match self.skipping.take() {
            None => {
                self.ready.append(&mut self.line);
                self.ready.push(b'\n');
            }
            Some(skipped) => {
                let id = id_at_start(&skipped.head).or_else(|| id_at_end(&skipped.tail));
                tracing::warn!(
                    bytes = skipped.length,
                    limit = self.limit,
                    "an MCP server sent a message over the size limit; it was dropped"
                );
                match id {
                    Some(id) => {
                        let answer = serde_json::json!({
                            "jsonrpc": "2.0",
                            "id": id,
                            "error": {
                                "code": OVERSIZED,
                                "message": format!(
                                    "the server's answer was {} bytes, over this client's limit of {} bytes per message (ImportLimits::message_bytes); it was dropped unread",
                                    skipped.length, self.limit
                                ),
                            }
                        });
                        self.ready.extend_from_slice(answer.to_string().as_bytes());
                        self.ready.push(b'\n');
                    }
                    // Nothing to answer: the connection ends (every call out on it
                    // fails as on a lost connection).
                    None => self.ended = true,
                }
            }
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for BoundedLines<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.ready_at < this.ready.len() {
                let n = (this.ready.len() - this.ready_at).min(buf.remaining());
                buf.put_slice(&this.ready[this.ready_at..this.ready_at + n]);
                this.ready_at += n;
                if this.ready_at == this.ready.len() {
                    this.ready.clear();
                    this.ready_at = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.ended {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 16 * 1024];
            let mut read = ReadBuf::new(&mut chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
                Poll::Ready(Ok(())) if read.filled().is_empty() => {
                    // End of the stream: a last line without its newline is passed on.
                    this.ended = true;
                    if this.skipping.is_none() && !this.line.is_empty() {
                        this.ready.append(&mut this.line);
                    }
                }
                Poll::Ready(Ok(())) => {
                    let filled = read.filled().to_vec();
                    this.take_in(&filled);
                }
            }
        }
    }
}

/// The top-level `"id"` of a JSON object whose start is `head`: keys are read at depth 1
/// only (an `id` inside the result is not the message's).
fn id_at_start(head: &[u8]) -> Option<serde_json::Value> {
    let text = String::from_utf8_lossy(head);
    let bytes = text.as_bytes();
    let (mut depth, mut at) = (0usize, 0usize);
    while at < bytes.len() {
        match bytes[at] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let end = string_end(bytes, at)?;
                if depth == 1 && &bytes[at..=end] == b"\"id\"" {
                    return value_after_colon(&text[end + 1..]);
                }
                at = end;
            }
            _ => {}
        }
        at += 1;
    }
    None
}

/// The `"id"` that ends a JSON object whose last bytes are `tail` (`..., "id": 7}`).
fn id_at_end(tail: &[u8]) -> Option<serde_json::Value> {
    let text = String::from_utf8_lossy(tail);
    let body = text.trim_end().strip_suffix('}')?.trim_end();
    let key = body.rfind("\"id\"")?;
    let value = value_after_colon(&body[key + 4..])?;
    // Nothing after the value but the object's end.
    (value.to_string().len() == body[key + 4..].trim().trim_start_matches(':').trim().len())
        .then_some(value)
}

/// The index of the quote that closes the string opening at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 1,
            b'"' => return Some(at),
            _ => {}
        }
        at += 1;
    }
    None
}

/// A number or string id after `:` (and whitespace) at the start of `text`.
fn value_after_colon(text: &str) -> Option<serde_json::Value> {
    let rest = text.trim_start().strip_prefix(':')?.trim_start();
    let end = if rest.starts_with('"') {
        string_end(rest.as_bytes(), 0)? + 1
    } else {
        rest.find(|c: char| !(c.is_ascii_digit() || c == '-'))
            .unwrap_or(rest.len())
    };
    let value: serde_json::Value = serde_json::from_str(&rest[..end]).ok()?;
    (value.is_number() || value.is_string()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt as _;

    fn read_all(input: Vec<u8>, limit: usize) -> String {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime.block_on(async {
            let mut reader = BoundedLines::new(&input[..], None, limit);
            let mut out = String::new();
            reader.read_to_string(&mut out).await.unwrap();
            out
        })
    }

    #[test]
    fn lines_within_the_limit_pass_and_an_oversized_one_becomes_an_error_for_its_id() {
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{{\"id\":99,\"text\":\"{}\"}}}}\n",
            "x".repeat(50_000)
        );
        let input = format!("{{\"a\":1}}\n{big}{{\"b\":2}}\n");
        let out = read_all(input.into_bytes(), 1000);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "{\"a\":1}");
        let error: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(error["id"], 7);
        assert_eq!(error["error"]["code"], OVERSIZED);
        assert!(
            error["error"]["message"]
                .as_str()
                .unwrap()
                .contains("over this client's limit of 1000")
        );
        assert_eq!(lines[2], "{\"b\":2}");
    }

    #[test]
    fn the_id_is_found_at_the_end_or_the_connection_ends() {
        let big = format!("{{\"result\":\"{}\",\"id\":\"r-1\"}}\n", "y".repeat(50_000));
        let out = read_all(big.into_bytes(), 1000);
        let error: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(error["id"], "r-1");
        let anonymous = format!(
            "{{\"result\":\"{}\"}}\n{{\"after\":1}}\n",
            "z".repeat(50_000)
        );
        assert_eq!(read_all(anonymous.into_bytes(), 1000), "");
    }
}
