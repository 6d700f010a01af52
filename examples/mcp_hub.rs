//! Many servers, one agent: three MCP servers nobody on the project wrote the same way
//! (toolwright's example server, the MCP project's reference "everything" server, a
//! FastMCP server) imported with prefixes into one registry; their union offered through
//! tool search with deferred loading (the model sees `search_tools` and `run_code`, not
//! fifty definitions); and a program that calls tools of two servers in one `run_code`.
//! A scripted model: run it to see what each step costs and returns.
//!
//! ```sh
//! scripts/test/node-clients && scripts/test/python-env   # the everything and FastMCP servers
//! cargo run --example mcp_hub --features mcp,mcp-client,search,code
//! ```
//!
//! A server whose runtime is missing is left out, with a line saying how to get it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use serde_json::json;
use toolwright::code::CodeMode;
use toolwright::mcp_client::{McpSource, McpSourceBuilder};
use toolwright::policy::AllowAll;
use toolwright::search::{LoadedTools, ToolSearch};
use toolwright::{Context, Dialect, Registry, ToolCall, ToolSettings};

/// The repository (this example's package is `examples/` in it).
const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The model's API in this example.
const DIALECT: Dialect = Dialect::OpenAiResponses { strict: true };

/// The example server, built by cargo like this example.
fn example_server() -> Option<McpSourceBuilder> {
    let executable = std::env::current_exe().ok()?.with_file_name("mcp_server");
    if !executable.exists() {
        eprintln!(
            "left out: the example server (build it: cargo build --example mcp_server --features mcp-http)"
        );
        return None;
    }
    Some(McpSource::stdio("example", Command::new(executable)).prefix("ws"))
}

/// Where the install scripts put what they install: cargo's target directory, as they
/// find it (`CARGO_TARGET_DIR`, else the repository's `target`).
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(ROOT).join("target"))
}

/// The reference everything server, from `scripts/test/node-clients`' install.
fn everything_server() -> Option<McpSourceBuilder> {
    let modules = target_dir().join("mcp-clients/node_modules");
    let (node, server) = (
        modules.join(".bin/node"),
        modules.join("@modelcontextprotocol/server-everything/dist/index.js"),
    );
    if !server.exists() {
        eprintln!("left out: the everything server (install it: scripts/test/node-clients)");
        return None;
    }
    let mut command = Command::new(node);
    command.arg(server).arg("stdio");
    Some(
        McpSource::stdio("everything", command)
            .prefix("ev")
            // A person is not here to answer its sampling and elicitation demos; and
            // trusted or not, a tool that returns every environment variable is no tool
            // for a model.
            .filter(|tool| !tool.name.starts_with("trigger-") && tool.name != "get-env"),
    )
}

/// The FastMCP server of tests/mcp/fastmcp_server.py, in `scripts/test/python-env`'s venv.
fn fastmcp_server() -> Option<McpSourceBuilder> {
    let python: PathBuf = target_dir().join("python-venv/bin/python");
    if !python.exists() {
        eprintln!("left out: the FastMCP server (install it: scripts/test/python-env)");
        return None;
    }
    let mut command = Command::new(python);
    command.arg(Path::new(ROOT).join("tests/mcp/fastmcp_server.py"));
    Some(McpSource::stdio("notes", command).prefix("notes"))
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut builder = Registry::builder();
    let mut sources = Vec::new();
    for source in [example_server(), everything_server(), fastmcp_server()]
        .into_iter()
        .flatten()
    {
        // These servers are ours to trust: their annotations decide the effects, so
        // read-only tools are callable from programs.
        let source = source.trust_annotations().connect().await?;
        println!(
            "{}: {} tools imported, {} findings",
            source.name(),
            source.tool_names().count(),
            source.findings().len()
        );
        for finding in source.findings() {
            println!("  {finding}");
        }
        sources.push(source.clone());
        builder = builder.with_toolset(source);
    }
    let registry = Arc::new(
        builder
            .defaults(ToolSettings::new().policy(AllowAll))
            .with_tool_search(ToolSearch::new(DIALECT).results(3))
            .with_code_mode(CodeMode::new())
            .build()?,
    );
    let everything = registry.all_definitions(DIALECT)?;
    let ctx = Context::new().with(LoadedTools::new());
    let shown = registry.definitions(&ctx, DIALECT)?;
    println!(
        "\n{} tools in all; the model is shown {} definitions ({} bytes instead of {})",
        everything.len(),
        shown.len(),
        serde_json::to_string(&shown)?.len(),
        serde_json::to_string(&everything)?.len()
    );

    // The model looks for what it needs, across every server at once.
    for query in [
        "add two numbers",
        "forecast for a city",
        "convert a temperature",
    ] {
        let found = registry
            .dispatch(
                &ctx,
                ToolCall::new(
                    format!("search {query}"),
                    "search_tools",
                    json!({"query": query}),
                ),
            )
            .await;
        // A search that finds nothing (a server left out) answers in words.
        match serde_json::from_str::<serde_json::Value>(found.for_model()) {
            Ok(answer) => println!("search_tools({query:?}) loads {}", answer["loaded"]),
            Err(_) => println!("search_tools({query:?}): {}", found.for_model()),
        }
    }

    // One program, tools of two servers, one round trip for the model.
    let program = if registry.get("notes_add").is_some()
        && registry.get("ws_convert_temperature").is_some()
    {
        "import asyncio\n\
         total = (await notes_add(a=20, b=22))['result']\n\
         kelvin = await ws_convert_temperature(value=total, from_='celsius', to='kelvin')\n\
         {'total': total, 'kelvin': kelvin}"
    } else {
        "'the FastMCP and example servers are needed for the program'"
    };
    let run = registry
        .dispatch(
            &ctx,
            ToolCall::new("program", "run_code", json!({"code": program})),
        )
        .await;
    println!("\nrun_code -> {}", run.for_model());
    for source in &sources {
        source.close();
    }
    Ok(())
}
