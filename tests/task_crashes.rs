//! Crash injection for tasks: the example server (Streamable HTTP, `--tasks`) is killed
//! with SIGKILL at random moments while tasks run, and a new process on the same store
//! answers for them. Three tools, their effects counted in a ledger file outside both
//! processes: `send_payout` (external, keyed: it claims its key),
//! `cancel_subscription` (destructive, no key, no claim) and `close_account`
//! (destructive, no claim, with a reconciliation that reads the ledger).
//!
//! Lives follow each other until 200 tasks were started. Each life starts up to ten
//! tasks, 60 ms apart, each 300 ms from start to effect, and is killed at a random
//! moment in its first second, so tasks die before they start, mid-call, between the
//! effect and its record, or after it. Then:
//!
//! - no effect happens twice (the payout's claim answers a re-run; the cancellation
//!   never re-runs);
//! - every task ends: `completed` (its effect in the ledger once) or `failed` with
//!   "outcome unknown" (the in-doubt call surfaced, never re-run);
//! - every in-doubt `close_account` is decided by its reconciliation: `completed`, its
//!   effect in the ledger once, whether the crash came before or after it;
//! - a task seen `completed` before the kill is `completed` with the same result after.
//!
//! The counts are printed (`--nocapture`) for the record. The random seed is printed
//! too; `TOOLWRIGHT_CRASH_SEED` replays one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{HttpServer, Random, stateless_with_meta, try_post_to};

const SECRET: &str = "task-crash-secret-0123456789abcdef";

fn server(store: &str, ledger: &Path) -> HttpServer {
    HttpServer::start_with(
        &[
            "--store",
            store,
            "--ledger",
            ledger.to_str().unwrap(),
            "--tasks",
            "--max-tasks",
            "100000",
            "--lease-ms",
            "300",
        ],
        &[("TOOLWRIGHT_APPROVAL_SECRET", SECRET)],
    )
}

fn with_tasks(id: u64, method: &str, params: Value, key: Option<&str>) -> String {
    let mut meta = json!({"io.modelcontextprotocol/clientCapabilities": {
        "extensions": {"io.modelcontextprotocol/tasks": {}},
    }});
    if let Some(key) = key {
        meta["dev.toolwright/idempotency-key"] = json!(key);
    }
    stateless_with_meta(id, method, params, meta)
}

/// Which tool a case calls.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Payout,
    Cancel,
    Close,
}

/// One task of the run: what it calls, and what was seen of it.
struct Case {
    recipient: String,
    kind: Kind,
    task: String,
    /// Its result, when it was seen completed before the kill.
    finished_before: Option<Value>,
}

/// What the runs on one store came to.
#[derive(Default, Debug)]
struct Counts {
    runs: usize,
    completed: usize,
    in_doubt_surfaced: usize,
    in_doubt_with_effect: usize,
    duplicated_effects: usize,
    rerun_unkeyed: usize,
    reconciled: usize,
    /// Printed for the record: how many reconciliations found the effect done.
    #[allow(dead_code)]
    reconciled_happened: usize,
    reconciled_unfinished: usize,
    finished_before_kill: usize,
    finished_results_lost: usize,
    completed_without_effect: usize,
    unfinished: usize,
}

fn ledger_counts(ledger: &Path) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for line in std::fs::read_to_string(ledger).unwrap_or_default().lines() {
        let recipient = line.split(' ').next().unwrap_or_default().to_owned();
        *counts.entry(recipient).or_insert(0) += 1;
    }
    counts
}

/// `tasks/get` of `task` (its id mirrored into `Mcp-Name`, as 2026-07-28 asks).
fn get_task(server: &HttpServer, id: u64, task: &str) -> Value {
    let body = with_tasks(id, "tasks/get", json!({"taskId": task}), None);
    server
        .post_with(
            &body,
            &[("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Name", task)],
        )
        .message
}

