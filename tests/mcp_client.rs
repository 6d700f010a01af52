//! Other servers' tools through `McpSource` (feature `mcp-client`), against toolwright's
//! own example server, over stdio and Streamable HTTP: the import (names, effects,
//! screening), arguments checked before the network, the idempotency key forwarded, a
//! restarted server reconnected, and list changes followed.

use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use toolwright::mcp::{HttpServer as InProcessServer, McpServer};
use toolwright::mcp_client::{FindingKind, McpSource};
use toolwright::policy::{AllowAll, Caller};
use toolwright::{
    Context, Dialect, Effect, ErrorKind, Registry, ToolCall, ToolError, ToolSettings, tool,
};

use crate::support::{HttpServer, server_binary};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The example server over stdio, with `args`.
fn stdio(args: &[&str]) -> Command {
    let mut command = Command::new(server_binary());
    command.args(args);
    command
}

/// A registry of `source`'s tools whose calls all run (no one to approve here).
fn allow_all(source: Arc<McpSource>) -> Registry {
    Registry::builder()
        .with_toolset(source)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap()
}

/// A call with an id of its own (the dispatcher answers a call it has seen from its
/// store: the same id and arguments are the same call).
/// A loopback port nothing listens on now (for a server started, stopped and started again
/// on the same address).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn call(name: &str, arguments: Value) -> ToolCall {
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let id = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    ToolCall::new(format!("call-{id}"), name, arguments)
}

#[test]
fn the_example_servers_tools_import_and_run_over_stdio_and_http() {
    let runtime = runtime();
    let http = HttpServer::start();
    for source in [
        McpSource::stdio("example", stdio(&[])).prefix("ex"),
        McpSource::http("example", &http.url).prefix("ex"),
    ] {
        let source = runtime.block_on(source.connect()).unwrap();
        let names: Vec<&str> = source.tool_names().collect();
        for expected in ["ex_read_file", "ex_convert_temperature", "ex_save_note"] {
            assert!(names.contains(&expected), "{names:?}");
        }
        assert!(
            source
                .findings()
                .iter()
                .all(|finding| finding.kind != FindingKind::Refused),
            "{:?}",
            source.findings()
        );
        let registry = allow_all(source.clone());
        // Untrusted: every tool is external, whatever the server's annotations say.
        assert!(registry.specs().all(|spec| spec.effect == Effect::External));
        // Every dialect can show them.
        for dialect in Dialect::ALL {
            registry
                .all_definitions(dialect)
                .unwrap_or_else(|error| panic!("{dialect:?}: {error}"));
        }
        let ctx = Context::new();
        let result = runtime.block_on(registry.dispatch(
            &ctx,
            call(
                "ex_convert_temperature",
                json!({"value": 100.0, "from": "celsius", "to": "fahrenheit"}),
            ),
        ));
        // Marked with where it comes from: a stranger's words.
        let origin = result
            .source
            .clone()
            .expect("an imported result names its source");
        assert!(origin.starts_with("MCP server 'example' ("), "{origin}");
        let output = result.outcome.expect("the call runs");
        assert!(output.to_text().contains("212"), "{output:?}");
        // Served again, the result says so to the next client too.
        let served = McpServer::new(allow_all(source.clone()), Context::new()).unwrap();
        let arguments = json!({"value": 0.0, "from": "celsius", "to": "kelvin"});
        let params =
            toolwright::mcp::rmcp::model::CallToolRequestParams::new("ex_convert_temperature")
                .with_arguments(arguments.as_object().unwrap().clone());
        let answer = runtime
            .block_on(served.call("again".into(), params, None, |_| {}))
            .unwrap();
        let meta = answer.meta.expect("the source in _meta").0;
        assert_eq!(meta[toolwright::mcp::SOURCE_META], json!(&*origin));
    }
}

#[test]
fn arguments_are_checked_here_every_problem_at_once_before_the_network() {
    let runtime = runtime();
    let source = runtime
        .block_on(McpSource::stdio("example", stdio(&[])).connect())
        .unwrap();
    let registry = allow_all(source.clone());
    // The connection is closed: a call that reached the network would open another.
    source.close();
    let result = runtime.block_on(registry.dispatch(
        &Context::new(),
        call(
            "convert_temperature",
            json!({"value": "hot", "from": "rankine", "extra": 1}),
        ),
    ));
    let error = result.outcome.unwrap_err();
    assert_eq!(error.kind, ErrorKind::InvalidArguments, "{error:?}");
    let paths: Vec<&str> = error.problems.iter().map(|p| p.path.as_str()).collect();
    assert!(paths.contains(&"$.value"), "{paths:?}");
    assert!(paths.contains(&"$.from"), "{paths:?}");
    assert!(error.problems.len() >= 4, "{:?}", error.problems);
    // Worded as a local tool's problems are.
    assert_eq!(
        error.message,
        format!(
            "{} problems with the arguments of 'convert_temperature'",
            error.problems.len()
        )
    );
    assert_eq!(
        error.hint.as_deref(),
        Some("fix every problem listed and call the tool again")
    );
    assert_eq!(source.connections(), 1, "nothing was sent");
}

