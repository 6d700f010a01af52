//! The open connections of the HTTP transport: what each is doing (waiting for its
//! client, or serving a request), when its wait ends, and what closes it: its own
//! timeout, the cap on connections (the one that has waited longest makes room), or
//! shutdown.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};

use http_body_util::combinators::BoxBody;
use hyper::body::{Body, Bytes, Frame, SizeHint};
use rustc_hash::FxHashMap;
use tokio::sync::{Notify, watch};
use tokio::time::Instant;

use super::limits::HttpLimits;

/// Where the server is in its life: shutdown first drains, then closes what is left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Stage {
    Serving,
    /// No new requests; running ones may finish.
    Draining,
    /// The grace period is over: running calls are answered with the shutdown error.
    Closing,
}

/// Every open connection, by id.
pub(super) struct Connections {
    limits: HttpLimits,
    open: Mutex<FxHashMap<u64, Arc<Connection>>>,
    next_id: AtomicU64,
    stage: watch::Sender<Stage>,
    /// Told when the last connection closes.
    emptied: Notify,
}

/// One connection's state, shared by its task, its reader and its requests.
pub(super) struct Connection {
    id: u64,
    phase: Mutex<Phase>,
    /// Woken when the connection must close (to make room, or at the end of shutdown).
    wake: Notify,
    /// Set when the connection is closed to make room.
    evicted: AtomicBool,
}

/// What a connection is doing. Changing it wakes nobody: the connection's task looks
/// when its timer fires, so a request costs no timer of its own.
#[derive(Debug, Clone, Copy)]
enum Phase {
    /// Accepted at this instant; its first request head is due within the header
    /// timeout.
    Fresh(Instant),
    /// The last response was handed over at this instant: the next request head is due
    /// within the idle timeout.
    Idle(Instant),
    /// Serving this many requests (their bodies included, until sent).
    Busy(u32),
}

impl Connections {
    pub(super) fn new(limits: HttpLimits) -> Arc<Self> {
        Arc::new(Connections {
            limits,
            open: Mutex::default(),
            next_id: AtomicU64::new(0),
            stage: watch::Sender::new(Stage::Serving),
            emptied: Notify::new(),
        })
    }

    pub(super) fn limits(&self) -> &HttpLimits {
        &self.limits
    }

    pub(super) fn stage(&self) -> Stage {
        *self.stage.borrow()
    }

    pub(super) fn watch_stage(&self) -> watch::Receiver<Stage> {
        self.stage.subscribe()
    }

    pub(super) fn set_stage(&self, stage: Stage) {
        self.stage.send_replace(stage);
    }

    pub(super) fn len(&self) -> usize {
        lock(&self.open).len()
    }

    /// A new connection, accepted now. At the cap, the open connection that has waited
    /// longest for its client is closed to make room; `None` when every open connection
    /// is serving a request (the new one is then refused).
    pub(super) fn admit(self: &Arc<Self>) -> Option<Arc<Connection>> {
        let mut open = lock(&self.open);
        if open.len() >= self.limits.max_connections {
            let longest = open
                .values()
                .filter_map(|connection| Some((connection.waiting_since()?, connection)))
                .min_by_key(|(since, _)| *since)
                .map(|(_, connection)| connection.clone())?;
            open.remove(&longest.id);
            longest.evicted.store(true, Ordering::Release);
            longest.wake.notify_one();
            tracing::debug!(
                connection = longest.id,
                "closing the connection that waited longest, to make room"
            );
        }
        let connection = Arc::new(Connection {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            phase: Mutex::new(Phase::Fresh(Instant::now())),
            wake: Notify::new(),
            evicted: AtomicBool::new(false),
        });
        open.insert(connection.id, connection.clone());
        Some(connection)
    }

    /// Forgets `connection` (its task ended).
    pub(super) fn release(&self, connection: &Connection) {
        let mut open = lock(&self.open);
        open.remove(&connection.id);
        if open.is_empty() {
            self.emptied.notify_waiters();
        }
    }

    /// Waits until no connection is open.
    pub(super) async fn until_empty(&self) {
        loop {
            let emptied = self.emptied.notified();
            if self.len() == 0 {
                return;
            }
            emptied.await;
        }
    }

    /// Closes every open connection now.
    pub(super) fn close_all(&self) {
        for connection in lock(&self.open).values() {
            connection.evicted.store(true, Ordering::Release);
            connection.wake.notify_one();
        }
    }
}

