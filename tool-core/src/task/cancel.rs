//! Cooperative cancellation: a task's caller may ask for its call to stop, and the tool
//! decides when it can.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Notify;

/// Whether the caller still wants this call's result. A task's call finds one in its
/// [`Context`](crate::Context) (`ctx.get::<Cancellation>()`, or a
/// `#[ctx] cancel: &Cancellation` argument); a long tool looks at it between steps and
/// returns early (an error of kind [`Cancelled`](crate::ErrorKind::Cancelled) says it
/// stopped), and the task ends `cancelled`. Cancellation never cuts a tool off: a tool
/// that does not look runs to its end, and the task stays `cancelled`.
///
/// [`McpServer`](crate::mcp::McpServer) puts one that is never cancelled in the context of
/// the calls that are not tasks, so a tool that takes one runs either way.
#[derive(Clone, Default, Debug)]
pub struct Cancellation {
    inner: Arc<Inner>,
}

#[derive(Default, Debug)]
struct Inner {
    cancelled: AtomicBool,
    notify: Notify,
}

impl Cancellation {
    /// One that is not cancelled (yet).
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the call to stop.
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::Release);
        self.inner.notify.notify_waiters();
    }

    /// Whether the call was asked to stop.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Acquire)
    }

    /// Completes when the call is asked to stop (at once if it was): race it against the
    /// work (`tokio::select!`) to stop at an `.await`.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.inner.notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}
