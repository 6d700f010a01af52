//! Calls that outlive their request (MCP Tasks, 2026-07-28's extension): answered at
//! once with a task, read later, cancelled, approved; the same key is the same task and
//! never a second run; a task is its caller's alone; limits say what they are; and a
//! task whose process died is decided by its tool's effect (a dead process simulated by
//! dropping the runtime that ran it; the kill -9 runs are tests/task_crashes.rs).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolwright::approval::ApprovalDecision;
use toolwright::idempotency::{Idempotency, MemoryStore};
use toolwright::mcp::McpServer;
use toolwright::policy::Caller;
use toolwright::task::{Cancellation, TaskError, TaskSettings, TaskStatus, Tasks};
use toolwright::{Context, ErrorKind, Registry, ToolCall, ToolError, tool};

use crate::support::stateless_with_meta;
use crate::support::wire::Wire;

static REPORTS: AtomicUsize = AtomicUsize::new(0);
static RELEASE: AtomicBool = AtomicBool::new(false);

/// Build the yearly report.
#[tool(effect = "read_only", task = "optional")]
async fn yearly_report(
    /// The year.
    year: u16,
) -> String {
    REPORTS.fetch_add(1, Ordering::SeqCst);
    while !RELEASE.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    format!("report {year}")
}

static STOPPED: AtomicBool = AtomicBool::new(false);

/// Reindex everything, until cancelled.
#[tool(effect = "write", task = "required")]
async fn reindex(
    /// Which index.
    index: String,
    #[ctx] cancel: &Cancellation,
) -> Result<String, ToolError> {
    cancel.cancelled().await;
    STOPPED.store(true, Ordering::SeqCst);
    Err(ToolError::new(
        ErrorKind::Cancelled,
        format!("stopped reindexing {index}"),
    ))
}

static PAID: AtomicUsize = AtomicUsize::new(0);

fn always(_to: &str, _amount: &u32) -> Option<String> {
    Some("every payout needs a person".into())
}

/// Pay someone.
#[tool(effect = "external", task = "optional", approval = always)]
fn payout(
    /// To whom.
    to: String,
    /// How much.
    amount: u32,
) -> String {
    PAID.fetch_add(1, Ordering::SeqCst);
    format!("paid {amount} to {to}")
}

fn server() -> McpServer {
    let registry = Registry::builder()
        .with(YearlyReport)
        .with(Reindex)
        .with(Payout)
        .with(Echo)
        .build()
        .unwrap();
    McpServer::new(registry, Context::new())
        .unwrap()
        .with_client_approval()
        .with_tasks(TaskSettings::new().poll_interval(Duration::from_millis(20)))
        .unwrap()
}

/// A 2026-07-28 request from a client that declares tasks (and elicitation).
fn with_tasks(id: u64, method: &str, params: Value) -> String {
    stateless_with_meta(
        id,
        method,
        params,
        json!({"io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {},
            "extensions": {"io.modelcontextprotocol/tasks": {}},
        }}),
    )
}

async fn ask(wire: &mut Wire, id: u64, method: &str, params: Value) -> Value {
    wire.send(&with_tasks(id, method, params)).await;
    wire.next().await
}