#[test]
fn untrusted_tools_ask_first_and_trusted_annotations_give_effects() {
    let runtime = runtime();
    let untrusted = runtime
        .block_on(McpSource::stdio("example", stdio(&[])).connect())
        .unwrap();
    let registry = Registry::builder().with_toolset(untrusted).build().unwrap();
    let result = runtime.block_on(registry.dispatch(
        &Context::new(),
        call(
            "convert_temperature",
            json!({"value": 1.0, "from": "celsius", "to": "kelvin"}),
        ),
    ));
    assert_eq!(
        result.outcome.unwrap_err().kind,
        ErrorKind::AwaitingApproval,
        "the default policy asks before an untrusted server's tool runs"
    );

    let trusted = runtime
        .block_on(
            McpSource::stdio("example", stdio(&["--ledger", "/dev/null"]))
                .trust_annotations()
                .connect(),
        )
        .unwrap();
    let registry = Registry::builder().with_toolset(trusted).build().unwrap();
    let effect = |name: &str| registry.get(name).unwrap().spec().effect;
    assert_eq!(effect("convert_temperature"), Effect::ReadOnly);
    assert_eq!(effect("send_payout"), Effect::External);
    assert_eq!(effect("save_note"), Effect::Write);
    assert!(
        registry
            .get("save_note")
            .unwrap()
            .spec()
            .needs_idempotency_key(Effect::Write),
        "idempotentHint false: its calls run under a key"
    );
    let result = runtime.block_on(registry.dispatch(
        &Context::new(),
        call(
            "convert_temperature",
            json!({"value": 1.0, "from": "celsius", "to": "kelvin"}),
        ),
    ));
    assert!(result.outcome.is_ok(), "{:?}", result.outcome);
}

