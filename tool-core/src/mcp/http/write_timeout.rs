//! A bound on how long one response chunk may take to reach a client.
//!
//! The read side of a connection is bounded by the header, body and idle timeouts; this
//! bounds the write side: a client that reads an answer a byte at a time (or not at all)
//! holds its connection, its task and the answer's memory only for
//! [`HttpLimits::write_timeout`](super::HttpLimits::write_timeout) per chunk. A chunk is
//! what hyper writes between two flushes: a whole JSON body, or one event of an SSE
//! stream. The clock runs only while a chunk is being written, so a stream that waits
//! for its next event is never cut for waiting.

use std::future::Future as _;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// `io`, whose every chunk written must be flushed within `timeout` of its first byte.
pub(super) struct WriteTimeout<T> {
    io: T,
    timeout: Duration,
    /// When the chunk being written had its first write; `None` between chunks.
    deadline: Option<Instant>,
    /// Wakes a write that waits on the client at the deadline: made the first time a
    /// write waits (most answers never do) and reused.
    timer: Option<Pin<Box<Sleep>>>,
}

impl<T> WriteTimeout<T> {
    pub(super) fn new(io: T, timeout: Duration) -> Self {
        WriteTimeout {
            io,
            timeout,
            deadline: None,
            timer: None,
        }
    }

    /// Starts the chunk's clock if it is not running; errs once its deadline passed.
    /// While the write waits, the timer wakes the task at the deadline.
    fn check(&mut self, cx: &mut Context<'_>, waiting: bool) -> io::Result<()> {
        let now = Instant::now();
        let timeout = self.timeout;
        let deadline = *self.deadline.get_or_insert(now + timeout);
        let mut expired = deadline <= now;
        if waiting && !expired {
            let timer = match &mut self.timer {
                Some(timer) => {
                    if timer.deadline() != deadline {
                        timer.as_mut().reset(deadline);
                    }
                    timer
                }
                None => self
                    .timer
                    .insert(Box::pin(tokio::time::sleep_until(deadline))),
            };
            expired = timer.as_mut().poll(cx).is_ready();
        }
        if expired {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!(
                    "the client took more than {} s to read a response chunk",
                    timeout.as_secs_f64()
                ),
            ));
        }
        Ok(())
    }

    /// A write's outcome, unless the chunk's deadline passed.
    fn timed(
        &mut self,
        cx: &mut Context<'_>,
        written: Poll<io::Result<usize>>,
    ) -> Poll<io::Result<usize>> {
        self.check(cx, written.is_pending())?;
        written
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for WriteTimeout<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for WriteTimeout<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.io).poll_write(cx, buf);
        self.timed(cx, written)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.timed(cx, written)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        match Pin::new(&mut this.io).poll_flush(cx) {
            Poll::Ready(result) => {
                // The chunk is out: the next one starts its own clock.
                this.deadline = None;
                Poll::Ready(result)
            }
            Poll::Pending => {
                if this.deadline.is_some() {
                    this.check(cx, true)?;
                }
                Poll::Pending
            }
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    use super::WriteTimeout;

    #[tokio::test(start_paused = true)]
    async fn a_client_that_reads_a_byte_at_a_time_is_cut_off() {
        let (server, mut client) = tokio::io::duplex(64);
        let mut server = WriteTimeout::new(server, Duration::from_secs(5));
        let reader = tokio::spawn(async move {
            let mut byte = [0u8; 1];
            let mut read = 0usize;
            while client.read(&mut byte).await.is_ok_and(|n| n == 1) {
                read += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            read
        });
        let started = tokio::time::Instant::now();
        let body = vec![b'x'; 10_000];
        let written = async {
            server.write_all(&body).await?;
            server.flush().await
        }
        .await;
        let error = written.expect_err("the chunk takes 1,000 s at this pace");
        assert_eq!(error.kind(), std::io::ErrorKind::TimedOut);
        let took = started.elapsed();
        assert!(
            took >= Duration::from_secs(5) && took < Duration::from_secs(6),
            "{took:?}"
        );
        drop(server);
        assert!(reader.await.unwrap() < 200);
    }

    #[tokio::test(start_paused = true)]
    async fn a_client_that_reads_nothing_is_cut_off_and_a_stream_may_wait_between_events() {
        let (server, client) = tokio::io::duplex(64);
        let mut server = WriteTimeout::new(server, Duration::from_secs(5));
        // Events that fit the buffer, far apart: waiting for the next one costs nothing.
        for _ in 0..3 {
            server.write_all(b"data: {}\n\n").await.unwrap();
            server.flush().await.unwrap();
            tokio::time::sleep(Duration::from_secs(60)).await;
        }
        // Then one the client never reads.
        let error = async {
            server.write_all(&[b'y'; 1_000]).await?;
            server.flush().await
        }
        .await
        .expect_err("nobody reads");
        assert_eq!(error.kind(), std::io::ErrorKind::TimedOut);
        drop(client);
    }
}
