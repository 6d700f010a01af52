//! `McpSource` against a broken or hostile server nobody would write on purpose
//! (tests/mcp/broken_server.py: raw JSON-RPC, sending what the SDKs refuse to send), over
//! stdio and Streamable HTTP, in both protocol eras: one bad entry costs only itself, no
//! two tools share a name, hostile text is escaped for people and screened for models,
//! listings and refreshes are bounded, broken results keep what is known, an oversized
//! answer fails at once, a respawned server is checked before its first call, server
//! requests are capped, and an unknown outcome is never sent again.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolwright::mcp_client::{
    FindingKind, ImportLimits, ImportStatus, McpSource, McpSourceBuilder, ToolReport,
};
use toolwright::policy::AllowAll;
use toolwright::{Context, ErrorKind, Registry, ToolCall, ToolOutput, ToolSettings, tool};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

const SERVER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/broken_server.py");

/// Where the broken server runs.
#[derive(Debug, Clone, Copy)]
enum Transport {
    Stdio,
    Http,
}

/// The four ways to reach it: each transport, each era.
const EVERY_WAY: [(Transport, &str); 4] = [
    (Transport::Stdio, "2025"),
    (Transport::Stdio, "2026"),
    (Transport::Http, "2025"),
    (Transport::Http, "2026"),
];

/// A broken server over HTTP, stopped when dropped.
struct HttpBroken {
    child: Child,
    url: String,
}

impl Drop for HttpBroken {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start_http(port: u16, era: &str, scenario: &str) -> HttpBroken {
    let mut child = Command::new(crate::support::python())
        .args([SERVER, "--http", &port.to_string(), "--era", era])
        .args(["--scenario", scenario])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "listening");
    HttpBroken {
        child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

/// The broken server's source (and the HTTP server to keep alive).
fn broken(
    transport: Transport,
    era: &str,
    scenario: &str,
) -> (McpSourceBuilder, Option<HttpBroken>) {
    match transport {
        Transport::Stdio => {
            let mut command = Command::new(crate::support::python());
            command.args([SERVER, "--era", era, "--scenario", scenario]);
            (McpSource::stdio("broken", command), None)
        }
        Transport::Http => {
            let server = start_http(free_port(), era, scenario);
            (McpSource::http("broken", &server.url), Some(server))
        }
    }
}

fn call(name: &str, arguments: Value) -> ToolCall {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let id = CALLS.fetch_add(1, Ordering::Relaxed);
    ToolCall::new(format!("hostile-{id}"), name, arguments)
}

fn allow_all(source: Arc<McpSource>) -> Registry {
    Registry::builder()
        .with_toolset(source)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap()
}

fn status<'a>(report: &'a [ToolReport], tool: &str) -> &'a ImportStatus {
    &report
        .iter()
        .find(|line| line.tool == tool)
        .unwrap_or_else(|| panic!("no report for {tool}: {report:#?}"))
        .status
}

fn refused(report: &[ToolReport], tool: &str) -> String {
    match status(report, tool) {
        ImportStatus::Refused(reason) => reason.clone(),
        other => panic!("{tool} was not refused: {other:?}"),
    }
}

/// The server's own count of what it saw (the tool `stats`).
fn stats(runtime: &tokio::runtime::Runtime, registry: &Registry) -> Value {
    let result = runtime.block_on(registry.dispatch(&Context::new(), call("stats", json!({}))));
    serde_json::from_str(&result.outcome.unwrap().to_text()).unwrap()
}

/// Stands in for a local tool whose name a server also lists.
#[tool(effect = "read_only")]
fn local_clash() -> String {
    "local".to_owned()
}

