//! Tool calls as journaled steps of a Restate workflow, against a real Restate server
//! (`scripts/test/restate-server` installs it from npm; each test starts a throwaway one
//! on loopback): a run's calls go through the registry once, a call that needs approval
//! suspends the run on an awakeable that a person's decision, sent to Restate's ingress
//! from elsewhere, resolves; the decided call runs once.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use restate_sdk::prelude::*;
use serde_json::{Value, json};
use toolwright::restate::Journal;
use toolwright::{Context, Registry, ToolCall, ToolError, tool};

use crate::support;
use crate::support::Random;

/// A Restate server on loopback ports of its own, with its data in a temporary
/// directory; killed and removed when dropped.
struct RestateServer {
    child: Child,
    dir: PathBuf,
    ingress: String,
    admin: String,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl RestateServer {
    fn start(binary: &Path) -> Self {
        Self::start_with(binary, &[])
    }

    fn start_with(binary: &Path, env: &[(&str, &str)]) -> Self {
        let dir = std::env::temp_dir().join(format!("toolwright-restate-{}", free_port()));
        let (ingress, admin, node) = (free_port(), free_port(), free_port());
        let child = Command::new(binary)
            .envs(env.iter().copied())
            .args([
                "--base-dir",
                dir.to_str().unwrap(),
                "--node-name",
                "test",
                "--no-logo",
            ])
            .env(
                "RESTATE_INGRESS__BIND_ADDRESS",
                format!("127.0.0.1:{ingress}"),
            )
            .env("RESTATE_ADMIN__BIND_ADDRESS", format!("127.0.0.1:{admin}"))
            .env("RESTATE_BIND_ADDRESS", format!("127.0.0.1:{node}"))
            .env(
                "RESTATE_ADVERTISED_ADDRESS",
                format!("http://127.0.0.1:{node}"),
            )
            .env("RESTATE_DISABLE_TELEMETRY", "true")
            // Small: two partitions and 256 MiB for RocksDB start in a fifth of a second
            // with 4 MiB of data (the defaults: 24 and 2 GiB, 220 MiB on disk).
            .env("RESTATE_DEFAULT_NUM_PARTITIONS", "2")
            .env("RESTATE_ROCKSDB_TOTAL_MEMORY_SIZE", "256MiB")
            .env("RESTATE_LISTEN_MODE", "tcp")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the Restate server starts");
        let server = RestateServer {
            child,
            dir,
            ingress: format!("http://127.0.0.1:{ingress}"),
            admin: format!("http://127.0.0.1:{admin}"),
        };
        let started = Instant::now();
        while get(&format!("{}/health", server.admin)).is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the Restate server answers its health check within a minute"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }

    /// Registers the service endpoint at `endpoint` (the server discovers its services).
    fn register(&self, endpoint: SocketAddr) {
        let (status, body) = post(
            &format!("{}/deployments", self.admin),
            &json!({"uri": format!("http://{endpoint}")}).to_string(),
        );
        assert!(
            (200..300).contains(&status),
            "registration: {status} {body}"
        );
    }
}

impl Drop for RestateServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .new_agent()
}

fn get(url: &str) -> Option<(u16, String)> {
    let mut response = agent().get(url).call().ok()?;
    let status = response.status().as_u16();
    Some((
        status,
        response.body_mut().read_to_string().unwrap_or_default(),
    ))
}

fn post(url: &str, body: &str) -> (u16, String) {
    let mut response = agent()
        .post(url)
        .header("Content-Type", "application/json")
        .send(body)
        .unwrap_or_else(|error| panic!("POST {url}: {error}"));
    let status = response.status().as_u16();
    (
        status,
        response.body_mut().read_to_string().unwrap_or_default(),
    )
}

static LOOKED_UP: AtomicUsize = AtomicUsize::new(0);
static REFUNDED: AtomicUsize = AtomicUsize::new(0);

/// Look an order up. Use before acting on one.
#[tool(effect = "read_only")]
fn look_up(
    /// The order, like `A-1`.
    order: String,
) -> String {
    LOOKED_UP.fetch_add(1, Ordering::SeqCst);
    format!("order {order} is open")
}

/// Refund an order in full. Use when the customer asks for their money back.
#[tool(effect = "external")]
fn refund(
    /// The order, like `A-1`.
    order: String,
) -> Result<String, ToolError> {
    REFUNDED.fetch_add(1, Ordering::SeqCst);
    Ok(format!("refunded {order}"))
}

/// Read the whole log.
#[tool(effect = "read_only")]
fn read_log() -> String {
    "x".repeat(300_000)
}

/// Say whether the service answers.
#[tool(effect = "read_only")]
fn ping() -> String {
    "pong".into()
}

/// The awakeables runs wait on, with the tickets to decide.
type Waiting = Arc<Mutex<Vec<(String, Value)>>>;

/// An agent run: the scripted calls in order, each a journaled step.
struct AgentRun {
    registry: Arc<Registry>,
    waiting: Waiting,
    max_entry_bytes: usize,
}

#[restate_sdk::workflow]
impl AgentRun {
    #[handler]
    async fn run(
        &self,
        ctx: WorkflowContext<'_>,
        calls: Json<Vec<(String, Value)>>,
    ) -> Result<Json<Vec<String>>, HandlerError> {
        let waiting = self.waiting.clone();
        let journal = Journal::new(self.registry.clone(), Arc::new(Context::new()), ctx.key())
            .on_approval(move |awakeable, ticket| {
                let ticket = serde_json::to_value(ticket).unwrap();
                waiting.lock().unwrap().push((awakeable.to_owned(), ticket));
            })
            .max_entry_bytes(self.max_entry_bytes);
        let mut answers = Vec::new();
        for (index, (name, arguments)) in calls.into_inner().into_iter().enumerate() {
            let call = ToolCall::new(format!("call-{index}"), name, arguments);
            let result = journal.dispatch(&ctx, call).await?;
            answers.push(result.for_model().to_owned());
        }
        Ok(Json(answers))
    }
}

/// Serves `run` on a loopback port, on a runtime of its own.
fn serve(run: AgentRun) -> SocketAddr {
    let address: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
            .block_on(
                HttpServer::new(Endpoint::builder().bind(run).build()).listen_and_serve(address),
            );
    });
    let started = Instant::now();
    while std::net::TcpStream::connect(address).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the endpoint listens"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    address
}

