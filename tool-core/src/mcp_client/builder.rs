//! `McpSourceBuilder`: which server, how far it is trusted, which of its tools, the
//! limits; and `connect`, which lists and imports them.

use std::sync::Arc;
use std::time::Duration;

use super::credentials::{ClientCredentials, Grant, Secret, SignIn};
use super::import::{self, ImportLimits, Trust};
use super::link::{ConnectError, Elicit, Endpoint, Handler, Link};
use super::listing::list;
use super::names;
use super::remote::RemoteTool;
use super::shared::{Settings, Shared};
use super::source::McpSource;

/// A predicate over a server's tools, as listed.
type Filter = Box<dyn Fn(&rmcp::model::Tool) -> bool + Send + Sync>;

/// An MCP server to connect to: [`McpSource::stdio`] or [`McpSource::http`], its
/// settings, then [`connect`](McpSourceBuilder::connect).
#[must_use = "a source does nothing until `connect` is awaited"]
pub struct McpSourceBuilder {
    name: String,
    endpoint: Endpoint,
    prefix: Option<String>,
    trust: Trust,
    limits: ImportLimits,
    filters: Vec<Filter>,
    connect_timeout: Duration,
    call_timeout: Duration,
    honours_keys: bool,
    version: Option<rmcp::model::ProtocolVersion>,
    elicit: Option<Elicit>,
    settings: Option<crate::registry::ToolSettings>,
}

impl McpSource {
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

    /// A source of the tools imported from what the server listed.
    pub(super) fn assemble(
        name: String,
        link: Link,
        settings: Settings,
        listed: &[rmcp::model::Tool],
        imported: Vec<(Arc<str>, super::import::Imported)>,
        report: super::report::Report,
    ) -> Arc<Self> {
        let shared = Arc::new(Shared::new(name, link, settings, listed, &imported));
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
            report: std::sync::Mutex::new(report),
        })
    }
}

impl McpSourceBuilder {
    pub(super) fn new(name: String, endpoint: Endpoint) -> Self {
        Self {
            name,
            endpoint,
            prefix: None,
            trust: Trust::Untrusted,
            limits: ImportLimits::default(),
            filters: Vec::new(),
            connect_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(120),
            honours_keys: false,
            version: None,
            elicit: None,
            settings: None,
        }
    }

    /// Speaks `version` only (default: the newest the server speaks, 2026-07-28's
    /// discovery falling back to 2025-11-25's `initialize`).
    pub fn protocol_version(mut self, version: rmcp::model::ProtocolVersion) -> Self {
        self.version = Some(version);
        self
    }