#[test]
fn the_idempotency_key_reaches_the_server_which_runs_the_call_once() {
    let runtime = runtime();
    let dir = std::env::temp_dir().join(format!("toolwright-client-key-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ledger = dir.join("payouts.log");
    let _ = std::fs::remove_file(&ledger);
    let server = HttpServer::start_with(&["--ledger", ledger.to_str().unwrap()], &[]);
    let ctx = Context::new().with(Caller::new("alice", [] as [&str; 0]));
    // Two clients, each with its own registry and idempotency store: only the server
    // can tell the second call is the first one again.
    for _ in 0..2 {
        let source = runtime
            .block_on(McpSource::http("payments", &server.url).connect())
            .unwrap();
        let registry = allow_all(source);
        let result = runtime.block_on(
            registry.dispatch(
                &ctx,
                call("send_payout", json!({"recipient": "acct-7", "amount": 250}))
                    .with_idempotency_key("payout-2026-12-01"),
            ),
        );
        assert!(result.outcome.is_ok(), "{:?}", result.outcome);
    }
    let lines = std::fs::read_to_string(&ledger).unwrap();
    assert_eq!(lines.lines().count(), 1, "{lines}");
}

#[test]
fn a_restarted_server_is_reconnected_and_a_safe_call_recovers() {
    let runtime = runtime();
    let port = free_port();
    let address = format!("127.0.0.1:{port}");
    let mut server = HttpServer::start_with(&["--http", &address], &[]);
    let source = runtime
        .block_on(
            McpSource::http("example", &server.url)
                .trust_annotations()
                .call_timeout(Duration::from_secs(3))
                .connect(),
        )
        .unwrap();
    let registry = allow_all(source.clone());
    let convert = || {
        runtime.block_on(registry.dispatch(
            &Context::new(),
            call(
                "convert_temperature",
                json!({"value": 0.0, "from": "celsius", "to": "kelvin"}),
            ),
        ))
    };
    assert!(convert().outcome.is_ok());
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    // Down for longer than its call may wait (it waits for a restarting server within
    // its `call_timeout`, tests/mcp_client_hostile.rs): nothing was sent, say so.
    let down = convert().outcome.unwrap_err();
    assert!(down.retryable, "{down:?}");
    let _restarted = HttpServer::start_with(&["--http", &address], &[]);
    let result = convert();
    assert!(result.outcome.is_ok(), "{:?}", result.outcome);
}

/// Turned off and on by the test, to make the server's list change.
#[tool(effect = "read_only")]
fn weather(
    /// The city.
    city: String,
) -> String {
    format!("sunny in {city}")
}

/// Always there.
#[tool(effect = "read_only")]
fn ping() -> String {
    "pong".into()
}

#[test]
fn a_changed_list_is_followed_and_a_vanished_tool_is_refused_before_sending() {
    let runtime = runtime();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let remote = Registry::builder()
        .with(Weather)
        .with(Ping)
        .with_runtime_toggles()
        .build()
        .unwrap();
    let server = McpServer::new(remote, Context::new()).unwrap();
    let remote = server.clone();
    runtime.spawn(InProcessServer::new(server).serve(listener));

    let source = runtime
        .block_on(
            McpSource::http("weather", &url)
                .trust_annotations()
                .connect(),
        )
        .unwrap();
    let registry = Arc::new(
        Registry::builder()
            .with_toolset(source.clone())
            .with_runtime_toggles()
            .build()
            .unwrap(),
    );
    let _guard = runtime.enter();
    source.watch(&registry, Duration::from_millis(10));
    let ask = || {
        runtime
            .block_on(registry.dispatch(&Context::new(), call("weather", json!({"city": "Oslo"}))))
    };
    assert_eq!(ask().outcome.unwrap().to_text(), "sunny in Oslo");

    remote.registry().set_enabled("weather", false).unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while registry.is_enabled("weather") {
        assert!(
            std::time::Instant::now() < deadline,
            "the watcher turned it off"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let refused: ToolError = ask().outcome.unwrap_err();
    assert_eq!(refused.kind, ErrorKind::UnknownTool, "{refused:?}");

    remote.registry().set_enabled("weather", true).unwrap();
    while !registry.is_enabled("weather") {
        assert!(std::time::Instant::now() < deadline, "and on again");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(ask().outcome.unwrap().to_text(), "sunny in Oslo");
}

#[test]
fn a_hostile_server_is_screened_bounded_and_never_trusted() {
    let runtime = runtime();
    let mut command = Command::new(crate::support::python());
    command.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/mcp/hostile_server.py"
    ));
    let source = runtime
        .block_on(
            McpSource::stdio("hostile", command)
                .call_timeout(Duration::from_millis(500))
                .connect(),
        )
        .unwrap();
    let found = |tool: &str, kind: FindingKind| {
        source
            .findings()
            .iter()
            .find(|finding| finding.tool == tool && finding.kind == kind)
            .unwrap_or_else(|| panic!("no {kind:?} finding for {tool}: {:?}", source.findings()))
            .detail
            .clone()
    };
    // Poisoned text: hidden characters removed, the instructions reported.
    assert!(found("add", FindingKind::HiddenCharacters).contains("4 hidden"));
    let instructions = found("add", FindingKind::Instructions);
    for phrase in ["<important>", "~/.ssh", "do not tell the user"] {
        assert!(instructions.contains(phrase), "{instructions}");
    }
    assert!(found("huge", FindingKind::Truncated).contains("4096 bytes"));
    assert!(found("remote_ref", FindingKind::Refused).contains("input schema"));
    assert!(found("not_object", FindingKind::Refused).contains("not an object schema"));
    assert!(found("dotted.name/tool", FindingKind::Renamed).contains("dotted_name_tool"));
    let names: Vec<&str> = source.tool_names().collect();
    assert!(
        !names.contains(&"remote_ref") && !names.contains(&"not_object"),
        "{names:?}"
    );

    let registry = allow_all(source.clone());
    let add = registry.get("add").unwrap().spec();
    assert_eq!(add.effect, Effect::External);
    assert!(!add.description.contains('\u{200b}') && !add.description.contains('\u{e0049}'));
    assert!(registry.get("huge").unwrap().spec().description.len() <= 4096);

    let ctx = Context::new();
    let run = |name: &str, arguments: Value| {
        runtime.block_on(registry.dispatch(&ctx, call(name, arguments)))
    };
    // A result far over budget is cut like any tool's.
    let flood = run("flood", json!({}));
    assert!(flood.outcome.is_ok(), "{:?}", flood.outcome);
    assert!(flood.truncation().is_some(), "the output budget cut it");
    assert!(flood.for_model().len() < 100_000);
    // A call never answered times out, its outcome unknown: not retried.
    let hang = run("hang", json!({})).outcome.unwrap_err();
    assert_eq!(hang.kind, ErrorKind::Timeout, "{hang:?}");
    assert!(
        !hang.retryable && hang.message.contains("unknown"),
        "{hang:?}"
    );
    // A result that breaks its own output schema is an error listing the problem.
    let bad = run("bad_output", json!({})).outcome.unwrap_err();
    assert_eq!(bad.problems[0].path, "$.n", "{bad:?}");
    // A contract that changed since the import: refused before sending.
    // (The server's notification is handled as it arrives: the calls right after it may
    // still go out, as they would have a moment earlier.)
    assert!(run("shifty", json!({"a": 1})).outcome.is_ok());
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let shifted = loop {
        match run("shifty", json!({"a": 1})).outcome {
            Err(error) => break error,
            Ok(_) if std::time::Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Ok(_) => panic!("the changed contract was never noticed"),
        }
    };
    assert!(
        shifted.message.contains("changed the contract"),
        "{shifted:?}"
    );
    // A flood of list_changed costs one list, not a thousand.
    let before: u32 = run("stats", json!({}))
        .outcome
        .unwrap()
        .to_text()
        .parse()
        .unwrap();
    assert!(run("storm", json!({})).outcome.is_ok());
    let after: u32 = run("stats", json!({}))
        .outcome
        .unwrap()
        .to_text()
        .parse()
        .unwrap();
    assert!(after - before <= 2, "{before} then {after} lists");
}

/// The reference "everything" server of the MCP project (npm, pinned in
/// tests/mcp/clients/package.json), over stdio.
fn everything() -> Option<Command> {
    let node = crate::support::node_clients()?;
    let mut command = Command::new(&node);
    command
        .arg(
            node.parent()?
                .parent()?
                .join("@modelcontextprotocol/server-everything/dist/index.js"),
        )
        .arg("stdio");
    Some(command)
}

#[test]
fn the_reference_everything_server_imports_under_a_prefix_with_its_effects_trusted() {
    let Some(command) = everything() else {
        return;
    };
    let runtime = runtime();
    let source = runtime
        .block_on(
            McpSource::stdio("everything", command)
                .prefix("everything")
                .trust_annotations()
                .connect(),
        )
        .unwrap();
    let registry = allow_all(source.clone());
    // Its names have hyphens, which every provider accepts: only the prefix is added.
    let spec = |name: &str| {
        registry
            .get(name)
            .unwrap_or_else(|| panic!("{name} in {:?}", source.tool_names().collect::<Vec<_>>()))
            .spec()
            .clone()
    };
    assert_eq!(spec("everything_get-sum").effect, Effect::ReadOnly);
    assert_eq!(
        spec("everything_get-sum").title.as_deref(),
        Some("Get Sum Tool")
    );
    assert!(
        spec("everything_get-structured-content")
            .output_schema
            .is_some()
    );
    for dialect in Dialect::ALL {
        registry
            .all_definitions(dialect)
            .unwrap_or_else(|error| panic!("{dialect:?}: {error}"));
    }
    let ctx = Context::new();
    let run = |name: &str, arguments: Value| {
        runtime.block_on(registry.dispatch(&ctx, call(name, arguments)))
    };
    let sum = run("everything_get-sum", json!({"a": 2, "b": 40}));
    assert!(sum.outcome.unwrap().to_text().contains("42"));
    // Checked here against its zod-made schema: a missing and a mistyped argument.
    let wrong = run("everything_get-sum", json!({"a": "two"}))
        .outcome
        .unwrap_err();
    assert_eq!(wrong.kind, ErrorKind::InvalidArguments);
    assert_eq!(wrong.problems.len(), 2, "{:?}", wrong.problems);
    assert_eq!(
        wrong.message,
        "2 problems with the arguments of 'everything_get-sum'"
    );
    // Its output schema is checked, and the structured result is what the model reads.
    let weather = run(
        "everything_get-structured-content",
        json!({"location": "Chicago"}),
    );
    assert_eq!(
        weather.outcome.unwrap(),
        toolwright::ToolOutput::Json(
            json!({"temperature": 36, "conditions": "Light rain / drizzle", "humidity": 82})
        )
    );
    // An image comes through as a block.
    let image = run("everything_get-tiny-image", json!({})).outcome.unwrap();
    let toolwright::ToolOutput::Content(blocks) = image else {
        panic!("{image:?}")
    };
    assert!(
        blocks
            .iter()
            .any(|block| matches!(block, toolwright::ContentBlock::Image { mime_type, .. } if mime_type == "image/png"))
    );
    // A server asking the client to sample a model is refused: no such capability.
    if registry
        .get("everything_trigger-sampling-request")
        .is_some()
    {
        let sampling = run(
            "everything_trigger-sampling-request",
            json!({"prompt": "hi"}),
        );
        assert!(sampling.outcome.is_err(), "{:?}", sampling.outcome);
    }
}

/// The FastMCP server of tests/mcp/fastmcp_server.py (fastmcp from PyPI, pinned in
/// tests/mcp/requirements.txt).
fn fastmcp(args: &[&str]) -> Command {
    let mut command = Command::new(crate::support::python());
    command
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/mcp/fastmcp_server.py"
        ))
        .args(args);
    command
}

#[test]
fn a_fastmcp_server_imports_over_stdio_and_http_with_its_schemas_and_errors() {
    let runtime = runtime();
    let port = free_port();
    let mut http_server = fastmcp(&["--http", &port.to_string()])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(std::time::Instant::now() < deadline, "FastMCP listens");
        std::thread::sleep(Duration::from_millis(100));
    }
    for source in [
        McpSource::stdio("notes", fastmcp(&[])),
        McpSource::http("notes", &url),
    ] {
        let source = runtime
            .block_on(source.prefix("notes").trust_annotations().connect())
            .unwrap();
        assert!(source.findings().is_empty(), "{:?}", source.findings());
        let registry = allow_all(source.clone());
        assert_eq!(
            registry.get("notes_add").unwrap().spec().effect,
            Effect::ReadOnly
        );
        let remember = registry.get("notes_remember").unwrap().spec();
        assert_eq!(remember.effect, Effect::Write);
        assert!(remember.needs_idempotency_key(Effect::Write));
        let ctx = Context::new();
        let run = |name: &str, arguments: Value| {
            runtime.block_on(registry.dispatch(&ctx, call(name, arguments)))
        };
        assert_eq!(
            run("notes_add", json!({"a": 2, "b": 3})).outcome.unwrap(),
            toolwright::ToolOutput::Json(json!({"result": 5}))
        );
        // Pydantic's constraint, checked here.
        let empty = run("notes_forecast", json!({"city": ""}))
            .outcome
            .unwrap_err();
        assert_eq!(empty.problems[0].path, "$.city", "{empty:?}");
        let forecast = run("notes_forecast", json!({"city": "Oslo"}))
            .outcome
            .unwrap();
        assert_eq!(
            forecast.to_text(),
            r#"{"city":"Oslo","celsius":21.5,"sky":"clear"}"#
        );
        // Its ToolError arrives as a failure the model can read.
        let zero = run("notes_divide", json!({"a": 1, "b": 0}))
            .outcome
            .unwrap_err();
        assert!(zero.message.contains("cannot divide by zero"), "{zero:?}");
        assert!(
            run("notes_remember", json!({"note": "milk"}))
                .outcome
                .is_ok()
        );
        let kept = run("notes_notes", json!({})).outcome.unwrap().to_text();
        assert!(kept.contains("milk"), "{kept}");
        assert_eq!(source.connections(), 1, "one session throughout");
    }
    http_server.kill().unwrap();
    http_server.wait().unwrap();
}