#[test]
fn one_bad_entry_costs_only_itself_and_no_two_tools_share_a_name() {
    let runtime = runtime();
    for (transport, era) in EVERY_WAY {
        let (builder, _server) = broken(transport, era, "entries");
        let source = runtime
            .block_on(builder.connect())
            .unwrap_or_else(|error| panic!("{transport:?} {era}: {error}"));
        let report = source.report();
        // Each malformed entry is refused by itself, saying what is wrong.
        assert!(refused(&report, "bool_schema").contains("`inputSchema` is `true`"));
        assert!(refused(&report, "no_schema").contains("no `inputSchema`"));
        assert!(
            refused(&report, "bad_annotations").contains("annotations.readOnlyHint"),
            "{report:#?}"
        );
        assert!(refused(&report, "(entry 5 of the list)").contains("not a JSON object"));
        // The honest tools import.
        assert_eq!(status(&report, "echo"), &ImportStatus::Imported);
        // Names: mapped, but never into a collision; twice listed, both refused.
        assert!(refused(&report, "b:echo").contains("'b_echo'"));
        assert!(refused(&report, "b/echo").contains("'b_echo'"));
        assert!(refused(&report, "get.data").contains("'get/data'"));
        assert!(refused(&report, "twice").contains("ambiguous"));
        assert!(refused(&report, "run_code").contains("toolwright's own"));
        assert_eq!(
            status(&report, "has space"),
            &ImportStatus::Flagged(vec![FindingKind::Renamed])
        );
        assert!(matches!(
            status(&report, "GetRows"),
            ImportStatus::Flagged(kinds) if kinds.contains(&FindingKind::Confusable)
        ));
        // Hostile text is escaped wherever a person reads it.
        let broken_line = status(&report, "line\\nbreak");
        assert!(matches!(broken_line, ImportStatus::Flagged(_)));
        for finding in source.findings() {
            let shown = finding.to_string();
            assert!(!shown.contains(['\n', '\0', '\t']), "{shown:?}");
        }
        let mut names: Vec<&str> = source.tool_names().collect();
        let all = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all, "two tools share a name: {names:?}");

        // A local tool of the same name keeps it; the server's gives way, and says so.
        let registry = Registry::builder()
            .with(LocalClash)
            .with_toolset(source.clone())
            .build()
            .unwrap();
        assert!(registry.get("echo").is_some() && registry.get("local_clash").is_some());
        assert!(refused(&source.report(), "local_clash").contains("taken in the registry"));
    }
}

#[test]
fn a_server_gives_way_to_a_later_local_tool_and_takes_a_policy_for_all_its_tools() {
    let runtime = runtime();
    let (builder, _server) = broken(Transport::Stdio, "2026", "entries");
    let source = runtime
        .block_on(
            builder
                .settings(ToolSettings::new().policy(AllowAll))
                .connect(),
        )
        .unwrap();
    // The server's tool came first; the local one, added after, still takes the name.
    let registry = Registry::builder()
        .with_toolset(source.clone())
        .with(LocalClash)
        .build()
        .unwrap();
    assert_eq!(registry.get("local_clash").unwrap().source(), None);
    assert!(refused(&source.report(), "local_clash").contains("taken in the registry"));
    // No `defaults` policy: the server's settings let its (untrusted, external) tools run.
    let echo = runtime.block_on(registry.dispatch(&Context::new(), call("echo", json!({}))));
    assert!(echo.outcome.is_ok(), "{:?}", echo.outcome);
    let local =
        runtime.block_on(registry.dispatch(&Context::new(), call("local_clash", json!({}))));
    assert_eq!(local.outcome.unwrap().to_text(), "local");
}

/// A server's settings say who may call its tools: offered to programs only, its tools
/// are `run_code`'s functions, and not tools of the model's own.
#[cfg(feature = "code")]
#[test]
fn a_servers_settings_offer_its_tools_to_programs() {
    use toolwright::{Callers, Dialect};
    let runtime = runtime();
    let (builder, _server) = broken(Transport::Stdio, "2026", "entries");
    let source = runtime
        .block_on(
            builder
                .settings(ToolSettings::new().policy(AllowAll).callers(Callers::Code))
                .connect(),
        )
        .unwrap();
    let registry = Registry::builder()
        .with_toolset(source.clone())
        .with_code_mode(toolwright::code::CodeMode::new())
        .build()
        .unwrap();
    assert_eq!(registry.get("echo").unwrap().spec().callers, Callers::Code);
    let listed = registry.definitions(&Context::new(), Dialect::Mcp).unwrap();
    assert!(listed.iter().all(|tool| tool["name"] != "echo"));
    let program = ToolCall::new("r", "run_code", json!({"code": "await echo(text='hi')"}));
    let ran = runtime.block_on(registry.dispatch(&Context::new(), program));
    assert!(ran.outcome.is_ok(), "{:?}", ran.outcome);
    assert!(ran.for_model().contains("echo"), "{}", ran.for_model());
    let direct = runtime.block_on(registry.dispatch(&Context::new(), call("echo", json!({}))));
    assert_eq!(direct.error().unwrap().kind, ErrorKind::Denied);
}

