//! Serve a [`Registry`] over the Model Context Protocol, with the official Rust SDK
//! ([`rmcp`]) doing the protocol: transports, framing, version negotiation (2024-11-05
//! through 2026-07-28, stateless `server/discover` included).
//!
//! toolwright brings what the SDK leaves to you: `tools/list` from the signature-derived
//! specs (annotations from the effect class, `outputSchema` where the result has one),
//! and `tools/call` through the dispatcher, so every argument problem comes back at once,
//! effects and policies are enforced and outputs stay within budget.
//!
//! | what arrives | what the client gets |
//! | --- | --- |
//! | a valid call | `CallToolResult`: the model's view as a text block; `structuredContent` when the result is a JSON object |
//! | arguments that fail the schema, a tool error, a panic, a timeout | `isError: true` with the error as JSON text (category, message, hint, every problem) |
//! | a denied call, or one that needs approval | `isError: true` saying why (`denied`, or `awaiting_approval`; the signed ticket in `_meta`) |
//! | an unknown tool | JSON-RPC error `-32602` "Unknown tool: …", the closest names in `data` |
//! | arguments that are not an object, a request the SDK cannot read | JSON-RPC error `-32602` / `-32600` with the request's id |
//! | a line or body that is not JSON | JSON-RPC error `-32700`, id `null` |
//! | a method that does not exist | JSON-RPC error `-32601` |
//!
//! Idempotency: a call with external effects runs once per key. A client names its key
//! in the request's `_meta` under [`IDEMPOTENCY_KEY_META`]
//! (`"dev.toolwright/idempotency-key"`), scoped to the caller: the same key sent to any
//! replica sharing the store gets the first result. Without one, the key is derived from
//! the session (a random id per MCP session, per stateless request, and per stdio
//! server), the request id and the arguments, so two clients never share a key, whatever
//! their request ids.
//!
//! Approval: a call that needs approval ends with an `awaiting_approval` error result;
//! its signed ticket is in the result's `_meta` under [`APPROVAL_TICKET_META`], and the
//! harness decides out of band ([`Registry::resume`]). When the client is the person's
//! own application and the server allows it ([`McpServer::with_client_approval`]), the
//! client decides instead: on 2026-07-28, a client that declares elicitation gets an
//! input-required result asking the person about the exact call (tool, arguments,
//! reason), the ticket as its `requestState`, and its retry with the answer runs or
//! declines the call (`approval.rs`); any client may send the request `toolwright/resume`
//! (`{"ticket": <the ticket as it came>, "decision": {"decision": "approve", "digest":
//! <the ticket's digest>}}`), answered like a `tools/call` (the guide, `guide::mcp`, has
//! each approval path as a program, with the JSON on the wire). A ticket is spent
//! once across every replica sharing the idempotency store and the approval secret; a
//! changed or foreign `requestState` is a protocol error, and nothing runs.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! use toolwright::mcp::McpServer;
//! use toolwright::{Context, Registry};
//!
//! let server = McpServer::new(Registry::builder().build().unwrap(), Context::new()).expect("every tool expressible");
//! server.serve_stdio().await
//! # }
//! ```

mod approval;
#[cfg(feature = "mcp-http")]
pub mod auth;
mod call;
mod changes;
mod era;
#[cfg(feature = "mcp-http")]
mod http;
mod legacy_tasks;
mod logging;
mod messages;
mod results;
mod stdio;
mod tasks;
mod trace;

use std::sync::{Arc, Mutex};

use rmcp::ServerHandler;
use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode,
    ErrorData, Implementation, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};

use crate::context::Context;
use crate::dialect::Dialect;
use crate::effect::Annotations;
use crate::feedback::Level;
use crate::registry::{MissingContext, Registry};
use crate::schema::lower::LoweringErrors;

#[cfg(feature = "mcp-http")]
pub use http::{HttpLimits, HttpServer, shutdown_signal};
pub use rmcp;

/// The key in a `tools/call` request's `_meta` that carries the client's idempotency
/// key (a string).
pub const IDEMPOTENCY_KEY_META: &str = crate::idempotency::IDEMPOTENCY_KEY_META;

