//! The example tools served over MCP: a coding agent's workspace tools (confined to a
//! scratch workspace this example creates), a notes store and a unit converter.
//!
//! ```sh
//! cargo run --example mcp_server --features mcp                        # stdio
//! cargo run --example mcp_server --features mcp -- --http 127.0.0.1:8765 # Streamable HTTP at /mcp
//! cargo run --example mcp_server --features mcp -- --workspace ./my-dir  # serve an existing directory
//! ```
//!
//! Every call goes through the default policy: reads and writes run, `run_command` for
//! anything outside its allow-list answers `awaiting_approval` (MCP has no approval step a
//! server can wait on; see `toolwright::mcp`).
//!
//! Several replicas behind one address share idempotency keys and approval tickets
//! through a store, and sign tickets with one secret:
//!
//! ```sh
//! export TOOLWRIGHT_APPROVAL_SECRET=$(openssl rand -hex 32)
//! cargo run --example mcp_server --features mcp,postgres -- --http 127.0.0.1:8765 \
//!     --store postgres://app@db/app --ledger /shared/payouts.log --client-approval
//! ```
//!
//! - `--store URL`: `postgres://...` (feature `postgres`), `redis://...` (feature
//!   `redis`), or a file path for redb (feature `redb`, one process); default: memory.
//! - `--lease-ms N`: how long a claim holds without word from its process (default 60 s).
//! - `--ledger PATH`: also serve `send_payout`, an external tool whose side effect is a
//!   line appended to PATH (to watch replicas pay once); payouts over 1,000 wait for a
//!   person.
//! - `--client-approval`: clients may decide tickets (`toolwright/resume`).

mod tools;

#[path = "agent/setup.rs"]
mod setup;

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use setup::{coding_context, coding_registry, scratch_workspace};
use tools::{ConvertTemperature, Notes, SaveNote, SearchNotes};
use toolwright::idempotency::{Idempotency, IdempotencyStore, MemoryStore};
use toolwright::mcp::McpServer;
use toolwright::policy::AllowAll;
use toolwright::{ToolError, ToolSettings, tool};

/// Where payouts are written: a file every replica appends to.
struct PayoutLedger(PathBuf);

fn over_limit(_recipient: &str, amount: &u64) -> Option<String> {
    (*amount > 1_000).then(|| format!("a payout of {amount} is over the 1,000 limit"))
}

/// Pay money out to a recipient. The payment provider takes a moment to answer.
#[tool(effect = "external", approval = over_limit)]
async fn send_payout(
    /// Who is paid, like `acct-42`.
    #[arg(pattern = "^[a-z0-9-]{1,64}$")]
    recipient: String,
    /// Amount in cents.
    #[arg(minimum = 1, maximum = 1_000_000)]
    amount: u64,
    #[ctx] ledger: &PayoutLedger,
) -> Result<String, ToolError> {
    eprintln!("send_payout: paying {amount} to {recipient}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&ledger.0)
        .map_err(|e| ToolError::failed(format!("the ledger cannot be opened: {e}")))?;
    // One write of one line: appends from several processes do not interleave.
    file.write_all(format!("{recipient} {amount} {}\n", std::process::id()).as_bytes())
        .map_err(|e| ToolError::failed(format!("the ledger cannot be written: {e}")))?;
    Ok(format!("paid {amount} to {recipient}"))
}

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

struct Options {
    http: Option<SocketAddr>,
    workspace: Option<PathBuf>,
    store: Option<String>,
    lease: Option<Duration>,
    ledger: Option<PathBuf>,
    client_approval: bool,
}

const USAGE: &str = "usage: mcp_server [--http 127.0.0.1:PORT] [--workspace DIR] [--store URL|PATH] [--lease-ms N] [--ledger PATH] [--client-approval]";

fn options() -> Result<Options, String> {
    let mut options = Options {
        http: None,
        workspace: None,
        store: None,
        lease: None,
        ledger: None,
        client_approval: false,
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
        .with(ConvertTemperature);
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
            .configure("send_payout", ToolSettings::new().policy(AllowAll));
        context = context.with(PayoutLedger(ledger));
    }
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
    let served = match options.http {
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| format!("--http {addr}: {e}"))?;
            let bound = listener.local_addr().map_err(|e| e.to_string())?;
            eprintln!("mcp_server: Streamable HTTP on http://{bound}/mcp");
            server.serve_http_on(listener).await
        }
        None => server.serve_stdio().await,
    };
    if scratch {
        // The client closed stdio: the scratch workspace goes with the session.
        let _ = std::fs::remove_dir_all(&workspace);
    }
    served.map_err(|e| format!("serving: {e}"))
}
