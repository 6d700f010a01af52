//! Scale-out: two MCP server processes (the example server over Streamable HTTP) share
//! one idempotency store, PostgreSQL or Redis, and one approval secret. The side effect
//! of `send_payout` is a line appended to a ledger file outside both processes, so
//! "exactly once" is counted where the effect lands, not in either replica.
//!
//! The servers come from `scripts/test/services up` (throwaway, loopback) or
//! `TOOLWRIGHT_POSTGRES_URL` / `TOOLWRIGHT_REDIS_URL`; without them the tests skip, and
//! fail under `CI=true`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Barrier};
use std::time::Duration;

use crate::support::{HttpServer, service_url, stateless, stateless_with_meta};
use serde_json::{Value, json};

const SECRET: &str = "replica-test-secret-0123456789abcdef";

/// A ledger file of this test's own.
fn ledger(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "toolwright-replicas-{name}-{}.log",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    path
}

/// How many payouts each recipient received, from the ledger.
fn payouts(ledger: &Path) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for line in std::fs::read_to_string(ledger).unwrap_or_default().lines() {
        let recipient = line.split(' ').next().unwrap_or_default().to_owned();
        *counts.entry(recipient).or_insert(0) += 1;
    }
    counts
}

fn replica(store: &str, ledger: &Path, extra: &[&str]) -> HttpServer {
    let mut args = vec![
        "--store",
        store,
        "--ledger",
        ledger.to_str().unwrap(),
        "--client-approval",
    ];
    args.extend_from_slice(extra);
    HttpServer::start_with(&args, &[("TOOLWRIGHT_APPROVAL_SECRET", SECRET)])
}

fn payout(id: u64, recipient: &str, amount: u64, key: Option<&str>) -> String {
    let params =
        json!({"name": "send_payout", "arguments": {"recipient": recipient, "amount": amount}});
    match key {
        Some(key) => stateless_with_meta(
            id,
            "tools/call",
            params,
            json!({"dev.toolwright/idempotency-key": key}),
        ),
        None => stateless(id, "tools/call", params),
    }
}

fn text(reply: &Value) -> &str {
    reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text result: {reply}"))
}

/// The same keyed payout sent to both replicas at the same moment, 50 times with fresh
/// keys: every key pays once, and both callers read the same result.
fn same_key_on_two_replicas_pays_once(store: &str, name: &str) {
    let ledger = ledger(name);
    let replicas = Arc::new([replica(store, &ledger, &[]), replica(store, &ledger, &[])]);
    let run = format!("{name}-{}", std::process::id());
    for batch in 0..5 {
        let barrier = Arc::new(Barrier::new(20));
        let mut threads = Vec::new();
        for round in batch * 10..batch * 10 + 10 {
            for side in 0..2 {
                let (replicas, barrier, run) = (replicas.clone(), barrier.clone(), run.clone());
                threads.push(std::thread::spawn(move || {
                    let recipient = format!("r{round}");
                    let key = format!("{run}-{round}");
                    barrier.wait();
                    let (status, reply) =
                        replicas[side].post(&payout(round as u64, &recipient, 100, Some(&key)));
                    assert_eq!(status, 200, "{reply}");
                    (round, text(&reply).to_owned())
                }));
            }
        }
        let mut answers: HashMap<usize, Vec<String>> = HashMap::new();
        for thread in threads {
            let (round, answer) = thread.join().unwrap();
            answers.entry(round).or_default().push(answer);
        }
        for (round, answers) in answers {
            assert_eq!(answers.len(), 2);
            assert_eq!(
                answers[0], answers[1],
                "round {round}: both callers read one result"
            );
            assert_eq!(answers[0], format!("paid 100 to r{round}"));
        }
    }
    let counts = payouts(&ledger);
    assert_eq!(counts.len(), 50, "{counts:?}");
    assert!(
        counts.values().all(|&n| n == 1),
        "every key paid once: {counts:?}"
    );
    let _ = std::fs::remove_file(&ledger);
}

/// A ticket issued by one replica, approved through the other, then replayed through
/// the first: one payout, and the replay reads the first decision's result.
fn a_ticket_is_spent_once_across_replicas(store: &str, name: &str) {
    let ledger = ledger(&format!("{name}-ticket"));
    let (a, b) = (replica(store, &ledger, &[]), replica(store, &ledger, &[]));
    let recipient = format!("big-{}", std::process::id());
    let (_, held) = a.post(&payout(1, &recipient, 5_000, None));
    assert_eq!(held["result"]["isError"], true, "{held}");
    let ticket = held["result"]["_meta"]["dev.toolwright/approval-ticket"].clone();
    assert!(
        ticket["signature"].is_string(),
        "the ticket travels in _meta: {held}"
    );
    let decision = json!({"decision": "approve", "digest": ticket["digest"]});
    let resume = |id| {
        stateless(
            id,
            "toolwright/resume",
            json!({"ticket": ticket, "decision": decision}),
        )
    };
    let (status, approved) = b.post(&resume(2));
    assert_eq!(status, 200, "{approved}");
    assert_eq!(
        text(&approved),
        format!("paid 5000 to {recipient}"),
        "{approved}"
    );
    let (_, replayed) = a.post(&resume(3));
    assert_eq!(text(&replayed), text(&approved), "{replayed}");
    assert_eq!(
        replayed["result"]["_meta"]["dev.toolwright/duplicate"], true,
        "the replay says it is the first decision's result: {replayed}"
    );
    // A forged ticket (a bigger amount, its digest recomputed) is refused by both.
    let mut forged = ticket.clone();
    forged["arguments"]["amount"] = json!(900_000);
    let (_, refused) = b.post(&stateless(
        4,
        "toolwright/resume",
        json!({"ticket": forged, "decision": decision}),
    ));
    assert!(
        text(&refused).contains("not issued by this server"),
        "{refused}"
    );
    assert_eq!(payouts(&ledger).get(&recipient), Some(&1));
    let _ = std::fs::remove_file(&ledger);
}

