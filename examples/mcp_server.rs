//! The example tools served over MCP: a coding agent's workspace tools (confined to a
//! scratch workspace this example creates), a notes store and a unit converter.
//!
//! ```sh
//! cargo run --example mcp_server --features mcp-http                        # stdio
//! cargo run --example mcp_server --features mcp-http -- --http 127.0.0.1:8765 # Streamable HTTP at /mcp
//! cargo run --example mcp_server --features mcp-http -- --workspace ./my-dir  # serve an existing directory
//! ```
//!
//! Every call goes through the default policy: reads and writes run, `run_command` for
//! anything outside its allow-list answers `awaiting_approval` (see `toolwright::mcp`;
//! with `--client-approval`, a 2026-07-28 client that declares elicitation is asked
//! instead, within the protocol).
//!
//! Several replicas behind one address share idempotency keys and approval tickets
//! through a store, and sign tickets with one secret:
//!
//! ```sh
//! export TOOLWRIGHT_APPROVAL_SECRET=$(openssl rand -hex 32)
//! cargo run --example mcp_server --features mcp-http,postgres -- --http 127.0.0.1:8765 \
//!     --store postgres://app@db/app --ledger /shared/payouts.log --client-approval
//! ```
//!
//! - `--store URL`: `postgres://...` (feature `postgres`), `redis://...` (feature
//!   `redis`), or a file path for redb (feature `redb`, one process); default: memory.
//! - `--lease-ms N`: how long a claim holds without word from its process (default 60 s).
//! - `--ledger PATH`: also serve `send_payout`, an external tool whose side effect is a
//!   line appended to PATH (to watch replicas pay once; payouts over 1,000 wait for a
//!   person), and `cancel_subscription` and `close_account`, destructive ones written
//!   there too (the second can tell, after a crash, whether it happened).
//! - `--tasks`: serve MCP tasks (2026-07-28's extension, and 2025-11-25's tasks for
//!   clients of that revision): `build_report` and the ledger's
//!   tools run as tasks for a client that asks for them, kept in
//!   the store; `--max-tasks N` live tasks per caller (default 100).
//! - `--client-approval`: clients may decide tickets: asked through elicitation on
//!   2026-07-28, or with `toolwright/resume`.
//! - `--code` (feature `code`): also serve `run_code`, which runs a Python program over
//!   the read-only tools and `send_payout`; a payout that waits for a person pauses the
//!   program, kept in the store, and `toolwright/resume` on any replica goes on with it.
//!
//! On the open internet, with OAuth (feature `oauth`): every request needs a bearer token
//! from the issuer, for this resource; the token's subject and scopes are the caller.
//!
//! ```sh
//! cargo run --example mcp_server --features oauth -- --http 0.0.0.0:8765 \
//!     --oauth-issuer https://auth.example.com --resource https://tools.example.com/mcp
//! ```
//!
//! - `--oauth-issuer URL`: the authorization server (its key set is found through its
//!   RFC 8414 metadata); `--resource URL`: the URL clients dial (default: the bound
//!   address's `/mcp`). Requests are answered only when their `Host` is loopback, the
//!   resource URL's host, or one given with `--allowed-host HOST` (DNS-rebinding
//!   protection; `--resource` alone, without OAuth, also names the public host).
//! - `--max-connections N`, `--max-in-flight N`, `--header-timeout-ms N`,
//!   `--body-timeout-ms N`, `--idle-timeout-ms N`, `--write-timeout-ms N`,
//!   `--shutdown-grace-ms N`: the HTTP
//!   limits (`toolwright::mcp::HttpLimits`; defaults in `toolwright::guide::mcp`).
//!
//! SIGTERM or Ctrl-C stops it gracefully: no new requests, calls in flight finish within
//! the grace period, those still running get a shutdown error.

mod tools;

#[path = "agent/setup.rs"]
mod setup;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use setup::{coding_context, coding_registry, scratch_workspace};
use tools::tasks::{BuildReport, CancelSubscription, CloseAccount, PayoutLedger, SendPayout};
use tools::{ConvertTemperature, Notes, SaveNote, SearchNotes};
use toolwright::ToolSettings;
use toolwright::idempotency::{Idempotency, IdempotencyStore, MemoryStore};
use toolwright::mcp::{HttpLimits, HttpServer, McpServer, shutdown_signal};
use toolwright::policy::AllowAll;
use toolwright::task::TaskSettings;

