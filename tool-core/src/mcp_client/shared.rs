//! What an imported source's tools share: the connection, and whether each tool is still
//! listed as it was imported (the list read again when the server says it changed).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;

use super::link::{ConnectError, Link};

/// Whether a tool is still listed as it was imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Listed {
    Same,
    Changed,
    Gone,
}

/// What a source's tools share.
pub(super) struct Shared {
    pub(super) name: String,
    /// The server's name and address, as errors and results name it.
    pub(super) origin: Arc<str>,
    pub(super) link: Link,
    pub(super) call_timeout: Duration,
    /// The server deduplicates calls by the key in `_meta` (a toolwright server does):
    /// a keyed call may be sent again after a lost connection.
    pub(super) honours_keys: bool,
    /// Each imported tool's listing (by its name on the server), and whether the server
    /// still lists it so.
    imported: Mutex<HashMap<Arc<str>, (Value, Listed)>>,
    /// Every tool the server listed at the import (kept or filtered out).
    seen: std::collections::HashSet<String>,
    /// Tools the server listed after the import, not imported.
    unimported: Mutex<Vec<String>>,
    /// Calls sent again after the connection was lost while they were out (not those
    /// refused before anything was sent).
    pub(super) replays: AtomicU64,
    /// Local name of each imported tool, by its name on the server.
    local_names: HashMap<Arc<str>, String>,
}

/// Every tool the server lists, every page; asked again once with new credentials when
/// the server refuses for want of authorization.
pub(super) async fn list(link: &Link) -> Result<Vec<rmcp::model::Tool>, ConnectError> {
    let mut renewed = 0;
    loop {
        let (service, _) = link.service().await?;
        let seen = link.renewals();
        let error = match tokio::time::timeout(link.connect_timeout, service.list_all_tools())
            .await
            .map_err(|_| ConnectError::Timeout(link.connect_timeout))?
        {
            Ok(tools) => return Ok(tools),
            Err(error) => error,
        };
        let Some(challenge) = super::renewal::auth_challenge(&error) else {
            return Err(ConnectError::List(super::link::with_causes(&error)));
        };
        link.renew_at_most(&mut renewed, challenge, seen)
            .await
            .map_err(ConnectError::Auth)?;
    }
}

impl Shared {
    /// The state of the tools `imported` from what the server `listed`.
    pub(super) fn new(
        name: String,
        link: Link,
        (call_timeout, honours_keys): (Duration, bool),
        listed: &[rmcp::model::Tool],
        imported: &[(Arc<str>, super::import::Imported)],
    ) -> Self {
        Shared {
            origin: format!("MCP server '{name}' ({})", link.endpoint.describe()).into(),
            name,
            link,
            call_timeout,
            honours_keys,
            imported: Mutex::new(
                imported
                    .iter()
                    .map(|(remote, tool)| (remote.clone(), (tool.listed.clone(), Listed::Same)))
                    .collect(),
            ),
            seen: listed.iter().map(|tool| tool.name.to_string()).collect(),
            unimported: Mutex::new(Vec::new()),
            replays: AtomicU64::new(0),
            local_names: imported
                .iter()
                .map(|(remote, tool)| (remote.clone(), tool.spec.name.clone()))
                .collect(),
        }
    }

    /// Each imported tool's local name, and whether it is still listed as imported.
    pub(super) fn states(&self) -> Vec<(String, Listed)> {
        lock(&self.imported)
            .iter()
            .filter_map(|(remote, (_, listed))| {
                Some((self.local_names.get(remote)?.clone(), *listed))
            })
            .collect()
    }

    /// Tools the server listed at the last reading that were not there at the import.
    pub(super) fn unimported(&self) -> Vec<String> {
        lock(&self.unimported).clone()
    }

    /// Whether the tool `remote` is still listed as imported.
    pub(super) fn listed(&self, remote: &str) -> Listed {
        lock(&self.imported)
            .get(remote)
            .map_or(Listed::Gone, |(_, listed)| *listed)
    }

    /// Reads the list again if the server said it changed.
    pub(super) async fn refresh_if_changed(&self) {
        let dirty = &self.link.handler.dirty;
        if dirty.swap(false, Ordering::AcqRel)
            && let Err(error) = self.refresh().await
        {
            dirty.store(true, Ordering::Release);
            tracing::warn!(server = %self.name, %error, "the MCP server's tools could not be listed again");
        }
    }

    /// Reads the list and marks each imported tool.
    pub(super) async fn refresh(&self) -> Result<(), ConnectError> {
        let listed = list(&self.link).await?;
        let mut imported = lock(&self.imported);
        for (remote, (listing, state)) in imported.iter_mut() {
            *state = match listed.iter().find(|tool| *tool.name == **remote) {
                None => Listed::Gone,
                Some(tool) if serde_json::to_value(tool).ok().as_ref() == Some(listing) => {
                    Listed::Same
                }
                Some(_) => Listed::Changed,
            };
        }
        *lock(&self.unimported) = listed
            .iter()
            .filter(|tool| !self.seen.contains(tool.name.as_ref()))
            .map(|tool| tool.name.to_string())
            .collect();
        Ok(())
    }
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
