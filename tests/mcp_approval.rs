//! Approval inside MCP (2026-07-28): a call that needs approval answers with an
//! input-required result whose elicitation asks the person about the exact call; the
//! client's retry carries the answer and the signed ticket back as `requestState`. The
//! official Python SDK drives it in both outcomes; the wire cases a hostile client could
//! try are checked in-process.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use toolwright::mcp::McpServer;
use toolwright::{Context, Registry, tool};

use crate::support;
use crate::support::wire;

use crate::support::{MANIFEST_DIR, server_binary, stateless_with_meta};
use wire::Wire;

#[test]
fn python_sdk_approves_and_declines_within_the_protocol() {
    let ledger =
        std::env::temp_dir().join(format!("toolwright-approval-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&ledger);
    let output = Command::new(support::python())
        .arg(Path::new(MANIFEST_DIR).join("tests/mcp/approval_client.py"))
        .arg(&ledger)
        .arg(server_binary())
        .args([
            "--ledger".as_ref(),
            ledger.as_os_str(),
            "--client-approval".as_ref(),
        ])
        .output()
        .expect("python runs");
    let _ = std::fs::remove_file(&ledger);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python client failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("approved, declined and awaiting as expected"),
        "{stdout}"
    );
}

static PAID: AtomicUsize = AtomicUsize::new(0);
/// Whom each transfer paid (the tests run at once: each pays someone of its own).
static PAID_TO: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

fn always(_to: &str, _amount: &u32) -> Option<String> {
    Some("every transfer needs a person".into())
}

/// Transfer money.
#[tool(effect = "write", approval = always)]
fn transfer(
    /// To whom.
    to: String,
    /// How much.
    amount: u32,
) -> String {
    PAID.fetch_add(1, Ordering::SeqCst);
    PAID_TO.lock().unwrap().push(to.clone());
    format!("sent {amount} to {to}")
}

fn server(client_approval: bool) -> McpServer {
    let server = McpServer::new(
        Registry::builder().with(Transfer).build().unwrap(),
        Context::new(),
    )
    .unwrap();
    if client_approval {
        server.with_client_approval()
    } else {
        server
    }
}

/// A 2026-07-28 `tools/call` from a client that declares elicitation.
fn call(id: u64, params: Value) -> String {
    stateless_with_meta(
        id,
        "tools/call",
        params,
        json!({"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}),
    )
}

/// Whether an answer says it is the stored first result (`_meta`, `mcp::DUPLICATE_META`).
fn marked_duplicate(answer: &Value) -> bool {
    answer["result"]["_meta"][toolwright::mcp::DUPLICATE_META] == true
}

async fn ask(wire: &mut Wire, id: u64, params: Value) -> Value {
    wire.send(&call(id, params)).await;
    wire.next().await
}

#[tokio::test]
async fn a_retry_must_carry_the_untouched_ticket_and_runs_once() {
    let mut wire = Wire::serve(server(true));
    let first = ask(
        &mut wire,
        1,
        json!({"name": "transfer", "arguments": {"to": "ana", "amount": 5}}),
    )
    .await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let request = &result["inputRequests"]["approval"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "form");
    assert_eq!(
        request["params"]["requestedSchema"],
        json!({
            "type": "object",
            "properties": {"approve": {
                "type": "boolean",
                "title": "Approve",
                "description": "Run transfer with these arguments"
            }},
            "required": ["approve"]
        })
    );
    let message = request["params"]["message"].as_str().unwrap();
    assert!(
        message.contains("transfer")
            && message.contains("\"ana\"")
            && message.contains("every transfer needs a person"),
        "{message}"
    );
    let state = result["requestState"].as_str().unwrap().to_owned();
    let before = PAID.load(Ordering::SeqCst);

    // A retry without the answer is asked again.
    let again = ask(
        &mut wire,
        2,
        json!({"name": "transfer", "arguments": {"to": "ana", "amount": 5}, "requestState": state}),
    )
    .await;
    assert_eq!(again["result"]["resultType"], "input_required", "{again}");

    let approve = json!({"approval": {"action": "accept", "content": {"approve": true}}});
    // A changed state, or the approval moved to other arguments: a protocol error.
    let tampered = ask(
        &mut wire,
        3,
        json!({"name": "transfer", "arguments": {"to": "ana", "amount": 5},
        "inputResponses": approve, "requestState": format!("{state}-TAMPERED")}),
    )
    .await;
    assert_eq!(tampered["error"]["code"], -32602, "{tampered}");
    let forged = ask(
        &mut wire,
        4,
        json!({"name": "transfer", "arguments": {"to": "eve", "amount": 5000},
        "inputResponses": approve, "requestState": state}),
    )
    .await;
    assert_eq!(forged["error"]["code"], -32602, "{forged}");
    assert!(
        forged["error"]["message"]
            .as_str()
            .unwrap()
            .contains("other arguments"),
        "{forged}"
    );
    assert_eq!(PAID.load(Ordering::SeqCst), before, "nothing ran");

    // Approved: runs, once, however often the answer is replayed.
    let approved = ask(
        &mut wire,
        5,
        json!({"name": "transfer", "arguments": {"to": "ana", "amount": 5},
        "inputResponses": approve, "requestState": state}),
    )
    .await;
    assert_eq!(
        approved["result"]["content"][0]["text"], "sent 5 to ana",
        "{approved}"
    );
    let replayed = ask(
        &mut wire,
        6,
        json!({"name": "transfer", "arguments": {"to": "ana", "amount": 5},
        "inputResponses": approve, "requestState": state}),
    )
    .await;
    assert_eq!(
        replayed["result"]["content"][0]["text"], "sent 5 to ana",
        "{replayed}"
    );
    assert!(!marked_duplicate(&approved), "{approved}");
    assert!(
        marked_duplicate(&replayed),
        "the replay is marked as the first decision's result: {replayed}"
    );
    assert_eq!(
        PAID.load(Ordering::SeqCst),
        before + 1,
        "the transfer ran once"
    );
}

/// `toolwright/resume`, as the MCP guide shows it: the ticket from the result's `_meta`
/// and `{"decision": "approve", "digest": ...}`; sent twice, it runs once and the second
/// answer is marked `duplicate`.
#[tokio::test]
async fn a_repeated_resume_runs_once_and_is_marked_duplicate() {
    let mut wire = Wire::serve(server(true));
    wire.send(&stateless_with_meta(
        1,
        "tools/call",
        json!({"name": "transfer", "arguments": {"to": "cy", "amount": 7}}),
        json!({}),
    ))
    .await;
    let held = wire.next().await;
    let ticket = held["result"]["_meta"]["dev.toolwright/approval-ticket"].clone();
    assert!(ticket["digest"].is_string(), "{held}");
    let resume = |id| {
        stateless_with_meta(
            id,
            "toolwright/resume",
            json!({"ticket": ticket, "decision": {"decision": "approve", "digest": ticket["digest"]}}),
            json!({}),
        )
    };
    wire.send(&resume(2)).await;
    let first = wire.next().await;
    wire.send(&resume(3)).await;
    let second = wire.next().await;
    assert_eq!(
        first["result"]["content"][0]["text"], "sent 7 to cy",
        "{first}"
    );
    assert!(!marked_duplicate(&first), "{first}");
    assert_eq!(
        second["result"]["content"], first["result"]["content"],
        "{second}"
    );
    assert!(marked_duplicate(&second), "{second}");
    // A decision in another shape is told the one it takes.
    wire.send(&stateless_with_meta(
        4,
        "toolwright/resume",
        json!({"ticket": ticket, "decision": "approve"}),
        json!({}),
    ))
    .await;
    let malformed = wire.next().await;
    assert_eq!(malformed["error"]["code"], -32602, "{malformed}");
    assert!(
        malformed["error"]["message"]
            .as_str()
            .unwrap()
            .contains(r#"{"decision": "approve", "digest": <the ticket's digest>}"#),
        "{malformed}"
    );
    let paid = PAID_TO
        .lock()
        .unwrap()
        .iter()
        .filter(|to| *to == "cy")
        .count();
    assert_eq!(paid, 1, "the transfer ran once");
}

#[tokio::test]
async fn without_the_servers_consent_clients_are_not_asked() {
    let mut wire = Wire::serve(server(false));
    let first = ask(
        &mut wire,
        1,
        json!({"name": "transfer", "arguments": {"to": "bo", "amount": 1}}),
    )
    .await;
    assert_ne!(first["result"]["resultType"], "input_required", "{first}");
    assert_eq!(first["result"]["isError"], true, "{first}");
    assert!(
        first["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("awaiting_approval"),
        "{first}"
    );
    // And a retry with a requestState is refused, whatever it holds.
    let retry = ask(
        &mut wire,
        2,
        json!({"name": "transfer", "arguments": {"to": "bo", "amount": 1}, "requestState": "x"}),
    )
    .await;
    assert_eq!(retry["error"]["code"], -32602, "{retry}");
    // `toolwright/resume` is not there, and the answer says how to turn it on.
    wire.send(&stateless_with_meta(
        3,
        "toolwright/resume",
        json!({"ticket": {}, "decision": {"decision": "approve", "digest": "x"}}),
        json!({}),
    ))
    .await;
    let resume = wire.next().await;
    assert_eq!(resume["error"]["code"], -32601, "{resume}");
    let message = resume["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("with_client_approval()") && message.contains("Registry::resume"),
        "{resume}"
    );
}

/// Transfer money, also from programs.
#[cfg(feature = "code")]
#[tool(effect = "write", approval = always, callers = "any")]
fn transfer_from_code(
    /// To whom.
    to: String,
    /// How much.
    amount: u32,
) -> String {
    PAID_FROM_CODE.fetch_add(1, Ordering::SeqCst);
    format!("sent {amount} to {to}")
}

#[cfg(feature = "code")]
static PAID_FROM_CODE: AtomicUsize = AtomicUsize::new(0);

/// A program paused for a nested call's approval asks the person within the protocol:
/// the elicitation shows the nested call, the client's retry of `run_code` carries the
/// answer, and the program goes on, its call made once.
#[cfg(feature = "code")]
#[tokio::test]
async fn a_paused_program_is_approved_within_the_protocol() {
    let registry = Registry::builder()
        .with(TransferFromCode)
        .with_code_mode(toolwright::code::CodeMode::new())
        .build()
        .unwrap();
    let server = McpServer::new(registry, Context::new())
        .unwrap()
        .with_client_approval();
    let mut wire = Wire::serve(server);
    let program = json!({"name": "run_code", "arguments": {"code": "r = await transfer_from_code(to='ana', amount=5)\n'done: ' + r"}});
    let first = ask(&mut wire, 1, program.clone()).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let message = result["inputRequests"]["approval"]["params"]["message"]
        .as_str()
        .unwrap();
    assert!(
        message.contains("transfer_from_code") && message.contains("\"ana\""),
        "{message}"
    );
    let state = result["requestState"].as_str().unwrap().to_owned();
    assert_eq!(PAID_FROM_CODE.load(Ordering::SeqCst), 0);
    let approve = json!({"approval": {"action": "accept", "content": {"approve": true}}});
    let mut retry = program.clone();
    retry["inputResponses"] = approve;
    retry["requestState"] = json!(state);
    let approved = ask(&mut wire, 2, retry.clone()).await;
    assert_eq!(
        approved["result"]["content"][0]["text"], "done: sent 5 to ana",
        "{approved}"
    );
    let replayed = ask(&mut wire, 3, retry).await;
    assert_eq!(
        replayed["result"]["content"][0]["text"], "done: sent 5 to ana",
        "{replayed}"
    );
    assert_eq!(
        PAID_FROM_CODE.load(Ordering::SeqCst),
        1,
        "the transfer ran once"
    );
}