/// A small deterministic generator for the kill test's moments (xorshift64*).
#[cfg(feature = "redb")]
struct Moments(u64);

#[cfg(feature = "redb")]
impl Moments {
    fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % below
    }
}

/// 100 rounds against the example server over HTTP (a redb store, so its keys outlive
/// it), each round a read-only call, a keyed external call through a source that knows
/// the server honours keys, and an external call through one that does not, while the
/// server is killed (SIGKILL) at a random moment in about half the rounds and started
/// again. Counted on the server's side, in its ledger: no payout ever happens twice; a
/// source that does not know the server honours keys never sends a call again; a
/// read-only call recovers on the restarted server at its first try.
#[cfg(feature = "redb")]
#[test]
fn killing_the_server_at_random_moments_never_repeats_an_effect() {
    let runtime = runtime();
    let dir = std::env::temp_dir().join(format!("toolwright-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let ledger = dir.join("payouts.log");
    let store = dir.join("keys.redb");
    let port = free_port();
    let address = format!("127.0.0.1:{port}");
    let args = [
        "--http",
        &address,
        "--ledger",
        ledger.to_str().unwrap(),
        "--store",
        store.to_str().unwrap(),
        "--lease-ms",
        "500",
    ];
    let mut server = HttpServer::start_with(&args, &[]);
    let url = server.url.clone();
    let connect = |source: toolwright::mcp_client::McpSourceBuilder| {
        runtime
            .block_on(
                source
                    .trust_annotations()
                    .call_timeout(Duration::from_secs(5))
                    .connect(),
            )
            .unwrap()
    };
    let reads = connect(McpSource::http("example", &url).only(["convert_temperature"]));
    let keyed = connect(
        McpSource::http("example", &url)
            .only(["send_payout"])
            .honours_idempotency_keys(),
    );
    let plain = connect(McpSource::http("example", &url).only(["send_payout"]));
    let registry = |source: &Arc<McpSource>| Arc::new(allow_all(source.clone()));
    let (reads_registry, keyed_registry, plain_registry) =
        (registry(&reads), registry(&keyed), registry(&plain));
    let ctx = Arc::new(Context::new().with(Caller::new("kill-test", [] as [&str; 0])));
    let dispatch = |registry: &Arc<Registry>, call: ToolCall| {
        let (registry, ctx) = (registry.clone(), ctx.clone());
        runtime.spawn(async move { registry.dispatch(&ctx, call).await.outcome })
    };
    let read = || {
        call(
            "convert_temperature",
            json!({"value": 1.0, "from": "celsius", "to": "kelvin"}),
        )
    };

    let mut moments = Moments(0x5EED_2026_1201);
    let (mut kills, mut keyed_unknown, mut reads_failed) = (0, 0, 0);
    let (mut plain_unknown, mut plain_unreached) = (0, 0);
    let mut keyed_retry_keys = Vec::new();
    for round in 0..100 {
        let reading = dispatch(&reads_registry, read());
        let key = format!("round-{round}");
        let paying = dispatch(
            &keyed_registry,
            call(
                "send_payout",
                json!({"recipient": format!("keyed-{round}"), "amount": 5}),
            )
            .with_idempotency_key(key.clone()),
        );
        let paying_plain = dispatch(
            &plain_registry,
            call(
                "send_payout",
                json!({"recipient": format!("plain-{round}"), "amount": 5}),
            ),
        );
        let killed = moments.next(2) == 0;
        if killed {
            std::thread::sleep(Duration::from_millis(moments.next(400)));
            server.child.kill().unwrap();
            server.child.wait().unwrap();
            kills += 1;
        }
        let (reading, paying, paying_plain) = runtime.block_on(async {
            (
                reading.await.unwrap(),
                paying.await.unwrap(),
                paying_plain.await.unwrap(),
            )
        });
        reads_failed += usize::from(reading.is_err());
        if paying.is_err() {
            keyed_unknown += 1;
            keyed_retry_keys.push((round, key));
        }
        if let Err(error) = &paying_plain {
            // Either nothing was sent (the server was down: safe to call again), or the
            // outcome is unknown (never to be called again blindly).
            if error.message.contains("cannot be reached") {
                plain_unreached += 1;
                assert!(error.retryable, "round {round}: {error:?}");
            } else {
                plain_unknown += 1;
                assert!(!error.retryable, "round {round}: {error:?}");
                assert!(
                    error.message.contains("unknown"),
                    "round {round}: {error:?}"
                );
            }
        }
        if killed {
            server = HttpServer::start_with(&args, &[]);
            // Recovery within one retry: the first read on the restarted server works.
            let after = runtime.block_on(dispatch(&reads_registry, read())).unwrap();
            assert!(after.is_ok(), "round {round}: {after:?}");
        }
    }
    // Every keyed payout whose outcome was unknown, sent again with its key from a fresh
    // client (no local store to answer): the server's store answers, nothing is paid.
    let fresh = Arc::new(allow_all(connect(
        McpSource::http("example", &url)
            .only(["send_payout"])
            .honours_idempotency_keys(),
    )));
    std::thread::sleep(Duration::from_millis(600)); // the killed attempts' leases lapse
    for (round, key) in &keyed_retry_keys {
        let again = runtime.block_on(dispatch(
            &fresh,
            call(
                "send_payout",
                json!({"recipient": format!("keyed-{round}"), "amount": 5}),
            )
            .with_idempotency_key(key.clone()),
        ));
        let _ = again.unwrap();
    }
    let lines = std::fs::read_to_string(&ledger).unwrap();
    let paid = |recipient: &str| {
        lines
            .lines()
            .filter(|line| line.split(' ').next() == Some(recipient))
            .count()
    };
    let mut keyed_paid = 0;
    for round in 0..100 {
        let (keyed, plain) = (
            paid(&format!("keyed-{round}")),
            paid(&format!("plain-{round}")),
        );
        assert!(
            keyed <= 1 && plain <= 1,
            "round {round} paid twice:\n{lines}"
        );
        keyed_paid += keyed;
    }
    assert_eq!(
        plain.replays(),
        0,
        "a call of unknown outcome was sent again"
    );
    eprintln!(
        "kill test: {kills} kills in 100 rounds; read-only calls failed {reads_failed} (the server down), \
         keyed payouts of unknown outcome {keyed_unknown} (replayed {} times under their keys), \
         payouts through the source that does not know keys are honoured: {plain_unknown} of unknown \
         outcome (replayed 0 times), {plain_unreached} refused before sending; \
         keyed payouts in the ledger {keyed_paid}, at most one per key",
        keyed.replays()
    );
    assert!(kills >= 30, "the kills happened: {kills}");
}

/// `examples/mcp_hub.rs` (built by `cargo test` with the test's features) imports the
/// three servers, shows the model one definition instead of all of them, finds tools of
/// different servers by search, and runs one program over two servers.
#[cfg(all(feature = "search", feature = "code"))]
#[test]
fn the_hub_example_runs_one_program_over_two_servers() {
    if crate::support::node_clients().is_none() {
        return;
    }
    crate::support::python();
    server_binary();
    let hub = std::env::current_exe()
        .unwrap()
        .parent()
        .and_then(std::path::Path::parent)
        .unwrap()
        .join("examples/mcp_hub");
    assert!(
        hub.exists(),
        "cargo test --workspace builds the example: {}",
        hub.display()
    );
    let output = Command::new(&hub).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for line in [
        "example: 12 tools imported, 0 findings",
        "everything: 11 tools imported, 0 findings",
        "notes: 5 tools imported, 0 findings",
        "the model is shown 1 definitions",
        r#"search_tools("add two numbers") loads ["notes_add","ev_get-sum""#,
        r#"run_code -> {"total":42,"kelvin":"315.15"}"#,
    ] {
        assert!(stdout.contains(line), "{line}\n{stdout}");
    }
}

/// A remote server that asks a person mid-call (the example server's payout over 1,000,
/// with `--client-approval`: a 2026-07-28 input-required result) pauses the imported
/// call as toolwright's own `awaiting_approval`, with a signed ticket; nothing is paid.
/// Approved (`Registry::resume`), the call goes out again and the server's form is
/// answered yes: paid once, however often the decision is replayed. Declined: never paid.
#[test]
fn a_remote_servers_question_becomes_an_approval_ticket_here() {
    remote_question_becomes_a_ticket(&[]);
}

/// The same, the server making each payout a task (2026-07-28's tasks extension): the
/// client follows the task, its question is the same approval, and a yes goes back
/// through `tasks/update`.
#[test]
fn a_remote_task_is_followed_and_its_question_becomes_an_approval_ticket_here() {
    remote_question_becomes_a_ticket(&["--tasks"]);
}

fn remote_question_becomes_a_ticket(extra: &[&str]) {
    use toolwright::approval::ApprovalDecision;
    let runtime = runtime();
    let dir = std::env::temp_dir().join(format!(
        "toolwright-remote-ask-{}-{}",
        std::process::id(),
        extra.len()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let ledger = dir.join("payouts.log");
    let _ = std::fs::remove_file(&ledger);
    let mut args = vec!["--ledger", ledger.to_str().unwrap(), "--client-approval"];
    args.extend_from_slice(extra);
    let server = HttpServer::start_with(&args, &[]);
    let source = runtime
        .block_on(McpSource::http("payments", &server.url).connect())
        .unwrap();
    // The server is a stranger: the local policy would ask first; allowed here, so the
    // question is the server's.
    let registry = allow_all(source);
    let ctx = Context::new();
    let paid = || {
        std::fs::read_to_string(&ledger)
            .unwrap_or_default()
            .lines()
            .count()
    };
    let ask = |recipient: &str| {
        runtime.block_on(registry.dispatch(
            &ctx,
            call(
                "send_payout",
                json!({"recipient": recipient, "amount": 5000}),
            ),
        ))
    };

    let paused = ask("acct-big");
    let error = paused.outcome.as_ref().unwrap_err();
    assert_eq!(error.kind, ErrorKind::AwaitingApproval, "{error:?}");
    assert!(
        error.message.contains("asks a person") && error.message.contains("5000"),
        "{error:?}"
    );
    // The person reads whose words the question is: the server's, not toolwright's.
    assert!(
        error.message.contains("in its own words, not toolwright's"),
        "{error:?}"
    );
    let ticket = paused.ticket.clone().expect("a ticket of our own");
    assert_eq!(paid(), 0, "nothing ran");

    let approve = ApprovalDecision::Approve {
        digest: ticket.digest.clone(),
    };
    let done = runtime.block_on(registry.resume(&ctx, &ticket, approve.clone()));
    assert_eq!(
        done.outcome.as_ref().unwrap().to_text(),
        "paid 5000 to acct-big"
    );
    let again = runtime.block_on(registry.resume(&ctx, &ticket, approve));
    assert!(again.duplicate, "{again:?}");
    assert_eq!(paid(), 1, "paid once");

    let declined_call = ask("acct-other");
    let ticket = declined_call.ticket.clone().expect("a ticket");
    let declined = runtime.block_on(registry.resume(
        &ctx,
        &ticket,
        ApprovalDecision::Decline {
            digest: ticket.digest.clone(),
            reason: "not today".into(),
        },
    ));
    assert_eq!(declined.outcome.unwrap_err().kind, ErrorKind::Denied);
    assert_eq!(paid(), 1, "declined: never paid");
}

/// A slow call the server makes a task is followed to its result; a server that cannot
/// take another task says so, which shows the call went the task's way.
#[test]
fn a_remote_task_is_followed_to_its_result() {
    let runtime = runtime();
    let server = HttpServer::start_with(&["--tasks"], &[]);
    let source = runtime
        .block_on(McpSource::http("example", &server.url).connect())
        .unwrap();
    let registry = allow_all(source);
    let report = runtime
        .block_on(registry.dispatch(&Context::new(), call("build_report", json!({"weeks": 3}))));
    assert_eq!(
        report.outcome.as_ref().unwrap().to_text(),
        "activity report of the last 3 weeks: all quiet",
        "{report:?}"
    );
    let full = HttpServer::start_with(&["--tasks", "--max-tasks", "0"], &[]);
    let source = runtime
        .block_on(McpSource::http("example", &full.url).connect())
        .unwrap();
    let refused = runtime.block_on(
        allow_all(source).dispatch(&Context::new(), call("build_report", json!({"weeks": 1}))),
    );
    assert!(
        refused.for_model().contains("live tasks"),
        "{}",
        refused.for_model()
    );
}

/// A client that stops in the middle of a keyed call the server made a task, and starts
/// again on the same store: the retry with the same key finds the task recorded under it
/// and follows it to its end, instead of sending the payout again or answering "outcome
/// unknown". The stop is simulated by abandoning the call's future (never polled again,
/// never dropped: no cancel is sent, no outcome recorded, the lease not renewed).
#[test]
fn a_restarted_client_follows_the_task_its_keyed_call_became() {
    use toolwright::idempotency::{Idempotency, IdempotencyStore, MemoryStore};
    let runtime = runtime();
    let dir = std::env::temp_dir().join(format!("toolwright-client-task-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ledger = dir.join("payouts.log");
    let _ = std::fs::remove_file(&ledger);
    let server = HttpServer::start_with(&["--tasks", "--ledger", ledger.to_str().unwrap()], &[]);
    let store = Arc::new(MemoryStore::new());
    let client = |store: &Arc<MemoryStore>| {
        let source = runtime
            .block_on(McpSource::http("payments", &server.url).connect())
            .unwrap();
        Registry::builder()
            .with_toolset(source)
            .defaults(ToolSettings::new().policy(AllowAll))
            .with_idempotency(Idempotency::new(store.clone()).lease(Duration::from_millis(200)))
            .build()
            .unwrap()
    };
    let payout = || {
        call("send_payout", json!({"recipient": "acct-r", "amount": 500}))
            .with_idempotency_key("payout-acct-r-1")
    };
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64
    };

    let first = client(&store);
    let ctx = Context::new();
    let mut running = Box::pin(first.dispatch(&ctx, payout()));
    runtime.block_on(async {
        for _ in 0..200 {
            tokio::select! {
                result = &mut running => panic!("the payout ended before its task was recorded: {result:?}"),
                () = tokio::time::sleep(Duration::from_millis(10)) => {}
            }
            let tasks = store.tasks().unwrap();
            let listed = tasks.list("dev.toolwright/mcp-client", None, 10, now()).await;
            if listed.unwrap().len() == 1 {
                return;
            }
        }
        panic!("the task was never recorded");
    });
    std::mem::forget(running);

    // The restarted client, once the first one's lease has run out.
    std::thread::sleep(Duration::from_millis(400));
    let second = client(&store);
    let retried = runtime.block_on(second.dispatch(&ctx, payout()));
    assert_eq!(
        retried.outcome.as_ref().map(|output| output.to_text()),
        Ok("paid 500 to acct-r".to_owned()),
        "{retried:?}"
    );
    let again = runtime.block_on(second.dispatch(&ctx, payout()));
    assert!(again.duplicate, "recorded under the key: {again:?}");
    let paid = std::fs::read_to_string(&ledger).unwrap_or_default();
    assert_eq!(
        paid.lines()
            .filter(|line| line.starts_with("acct-r 500"))
            .count(),
        1,
        "paid once: {paid:?}"
    );
}