/// The store `--store` names.
async fn open_store(store: &str) -> Result<Box<dyn IdempotencyStore>, String> {
    #[cfg_attr(
        not(any(feature = "postgres", feature = "redis", feature = "redb")),
        allow(dead_code)
    )]
    fn boxed(
        opened: Result<impl IdempotencyStore + 'static, impl std::fmt::Display>,
    ) -> Result<Box<dyn IdempotencyStore>, String> {
        opened
            .map(|store| Box::new(store) as Box<dyn IdempotencyStore>)
            .map_err(|e| format!("--store: {e}"))
    }
    if store.starts_with("postgres://") || store.starts_with("postgresql://") {
        #[cfg(feature = "postgres")]
        return boxed(toolwright::idempotency::PostgresStore::connect(store).await);
        #[cfg(not(feature = "postgres"))]
        return Err("--store postgres://...: build with --features postgres".into());
    }
    if store.starts_with("redis://") {
        #[cfg(feature = "redis")]
        return boxed(toolwright::idempotency::RedisStore::connect(store).await);
        #[cfg(not(feature = "redis"))]
        return Err("--store redis://...: build with --features redis".into());
    }
    #[cfg(feature = "redb")]
    return boxed(toolwright::idempotency::RedbStore::open(store));
    #[cfg(not(feature = "redb"))]
    return Err(format!(
        "--store {store}: a file store needs --features redb; or give postgres://... or redis://..."
    ));
}

/// Bearer tokens of `issuer` for `resource`, checked against the issuer's published keys.
#[cfg(feature = "oauth")]
async fn oauth(
    issuer: &str,
    resource: &str,
) -> Result<toolwright::mcp::auth::ResourceServer, String> {
    use toolwright::mcp::auth::{JwtValidator, ResourceServer};
    let validator = JwtValidator::discover(issuer, resource)
        .await
        .map_err(|e| format!("--oauth-issuer {issuer}: {e}"))?;
    Ok(ResourceServer::new(resource, [issuer], validator))
}

#[cfg(not(feature = "oauth"))]
async fn oauth(
    _issuer: &str,
    _resource: &str,
) -> Result<toolwright::mcp::auth::ResourceServer, String> {
    Err("--oauth-issuer: build with --features oauth".into())
}

struct Options {
    http: Option<SocketAddr>,
    workspace: Option<PathBuf>,
    store: Option<String>,
    lease: Option<Duration>,
    ledger: Option<PathBuf>,
    client_approval: bool,
    tasks: bool,
    max_tasks: Option<usize>,
    code: bool,
    oauth_issuer: Option<String>,
    resource: Option<String>,
    allowed_hosts: Vec<String>,
    limits: HttpLimits,
}

const USAGE: &str = "usage: mcp_server [--http 127.0.0.1:PORT] [--workspace DIR] [--store URL|PATH] [--lease-ms N] [--ledger PATH] [--client-approval] [--tasks] [--max-tasks N] [--code] [--oauth-issuer URL] [--resource URL] [--max-connections N] [--max-in-flight N] [--header-timeout-ms N] [--body-timeout-ms N] [--idle-timeout-ms N] [--write-timeout-ms N] [--shutdown-grace-ms N] [--allowed-host HOST]...";

