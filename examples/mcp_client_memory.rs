//! What a hostile MCP server costs the client's memory: the process's resident set before
//! and after each attack of `tests/mcp/broken_server.py` (a looping and an endless
//! listing, in both protocol eras; a 100 MiB result; 5,000 `list_changed` notifications
//! while calls go on), and its peak.
//!
//! ```text
//! cargo run --release -p toolwright-examples --example mcp_client_memory --features mcp-client -- python3
//! ```

use std::process::Command;
use std::time::Instant;

use toolwright::mcp_client::McpSource;
use toolwright::policy::AllowAll;
use toolwright::{Context, Registry, ToolCall, ToolSettings};

const SERVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/mcp/broken_server.py");

/// A line of /proc/self/status, in MiB.
fn status_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

fn server(python: &str, era: &str, scenario: &str) -> Command {
    let mut command = Command::new(python);
    command.args([SERVER, "--era", era, "--scenario", scenario]);
    command
}

#[tokio::main]
async fn main() {
    let python = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "python3".to_owned());
    let start = status_mib("VmRSS:");
    println!("| attack | RSS before (MiB) | RSS after (MiB) | growth (MiB) | outcome | time |");
    println!("|---|---:|---:|---:|---|---:|");
    let row = |what: &str, before: f64, outcome: String, started: Instant| {
        let after = status_mib("VmRSS:");
        println!(
            "| {what} | {before:.1} | {after:.1} | {:.1} | {outcome} | {} ms |",
            after - before,
            started.elapsed().as_millis()
        );
    };
    for era in ["2025", "2026"] {
        for scenario in ["loop", "endless"] {
            let (before, started) = (status_mib("VmRSS:"), Instant::now());
            let outcome = match McpSource::stdio("broken", server(&python, era, scenario))
                .connect()
                .await
            {
                Ok(_) => "imported (unexpected)".to_owned(),
                Err(error) => format!(
                    "refused: {}",
                    error.to_string().chars().take(60).collect::<String>()
                ),
            };
            row(
                &format!("{scenario} listing, {era} era"),
                before,
                outcome,
                started,
            );
        }
    }
    let source = McpSource::stdio("broken", server(&python, "2025", "entries"))
        .connect()
        .await
        .expect("the entries scenario imports");
    let registry = Registry::builder()
        .with_toolset(source)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .expect("a registry");
    let ctx = Context::new();
    let call =
        |name: &str, id: usize| ToolCall::new(format!("m-{id}"), name, serde_json::json!({}));
    let (before, started) = (status_mib("VmRSS:"), Instant::now());
    let result = registry.dispatch(&ctx, call("hundred_mib", 0)).await;
    let outcome = match &result.outcome {
        Ok(_) => "answered (unexpected)".to_owned(),
        Err(error) => format!(
            "{}: {}",
            error.kind,
            error.message.chars().take(50).collect::<String>()
        ),
    };
    row("a 100 MiB result", before, outcome, started);
    let (before, started) = (status_mib("VmRSS:"), Instant::now());
    let storm = registry.dispatch(&ctx, call("storm", 1)).await;
    let mut served = 0;
    for id in 0..200 {
        served += usize::from(
            registry
                .dispatch(&ctx, call("echo", id + 2))
                .await
                .outcome
                .is_ok(),
        );
    }
    let lists = registry.dispatch(&ctx, call("stats", 999)).await;
    row(
        "5,000 list_changed, then 200 calls",
        before,
        format!(
            "storm {}, {served}/200 served, server saw {}",
            if storm.outcome.is_ok() {
                "ok"
            } else {
                "failed"
            },
            lists
                .outcome
                .map(|output| output.to_text())
                .unwrap_or_default()
        ),
        started,
    );
    println!(
        "\nstarted at {start:.1} MiB; peak resident set (VmHWM) {:.1} MiB",
        status_mib("VmHWM:")
    );
}
