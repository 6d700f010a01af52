//! What an imported source's tools share: the connection, and whether each tool is still
//! listed as it was imported (the list read again when the server says it changed).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::import::ImportLimits;
use super::link::{ConnectError, Link};
use super::listing::list;
use crate::lint::screen;

/// Whether a tool is still listed as it was imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Listed {
    Same,
    Changed,
    Gone,
}

/// The settings of a source that its tools read.
pub(super) struct Settings {
    pub(super) call_timeout: Duration,
    /// The server deduplicates calls by the key in `_meta` (a toolwright server does):
    /// a keyed call may be sent again after a lost connection.
    pub(super) honours_keys: bool,
    pub(super) limits: ImportLimits,
    /// Settings for every tool of the source (`McpSourceBuilder::settings`).
    pub(super) tool_settings: Option<crate::registry::ToolSettings>,
}

/// The shortest time between two readings of the list that a `list_changed` asks for: a
/// flood of announcements costs at most one reading per interval.
pub const REFRESH_INTERVAL: Duration = Duration::from_millis(100);

/// The longest wait after failed readings (each failure doubles the wait, from
/// [`REFRESH_INTERVAL`]).
const MAX_REFRESH_BACKOFF: Duration = Duration::from_secs(30);

/// When the list was last read, and how many readings in a row failed.
#[derive(Default)]
struct Readings {
    last: Option<Instant>,
    failures: u32,
}

/// What a source's tools share.
pub(super) struct Shared {
    pub(super) name: String,
    /// The server's name and address, as errors and results name it.
    pub(super) origin: Arc<str>,
    pub(super) link: Link,
    pub(super) settings: Settings,
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
    /// One reading of the list at a time; when the last was, for the pace.
    readings: tokio::sync::Mutex<Readings>,
    /// The connection the list was last read on: a call on a newer one (a restarted
    /// process, a new session) waits for the list to be read and checked again first.
    checked: AtomicU64,
}

impl Shared {
    /// The state of the tools `imported` from what the server `listed`.
    pub(super) fn new(
        name: String,
        link: Link,
        settings: Settings,
        listed: &[rmcp::model::Tool],
        imported: &[(Arc<str>, super::import::Imported)],
    ) -> Self {
        let checked = link.generation();
        Shared {
            origin: format!(
                "MCP server '{}' ({})",
                screen::escape(&name),
                link.endpoint.describe()
            )
            .into(),
            name,
            link,
            settings,
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
            readings: tokio::sync::Mutex::new(Readings::default()),
            checked: AtomicU64::new(checked),
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

    /// Before a call on connection `generation`: the list read and checked again if that
    /// connection is newer than the last reading's (a respawned process, a new session:
    /// whatever happens, before the first call on it), or if the server said the list
    /// changed and the pace allows (one reading at a time, at most one per
    /// [`REFRESH_INTERVAL`], backing off after failures; otherwise the call goes on with
    /// the list as last read). An error only when a new connection's list cannot be read.
    pub(super) async fn check_before_call(&self, generation: u64) -> Result<(), ConnectError> {
        let dirty = &self.link.handler.dirty;
        let stale = || self.checked.load(Ordering::Acquire) < generation;
        if !stale() && !dirty.load(Ordering::Acquire) {
            return Ok(());
        }
        let mut readings = self.readings.lock().await;
        if stale() {
            return self.read(&mut readings).await;
        }
        let wait = REFRESH_INTERVAL
            .saturating_mul(1 << readings.failures.min(16))
            .min(MAX_REFRESH_BACKOFF);
        let due = readings.last.is_none_or(|last| last.elapsed() >= wait);
        if due
            && dirty.load(Ordering::Acquire)
            && let Err(error) = self.read(&mut readings).await
        {
            tracing::warn!(server = %screen::escape(&self.name), error = %error, "the MCP server's tools could not be listed again; the last list stays");
        }
        Ok(())
    }

    /// Reads the list now (one reading at a time) and marks each imported tool; on
    /// failure the last list stays.
    pub(super) async fn refresh(&self) -> Result<(), ConnectError> {
        let mut readings = self.readings.lock().await;
        self.read(&mut readings).await
    }

    async fn read(&self, readings: &mut Readings) -> Result<(), ConnectError> {
        let dirty = &self.link.handler.dirty;
        dirty.store(false, Ordering::Release);
        readings.last = Some(Instant::now());
        let generation = self.link.generation();
        let listing = match list(&self.link, &self.settings.limits).await {
            Ok(listing) => listing,
            Err(error) => {
                dirty.store(true, Ordering::Release);
                readings.failures = readings.failures.saturating_add(1);
                return Err(error);
            }
        };
        readings.failures = 0;
        let listed = listing.tools;
        let mut imported = lock(&self.imported);
        for (remote, (listing, state)) in imported.iter_mut() {
            let mut matching = listed.iter().filter(|tool| *tool.name == **remote);
            *state = match (matching.next(), matching.next()) {
                (None, _) => Listed::Gone,
                // Listed twice now: which one a call means is ambiguous.
                (Some(_), Some(_)) => Listed::Changed,
                (Some(tool), None) if serde_json::to_value(tool).ok().as_ref() == Some(listing) => {
                    Listed::Same
                }
                (Some(_), None) => Listed::Changed,
            };
        }
        drop(imported);
        *lock(&self.unimported) = listed
            .iter()
            .filter(|tool| !self.seen.contains(tool.name.as_ref()))
            .map(|tool| tool.name.to_string())
            .collect();
        // The generation the reading began on: a newer one reads again.
        self.checked.fetch_max(generation, Ordering::AcqRel);
        Ok(())
    }
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