fn number(arg: &str, value: String) -> Result<u64, String> {
    value
        .parse()
        .map_err(|e| format!("{arg} {value}: {e}; give a whole number"))
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        http: None,
        workspace: None,
        store: None,
        lease: None,
        ledger: None,
        client_approval: false,
        tasks: false,
        max_tasks: None,
        code: false,
        oauth_issuer: None,
        resource: None,
        allowed_hosts: Vec::new(),
        limits: HttpLimits::default(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--http" => {
                let addr = value()?;
                options.http = Some(addr.parse().map_err(|e| {
                    format!("--http {addr}: {e}; give an address such as 127.0.0.1:8765")
                })?);
            }
            "--workspace" => options.workspace = Some(value()?.into()),
            "--store" => options.store = Some(value()?),
            "--lease-ms" => {
                let millis = value()?;
                options.lease = Some(Duration::from_millis(millis.parse().map_err(|e| {
                    format!("--lease-ms {millis}: {e}; give a whole number of milliseconds")
                })?));
            }
            "--ledger" => options.ledger = Some(value()?.into()),
            "--client-approval" => options.client_approval = true,
            "--tasks" => options.tasks = true,
            "--max-tasks" => options.max_tasks = Some(number(&arg, value()?)? as usize),
            "--code" => options.code = true,
            "--oauth-issuer" => options.oauth_issuer = Some(value()?),
            "--resource" => options.resource = Some(value()?),
            "--max-connections" => {
                options.limits.max_connections = number(&arg, value()?)? as usize;
            }
            "--max-in-flight" => options.limits.max_in_flight = number(&arg, value()?)? as usize,
            "--header-timeout-ms" => {
                options.limits.header_read_timeout = Duration::from_millis(number(&arg, value()?)?);
            }
            "--body-timeout-ms" => {
                options.limits.body_read_timeout = Duration::from_millis(number(&arg, value()?)?);
            }
            "--idle-timeout-ms" => {
                options.limits.idle_timeout = Duration::from_millis(number(&arg, value()?)?);
            }
            "--write-timeout-ms" => {
                options.limits.write_timeout = Duration::from_millis(number(&arg, value()?)?);
            }
            "--allowed-host" => options.allowed_hosts.push(value()?),
            "--shutdown-grace-ms" => {
                options.limits.shutdown_grace = Duration::from_millis(number(&arg, value()?)?);
            }
            other => return Err(format!("unknown option {other}; {USAGE}")),
        }
    }
    Ok(options)
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let options = options()?;
    let scratch = options.workspace.is_none();
    let workspace = match options.workspace {
        Some(dir) => dir,
        None => {
            let dir = std::env::temp_dir().join(format!("toolwright-mcp-{}", std::process::id()));
            scratch_workspace(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
            dir
        }
    };
    // Standard output belongs to the protocol on stdio: talk to people on standard error.
    eprintln!("mcp_server: workspace {}", workspace.display());
    let mut registry = coding_registry()
        .with(SaveNote)
        .with(SearchNotes)
        .with(ConvertTemperature)
        .with(BuildReport);
    let mut context = coding_context(&workspace)
        .map_err(|e| format!("opening {}: {e}", workspace.display()))?
        .with(Notes::default());
    let store: Box<dyn IdempotencyStore> = match &options.store {
        Some(store) => open_store(store).await?,
        None => Box::new(MemoryStore::new()),
    };
    let mut idempotency = Idempotency::new(store);
    if let Some(lease) = options.lease {
        idempotency = idempotency.lease(lease);
    }
    registry = registry.with_idempotency(idempotency);
    // Replicas that resume each other's tickets sign them with one secret.
    if let Ok(secret) = std::env::var("TOOLWRIGHT_APPROVAL_SECRET") {
        registry = registry.with_approval_secret(secret);
    }
    if let Some(ledger) = options.ledger {
        // Small payouts run without asking; the tool's own rule asks above 1,000.
        registry = registry
            .with(SendPayout)
            .with(CancelSubscription)
            .with(CloseAccount)
            .configure("send_payout", ToolSettings::new().policy(AllowAll))
            .configure("cancel_subscription", ToolSettings::new().policy(AllowAll))
            .configure("close_account", ToolSettings::new().policy(AllowAll));
        context = context.with(PayoutLedger(ledger));
    }
    if options.code {
        #[cfg(feature = "code")]
        {
            registry = registry.with_code_mode(toolwright::code::CodeMode::new());
        }
        #[cfg(not(feature = "code"))]
        return Err("--code: build with --features code".into());
    }
    let registry = registry.build().map_err(|e| e.to_string())?;
    let mut server = McpServer::new(registry, context)
        .map_err(|e| e.to_string())?
        .with_name("toolwright-example", env!("CARGO_PKG_VERSION"))
        .with_instructions(
            "Tools for a small Rust workspace: list, read, search and edit files, run cargo. \
             Argument errors list every problem; fix them all and call again.",
        );
    if options.client_approval {
        server = server.with_client_approval();
    }
    if options.tasks {
        let mut settings = TaskSettings::new();
        if let Some(max) = options.max_tasks {
            settings = settings.max_per_caller(max);
        }
        server = server.with_tasks(settings).map_err(|e| e.to_string())?;
    }
    let served = match options.http {
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| format!("--http {addr}: {e}"))?;
            let bound = listener.local_addr().map_err(|e| e.to_string())?;
            let mut http = HttpServer::new(server)
                .with_limits(options.limits)
                .with_allowed_hosts(options.allowed_hosts);
            if let Some(issuer) = options.oauth_issuer {
                let resource = options
                    .resource
                    .unwrap_or_else(|| format!("http://{bound}/mcp"));
                http = http.with_auth(oauth(&issuer, &resource).await?);
            } else if let Some(resource) = &options.resource {
                // Without OAuth the resource URL still names the public host.
                let host = resource
                    .split("://")
                    .nth(1)
                    .and_then(|rest| rest.split('/').next())
                    .ok_or(format!(
                        "--resource {resource}: give a URL such as https://tools.example.com/mcp"
                    ))?;
                http = http.with_allowed_hosts([host]);
            }
            eprintln!("mcp_server: Streamable HTTP on http://{bound}/mcp");
            let served = http.serve_until(listener, shutdown_signal()).await;
            eprintln!("mcp_server: stopped");
            served
        }
        None => server.serve_stdio().await,
    };
    if scratch {
        // The client closed stdio: the scratch workspace goes with the session.
        let _ = std::fs::remove_dir_all(&workspace);
    }
    served.map_err(|e| format!("serving: {e}"))
}