#[test]
fn every_string_the_model_reads_is_screened_and_the_finding_says_where() {
    let runtime = runtime();
    let (builder, _server) = broken(Transport::Stdio, "2025", "entries");
    let source = runtime.block_on(builder.connect()).unwrap();
    let places: Vec<(FindingKind, String)> = source
        .findings()
        .into_iter()
        .filter(|finding| finding.tool == "weather")
        .map(|finding| (finding.kind, finding.place.unwrap_or_default()))
        .collect();
    for (kind, place) in [
        (FindingKind::Instructions, "title"),
        (
            FindingKind::Instructions,
            "inputSchema.$.properties.city.description",
        ),
        (
            FindingKind::Instructions,
            "inputSchema.$.properties.city.default",
        ),
        (
            FindingKind::Instructions,
            "inputSchema.$.properties.city.examples[0]",
        ),
        (
            FindingKind::Instructions,
            "inputSchema.$.properties.unit.enum[2]",
        ),
        (FindingKind::HiddenCharacters, "description"),
    ] {
        assert!(
            places.contains(&(kind, place.to_owned())),
            "no {kind:?} at {place}: {places:?}"
        );
    }
    let registry = allow_all(source);
    let description = &registry.get("weather").unwrap().spec().description;
    assert!(!description.contains("SYSTEM") && !description.contains('\u{2028}'));
    assert!(description.contains("Forecast."), "{description}");
}

#[test]
fn broken_results_keep_what_is_known_and_the_model_reads_them_screened() {
    let runtime = runtime();
    for (transport, era) in EVERY_WAY {
        let (builder, _server) = broken(transport, era, "entries");
        let registry = allow_all(runtime.block_on(builder.connect()).unwrap());
        let run = |name: &str| {
            runtime.block_on(registry.dispatch(&Context::new(), call(name, json!({}))))
        };
        let mixed = run("mixed");
        let shown = mixed.for_model().to_owned();
        assert!(
            shown.contains("kept") && shown.contains("[hologram block]"),
            "{transport:?} {era}: {mixed:?}"
        );
        assert!(!shown.contains("s3cr3t"), "{shown}");
        let png = run("bad_png");
        assert!(png.for_model().contains("not base64"), "{png:?}");
        let ansi = run("ansi");
        assert!(
            !ansi.for_model().contains(['\u{1b}', '\u{e0049}']),
            "{ansi:?}"
        );
        assert!(ansi.for_model().contains("red and"), "{ansi:?}");
        let Ok(ToolOutput::Observation { data, .. }) = &ansi.outcome else {
            panic!("the original is kept for the harness: {ansi:?}");
        };
        assert!(data.as_str().unwrap().contains('\u{1b}'));
    }
}