/// Polls the task until it leaves `working`.
async fn settled(wire: &mut Wire, id: &mut u64, task: &str) -> Value {
    for _ in 0..500 {
        *id += 1;
        let got = ask(wire, *id, "tasks/get", json!({"taskId": task})).await;
        if got["result"]["status"] != "working" {
            return got["result"].clone();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("the task never left working");
}

#[tokio::test]
async fn a_task_answers_at_once_runs_once_per_key_and_keeps_its_result() {
    let mut wire = Wire::serve(server());
    let call = json!({
        "name": "yearly_report",
        "arguments": {"year": 2026},
        "_meta": {"dev.toolwright/idempotency-key": "report-2026"},
    });
    let mut params = call.clone();
    params["_meta"] = Value::Null;
    let meta_call = |id| {
        let mut request: Value =
            serde_json::from_str(&with_tasks(id, "tools/call", params.clone())).unwrap();
        request["params"]["_meta"]["dev.toolwright/idempotency-key"] = json!("report-2026");
        request.to_string()
    };
    wire.send(&meta_call(1)).await;
    let created = wire.next().await;
    let result = &created["result"];
    assert_eq!(result["resultType"], "task", "{created}");
    assert_eq!(result["status"], "working");
    assert_eq!(result["pollIntervalMs"], 20);
    let task = result["taskId"].as_str().unwrap().to_owned();
    assert_eq!(task.len(), 64, "an HMAC, hex: {task}");

    // The same key again, before and after the call ends: the same task, one run.
    wire.send(&meta_call(2)).await;
    assert_eq!(wire.next().await["result"]["taskId"], task.as_str());
    let working = ask(&mut wire, 3, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(working["result"]["status"], "working", "{working}");
    RELEASE.store(true, Ordering::SeqCst);
    let mut id = 10;
    let done = settled(&mut wire, &mut id, &task).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "report 2026");
    assert_eq!(done["result"]["isError"], false);
    wire.send(&meta_call(99)).await;
    assert_eq!(wire.next().await["result"]["taskId"], task.as_str());
    assert_eq!(REPORTS.load(Ordering::SeqCst), 1, "one run for one key");

    // Cancelling a finished task is acknowledged and changes nothing; an id nobody
    // issued is not found.
    let late = ask(&mut wire, 100, "tasks/cancel", json!({"taskId": task})).await;
    assert_eq!(late["result"]["resultType"], "complete", "{late}");
    let still = ask(&mut wire, 102, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(still["result"]["status"], "completed", "{still}");
    let forged = ask(
        &mut wire,
        101,
        "tasks/get",
        json!({"taskId": "0".repeat(64)}),
    )
    .await;
    assert_eq!(forged["error"]["code"], -32602, "{forged}");
    assert!(
        forged["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no task")
    );
}

#[tokio::test]
async fn clients_without_tasks_wait_for_results_and_are_told_what_a_required_tool_needs() {
    let mut wire = Wire::serve(server());
    let plain = |id, name: &str, arguments: Value| {
        crate::support::stateless(
            id,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        )
    };
    wire.send(&plain(1, "echo", json!({"word": "plain"}))).await;
    let answer = wire.next().await;
    assert_eq!(answer["result"]["content"][0]["text"], "plain", "{answer}");
    wire.send(&plain(2, "reindex", json!({"index": "main"})))
        .await;
    let refused = wire.next().await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({}),
        "{refused}"
    );
}

/// A 2025-11-25 session gets calls even when it names the 2026-07-28 extension: it asks
/// for a task with a `task` parameter (tests/mcp_tasks_2025.rs).
#[tokio::test]
async fn a_2025_11_25_session_gets_calls() {
    let mut wire = Wire::serve(server());
    wire.send(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
            "clientInfo": {"name": "legacy", "version": "1"},
        }})
        .to_string(),
    )
    .await;
    assert_eq!(wire.next().await["result"]["protocolVersion"], "2025-11-25");
    wire.send(r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#)
        .await;
    wire.send(
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "echo", "arguments": {"word": "legacy"},
        }})
        .to_string(),
    )
    .await;
    let answer = wire.next().await;
    assert_eq!(answer["result"]["content"][0]["text"], "legacy", "{answer}");
}

