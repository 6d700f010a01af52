//! `McpSource`: one server, connected, its tools imported; and the state its tools share
//! (the connection, whether each tool is still listed as it was imported).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use super::import::Finding;
use super::link::ConnectError;
use super::remote::RemoteTool;
use super::report::ToolReport;
use super::shared::{Listed, Shared, lock};
use crate::registry::{Registry, Toolset};
use crate::tool::Tool;

/// Another MCP server whose tools join a [`Registry`] as ordinary tools: validated here,
/// gated by effect and policy, deduplicated, budgeted, searched, traced and offered to
/// programs like the registry's own. Build one with [`McpSource::stdio`] or
/// [`McpSource::http`], [`connect`](super::McpSourceBuilder::connect) it, and add it with
/// [`RegistryBuilder::with_toolset`](crate::RegistryBuilder::with_toolset).
///
/// A server is a stranger unless the user says otherwise: see [`Trust`](super::Trust).
pub struct McpSource {
    pub(super) shared: Arc<Shared>,
    pub(super) tools: Vec<Arc<RemoteTool>>,
    pub(super) report: std::sync::Mutex<super::report::Report>,
}

impl McpSource {
    /// The server's name, as given.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// What the import changed, refused or noticed, tool by tool (and what a registry
    /// left out because another tool had the name).
    pub fn findings(&self) -> Vec<Finding> {
        lock(&self.report).findings()
    }

    /// What became of each tool the server listed: imported, imported and flagged (with
    /// the kinds of finding), or refused with the reason; then the entries that could
    /// not be read as tools and what is about the whole listing.
    pub fn report(&self) -> Vec<ToolReport> {
        lock(&self.report).tools()
    }

    /// The imported tools' names, as the model sees them.
    pub fn tool_names(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|tool| tool.spec.name.as_str())
    }

    /// Tools the server lists now that were not imported (added since): a new import
    /// (and a new registry) takes them in, after review.
    pub fn unimported(&self) -> Vec<String> {
        self.shared.unimported()
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
        if let Err(error) = self.shared.refresh().await {
            tracing::warn!(server = %crate::lint::screen::escape(&self.shared.name), %error, "the MCP server's tools could not be listed again; the last list stays");
            return;
        }
        let states = self.shared.states();
        for (name, listed) in states {
            if let Err(error) = registry.set_enabled(&name, listed == Listed::Same) {
                tracing::warn!(server = %crate::lint::screen::escape(&self.shared.name), %error, "an imported tool could not be turned on or off");
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
        self.shared.origin.to_string()
    }

    /// A server's tool gives way to any other of its name: it is left out, and the
    /// report says so.
    fn give_way(&self, name: &str, holder: &str) -> bool {
        lock(&self.report).gave_way(name, holder)
    }

    fn settings(&self) -> Option<crate::registry::ToolSettings> {
        self.shared.settings.tool_settings.clone()
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