    /// Answers the server's requests for a person's input (elicitation, and the
    /// input-required rounds of a call on 2026-07-28) with `answer`. Without it, an
    /// elicitation request is declined, and an input-required result pauses the call as
    /// toolwright's own `awaiting_approval` (its ticket resumed, the server's yes-or-no
    /// form is answered yes). Install it only where `answer` really asks the person: the
    /// server's message is a stranger's words.
    pub fn on_elicitation<F, Fut>(mut self, answer: F) -> Self
    where
        F: Fn(rmcp::model::ElicitRequestParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = rmcp::model::ElicitResult> + Send + 'static,
    {
        self.elicit = Some(Arc::new(move |request| Box::pin(answer(request))));
        self
    }

    /// Names every tool `prefix` `_` its name (`github` and `create_issue` give
    /// `github_create_issue`), so tools of several servers do not collide and the model
    /// sees where each comes from.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// Imports only the tools named (their names on the server).
    pub fn only<S: AsRef<str>>(self, names: impl IntoIterator<Item = S>) -> Self {
        let names: Vec<String> = names
            .into_iter()
            .map(|name| name.as_ref().to_owned())
            .collect();
        self.filter(move |tool| names.iter().any(|name| *name == tool.name))
    }

    /// Imports every tool but those named.
    pub fn except<S: AsRef<str>>(self, names: impl IntoIterator<Item = S>) -> Self {
        let names: Vec<String> = names
            .into_iter()
            .map(|name| name.as_ref().to_owned())
            .collect();
        self.filter(move |tool| names.iter().all(|name| *name != tool.name))
    }

    /// Imports only the tools `keep` accepts, as the server lists them (their name,
    /// annotations, schemas). Several filters must all accept a tool.
    pub fn filter(
        mut self,
        keep: impl Fn(&rmcp::model::Tool) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.filters.push(Box::new(keep));
        self
    }

    /// Believes the server's annotations: each tool's effect comes from them (the rule
    /// is [`effect_of`](super::effect_of)) instead of being `external`.
    pub fn trust_annotations(mut self) -> Self {
        self.trust = Trust::Annotations;
        self
    }

    /// Sets how far the server is trusted.
    pub fn trust(mut self, trust: Trust) -> Self {
        self.trust = trust;
        self
    }

    /// Declares that the server runs a call carrying an idempotency key in `_meta`
    /// (`dev.toolwright/idempotency-key`) at most once per key, as a toolwright server
    /// does: a keyed call is then sent again after a lost connection. Without it, a call
    /// with effects whose outcome is unknown is reported so, never sent again.
    pub fn honours_idempotency_keys(mut self) -> Self {
        self.honours_keys = true;
        self
    }

    /// Gives every tool of the server `settings` (a policy for the whole server, a time
    /// limit, a budget, who may call them:
    /// [`ToolSettings::callers`](crate::ToolSettings::callers) offers the server's tools
    /// to `run_code`'s programs), under the registry's
    /// [`configure`](crate::RegistryBuilder::configure) for one tool, which takes
    /// precedence.
    pub fn settings(mut self, settings: crate::registry::ToolSettings) -> Self {
        self.settings = Some(settings);
        self
    }

    /// Sets the bounds on what the server may put before a model.
    pub fn limits(mut self, limits: ImportLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Gets access tokens with OAuth client credentials (Streamable HTTP; SEP-1046, for
    /// a machine acting on its own behalf): the authorization server is found from the
    /// server's metadata (RFC 9728, RFC 8414), the token is asked for this server (the
    /// `resource`, RFC 8707) with `scopes`, sent on every request, and asked for again
    /// when the server refuses it (the call refused is then sent again: it was not
    /// run). The secret and the tokens are never logged, nor shown by `Debug`.
    pub fn client_credentials(
        mut self,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        if let Endpoint::Http { oauth, .. } = &mut self.endpoint {
            *oauth = Some(Grant::ClientCredentials(ClientCredentials {
                client_id: client_id.into(),
                client_secret: Secret(client_secret.into()),
                scopes: scopes.into_iter().map(Into::into).collect(),
            }));
        }
        self
    }

    /// Lets a person sign in when the server asks for authorization (Streamable HTTP;
    /// OAuth's authorization-code flow, as MCP's authorization specification has it):
    /// see [`SignIn`] for what is asked, checked and kept. The call or handshake the
    /// server refused is sent again once the person has signed in.
    pub fn sign_in(mut self, sign_in: SignIn) -> Self {
        if let Endpoint::Http { oauth, .. } = &mut self.endpoint {
            *oauth = Some(Grant::SignIn(sign_in));
        }
        self
    }

    /// Sends `Authorization: Bearer <token>` (Streamable HTTP). The token is never
    /// logged, nor shown by `Debug`.
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        if let Endpoint::Http { authorization, .. } = &mut self.endpoint {
            *authorization = Some(Secret(token.into()));
        }
        self
    }

    /// How long the handshake may take (default 30 s).
    pub fn connect_timeout(mut self, limit: Duration) -> Self {
        self.connect_timeout = limit;
        self
    }

    /// How long a call may wait for the server's answer (default 120 s); past it, the
    /// request is cancelled and the call reported with an unknown outcome.
    pub fn call_timeout(mut self, limit: Duration) -> Self {
        self.call_timeout = limit;
        self
    }

    /// Connects, lists every tool (all pages, within the caps of the mcp-client guide:
    /// a listing that breaks one is an error, never part of a list), and imports those the
    /// filters keep: each entry on its own, so a malformed or refused one costs only
    /// itself ([`McpSource::report`] says which and why).
    pub async fn connect(self) -> Result<Arc<McpSource>, ConnectError> {
        let handler = Handler::new(self.elicit);
        let mut link = Link::new(self.endpoint, handler, self.connect_timeout, self.version);
        link.message_bytes = self.limits.message_bytes.min(import::MAX_MESSAGE_BYTES);
        let listing = list(&link, &self.limits).await?;
        let mut findings = listing.refused;
        let kept: Vec<&rmcp::model::Tool> = listing
            .tools
            .iter()
            .filter(|tool| self.filters.iter().all(|keep| keep(tool)))
            .collect();
        let remotes: Vec<&str> = kept.iter().map(|tool| tool.name.as_ref()).collect();
        let names = names::assign(&remotes, self.prefix.as_deref(), &mut findings);
        let mut imported = Vec::new();
        let mut entries = Vec::new();
        for (tool, name) in kept.into_iter().zip(names) {
            let imported_tool = name.and_then(|name| {
                import::import(tool, name, self.trust, &self.limits, &mut findings)
            });
            entries.push((
                crate::lint::screen::escape(&tool.name),
                imported_tool.as_ref().map(|tool| tool.spec.name.clone()),
            ));
            if let Some(imported_tool) = imported_tool {
                imported.push((Arc::from(tool.name.as_ref()), imported_tool));
            }
        }
        Ok(McpSource::assemble(
            self.name,
            link,
            Settings {
                call_timeout: self.call_timeout,
                honours_keys: self.honours_keys,
                limits: self.limits,
                tool_settings: self.settings,
            },
            &listing.tools,
            imported,
            super::report::Report::new(entries, findings),
        ))
    }
}