/// The key in an `awaiting_approval` result's `_meta` that holds the signed
/// [`ApprovalTicket`](crate::approval::ApprovalTicket).
pub const APPROVAL_TICKET_META: &str = "dev.toolwright/approval-ticket";

/// The key in a result's `_meta` that names where an imported tool's result comes from
/// (an MCP server's name and address, [`ToolResult::source`](crate::ToolResult::source)):
/// a stranger's words, passed on as such.
pub const SOURCE_META: &str = "dev.toolwright/source";

/// The key in a result's `_meta` that marks it `true` when it is the stored result of
/// an earlier call or decision with the same idempotency key or ticket
/// ([`ToolResult::duplicate`](crate::ToolResult::duplicate)): the tool did not run again.
pub const DUPLICATE_META: &str = "dev.toolwright/duplicate";

/// The request a client sends to decide a ticket, when the server allows it
/// ([`McpServer::with_client_approval`]).
pub const RESUME_METHOD: &str = "toolwright/resume";

/// A registry and its context, served over MCP. Cheap to clone: the Streamable HTTP
/// transport clones it for every session.
#[derive(Clone)]
pub struct McpServer {
    registry: Arc<Registry>,
    context: Arc<Context>,
    tools: Arc<[Tool]>,
    implementation: Implementation,
    instructions: Option<String>,
    /// The lowest level a legacy session asked for with `logging/setLevel`.
    log_level: Arc<Mutex<Option<Level>>>,
    /// This session's random id: the origin of its calls' ids.
    session: Arc<str>,
    /// Whether clients may decide approval tickets ([`RESUME_METHOD`]).
    client_approval: bool,
    /// How long a client may keep the tools list (SEP-2549's `ttlMs`), when set.
    tools_ttl: Option<std::time::Duration>,
    /// The registry's run-time changes, and the sessions to tell of them.
    changes: changes::Changes,
    /// Calls that outlive their request, when the server serves them
    /// ([`McpServer::with_tasks`]).
    tasks: Option<crate::task::Tasks>,
}

/// Why a registry cannot be served.
#[derive(Debug)]
#[non_exhaustive]
pub enum SetupError {
    /// A tool needs a `#[ctx]` value the context does not hold.
    MissingContext(MissingContext),
    /// A tool uses a construct MCP cannot express.
    Unexpressible(LoweringErrors),
    /// Tasks were asked for, and the registry's store keeps none.
    Tasks(crate::idempotency::StoreError),
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetupError::MissingContext(missing) => missing.fmt(f),
            SetupError::Unexpressible(errors) => {
                write!(f, "{} tool schema(s) MCP cannot express:", errors.len())?;
                errors.iter().try_for_each(|error| write!(f, "\n  {error}"))
            }
            SetupError::Tasks(error) => write!(f, "tasks cannot be served: {error}"),
        }
    }
}

impl std::error::Error for SetupError {}

/// Every tool of `registry` as rmcp's `Tool`, from the parts its JSON definition is
/// written from too (`crate::provider::mcp::ToolParts`); or every construct MCP cannot
/// express.
fn tools_of(registry: &Registry) -> Result<Vec<Tool>, LoweringErrors> {
    let mut tools = Vec::with_capacity(registry.len());
    let mut errors = Vec::new();
    for spec in registry.specs() {
        match crate::provider::mcp_tool(spec) {
            Ok(parts) => {
                let Annotations {
                    read_only_hint,
                    destructive_hint,
                    idempotent_hint,
                    open_world_hint,
                } = parts.annotations;
                let annotations = ToolAnnotations::from_raw(
                    parts.title.map(str::to_owned),
                    Some(read_only_hint),
                    Some(destructive_hint),
                    Some(idempotent_hint),
                    Some(open_world_hint),
                );
                let mut tool = Tool::new_with_raw(
                    parts.name.to_owned(),
                    Some(parts.description.to_owned().into()),
                    Arc::new(parts.input_schema),
                )
                .with_annotations(annotations);
                if let Some(title) = parts.title {
                    tool = tool.with_title(title);
                }
                if let Some(output) = parts.output_schema {
                    tool = tool.with_raw_output_schema(Arc::new(output.clone()));
                }
                tools.push(tool);
            }
            Err(found) => errors.extend(found),
        }
    }
    if errors.is_empty() {
        Ok(tools)
    } else {
        Err(errors.into())
    }
}

