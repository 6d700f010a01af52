//! `notifications/tools/list_changed` when the registry turns a tool off or on: to every
//! live session of the 2025 protocols, and on every `subscriptions/listen` stream of
//! 2026-07-28 that asked for it.

use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::ErrorData;
use rmcp::service::{Peer, RoleServer, SubscriptionContext};
use tokio::sync::watch;

use crate::registry::Registry;

/// The registry's changes, counted, and the sessions to tell.
#[derive(Clone)]
pub(super) struct Changes {
    count: watch::Receiver<u64>,
    sessions: Arc<Mutex<Vec<Peer<RoleServer>>>>,
    /// Whether the task that tells the sessions runs.
    started: Arc<std::sync::Once>,
}

impl Changes {
    /// Listens to `registry`'s changes (a registry without run-time toggles never has any).
    pub(super) fn of(registry: &Registry) -> Self {
        let (sender, count) = watch::channel(0_u64);
        registry.on_tools_changed(move || sender.send_modify(|count| *count += 1));
        Self {
            count,
            sessions: Arc::default(),
            started: Arc::new(std::sync::Once::new()),
        }
    }

    /// A session of a 2025 protocol began: it hears of every later change.
    pub(super) fn session_started(&self, peer: Peer<RoleServer>) {
        let mut sessions = self.sessions.lock().unwrap_or_else(PoisonError::into_inner);
        sessions.retain(|peer| !peer.is_transport_closed());
        sessions.push(peer);
        drop(sessions);
        // One task tells every session, started by the first (inside the runtime); it
        // ends when the registry is gone.
        self.started.call_once(|| {
            let mut count = self.count.clone();
            let sessions = self.sessions.clone();
            tokio::spawn(async move {
                while count.changed().await.is_ok() {
                    let live: Vec<Peer<RoleServer>> = {
                        let mut sessions = sessions.lock().unwrap_or_else(PoisonError::into_inner);
                        sessions.retain(|peer| !peer.is_transport_closed());
                        sessions.clone()
                    };
                    for peer in live {
                        // A session that left meanwhile is dropped at the next change.
                        let _ = peer.notify_tool_list_changed().await;
                    }
                }
            });
        });
    }

    /// One 2026-07-28 `subscriptions/listen` stream: a notification per change until the
    /// client cancels it.
    pub(super) async fn listen(&self, subscription: SubscriptionContext) -> Result<(), ErrorData> {
        let mut count = self.count.clone();
        count.mark_unchanged();
        loop {
            tokio::select! {
                () = subscription.cancelled() => return Ok(()),
                changed = count.changed() => {
                    if changed.is_err() {
                        return Ok(());
                    }
                    if subscription.sink().notify_tool_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
            }
        }
    }
}