/// Reads the task until it ends (or 20 s pass): its final `tasks/get` result.
fn settle(server: &HttpServer, task: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut id = 1000;
    loop {
        id += 1;
        let got = get_task(server, id, task);
        let status = got["result"]["status"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if matches!(status.as_str(), "completed" | "failed" | "cancelled") {
            return got["result"].clone();
        }
        if Instant::now() > deadline {
            return got;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn crash_runs(store: &str, name: &str, runs: usize) -> Counts {
    let mut random = Random::seeded();
    let seed = random.seed();
    eprintln!("task crashes on {name}: seed {seed}");
    let ledger: PathBuf = std::env::temp_dir().join(format!(
        "toolwright-task-crashes-{name}-{}.log",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&ledger);
    let run = format!("{name}-{}-{seed}", std::process::id());
    let mut cases = Vec::new();
    let (mut reconciled, mut reconciled_happened) = (0, 0);
    let mut life = 0;
    while cases.len() < runs {
        life += 1;
        let mut first = server(store, &ledger);
        let kill_at = Duration::from_millis(100 + random.below(900));
        let started = Instant::now();
        let (send, created) = mpsc::channel();
        let url_server = first.url.clone();
        let life_run = run.clone();
        let sender = std::thread::spawn(move || {
            for n in 0..10u64 {
                let kind = [Kind::Payout, Kind::Cancel, Kind::Close][n as usize % 3];
                let recipient = format!("c{life}-{n}");
                let (params, key) = match kind {
                    Kind::Payout => (
                        json!({"name": "send_payout", "arguments": {"recipient": recipient, "amount": 100}}),
                        Some(format!("{life_run}-{life}-{n}")),
                    ),
                    Kind::Cancel => (
                        json!({"name": "cancel_subscription", "arguments": {"recipient": recipient}}),
                        None,
                    ),
                    Kind::Close => (
                        json!({"name": "close_account", "arguments": {"recipient": recipient}}),
                        None,
                    ),
                };
                let body = with_tasks(n, "tools/call", params, key.as_deref());
                let headers = [("MCP-Protocol-Version", "2026-07-28")];
                let Some(reply) = try_post_to(&url_server, &body, &headers) else {
                    return; // the server is gone
                };
                let Some(task) = reply.message["result"]["taskId"].as_str() else {
                    panic!("a task: {}", reply.message);
                };
                if send.send((recipient, kind, task.to_owned())).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(60));
            }
        });
        std::thread::sleep(kill_at.saturating_sub(started.elapsed()));
        // What is finished now must still be finished after the kill.
        let mut life_cases: Vec<Case> = created
            .try_iter()
            .map(|(recipient, kind, task)| Case {
                recipient,
                kind,
                task,
                finished_before: None,
            })
            .collect();
        for (n, case) in life_cases.iter_mut().enumerate() {
            let got = get_task(&first, 500 + n as u64, &case.task);
            if got["result"]["status"] == "completed" {
                case.finished_before = Some(got["result"]["result"].clone());
            }
        }
        first.child.kill().unwrap();
        first.child.wait().unwrap();
        let _ = sender.join();
        // Tasks whose creation answered just before the kill.
        life_cases.extend(created.try_iter().map(|(recipient, kind, task)| Case {
            recipient,
            kind,
            task,
            finished_before: None,
        }));
        let second = server(store, &ledger);
        for case in life_cases {
            let end = settle(&second, &case.task);
            if std::env::var("TOOLWRIGHT_CRASH_TRACE").is_ok() {
                eprintln!("{life} {} {} -> {end}", case.recipient, case.task);
            }
            cases.push((case, end));
        }
        // What the second process reconciled, from its log.
        let log = second.log.lock().unwrap();
        for line in log.try_iter() {
            if line.contains("close_account: reconciled") {
                reconciled += 1;
                if line.ends_with("it happened") {
                    reconciled_happened += 1;
                }
            }
        }
        drop(log);
        drop(second);
    }
    let effects = ledger_counts(&ledger);
    let mut counts = Counts {
        reconciled,
        reconciled_happened,
        ..Counts::default()
    };
    for (case, end) in &cases {
        counts.runs += 1;
        let done = effects.get(&case.recipient).copied().unwrap_or(0);
        if done > 1 {
            if case.kind == Kind::Payout {
                counts.duplicated_effects += 1;
            } else {
                counts.rerun_unkeyed += 1;
            }
        }
        if case.kind == Kind::Close && end["status"] != "completed" {
            counts.reconciled_unfinished += 1;
        }
        if let Some(before) = &case.finished_before {
            counts.finished_before_kill += 1;
            if end["status"] != "completed" || &end["result"] != before {
                counts.finished_results_lost += 1;
            }
        }
        match end["status"].as_str() {
            Some("completed") => {
                counts.completed += 1;
                if done == 0 {
                    counts.completed_without_effect += 1;
                }
            }
            Some("failed")
                if end["statusMessage"]
                    .as_str()
                    .is_some_and(|m| m.starts_with("outcome unknown")) =>
            {
                counts.in_doubt_surfaced += 1;
                if done == 1 {
                    counts.in_doubt_with_effect += 1;
                }
            }
            _ => {
                eprintln!("{name}: a task did not end as it should: {end}");
                counts.unfinished += 1;
            }
        }
    }
    eprintln!("task crashes on {name}: {counts:?}");
    let _ = std::fs::remove_file(&ledger);
    counts
}

fn assert_held(counts: &Counts) {
    assert!(counts.runs >= 200, "{counts:?}");
    assert_eq!(counts.duplicated_effects, 0, "{counts:?}");
    assert_eq!(counts.rerun_unkeyed, 0, "{counts:?}");
    assert_eq!(counts.finished_results_lost, 0, "{counts:?}");
    assert_eq!(counts.completed_without_effect, 0, "{counts:?}");
    assert_eq!(counts.unfinished, 0, "{counts:?}");
    assert_eq!(counts.reconciled_unfinished, 0, "{counts:?}");
    assert_eq!(
        counts.completed + counts.in_doubt_surfaced,
        counts.runs,
        "{counts:?}"
    );
    // The kills landed at every point: some calls finished, some were in doubt.
    assert!(
        counts.in_doubt_surfaced > 0 && counts.completed > 0 && counts.reconciled > 0,
        "{counts:?}"
    );
}

#[cfg(feature = "redb")]
#[test]
fn tasks_survive_kill_9_on_redb() {
    let path = std::env::temp_dir().join(format!(
        "toolwright-task-crashes-{}.redb",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let counts = crash_runs(path.to_str().unwrap(), "redb", 200);
    let _ = std::fs::remove_file(&path);
    assert_held(&counts);
}

#[cfg(feature = "postgres")]
#[test]
fn tasks_survive_kill_9_on_postgres() {
    let Some(url) = crate::support::service_url("TOOLWRIGHT_POSTGRES_URL") else {
        return;
    };
    assert_held(&crash_runs(&url, "postgres", 200));
}

#[cfg(feature = "redis")]
#[test]
fn tasks_survive_kill_9_on_redis() {
    let Some(url) = crate::support::service_url("TOOLWRIGHT_REDIS_URL") else {
        return;
    };
    assert_held(&crash_runs(&url, "redis", 200));
}