/// A replica killed (SIGKILL) while it holds a claim: the other answers the retry with
/// "outcome unknown" once the lease is over, and never pays a second time.
fn a_claim_lost_with_its_replica_is_reported_unknown(store: &str, name: &str) {
    let ledger = ledger(&format!("{name}-kill"));
    let lease = ["--lease-ms", "1500"];
    let (mut a, b) = (
        replica(store, &ledger, &lease),
        replica(store, &ledger, &lease),
    );
    let recipient = format!("lost-{}", std::process::id());
    let key = format!("{name}-lost-{}", std::process::id());
    let first = {
        let (url, body) = (a.url.clone(), payout(1, &recipient, 100, Some(&key)));
        std::thread::spawn(move || {
            // The connection dies with the replica; whatever the client sees is not an answer.
            let agent = ureq::Agent::config_builder()
                .http_status_as_error(false)
                .timeout_global(Some(Duration::from_secs(10)))
                .build()
                .new_agent();
            let _ = agent
                .post(&url)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .header("MCP-Protocol-Version", "2026-07-28")
                .header("Mcp-Method", "tools/call")
                .header("Mcp-Name", "send_payout")
                .send(&body);
        })
    };
    // The tool has started, so the claim is held; the payout lands 300 ms later.
    a.wait_for("send_payout: paying", Duration::from_secs(30));
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    first.join().unwrap();
    let (status, retry) = b.post(&payout(2, &recipient, 100, Some(&key)));
    assert_eq!(status, 200, "{retry}");
    let error: Value = serde_json::from_str(text(&retry)).unwrap();
    assert_eq!(error["error"], "outcome_unknown", "{retry}");
    assert!(
        error["message"].as_str().unwrap().contains("unknown"),
        "{retry}"
    );
    assert_eq!(error["retryable"], false);
    assert_eq!(payouts(&ledger).get(&recipient), None, "never a second run");
    let _ = std::fs::remove_file(&ledger);
}

#[test]
fn replicas_on_postgres() {
    let Some(url) = service_url("TOOLWRIGHT_POSTGRES_URL") else {
        return;
    };
    same_key_on_two_replicas_pays_once(&url, "postgres");
    a_ticket_is_spent_once_across_replicas(&url, "postgres");
    a_claim_lost_with_its_replica_is_reported_unknown(&url, "postgres");
}

#[test]
fn replicas_on_redis() {
    let Some(url) = service_url("TOOLWRIGHT_REDIS_URL") else {
        return;
    };
    same_key_on_two_replicas_pays_once(&url, "redis");
    a_ticket_is_spent_once_across_replicas(&url, "redis");
    a_claim_lost_with_its_replica_is_reported_unknown(&url, "redis");
}

/// Two clients (two MCP sessions) whose requests carry the same id and the same
/// arguments, without keys: each is its own call, and each pays.
#[test]
fn two_sessions_never_share_a_derived_key() {
    let ledger = ledger("sessions");
    let server = HttpServer::start_with(&["--ledger", ledger.to_str().unwrap()], &[]);
    let legacy = [("MCP-Protocol-Version", "2025-11-25")];
    let session = || {
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "session-test", "version": "1"}}});
        let reply = server.post_with(&init.to_string(), &legacy);
        assert_eq!(reply.status, 200, "{}", reply.message);
        let id = reply.session.expect("a session id");
        let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        server.post_with(initialized, &[legacy[0], ("Mcp-Session-Id", &id)]);
        id
    };
    let (one, two) = (session(), session());
    assert_ne!(one, two);
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "send_payout", "arguments": {"recipient": "shared", "amount": 100}}})
    .to_string();
    for id in [&one, &two] {
        let reply = server.post_with(&call, &[legacy[0], ("Mcp-Session-Id", id)]);
        assert_eq!(reply.status, 200, "{}", reply.message);
        assert_eq!(
            text(&reply.message),
            "paid 100 to shared",
            "{}",
            reply.message
        );
    }
    assert_eq!(
        payouts(&ledger).get("shared"),
        Some(&2),
        "each client's call ran"
    );
    let _ = std::fs::remove_file(&ledger);
}
