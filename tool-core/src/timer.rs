//! A small timer that needs no runtime: one background thread, started on first use,
//! wakes the futures whose time has come. The idempotency machinery uses it to renew a
//! claim's lease and to wait for an attempt in flight, so those work in any executor (a
//! tokio runtime without its time driver, `futures::executor::block_on`) instead of
//! panicking for want of tokio's timer. They wait seldom (a renewal every third of a
//! lease), so one thread for all is plenty.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

/// The wakers waiting, by deadline (and a sequence number, so deadlines may repeat).
struct Timer {
    waiting: Mutex<BTreeMap<(Instant, u64), Waker>>,
    changed: Condvar,
}

fn timer() -> &'static Timer {
    static TIMER: OnceLock<&'static Timer> = OnceLock::new();
    TIMER.get_or_init(|| {
        let timer: &'static Timer = Box::leak(Box::new(Timer {
            waiting: Mutex::new(BTreeMap::new()),
            changed: Condvar::new(),
        }));
        let spawned = std::thread::Builder::new()
            .name("toolwright-timer".into())
            .spawn(move || timer.run());
        if let Err(error) = spawned {
            // Without the thread, sleeps still end: each is polled again by `Sleep`
            // only when something else wakes its task, so log it loudly.
            tracing::error!(%error, "the timer thread could not start; lease renewals will not happen");
        }
        timer
    })
}

impl Timer {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<(Instant, u64), Waker>> {
        self.waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn run(&self) {
        let mut waiting = self.lock();
        loop {
            let now = Instant::now();
            while let Some(entry) = waiting.first_entry() {
                if entry.key().0 > now {
                    break;
                }
                entry.remove().wake();
            }
            waiting = match waiting.keys().next() {
                Some(&(deadline, _)) => {
                    self.changed
                        .wait_timeout(waiting, deadline.saturating_duration_since(now))
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .0
                }
                None => self
                    .changed
                    .wait(waiting)
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
            };
        }
    }
}

/// A future that is ready once `duration` has passed.
pub(crate) fn sleep(duration: Duration) -> Sleep {
    static SEQUENCE: AtomicU64 = AtomicU64::new(0);
    Sleep {
        key: (
            Instant::now() + duration,
            SEQUENCE.fetch_add(1, Ordering::Relaxed),
        ),
        registered: false,
    }
}

/// See [`sleep`].
pub(crate) struct Sleep {
    key: (Instant, u64),
    registered: bool,
}

impl Future for Sleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if Instant::now() >= self.key.0 {
            return Poll::Ready(());
        }
        let timer = timer();
        let mut waiting = timer.lock();
        let earliest = waiting.keys().next().is_none_or(|first| self.key < *first);
        waiting.insert(self.key, cx.waker().clone());
        drop(waiting);
        self.registered = true;
        if earliest {
            timer.changed.notify_one();
        }
        Poll::Pending
    }
}

impl Drop for Sleep {
    fn drop(&mut self) {
        if self.registered {
            timer().lock().remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    #[test]
    fn sleeps_end_in_order_without_any_runtime() {
        let started = Instant::now();
        let (short, long) = futures_executor::block_on(async {
            let long = async {
                super::sleep(Duration::from_millis(60)).await;
                started.elapsed()
            };
            let short = async {
                super::sleep(Duration::from_millis(20)).await;
                started.elapsed()
            };
            futures_util::join!(short, long)
        });
        assert!(short >= Duration::from_millis(20));
        assert!(long >= Duration::from_millis(60));
        assert!(short <= long);
    }
}