#[test]
fn an_oversized_answer_fails_its_call_at_once_naming_the_limit() {
    let runtime = runtime();
    let (builder, _server) = broken(Transport::Stdio, "2025", "entries");
    let source = runtime
        .block_on(
            builder
                .limits(ImportLimits::default().message_bytes(1024 * 1024))
                .call_timeout(Duration::from_secs(60))
                .connect(),
        )
        .unwrap();
    let registry = allow_all(source);
    let run =
        |name: &str| runtime.block_on(registry.dispatch(&Context::new(), call(name, json!({}))));
    let error = run("oversized").outcome.unwrap_err();
    // Not a timeout: the call failed when the line was dropped.
    assert_eq!(error.kind, ErrorKind::OutcomeUnknown, "{error:?}");
    assert!(
        error.message.contains("limit of 1048576 bytes"),
        "{error:?}"
    );
    assert!(run("echo").outcome.is_ok(), "the connection is still good");

    // Over HTTP, rmcp's own 16 MiB limit on a JSON answer: the call fails at once too.
    let (builder, _server) = broken(Transport::Http, "2025", "entries");
    let source = runtime
        .block_on(builder.call_timeout(Duration::from_secs(60)).connect())
        .unwrap();
    let registry = allow_all(source);
    let started = Instant::now();
    let error = runtime
        .block_on(registry.dispatch(&Context::new(), call("hundred_mib", json!({}))))
        .outcome
        .unwrap_err();
    assert_ne!(error.kind, ErrorKind::Timeout, "{error:?}");
    assert!(!error.retryable, "{error:?}");
    eprintln!("over HTTP, after {:?}: {error:?}", started.elapsed());
}

#[test]
fn looping_and_endless_listings_fail_naming_the_cursor_or_the_cap() {
    let runtime = runtime();
    for (transport, era) in EVERY_WAY {
        let (builder, _server) = broken(transport, era, "loop");
        let error = runtime.block_on(builder.connect()).unwrap_err().to_string();
        assert!(
            error.contains("\"p1\" a second time"),
            "{transport:?} {era}: {error}"
        );
        let (builder, _server) = broken(transport, era, "endless");
        let error = runtime.block_on(builder.connect()).unwrap_err().to_string();
        assert!(
            error.contains("more than 100 pages") && error.contains("\"p100\""),
            "{transport:?} {era}: {error}"
        );
    }
}

#[test]
fn a_flood_of_list_changed_is_folded_into_paced_listings() {
    let runtime = runtime();
    let (builder, _server) = broken(Transport::Stdio, "2025", "flood");
    let registry = allow_all(runtime.block_on(builder.connect()).unwrap());
    let before = stats(&runtime, &registry)["lists"].as_u64().unwrap();
    let started = Instant::now();
    let storm = runtime.block_on(registry.dispatch(&Context::new(), call("storm", json!({}))));
    assert!(storm.outcome.is_ok());
    // Calls keep being served while the announcements arrive.
    for _ in 0..30 {
        assert!(
            runtime
                .block_on(registry.dispatch(&Context::new(), call("echo", json!({}))))
                .outcome
                .is_ok()
        );
    }
    let lists = stats(&runtime, &registry)["lists"].as_u64().unwrap() - before;
    // At most one reading per 100 ms, whatever the number of announcements (5,000).
    let paced = started.elapsed().as_millis() as u64 / 100 + 2;
    assert!(
        lists <= paced,
        "{lists} listings in {:?}",
        started.elapsed()
    );
}

#[test]
fn a_failed_refresh_keeps_the_last_list_and_backs_off() {
    let runtime = runtime();
    let (builder, _server) = broken(Transport::Stdio, "2025", "flaky");
    let registry = allow_all(runtime.block_on(builder.connect()).unwrap());
    let started = Instant::now();
    assert!(
        runtime
            .block_on(registry.dispatch(&Context::new(), call("storm", json!({}))))
            .outcome
            .is_ok()
    );
    // Every reading fails from now on; the calls go on against the list as last read.
    while started.elapsed() < Duration::from_millis(1500) {
        let echo = runtime.block_on(registry.dispatch(&Context::new(), call("echo", json!({}))));
        assert!(echo.outcome.is_ok(), "{:?}", echo.outcome);
        std::thread::sleep(Duration::from_millis(10));
    }
    let lists = stats(&runtime, &registry)["lists"].as_u64().unwrap();
    // Backing off from 100 ms, doubling: at most 1 + log2(elapsed / 100 ms) + 1 readings
    // after the first (1.5 s: 100, 200, 400, 800 ms), never one per call.
    let elapsed = started.elapsed().as_millis() as f64;
    let bound = 2 + (elapsed / 100.0).log2().ceil() as u64 + 1;
    assert!(lists <= bound, "{lists} readings in {elapsed} ms");
}

