//! How long the HTTP transport waits for a client and how many it serves at once.

use std::time::Duration;

/// Timeouts and caps of the Streamable HTTP transport. Every field has a default that
/// suits a server on the open internet; change what your deployment needs:
///
/// ```
/// # use std::time::Duration;
/// # use toolwright::mcp::HttpLimits;
/// let limits = HttpLimits::default()
///     .max_in_flight(256)
///     .shutdown_grace(Duration::from_secs(30));
/// ```
///
/// A client that waits (an unfinished request head, an idle keep-alive connection) holds
/// a connection only until its timeout, and when the server is at
/// [`max_connections`](HttpLimits::max_connections) the connection that has waited
/// longest is closed to make room for a new one: clients that connect and send nothing
/// cannot lock others out. A connection serving a request is never closed for room.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpLimits {
    /// From a connection's accept to the end of its first request's head: 10 s.
    pub header_read_timeout: Duration,
    /// From the end of a request's head to the end of its body: 30 s.
    pub body_read_timeout: Duration,
    /// From a keep-alive connection's last answer to the end of its next request's
    /// head: 60 s.
    pub idle_timeout: Duration,
    /// How long one response chunk (a JSON body, an SSE event) may take to reach the
    /// client once its first byte is written; a client that reads slower is
    /// disconnected: 30 s. A stream waiting for its next event is not timed.
    pub write_timeout: Duration,
    /// Open connections: three quarters of the process's file-descriptor limit, at most
    /// 10,000 (1,000 where the limit cannot be read). The rest of the descriptors stay
    /// free for the tools and the idempotency store.
    pub max_connections: usize,
    /// Requests being answered at once; more get 503 with `Retry-After`: 1,024.
    pub max_in_flight: usize,
    /// The `Retry-After` of a 503 (too many calls, shutting down): 1 s.
    pub retry_after: Duration,
    /// On shutdown, how long calls already running may take to finish; those still
    /// running then are answered with a shutdown error: 10 s.
    pub shutdown_grace: Duration,
}

setters!(HttpLimits {
    header_read_timeout: Duration,
    body_read_timeout: Duration,
    idle_timeout: Duration,
    write_timeout: Duration,
    max_connections: usize,
    max_in_flight: usize,
    retry_after: Duration,
    shutdown_grace: Duration,
});

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
            write_timeout: Duration::from_secs(30),
            max_connections: default_max_connections(),
            max_in_flight: 1024,
            retry_after: Duration::from_secs(1),
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// Three quarters of the soft `RLIMIT_NOFILE`, at most 10,000.
fn default_max_connections() -> usize {
    #[cfg(unix)]
    {
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
        if let Some(current) = limit.current {
            return usize::try_from(current / 4 * 3)
                .unwrap_or(usize::MAX)
                .clamp(1, 10_000);
        }
    }
    1_000
}
