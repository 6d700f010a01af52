//! The example MCP server (`examples/mcp_server.rs`) in front of the clients people run,
//! installed by the project's own scripts and pinned:
//!
//! - the OpenAI Agents SDK (`openai-agents`, Python): every tool of every example registry
//!   converts to a strict function tool (`tests/mcp/strict_client.py`);
//! - the MCP Inspector's CLI with `--strict`: its portability report finds nothing, error
//!   or warning (`tests/mcp/clients/inspector.sh`);
//! - the official TypeScript SDK's client: a valid call, an invalid one and an unknown
//!   tool, over stdio and over Streamable HTTP (`tests/mcp/clients/ts_client.mjs`);
//! - the same SDK's tasks (2025-11-25's, `client.experimental.tasks`): a report polled to
//!   its result, a payout approved through `tasks/result`'s elicitation and paid once,
//!   the tasks listed, a long report cancelled, over both transports
//!   (`tests/mcp/clients/ts_tasks_client.mjs`);
//! - the same revision's tasks from the official Python SDK 1.30 (`session.experimental`)
//!   and FastMCP 3 (`call_tool(..., task=True)`), over stdio (`tests/mcp/tasks_client.py`,
//!   its own venv: `scripts/test/python-env tasks-2025`);
//! - 2026-07-28's tasks extension from FastMCP 4 with fastmcp-tasks, over stdio
//!   (`tests/mcp/tasks_extension_client.py`, `scripts/test/python-env tasks-2026`).
//!
//! Python comes from `scripts/test/python-env`, Node.js and the npm packages from
//! `scripts/test/node-clients`. Each client has its own time limit (at most 60 s).

use crate::tools;

use crate::support;

use std::path::Path;
use std::process::{Command, Output};

use crate::support::{HttpServer, MANIFEST_DIR, server_binary};
use toolwright::Dialect;

/// `output` succeeded; otherwise everything it printed, in the panic.
fn assert_success(what: &str, output: &Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    stdout
}

#[test]
fn the_openai_agents_sdk_makes_every_example_tool_strict() {
    let python = support::python();
    let script = Path::new(MANIFEST_DIR).join("tests/mcp/strict_client.py");
    // The example server as a client meets it, `send_payout` included.
    let ledger = std::env::temp_dir().join(format!("toolwright-strict-{}.log", std::process::id()));
    let output = Command::new(&python)
        .arg(&script)
        .arg(server_binary())
        .arg("--ledger")
        .arg(&ledger)
        .output()
        .expect("python runs");
    let _ = std::fs::remove_file(&ledger);
    let stdout = assert_success("strict conversion of the example server's tools", &output);
    assert!(stdout.contains("all 15 tools converted"), "{stdout}");
    // The example tools no server here serves (the payments desk among them), as their
    // MCP definitions.
    let registry = tools::every_example_tool(toolwright::policy::EffectPolicy)
        .build()
        .unwrap();
    let definitions = registry
        .all_definitions(Dialect::Mcp)
        .expect("MCP expresses them");
    let file = std::env::temp_dir().join(format!("toolwright-tools-{}.json", std::process::id()));
    std::fs::write(&file, serde_json::to_string(&definitions).unwrap()).unwrap();
    let output = Command::new(&python)
        .arg(&script)
        .arg("--tools")
        .arg(&file)
        .output()
        .expect("python runs");
    let _ = std::fs::remove_file(&file);
    let stdout = assert_success("strict conversion of the example registries", &output);
    assert!(
        stdout.contains(&format!("all {} tools converted", definitions.len())),
        "{stdout}"
    );
}

#[test]
fn the_mcp_inspector_finds_nothing_unportable() {
    if support::node_clients().is_none() {
        return;
    }
    let output = Command::new(Path::new(MANIFEST_DIR).join("tests/mcp/clients/inspector.sh"))
        .arg("--fail-on-warnings")
        .arg(server_binary())
        .output()
        .expect("the Inspector runs");
    let stdout = assert_success("the Inspector's --strict report", &output);
    assert!(
        stdout.contains("12 tools listed; 0 errors, 0 warnings"),
        "{stdout}"
    );
}