impl McpServer {
    /// Serves `registry`, whose tools read their `#[ctx]` values from `context`. Checks
    /// now what would otherwise fail at the first call: every context value present,
    /// every schema expressible in MCP.
    pub fn new(registry: Registry, context: Context) -> Result<Self, SetupError> {
        // A tool may take a `Cancellation`: calls that are not tasks get one that is
        // never cancelled.
        let mut context = context;
        if context.get::<crate::task::Cancellation>().is_none() {
            context.insert(crate::task::Cancellation::new());
        }
        registry
            .check_context(&context)
            .map_err(SetupError::MissingContext)?;
        let tools = tools_of(&registry).map_err(SetupError::Unexpressible)?;
        let changes = changes::Changes::of(&registry);
        Ok(McpServer {
            changes,
            registry: Arc::new(registry),
            context: Arc::new(context),
            tools: tools.into(),
            implementation: Implementation::new("toolwright", env!("CARGO_PKG_VERSION")),
            instructions: None,
            log_level: Arc::default(),
            session: crate::approval::random_id().into(),
            client_approval: false,
            tools_ttl: None,
            tasks: None,
        })
    }

    /// The name and version the server reports to clients (default: toolwright's own).
    pub fn with_name(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.implementation = Implementation::new(name, version);
        self
    }

    /// Instructions a client may show its model about using these tools together.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// Lets clients decide the approval tickets of their own calls: within the protocol
    /// on 2026-07-28 (an input-required result whose elicitation asks the person, for a
    /// client that declares elicitation), or with the request [`RESUME_METHOD`]. For a
    /// client that is the person's own application (it shows the call and asks). Off by
    /// default, since a client that runs a model unattended could then approve its own
    /// calls; leave it off when approval must come from elsewhere. Tickets stay signed,
    /// expiring, bound to their caller and spent once.
    pub fn with_client_approval(mut self) -> Self {
        self.client_approval = true;
        self
    }