#[test]
fn a_respawned_server_is_listed_and_checked_before_its_first_call() {
    let runtime = runtime();
    let (builder, _server) = broken(Transport::Stdio, "2025", "entries");
    let source = runtime.block_on(builder.connect()).unwrap();
    let registry = allow_all(source.clone());
    let died = runtime.block_on(registry.dispatch(&Context::new(), call("die", json!({}))));
    assert_eq!(died.outcome.unwrap_err().kind, ErrorKind::OutcomeUnknown);
    // The new process answered one tools/list before it saw the call.
    assert_eq!(stats(&runtime, &registry)["lists"], 1);
    assert_eq!(source.connections(), 2);
}

#[test]
fn an_unknown_outcome_is_never_sent_again_and_says_so() {
    let runtime = runtime();
    for transport in [Transport::Stdio, Transport::Http] {
        let (builder, _server) = broken(transport, "2025", "entries");
        let registry = allow_all(runtime.block_on(builder.connect()).unwrap());
        let died = call("die", json!({}));
        let first = runtime.block_on(registry.dispatch(&Context::new(), died.clone()));
        let first = first.outcome.unwrap_err();
        assert_eq!(
            first.kind,
            ErrorKind::OutcomeUnknown,
            "{transport:?}: {first:?}"
        );
        assert!(!first.retryable);
        let again = runtime.block_on(registry.dispatch(&Context::new(), died));
        let again = again.outcome.unwrap_err();
        assert_eq!(again.kind, ErrorKind::OutcomeUnknown, "{again:?}");
        assert!(
            !again.retryable && again.message.contains("did not run"),
            "{again:?}"
        );
    }
}

#[test]
fn a_safe_call_after_a_crash_waits_for_the_server_to_be_back() {
    let runtime = runtime();
    let port = free_port();
    let server = start_http(port, "2025", "entries");
    let source = runtime
        .block_on(
            McpSource::http("broken", &server.url)
                .call_timeout(Duration::from_secs(20))
                .connect(),
        )
        .unwrap();
    let registry = allow_all(source);
    let died = runtime.block_on(registry.dispatch(&Context::new(), call("die", json!({}))));
    assert!(died.outcome.is_err());
    drop(server);
    // The supervisor brings it back a moment later.
    let restarter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(700));
        start_http(port, "2025", "entries")
    });
    let echo = runtime.block_on(registry.dispatch(&Context::new(), call("echo", json!({}))));
    let _server = restarter.join().unwrap();
    assert!(echo.outcome.is_ok(), "{:?}", echo.outcome);
}

#[test]
fn elicitation_rounds_are_capped_and_roots_are_refused() {
    let runtime = runtime();
    let asked = Arc::new(AtomicUsize::new(0));
    let counter = asked.clone();
    let mut command = Command::new(crate::support::python());
    command.args([SERVER, "--era", "2025"]);
    let source = runtime
        .block_on(
            McpSource::stdio("broken", command)
                .on_elicitation(move |_| {
                    counter.fetch_add(1, Ordering::Relaxed);
                    async {
                        toolwright::mcp_client::rmcp::model::ElicitResult::new(
                            toolwright::mcp_client::rmcp::model::ElicitationAction::Accept,
                        )
                    }
                })
                .connect(),
        )
        .unwrap();
    let registry = allow_all(source);
    let run =
        |name: &str| runtime.block_on(registry.dispatch(&Context::new(), call(name, json!({}))));
    assert!(run("asks").outcome.is_ok());
    let answered = asked.load(Ordering::Relaxed);
    assert!(
        answered as u64 <= toolwright::mcp_client::MAX_ELICITATIONS,
        "{answered} elicitations answered"
    );
    assert!(run("roots").outcome.is_ok());
    let seen = stats(&runtime, &registry);
    assert!(seen["roots"].get("error").is_some(), "{seen}");
}