impl Connection {
    /// When this connection's wait for its client ends, `None` while it serves.
    pub(super) fn deadline(&self, limits: &HttpLimits) -> Option<Instant> {
        match *lock(&self.phase) {
            Phase::Fresh(since) => Some(since + limits.header_read_timeout),
            Phase::Idle(since) => Some(since + limits.idle_timeout),
            Phase::Busy(_) => None,
        }
    }

    fn waiting_since(&self) -> Option<Instant> {
        match *lock(&self.phase) {
            Phase::Fresh(since) | Phase::Idle(since) => Some(since),
            Phase::Busy(_) => None,
        }
    }

    /// Whether its first request may be on its way: closing it now could reset a
    /// request the client already sent.
    pub(super) fn expecting_request(&self) -> bool {
        matches!(*lock(&self.phase), Phase::Fresh(_))
    }

    pub(super) fn evicted(&self) -> bool {
        self.evicted.load(Ordering::Acquire)
    }

    /// Waits until the connection must close now.
    pub(super) async fn closing(&self) {
        self.wake.notified().await;
    }

    /// A request's head is in: the connection serves until the returned guard drops.
    pub(super) fn begin(self: &Arc<Self>) -> Busy {
        let mut phase = lock(&self.phase);
        *phase = match *phase {
            Phase::Busy(count) => Phase::Busy(count + 1),
            _ => Phase::Busy(1),
        };
        Busy(self.clone())
    }
}

/// A request being served; dropping it (with the response's body, once sent) makes the
/// connection wait for its client again.
pub(super) struct Busy(Arc<Connection>);

impl Drop for Busy {
    fn drop(&mut self) {
        let mut phase = lock(&self.0.phase);
        *phase = match *phase {
            Phase::Busy(count) if count > 1 => Phase::Busy(count - 1),
            _ => Phase::Idle(Instant::now()),
        };
    }
}

/// A response body that holds what its request holds (the connection's busy mark, a
/// place among the calls in flight) until it has been sent: a tool streaming progress
/// is still being served.
pub(super) struct Held<T> {
    body: BoxBody<Bytes, std::convert::Infallible>,
    _held: T,
}

impl<T> Held<T> {
    pub(super) fn new(body: BoxBody<Bytes, std::convert::Infallible>, held: T) -> Self {
        Held { body, _held: held }
    }
}

impl<T: Unpin> Body for Held<T> {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut TaskContext<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max_connections: usize) -> HttpLimits {
        HttpLimits {
            max_connections,
            ..HttpLimits::default()
        }
    }

    #[test]
    fn at_the_cap_the_connection_that_waited_longest_makes_room() {
        let connections = Connections::new(limits(2));
        let first = connections.admit().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let second = connections.admit().unwrap();
        let third = connections.admit().unwrap();
        assert!(first.evicted(), "the oldest waiting connection is closed");
        assert!(!second.evicted() && !third.evicted());
        assert_eq!(connections.len(), 2);
    }

    #[test]
    fn a_connection_serving_a_request_is_never_closed_for_room() {
        let connections = Connections::new(limits(2));
        let first = connections.admit().unwrap();
        let second = connections.admit().unwrap();
        let (busy_first, busy_second) = (first.begin(), second.begin());
        assert_eq!(first.deadline(connections.limits()), None);
        assert!(
            connections.admit().is_none(),
            "no room: the newcomer is refused"
        );
        assert!(!first.evicted() && !second.evicted());
        // Once the second has answered, it waits for its client again and can make room.
        drop(busy_second);
        assert!(second.deadline(connections.limits()).is_some());
        assert!(connections.admit().is_some());
        assert!(second.evicted() && !first.evicted());
        drop(busy_first);
    }

    #[test]
    fn a_fresh_connection_has_the_head_timeout_an_idle_one_the_keep_alive_timeout() {
        let limits = HttpLimits {
            header_read_timeout: std::time::Duration::from_secs(5),
            idle_timeout: std::time::Duration::from_secs(60),
            ..HttpLimits::default()
        };
        let connections = Connections::new(limits.clone());
        let connection = connections.admit().unwrap();
        let fresh = connection.deadline(&limits).unwrap();
        assert!(fresh <= Instant::now() + limits.header_read_timeout);
        let busy = connection.begin();
        assert_eq!(connection.deadline(&limits), None, "serving: no deadline");
        drop(busy);
        let idle = connection.deadline(&limits).unwrap();
        assert!(
            idle > Instant::now() + limits.header_read_timeout,
            "idle: the keep-alive timeout"
        );
        connections.release(&connection);
        assert_eq!(connections.len(), 0);
    }
}
