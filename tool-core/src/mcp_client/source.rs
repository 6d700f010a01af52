//! `McpSource`: one server, connected, its tools imported; and the state its tools share
//! (the connection, whether each tool is still listed as it was imported).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;

use super::builder::McpSourceBuilder;
use super::import::Finding;
use super::link::{ConnectError, Endpoint, Link};
use super::remote::RemoteTool;
use crate::registry::{Registry, Toolset};
use crate::tool::Tool;

/// Another MCP server whose tools join a [`Registry`] as ordinary tools: validated here,
/// gated by effect and policy, deduplicated, budgeted, searched, traced and offered to
/// programs like the registry's own. Build one with [`McpSource::stdio`] or
/// [`McpSource::http`], [`connect`](McpSourceBuilder::connect) it, and add it with
/// [`RegistryBuilder::with_toolset`](crate::RegistryBuilder::with_toolset).
///
/// A server is a stranger unless the user says otherwise: see [`Trust`](super::Trust).
pub struct McpSource {
    shared: Arc<Shared>,
    tools: Vec<Arc<RemoteTool>>,
    findings: Vec<Finding>,
}

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

impl McpSource {
    /// A source of the tools imported from what the server listed.
    pub(super) fn assemble(
        name: String,
        link: Link,
        (call_timeout, honours_keys): (Duration, bool),
        listed: &[rmcp::model::Tool],
        imported: Vec<(Arc<str>, super::import::Imported)>,
        findings: Vec<Finding>,
    ) -> Arc<Self> {
        let shared = Arc::new(Shared {
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
        });
        let tools = imported
            .into_iter()
            .map(|(remote, tool)| {
                Arc::new(RemoteTool {
                    spec: tool.spec,
                    remote,
                    input: tool.input,
                    output: tool.output,
                    source: shared.clone(),
                })
            })
            .collect();
        Arc::new(McpSource {
            shared,
            tools,
            findings,
        })
    }

    /// A server started as a child process, over its stdin and stdout. `name` names the
    /// server in errors, findings and telemetry. The process is started again if it
    /// exits.
    pub fn stdio(name: impl Into<String>, command: std::process::Command) -> McpSourceBuilder {
        McpSourceBuilder::new(name.into(), Endpoint::Stdio(command))
    }

    /// A server at a Streamable HTTP endpoint (`http://127.0.0.1:8080/mcp`).
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> McpSourceBuilder {
        McpSourceBuilder::new(
            name.into(),
            Endpoint::Http {
                url: url.into(),
                authorization: None,
                oauth: None,
            },
        )
    }

    /// The server's name, as given.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// What the import changed, refused or noticed, tool by tool.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The imported tools' names, as the model sees them.
    pub fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|tool| tool.spec.name.as_str())
    }

    /// Tools the server lists now that were not imported (added since): a new import
    /// (and a new registry) takes them in, after review.
    pub fn unimported(&self) -> Vec<String> {
        lock(&self.shared.unimported).clone()
    }

    /// How many connections were made to the server (a reconnection counts one).
    pub fn connections(&self) -> u64 {
        self.shared.link.connections.load(Ordering::Acquire)
    }

    /// How many calls were sent again after the connection was lost while they were
    /// out, which happens only where that cannot repeat an effect (see the module docs);
    /// a call refused before anything was sent, then sent on a new connection, is not
    /// counted.
    pub fn replays(&self) -> u64 {
        self.shared.replays.load(Ordering::Acquire)
    }

    /// Reads the server's tool list now, and marks each imported tool still listed as it
    /// was, changed, or gone (a changed or gone tool's calls are refused before they are
    /// sent).
    pub async fn refresh(&self) -> Result<(), ConnectError> {
        self.shared.refresh().await
    }

    /// Keeps `registry`'s view in step with the server: when the server says its tools
    /// changed (or a new session lists other tools), the list is read again (at most once
    /// per `interval`) and each imported tool that changed or went away is turned off
    /// ([`Registry::set_enabled`], so the MCP clients of a server re-serving the registry
    /// hear of it), and on again once listed as imported. The registry must be built
    /// [`with_runtime_toggles`](crate::RegistryBuilder::with_runtime_toggles). Runs on the
    /// current tokio runtime until the registry or the source is dropped.
    pub fn watch(self: &Arc<Self>, registry: &Arc<Registry>, interval: Duration) {
        let source = Arc::downgrade(self);
        let registry = Arc::downgrade(registry);
        let changed = self.shared.link.handler.changed.clone();
        tokio::spawn(async move {
            loop {
                changed.notified().await;
                let (Some(source), Some(registry)) = (source.upgrade(), registry.upgrade()) else {
                    return;
                };
                source.keep_in_step(&registry).await;
                drop((source, registry));
                tokio::time::sleep(interval).await;
            }
        });
    }

    async fn keep_in_step(&self, registry: &Registry) {
        self.shared
            .link
            .handler
            .dirty
            .store(false, Ordering::Release);
        if let Err(error) = self.shared.refresh().await {
            tracing::warn!(server = %self.shared.name, %error, "the MCP server's tools could not be listed again");
            return;
        }
        let states: Vec<(String, Listed)> = lock(&self.shared.imported)
            .iter()
            .filter_map(|(remote, (_, listed))| {
                Some((self.shared.local_names.get(remote)?.clone(), *listed))
            })
            .collect();
        for (name, listed) in states {
            if let Err(error) = registry.set_enabled(&name, listed == Listed::Same) {
                tracing::warn!(server = %self.shared.name, %error, "an imported tool could not be turned on or off");
            }
        }
    }

    /// Stops the connection (a child process is ended).
    pub fn close(&self) {
        self.shared.link.close();
    }
}

impl Drop for McpSource {
    fn drop(&mut self) {
        self.shared.link.close();
    }
}

impl Toolset for McpSource {
    fn tools(self: Arc<Self>) -> Vec<Arc<dyn Tool>> {
        self.tools
            .iter()
            .map(|tool| tool.clone() as Arc<dyn Tool>)
            .collect()
    }

    fn origin(&self) -> String {
        format!(
            "MCP server '{}' ({})",
            self.shared.name,
            self.shared.link.endpoint.describe()
        )
    }
}

impl std::fmt::Debug for McpSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpSource")
            .field("name", &self.shared.name)
            .field("endpoint", &self.shared.link.endpoint)
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}

/// Every tool the server lists, every page.
pub(super) async fn list(link: &Link) -> Result<Vec<rmcp::model::Tool>, ConnectError> {
    let (service, _) = link.service().await?;
    tokio::time::timeout(link.connect_timeout, service.list_all_tools())
        .await
        .map_err(|_| ConnectError::Timeout(link.connect_timeout))?
        .map_err(|error| ConnectError::List(error.to_string()))
}

impl Shared {
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
    async fn refresh(&self) -> Result<(), ConnectError> {
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

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
