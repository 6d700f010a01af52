//! Tool calls as journaled steps of a Restate workflow, against a real Restate server
//! (`scripts/test/restate-server` installs it from npm; each test starts a throwaway one
//! on loopback): a run's calls go through the registry once, a call that needs approval
//! suspends the run on an awakeable that a person's decision, sent to Restate's ingress
//! from elsewhere, resolves; the decided call runs once.

use std::net::SocketAddr;
use std::path::Path;
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
use crate::support::restate_server::{RestateServer, free_port, get, post};

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
        let calls = (calls.into_inner().into_iter().enumerate())
            .map(|(index, (name, arguments))| {
                ToolCall::new(format!("call-{index}"), name, arguments)
            })
            .collect();
        let results = journal.dispatch_batch(&ctx, calls).await?;
        Ok(Json(
            results.iter().map(|r| r.for_model().to_owned()).collect(),
        ))
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

    let calls = json!([
        ["look_up", {"order": "A-1"}],
        ["look_up", {"order": "A-2"}],
        ["refund", {"order": "A-1"}]
    ]);
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
    assert_eq!(
        answers,
        ["order A-1 is open", "order A-2 is open", "refunded A-1"]
    );
    assert_eq!(LOOKED_UP.load(Ordering::SeqCst), 2);
    // Scheduled by effect: the two reads are one step, the refund one of its own, its
    // approval a step and a wait, the decided refund a step.
    let steps: Vec<String> = server
        .query("SELECT name FROM sys_journal WHERE entry_type = 'Command: Run' ORDER BY index")
        .iter()
        .filter_map(|row| row["name"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        steps,
        [
            "toolwright call-0 look_up, call-1 look_up: started",
            "toolwright call-0 look_up, call-1 look_up",
            "toolwright call-2 refund: started",
            "toolwright call-2 refund",
            "toolwright call-2 refund: asked",
            "toolwright call-2 refund: decided: started",
            "toolwright call-2 refund: decided",
        ]
    );
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
/// two look-ups in one step, a payout that waits for approval, a cancellation), at least
/// 100 times, and started again; Restate re-invokes the runs. Then: every run completes;
/// no payout (external, keyed, with a reconciliation) and no cancellation (destructive,
/// keyed, without one) happens twice; a payout cut mid-step is decided by asking the
/// ledger, and paid exactly once; a cancellation cut mid-step is surfaced as "outcome
/// unknown", never run again; every run answers as an uninterrupted run of the same
/// example does, but for the cancellations surfaced.
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
            while decided.len() < RUNS + 1 && started.elapsed() < Duration::from_secs(240) {
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
    let wait_for = |run: &str| {
        let started = Instant::now();
        loop {
            if let Some((200, body)) = get(&format!(
                "{}/restate/workflow/AgentRun/{run}/output",
                server.ingress
            )) {
                break serde_json::from_str::<Vec<String>>(&body).unwrap();
            }
            assert!(
                started.elapsed() < Duration::from_secs(180),
                "run {run} completes"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    // The answers of a run nothing interrupts, for an order of its own.
    let (status, body) = post(
        &format!("{}/AgentRun/clean/run/send", server.ingress),
        &json!("Oclean").to_string(),
    );
    assert!((200..300).contains(&status), "send: {status} {body}");
    let clean = wait_for("clean");
    assert_eq!(clean.len(), 4, "{clean:?}");
    assert!(
        clean[0].contains("120 EUR") && clean[1].contains("next delivery"),
        "{clean:?}"
    );
    let mut random = Random::seeded();
    eprintln!(
        "restate crash test: seed {} (TOOLWRIGHT_CRASH_SEED replays it)",
        random.seed()
    );
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
    let answers: Vec<Vec<String>> = (0..RUNS).map(|run| wait_for(&format!("r{run}"))).collect();
    process.kill().unwrap();
    process.wait().unwrap();
    approver.join().unwrap();

    let ledger = std::fs::read_to_string(work.join("ledger")).unwrap_or_default();
    let count = |line: &str| ledger.lines().filter(|l| *l == line).count();
    let (mut paid_before, mut paid_again, mut unknown_cancels, mut whole) = (0, 0, 0, 0);
    for (run, answers) in answers.iter().enumerate() {
        let order = format!("O{run}");
        let uninterrupted: Vec<String> =
            clean.iter().map(|a| a.replace("Oclean", &order)).collect();
        assert_eq!(answers.len(), 4, "r{run}: {answers:?}");
        assert_eq!(
            answers[..3],
            uninterrupted[..3],
            "r{run}: the reads and the payout"
        );
        assert_eq!(
            count(&format!("payout {order} 120")),
            1,
            "r{run}: paid once"
        );
        for line in ledger.lines() {
            match line.strip_prefix(&format!("checked payout {order}: ")) {
                Some("happened") => paid_before += 1,
                Some(_) => paid_again += 1,
                None => {}
            }
        }
        let cancels = count(&format!("cancel {order}"));
        assert!(
            cancels <= 1,
            "r{run}: the cancellation happened {cancels} times"
        );
        if answers[3] == uninterrupted[3] {
            assert_eq!(cancels, 1, "r{run}: cancelled, and in the ledger once");
            whole += 1;
        } else {
            assert!(
                answers[3].contains("outcome unknown"),
                "r{run}: {answers:?}"
            );
            unknown_cancels += 1;
        }
    }
    eprintln!(
        "restate crash test: {RUNS} runs, {kills} kills; {whole} runs answered as the uninterrupted run; payouts in doubt decided by the ledger: {paid_before} had happened, {paid_again} had not and were paid then, each paid once; cancellations in doubt and surfaced: {unknown_cancels}; effects twice: 0"
    );
    let _ = std::fs::remove_dir_all(&work);
}