    /// How long a client may treat the tools list as fresh (`ttlMs` on 2026-07-28).
    /// Default: one hour for a registry whose tools never change, zero (ask again each
    /// time) for one built [`with_runtime_toggles`](crate::RegistryBuilder::with_runtime_toggles). The
    /// list's `cacheScope` says who may share it: `public` when every client sees the
    /// same tools, `private` when the registry decides per caller
    /// ([`RegistryBuilder::with_visibility`](crate::RegistryBuilder::with_visibility)).
    pub fn with_tools_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.tools_ttl = Some(ttl);
        self
    }

    /// The `ttlMs` the tools list carries.
    fn tools_ttl_ms(&self) -> u64 {
        let ttl = self
            .tools_ttl
            .unwrap_or(if self.registry.has_runtime_toggles() {
                std::time::Duration::ZERO
            } else {
                std::time::Duration::from_secs(3600)
            });
        u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX)
    }

    /// The registry being served.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The tools as `tools/list` returns them.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The context every call sees (a request's caller goes over it).
    #[cfg(feature = "mcp-http")]
    pub(crate) fn context(&self) -> &Arc<Context> {
        &self.context
    }

    /// The same tools for another client: its own `logging/setLevel`, its own session id.
    pub(crate) fn new_session(&self) -> Self {
        McpServer {
            log_level: Arc::default(),
            session: crate::approval::random_id().into(),
            ..self.clone()
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

// Logging is deprecated by SEP-2577 (rmcp marks it so); it is served while clients use it.
#[allow(deprecated)]
impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = if self.registry.has_runtime_toggles() {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_logging()
                .build()
        } else {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_logging()
                .build()
        };
        if self.tasks.is_some() {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(
                    rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                    Default::default(),
                );
        }
        let mut config =
            ServerConfig::new(capabilities).with_server_info(self.implementation.clone());
        if let Some(instructions) = &self.instructions {
            config = config.with_instructions(instructions.clone());
        }
        config
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let ttl = self.tools_ttl_ms();
        if !self.registry.filters() {
            let mut listed = ListToolsResult::with_all_items(self.tools.to_vec());
            listed.ttl_ms = Some(ttl);
            listed.cache_scope = Some(CacheScope::Public);
            return Ok(listed);
        }
        // Each client sees the tools offered to its caller (the registry's visibility),
        // and no client a tool turned off.
        let request_context = self.request_context(&context);
        let ctx = request_context.as_ref().unwrap_or(&self.context);
        let offered = self
            .tools
            .iter()
            .filter(|tool| {
                self.registry.get(&tool.name).is_some_and(|known| {
                    matches!(
                        self.registry.listing(ctx, known.spec(), Dialect::Mcp),
                        crate::provider::Listing::Shown
                    )
                })
            })
            .cloned()
            .collect();
        let mut listed = ListToolsResult::with_all_items(offered);
        listed.ttl_ms = Some(ttl);
        listed.cache_scope = Some(if self.registry.has_visibility() {
            CacheScope::Private
        } else {
            CacheScope::Public
        });
        Ok(listed)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools
            .iter()
            .find(|tool| tool.name == name && self.registry.is_enabled(name))
            .cloned()
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        if self.registry.has_runtime_toggles() {
            self.changes.session_started(context.peer);
        }
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        let mut accepted = rmcp::model::SubscriptionFilter::new();
        if self.registry.has_runtime_toggles() {
            accepted.tools_list_changed = requested.tools_list_changed;
        }
        Some(accepted)
    }

    async fn listen(
        &self,
        subscription: rmcp::service::SubscriptionContext,
    ) -> Result<(), ErrorData> {
        if self.registry.has_runtime_toggles() {
            self.changes.listen(subscription).await
        } else {
            subscription.cancelled().await;
            Ok(())
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        use tracing::Instrument as _;
        let id = || call::request_id(&context.id);
        let header = |name: &str| call::http_header(&context, name);
        let span = trace::request_span(&self.session, &request.name, id, &context.meta, &header);
        // Boxed: rmcp moves this future into the task it spawns per request, and the
        // call's whole state (dispatch, feedback forwarding) would be copied with it.
        let answer = Box::pin(self.answer_call(request, context).instrument(span.clone())).await;
        answer.map(|answer| trace::hand_back(&span, answer))
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        McpServer::get_task(self, request, &context).await
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        McpServer::update_task(self, request, &context).await
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        McpServer::cancel_task(self, request, &context).await
    }

    /// `toolwright/resume`; the 2025-11-25 tasks utility's requests (`legacy_tasks.rs`);
    /// and a request for a method this server serves whose params rmcp could not read,
    /// which reaches here as "custom": answered as the invalid params it is.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let CustomRequest { method, params, .. } = request;
        if self.client_approval && method == RESUME_METHOD {
            let request_context = self.request_context(&context);
            let context = request_context.as_ref().unwrap_or(&self.context);
            let result = self.resume(context, params.as_ref()).await?;
            return serde_json::to_value(result)
                .map(CustomResult)
                .map_err(|error| ErrorData::internal_error(error.to_string(), None));
        }
        if method == RESUME_METHOD {
            return Err(call::resume_off());
        }
        let malformed = messages::malformed_params(&method, params.as_ref());
        if let Some(answer) = self.legacy_request(&method, params, context).await {
            return answer;
        }
        Err(malformed.unwrap_or_else(|| ErrorData::new(ErrorCode::METHOD_NOT_FOUND, method, None)))
    }

    async fn set_level(
        &self,
        request: logging::SetLevel,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        *lock(&self.log_level) = Some(logging::level_of(&request));
        Ok(())
    }
}