#[test]
fn a_run_waits_for_approval_and_runs_each_call_once() {
    let Some(binary) = support::restate_server() else {
        return;
    };
    let server = RestateServer::start(&binary);
    let registry = Registry::builder()
        .with(LookUp)
        .with(Refund)
        .with_approval_secret(*b"restate-test-secret-0123456789ab")
        .build()
        .unwrap();
    let waiting: Waiting = Arc::default();
    let endpoint = serve(AgentRun {
        registry: Arc::new(registry),
        waiting: waiting.clone(),
        max_entry_bytes: toolwright::restate::MAX_ENTRY_BYTES,
    });
    server.register(endpoint);

    let calls = json!([["look_up", {"order": "A-1"}], ["refund", {"order": "A-1"}]]);
    let run = {
        let url = format!("{}/AgentRun/run-1/run", server.ingress);
        std::thread::spawn(move || post(&url, &calls.to_string()))
    };
    // The refund waits for a person: its awakeable and ticket are handed out once.
    let started = Instant::now();
    let (awakeable, ticket) = loop {
        if let Some(first) = waiting.lock().unwrap().first().cloned() {
            break first;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the refund asks for approval"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(ticket["tool"], "refund");
    assert_eq!(
        REFUNDED.load(Ordering::SeqCst),
        0,
        "nothing refunded before approval"
    );

    // The person approves, from anywhere: the awakeable is resolved through the ingress.
    let decision = json!({"decision": "approve", "digest": ticket["digest"]});
    let (status, body) = post(
        &format!("{}/restate/awakeables/{awakeable}/resolve", server.ingress),
        &decision.to_string(),
    );
    assert!((200..300).contains(&status), "resolve: {status} {body}");

    let (status, body) = run.join().unwrap();
    assert_eq!(status, 200, "{body}");
    let answers: Vec<String> = serde_json::from_str(&body).unwrap();
    assert_eq!(answers, ["order A-1 is open", "refunded A-1"]);
    assert_eq!(LOOKED_UP.load(Ordering::SeqCst), 1);
    assert_eq!(REFUNDED.load(Ordering::SeqCst), 1);
    assert_eq!(waiting.lock().unwrap().len(), 1, "asked once");

    // The finished run's output is kept by Restate; asking again runs nothing.
    let (status, output) = get(&format!(
        "{}/restate/workflow/AgentRun/run-1/output",
        server.ingress
    ))
    .expect("the ingress answers");
    assert_eq!(status, 200, "{output}");
    assert_eq!(
        serde_json::from_str::<Vec<String>>(&output).unwrap(),
        answers
    );
    assert_eq!(REFUNDED.load(Ordering::SeqCst), 1);
}

/// A result over the journal's limit is recorded as an error saying the call ran and its
/// result was not kept, not sent to the server to be refused.
#[test]
fn a_result_too_large_for_the_journal_is_recorded_as_not_kept() {
    let Some(binary) = support::restate_server() else {
        return;
    };
    let server = RestateServer::start(&binary);
    let registry = Registry::builder()
        .with(ReadLog)
        .with(Ping)
        .build()
        .unwrap();
    let endpoint = serve(AgentRun {
        registry: Arc::new(registry),
        waiting: Arc::default(),
        max_entry_bytes: 100_000,
    });
    server.register(endpoint);
    let calls = json!([["read_log", {}], ["ping", {}]]);
    let (status, body) = post(
        &format!("{}/AgentRun/big-1/run", server.ingress),
        &calls.to_string(),
    );
    assert_eq!(status, 200, "{body}");
    let answers: Vec<String> = serde_json::from_str(&body).unwrap();
    assert!(
        answers[0].contains("'read_log' ran, but its result")
            && answers[0].contains("over the 100000 bytes a journal entry may hold"),
        "{}",
        answers[0]
    );
    assert_eq!(answers[1], "pong", "the run goes on");
}

/// The example agent (examples/restate_agent.rs) as a process of its own, on `port`.
fn agent_process(binary: &Path, port: u16, work: &Path) -> Child {
    let child = Command::new(binary)
        .args([
            "--port",
            &port.to_string(),
            "--lease-ms",
            "300",
            "--pause-ms",
            "60",
        ])
        .arg("--store")
        .arg(work.join("agent.redb"))
        .arg("--ledger")
        .arg(work.join("ledger"))
        .arg("--approvals")
        .arg(work.join("approvals"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the example agent starts");
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the agent listens"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    child
}

/// The service process is killed with SIGKILL at random moments of 25 agent runs (each:
/// a look-up, a payout that waits for approval, a cancellation), at least 100 times, and
/// started again; Restate re-invokes the runs. Then: every run completes; no payout (an
/// external call, keyed) and no cancellation (destructive, unkeyed) happens twice; a
/// cancellation cut mid-step is surfaced as "outcome unknown", never run again; every
/// run nothing was in doubt in answers as an uninterrupted run does.
#[test]
fn killing_the_service_at_random_moments_never_repeats_an_effect() {
    let Some(restate) = support::restate_server() else {
        return;
    };
    let agent = support::example_binary("restate_agent", &["restate_agent"]);
    // Retries come quickly, so the runs finish within the test.
    let server = RestateServer::start_with(
        &restate,
        &[
            ("RESTATE_DEFAULT_RETRY_POLICY__INITIAL_INTERVAL", "50ms"),
            ("RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL", "300ms"),
            ("RESTATE_DEFAULT_RETRY_POLICY__MAX_ATTEMPTS", "100000"),
        ],
    );
    let work = std::env::temp_dir().join(format!("toolwright-restate-agent-{}", free_port()));
    std::fs::create_dir_all(work.join("approvals")).unwrap();
    let port = free_port();
    let mut process = agent_process(&agent, port, &work);
    server.register(format!("127.0.0.1:{port}").parse().unwrap());

    const RUNS: usize = 25;
    let start_run = |run: usize| {
        let (status, body) = post(
            &format!("{}/AgentRun/r{run}/run/send", server.ingress),
            &json!(format!("O{run}")).to_string(),
        );
        assert!((200..300).contains(&status), "send: {status} {body}");
    };
    // A person approves every payout, once per awakeable, from outside the agent.
    let approver = {
        let (dir, ingress) = (work.join("approvals"), server.ingress.clone());
        std::thread::spawn(move || {
            let mut decided = std::collections::HashSet::new();
            let started = Instant::now();
            while decided.len() < RUNS && started.elapsed() < Duration::from_secs(240) {
                for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                    let awakeable = entry.file_name().to_string_lossy().into_owned();
                    let Ok(ticket) = std::fs::read_to_string(entry.path()) else {
                        continue;
                    };
                    let Ok(ticket) = serde_json::from_str::<Value>(&ticket) else {
                        continue;
                    };
                    if decided.insert(awakeable.clone()) {
                        let decision = json!({"decision": "approve", "digest": ticket["digest"]});
                        post(
                            &format!("{ingress}/restate/awakeables/{awakeable}/resolve"),
                            &decision.to_string(),
                        );
                    }
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let mut random = Random::seeded();
    eprintln!(
        "restate crash test: seed {} (TOOLWRIGHT_CRASH_SEED replays it)",
        random.seed()
    );
    let output = |run: usize| {
        get(&format!(
            "{}/restate/workflow/AgentRun/r{run}/output",
            server.ingress
        ))
        .filter(|(status, _)| *status == 200)
        .map(|(_, body)| serde_json::from_str::<Vec<String>>(&body).unwrap())
    };
    // A run starts every fourth kill, so kills fall on every stage of some run, and
    // some runs go between two kills untouched.
    let mut kills = 0;
    while kills < 100 {
        if kills % 4 == 0 {
            start_run(kills / 4);
        }
        std::thread::sleep(Duration::from_millis(20 + random.below(400)));
        process.kill().unwrap();
        process.wait().unwrap();
        kills += 1;
        process = agent_process(&agent, port, &work);
    }
    let started = Instant::now();
    let answers: Vec<Vec<String>> = (0..RUNS)
        .map(|run| {
            loop {
                if let Some(answers) = output(run) {
                    break answers;
                }
                assert!(
                    started.elapsed() < Duration::from_secs(180),
                    "run r{run} completes after the kills"
                );
                std::thread::sleep(Duration::from_millis(100));
            }
        })
        .collect();
    process.kill().unwrap();
    process.wait().unwrap();
    approver.join().unwrap();

    let ledger = std::fs::read_to_string(work.join("ledger")).unwrap_or_default();
    let count = |line: &str| ledger.lines().filter(|l| *l == line).count();
    let (mut unknown_payouts, mut unknown_cancels, mut whole) = (0, 0, 0);
    for (run, answers) in answers.iter().enumerate() {
        let order = format!("O{run}");
        assert_eq!(answers.len(), 3, "r{run}: {answers:?}");
        assert!(answers[0].contains("120 EUR"), "r{run}: {answers:?}");
        let (payouts, cancels) = (
            count(&format!("payout {order} 120")),
            count(&format!("cancel {order}")),
        );
        assert!(payouts <= 1, "r{run}: the payout happened {payouts} times");
        assert!(
            cancels <= 1,
            "r{run}: the cancellation happened {cancels} times"
        );
        if answers[1] == format!("paid 120 EUR for {order}") {
            assert_eq!(payouts, 1, "r{run}: paid, and in the ledger once");
        } else {
            assert!(answers[1].contains("outcome"), "r{run}: {answers:?}");
            unknown_payouts += 1;
        }
        if answers[2] == format!("cancelled the subscription of {order}") {
            assert_eq!(cancels, 1, "r{run}: cancelled, and in the ledger once");
        } else {
            assert!(
                answers[2].contains("outcome unknown"),
                "r{run}: {answers:?}"
            );
            unknown_cancels += 1;
        }
        if answers[1].starts_with("paid") && answers[2].starts_with("cancelled") {
            whole += 1;
        }
    }
    eprintln!(
        "restate crash test: {RUNS} runs, {kills} kills; {whole} runs answered as uninterrupted; in doubt and surfaced: {unknown_payouts} payouts, {unknown_cancels} cancellations; effects twice: 0"
    );
    let _ = std::fs::remove_dir_all(&work);
}
