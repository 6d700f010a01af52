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

mod tools;

#[path = "agent/setup.rs"]
mod setup;

use std::net::SocketAddr;
use std::path::PathBuf;

use setup::{coding_context, coding_registry, scratch_workspace};
use tools::{ConvertTemperature, Notes, SaveNote, SearchNotes};
use toolwright::mcp::McpServer;

struct Options {
    http: Option<SocketAddr>,
    workspace: Option<PathBuf>,
}

fn options() -> Result<Options, String> {
    let mut options = Options {
        http: None,
        workspace: None,
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
            other => {
                return Err(format!(
                    "unknown option {other}; usage: mcp_server [--http 127.0.0.1:PORT] [--workspace DIR]"
                ));
            }
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
    let registry = coding_registry()
        .with(SaveNote)
        .with(SearchNotes)
        .with(ConvertTemperature);
    let context = coding_context(&workspace)
        .map_err(|e| format!("opening {}: {e}", workspace.display()))?
        .with(Notes::default());
    let server = McpServer::new(registry, context)
        .map_err(|e| e.to_string())?
        .with_name("toolwright-example", env!("CARGO_PKG_VERSION"))
        .with_instructions(
            "Tools for a small Rust workspace: list, read, search and edit files, run cargo. \
             Argument errors list every problem; fix them all and call again.",
        );
    let served = match options.http {
        Some(addr) => {
            eprintln!("mcp_server: Streamable HTTP on http://{addr}/mcp");
            server.serve_http(addr).await
        }
        None => server.serve_stdio().await,
    };
    if scratch {
        // The client closed stdio: the scratch workspace goes with the session.
        let _ = std::fs::remove_dir_all(&workspace);
    }
    served.map_err(|e| format!("serving: {e}"))
}