#[test]
fn the_typescript_sdk_calls_tools_over_both_transports() {
    let Some(node) = support::node_clients() else {
        return;
    };
    let client = Path::new(MANIFEST_DIR).join("tests/mcp/clients/ts_client.mjs");
    let output = Command::new(&node)
        .arg(&client)
        .arg("stdio")
        .arg(server_binary())
        .output()
        .expect("node runs");
    let stdout = assert_success("the TypeScript SDK over stdio", &output);
    assert!(
        stdout.contains("valid call = 212")
            && stdout.contains("wrong type = isError naming `value`"),
        "{stdout}"
    );
    let server = HttpServer::start();
    let output = Command::new(&node)
        .arg(&client)
        .arg("http")
        .arg(&server.url)
        .output()
        .expect("node runs");
    let stdout = assert_success("the TypeScript SDK over Streamable HTTP", &output);
    assert!(
        stdout.contains("valid call = 212")
            && stdout.contains("unknown tool = JSON-RPC error -32602"),
        "{stdout}"
    );
}

#[test]
fn the_typescript_sdk_runs_tasks_over_both_transports() {
    let Some(node) = support::node_clients() else {
        return;
    };
    let client = Path::new(MANIFEST_DIR).join("tests/mcp/clients/ts_tasks_client.mjs");
    let ledger = |transport: &str| {
        let path = std::env::temp_dir().join(format!(
            "toolwright-ts-tasks-{transport}-{}.log",
            std::process::id()
        ));
        let _ = std::fs::remove_file(&path);
        path
    };
    let paid_once = |path: &Path| paid_once(path, "acct-7 5000");
    let stdio_ledger = ledger("stdio");
    let output = Command::new(&node)
        .arg(&client)
        .arg("stdio")
        .arg(server_binary())
        .args(["--tasks", "--client-approval", "--ledger"])
        .arg(&stdio_ledger)
        .output()
        .expect("node runs");
    let stdout = assert_success("the TypeScript SDK's tasks over stdio", &output);
    assert!(
        stdout.contains("approval asked 1 time(s) with its task")
            && stdout.contains("long report cancelled"),
        "{stdout}"
    );
    paid_once(&stdio_ledger);
    let http_ledger = ledger("http");
    let server = HttpServer::start_with(
        &[
            "--tasks",
            "--client-approval",
            "--ledger",
            http_ledger.to_str().unwrap(),
        ],
        &[],
    );
    let output = Command::new(&node)
        .arg(&client)
        .arg("http")
        .arg(&server.url)
        .output()
        .expect("node runs");
    let stdout = assert_success("the TypeScript SDK's tasks over Streamable HTTP", &output);
    assert!(
        stdout.contains("protocol 2025-11-25") && stdout.contains("2 tasks listed"),
        "{stdout}"
    );
    drop(server);
    paid_once(&http_ledger);
}

#[test]
fn the_python_sdk_and_fastmcp_3_run_2025_11_25_tasks() {
    let stdout = python_tasks_client("tasks-2025", "tasks_client.py", "acct-8 5000");
    assert!(
        stdout.contains("payout approved once")
            && stdout.contains("fastmcp: report through a ToolTask"),
        "{stdout}"
    );
}

/// Runs `tests/mcp/<script>` with the python of the venv `venv` against the example
/// server (tasks, client approval, a ledger), checks it succeeded and that `payout` was
/// made once; its standard output.
fn python_tasks_client(venv: &str, script: &str, payout: &str) -> String {
    let python = support::python_named(venv);
    let ledger = std::env::temp_dir().join(format!("toolwright-{venv}-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&ledger);
    let output = Command::new(&python)
        .arg(Path::new(MANIFEST_DIR).join("tests/mcp").join(script))
        .arg(server_binary())
        .args(["--tasks", "--client-approval", "--ledger"])
        .arg(&ledger)
        .output()
        .expect("python runs");
    let stdout = assert_success(script, &output);
    paid_once(&ledger, payout);
    stdout
}

/// Asserts the example server's payout ledger at `path` holds the payout `payout` (its
/// recipient and amount) once, and removes the ledger.
fn paid_once(path: &Path, payout: &str) {
    let written = std::fs::read_to_string(path).unwrap_or_default();
    let _ = std::fs::remove_file(path);
    assert_eq!(
        written
            .lines()
            .filter(|line| line.starts_with(payout))
            .count(),
        1,
        "the approved payout was made once: {written:?}"
    );
}

#[test]
fn fastmcp_4_runs_tasks_of_the_2026_07_28_extension() {
    let stdout = python_tasks_client("tasks-2026", "tasks_extension_client.py", "acct-9 5000");
    assert!(
        stdout.contains("payout approved once") && stdout.contains("long report cancelled"),
        "{stdout}"
    );
}