#[tokio::test]
async fn a_cancelled_task_reaches_its_tool_which_stops() {
    let mut wire = Wire::serve(server());
    let created = ask(
        &mut wire,
        1,
        "tools/call",
        json!({"name": "reindex", "arguments": {"index": "main"}}),
    )
    .await;
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    let cancel = ask(&mut wire, 2, "tasks/cancel", json!({"taskId": task})).await;
    assert_eq!(cancel["result"]["resultType"], "complete", "{cancel}");
    let got = ask(&mut wire, 3, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
    for _ in 0..200 {
        if STOPPED.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        STOPPED.load(Ordering::SeqCst),
        "the tool saw its cancellation"
    );
    let still = ask(&mut wire, 4, "tasks/get", json!({"taskId": task})).await;
    assert_eq!(still["result"]["status"], "cancelled", "{still}");
}

#[tokio::test]
async fn a_task_waiting_for_approval_asks_and_runs_once_when_approved() {
    let mut wire = Wire::serve(server());
    let created = ask(
        &mut wire,
        1,
        "tools/call",
        json!({"name": "payout", "arguments": {"to": "ana", "amount": 7}}),
    )
    .await;
    let task = created["result"]["taskId"].as_str().unwrap().to_owned();
    let mut id = 1;
    let waiting = settled(&mut wire, &mut id, &task).await;
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    let request = &waiting["inputRequests"]["approval"];
    assert_eq!(request["method"], "elicitation/create", "{waiting}");
    assert!(
        request["params"]["message"]
            .as_str()
            .unwrap()
            .contains("payout"),
        "{request}"
    );
    assert_eq!(PAID.load(Ordering::SeqCst), 0);
    let approve = json!({"taskId": task, "inputResponses": {
        "approval": {"action": "accept", "content": {"approve": true}},
    }});
    let updated = ask(&mut wire, 50, "tasks/update", approve.clone()).await;
    assert_eq!(updated["result"]["resultType"], "complete", "{updated}");
    let mut id = 60;
    let done = settled(&mut wire, &mut id, &task).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "paid 7 to ana");
    // The same answer again: the task waits for nothing, so it is acknowledged and
    // ignored (as the extension asks), and nothing runs.
    let again = ask(&mut wire, 90, "tasks/update", approve).await;
    assert_eq!(again["result"]["resultType"], "complete", "{again}");
    let unknown = ask(
        &mut wire,
        91,
        "tasks/update",
        json!({"taskId": "nope", "inputResponses": {}}),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert_eq!(PAID.load(Ordering::SeqCst), 1);
}

// The tasks themselves, without a protocol: who sees a task, the limits, a key reused
// for another call.

fn render(result: &toolwright::ToolResult) -> Result<Value, Value> {
    Ok(json!({"text": result.for_model()}))
}

/// Echo a word.
#[tool(effect = "read_only", task = "optional")]
fn echo(
    /// The word.
    word: String,
) -> String {
    word
}

fn as_caller(id: &str) -> Arc<Context> {
    Arc::new(Context::new().with(Caller::new(id, Vec::<String>::new())))
}

fn keyed(id: &str, word: &str, key: &str) -> ToolCall {
    let mut call = ToolCall::new(id, "echo", json!({"word": word}));
    call.idempotency_key = Some(key.into());
    call
}

async fn finished(tasks: &Tasks, ctx: &Arc<Context>, id: &str) -> toolwright::task::TaskView {
    for _ in 0..500 {
        let view = tasks.get(ctx.clone(), id).await.unwrap();
        if view.status != TaskStatus::Working {
            return view;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("the task never finished");
}

#[tokio::test]
async fn a_task_is_its_callers_and_limits_say_what_they_are() {
    let registry = Arc::new(Registry::builder().with(Echo).build().unwrap());
    let settings = TaskSettings::new().max_per_caller(2).max_result_bytes(30);
    let tasks = Tasks::new(registry, settings, render).unwrap();
    let (ana, bob) = (as_caller("ana"), as_caller("bob"));

    let mine = tasks
        .start(ana.clone(), keyed("1", "hi", "k1"))
        .await
        .unwrap();
    assert_eq!(
        finished(&tasks, &ana, &mine.id).await.result,
        Some(json!({"text": "hi"}))
    );
    // Bob's read of Ana's task, and his cancel of it: not found.
    assert_eq!(
        tasks.get(bob.clone(), &mine.id).await,
        Err(TaskError::NotFound)
    );
    assert_eq!(tasks.cancel(&bob, &mine.id).await, Err(TaskError::NotFound));
    // Bob's call with Ana's key is Bob's own task.
    let his = tasks
        .start(bob.clone(), keyed("1", "hi", "k1"))
        .await
        .unwrap();
    assert_ne!(his.id, mine.id);
    assert_eq!(tasks.list(&bob, None, 10).await.unwrap().0.len(), 1);

    // The key with another call: a conflict, nothing started.
    let reused = tasks.start(ana.clone(), keyed("2", "bye", "k1")).await;
    let Err(TaskError::Conflict(message)) = reused else {
        panic!("{reused:?}")
    };
    assert!(message.contains("another call"), "{message}");

    // A result over the limit fails the task, saying so.
    let long = "x".repeat(100);
    let big = tasks
        .start(ana.clone(), keyed("3", &long, "k2"))
        .await
        .unwrap();
    let failed = finished(&tasks, &ana, &big.id).await;
    assert_eq!(failed.status, TaskStatus::Failed);
    assert!(failed.message.unwrap().contains("over the 30 bytes"));

    // Two live tasks is Ana's limit.
    let refused = tasks.start(ana.clone(), keyed("4", "more", "k3")).await;
    let Err(TaskError::Limit(message)) = refused else {
        panic!("{refused:?}")
    };
    assert!(message.contains("2 live tasks"), "{message}");

    // Listed oldest first, in pages.
    let (page, next) = tasks.list(&ana, None, 1).await.unwrap();
    assert_eq!(page[0].id, mine.id);
    let (rest, end) = tasks.list(&ana, next.as_deref(), 1).await.unwrap();
    assert_eq!((rest[0].id.as_str(), end), (big.id.as_str(), None));
    assert!(matches!(
        tasks.list(&ana, Some("not a cursor"), 1).await,
        Err(TaskError::Invalid(_))
    ));
}

#[tokio::test]
async fn a_decision_goes_to_a_task_waiting_for_one_only() {
    let registry = Arc::new(Registry::builder().with(Echo).build().unwrap());
    let tasks = Tasks::new(registry, TaskSettings::new(), render).unwrap();
    let ana = as_caller("ana");
    let view = tasks
        .start(ana.clone(), keyed("1", "hi", "d1"))
        .await
        .unwrap();
    finished(&tasks, &ana, &view.id).await;
    let decision = ApprovalDecision::Approve {
        digest: "whatever".into(),
    };
    assert!(matches!(
        tasks.decide(ana.clone(), &view.id, decision).await,
        Err(TaskError::Invalid(_))
    ));
}

// A dead process: its runtime dropped mid-call, the store kept; a new registry on the
// same store reads the task once the lease is over.

static STARTED: AtomicUsize = AtomicUsize::new(0);
static COUNTS: AtomicUsize = AtomicUsize::new(0);

/// Write a file, slowly.
#[tool(effect = "write", task = "optional")]
async fn write_slowly(
    /// What to write.
    text: String,
) -> String {
    STARTED.fetch_add(1, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_secs(3600)).await;
    text
}

/// Count, slowly.
#[tool(effect = "read_only", task = "optional")]
async fn count_slowly(
    /// Up to.
    to: u32,
) -> String {
    if COUNTS.fetch_add(1, Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    format!("counted to {to}")
}

#[test]
fn a_task_whose_process_died_is_decided_by_its_effect() {
    let store = Arc::new(MemoryStore::new());
    let build = |store: Arc<MemoryStore>| {
        let registry = Registry::builder()
            .with(WriteSlowly)
            .with(CountSlowly)
            .with_idempotency(Idempotency::new(store).lease(Duration::from_millis(150)))
            .with_approval_secret([7u8; 32])
            .build()
            .unwrap();
        Tasks::new(Arc::new(registry), TaskSettings::new(), render).unwrap()
    };
    let ana = as_caller("ana");
    let runtime = || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    };
    // The first process starts both calls and dies with them running.
    let first = runtime();
    let (write, count) = first.block_on(async {
        let tasks = build(store.clone());
        let write = tasks
            .start(
                ana.clone(),
                ToolCall::new("1", "write_slowly", json!({"text": "hi"})),
            )
            .await
            .unwrap();
        let count = tasks
            .start(
                ana.clone(),
                ToolCall::new("2", "count_slowly", json!({"to": 3})),
            )
            .await
            .unwrap();
        while STARTED.load(Ordering::SeqCst) < 1 || COUNTS.load(Ordering::SeqCst) < 1 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        (write.id, count.id)
    });
    first.shutdown_background();

    // The next process, on the same store, after the lease.
    let second = runtime();
    second.block_on(async {
        let tasks = build(store.clone());
        tokio::time::sleep(Duration::from_millis(300)).await;
        let written = tasks.get(ana.clone(), &write).await.unwrap();
        assert_eq!(written.status, TaskStatus::Failed, "{written:?}");
        assert!(
            written
                .message
                .as_deref()
                .unwrap()
                .starts_with("outcome unknown"),
            "{written:?}"
        );
        let counted = finished(&tasks, &ana, &count).await;
        assert_eq!(counted.status, TaskStatus::Completed, "{counted:?}");
        assert_eq!(counted.result, Some(json!({"text": "counted to 3"})));
    });
    assert_eq!(
        STARTED.load(Ordering::SeqCst),
        1,
        "the write never ran again"
    );
    assert_eq!(COUNTS.load(Ordering::SeqCst), 2, "the count did");
}
