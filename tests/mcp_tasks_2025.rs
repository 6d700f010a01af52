//! Tasks in a 2025-11-25 session (that revision's experimental tasks utility, which the
//! official TypeScript SDK 1.x and Python SDK 1.23–1.29 speak): advertised at
//! `initialize`, marked on `tools/list`, asked for with a `task` parameter, read with
//! `tasks/get`, `tasks/result` (which asks for an approval on the way), `tasks/list` and
//! `tasks/cancel`, each in that revision's form.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::{Value, json};
use toolwright::mcp::McpServer;
use toolwright::task::{Cancellation, TaskSettings};
use toolwright::{Context, ErrorKind, Registry, ToolError, tool};

use crate::support::wire::Wire;

/// Summarize the quarter.
#[tool(effect = "read_only", task = "optional")]
async fn quarter_summary(
    /// The quarter, 1 to 4.
    quarter: u8,
) -> String {
    tokio::time::sleep(Duration::from_millis(30)).await;
    format!("Q{quarter}: steady")
}

/// Rebuild the search index, until cancelled.
#[tool(effect = "write", task = "required")]
async fn rebuild_index(
    /// Which index.
    index: String,
    #[ctx] cancel: &Cancellation,
) -> Result<String, ToolError> {
    cancel.cancelled().await;
    Err(ToolError::new(
        ErrorKind::Cancelled,
        format!("stopped rebuilding {index}"),
    ))
}

/// Say hello.
#[tool(effect = "read_only")]
fn hello(
    /// To whom.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

static REFUNDED: AtomicUsize = AtomicUsize::new(0);

fn needs_a_person(_order: &str) -> Option<String> {
    Some("refunds need a person".into())
}

/// Refund an order.
#[tool(effect = "external", task = "optional", approval = needs_a_person)]
fn refund(
    /// The order.
    order: String,
) -> String {
    REFUNDED.fetch_add(1, Ordering::SeqCst);
    format!("refunded {order}")
}

async fn session() -> Wire {
    let registry = Registry::builder()
        .with(QuarterSummary)
        .with(RebuildIndex)
        .with(Hello)
        .with(Refund)
        .build()
        .unwrap();
    let server = McpServer::new(registry, Context::new())
        .unwrap()
        .with_client_approval()
        .with_tasks(TaskSettings::new().poll_interval(Duration::from_millis(20)))
        .unwrap();
    let mut wire = Wire::serve(server);
    wire.send(
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {}, "tasks": {"list": {}, "cancel": {}}},
            "clientInfo": {"name": "legacy", "version": "1"},
        }})
        .to_string(),
    )
    .await;
    let initialized = wire.next().await;
    assert_eq!(
        initialized["result"]["capabilities"]["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}),
        "{initialized}"
    );
    wire.send(r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#)
        .await;
    wire
}

async fn ask(wire: &mut Wire, id: u64, method: &str, params: Value) -> Value {
    wire.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string())
        .await;
    answer(wire).await
}

/// The next message that is not a task status notification.
async fn answer(wire: &mut Wire) -> Value {
    loop {
        let message = wire.next().await;
        if message["method"] != "notifications/tasks/status" {
            return message;
        }
    }
}

#[tokio::test]
async fn a_2025_11_25_session_has_that_revisions_tasks() {
    let mut wire = session().await;
    let listed = ask(&mut wire, 1, "tools/list", json!({})).await;
    let support = |name: &str| {
        listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|tool| tool["name"] == name)
            .unwrap()["execution"]["taskSupport"]
            .clone()
    };
    assert_eq!(support("quarter_summary"), "optional", "{listed}");
    assert_eq!(support("rebuild_index"), "required");
    assert_eq!(support("hello"), Value::Null);

    // Asked for a task with a `task` parameter, answered `{"task": ...}` with this era's
    // field names.
    let created = ask(
        &mut wire,
        2,
        "tools/call",
        json!({"name": "quarter_summary", "arguments": {"quarter": 3}, "task": {"ttl": 60000}}),
    )
    .await;
    let task = &created["result"]["task"];
    assert_eq!(task["status"], "working", "{created}");
    assert!(
        task["ttl"].is_u64() && task["pollInterval"].is_u64(),
        "{created}"
    );
    assert!(task.get("ttlMs").is_none() && created["result"].get("resultType").is_none());
    let id = task["taskId"].as_str().unwrap().to_owned();

    let got = ask(&mut wire, 3, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["result"]["taskId"], id.as_str(), "{got}");
    assert!(got["result"]["createdAt"].is_string(), "{got}");

    let result = ask(&mut wire, 4, "tasks/result", json!({"taskId": id})).await;
    assert_eq!(
        result["result"]["content"][0]["text"], "Q3: steady",
        "{result}"
    );
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    let done = ask(&mut wire, 5, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(done["result"]["status"], "completed", "{done}");

    let page = ask(&mut wire, 6, "tasks/list", json!({})).await;
    let listed: Vec<&Value> = page["result"]["tasks"].as_array().unwrap().iter().collect();
    assert!(
        listed.iter().any(|task| task["taskId"] == id.as_str()),
        "{page}"
    );

    // This era refuses to cancel a task that ended.
    let late = ask(&mut wire, 7, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(late["error"]["code"], -32602, "{late}");

    // What the tool declares is what the call may be.
    let plain = ask(
        &mut wire,
        8,
        "tools/call",
        json!({"name": "rebuild_index", "arguments": {"index": "main"}}),
    )
    .await;
    assert_eq!(plain["error"]["code"], -32601, "{plain}");
    assert!(plain["error"]["message"].as_str().unwrap().contains("task"));
    let forbidden = ask(
        &mut wire,
        9,
        "tools/call",
        json!({"name": "hello", "arguments": {"name": "ana"}, "task": {}}),
    )
    .await;
    assert_eq!(forbidden["error"]["code"], -32601, "{forbidden}");
    let synchronous = ask(
        &mut wire,
        10,
        "tools/call",
        json!({"name": "hello", "arguments": {"name": "ana"}}),
    )
    .await;
    assert_eq!(synchronous["result"]["content"][0]["text"], "Hello, ana!");

    // Cancelled while it runs: the answer is the task, cancelled; its result an error.
    let running = ask(
        &mut wire,
        11,
        "tools/call",
        json!({"name": "rebuild_index", "arguments": {"index": "main"}, "task": {}}),
    )
    .await;
    let running = running["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let cancelled = ask(&mut wire, 12, "tasks/cancel", json!({"taskId": running})).await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    let nothing = ask(&mut wire, 13, "tasks/result", json!({"taskId": running})).await;
    assert!(
        nothing["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cancelled")
    );

    // Unknown ids are invalid params; so is another method's form.
    let unknown = ask(&mut wire, 14, "tasks/get", json!({"taskId": "nope"})).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let update = ask(
        &mut wire,
        15,
        "tasks/update",
        json!({"taskId": id, "inputResponses": {}}),
    )
    .await;
    assert_eq!(update["error"]["code"], -32601, "{update}");
}

/// `tasks/result` of a task waiting for approval asks the client (an elicitation
/// marked with the task), and the call runs once with the yes.
#[tokio::test]
async fn tasks_result_asks_for_the_approval_a_task_waits_for() {
    let mut wire = session().await;
    let created = ask(
        &mut wire,
        1,
        "tools/call",
        json!({"name": "refund", "arguments": {"order": "A-17"}, "task": {}}),
    )
    .await;
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    for _ in 0..200 {
        let got = ask(&mut wire, 2, "tasks/get", json!({"taskId": id})).await;
        if got["result"]["status"] == "input_required" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    wire.send(
        &json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/result", "params": {"taskId": id}})
            .to_string(),
    )
    .await;
    let asked = answer(&mut wire).await;
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    assert_eq!(
        asked["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    assert!(
        asked["params"]["message"]
            .as_str()
            .unwrap()
            .contains("refund")
    );
    assert_eq!(REFUNDED.load(Ordering::SeqCst), 0);
    wire.send(
        &json!({"jsonrpc": "2.0", "id": asked["id"], "result": {
            "action": "accept", "content": {"approve": true},
        }})
        .to_string(),
    )
    .await;
    let result = answer(&mut wire).await;
    assert_eq!(result["id"], 3, "{result}");
    assert_eq!(
        result["result"]["content"][0]["text"], "refunded A-17",
        "{result}"
    );
    assert_eq!(REFUNDED.load(Ordering::SeqCst), 1);
}

/// The session that created a task hears of each change of its status
/// (`notifications/tasks/status`, in this revision's form), up to its end.
#[tokio::test]
async fn a_task_reports_its_status_changes_to_its_session() {
    let mut wire = session().await;
    let created = ask(
        &mut wire,
        1,
        "tools/call",
        json!({"name": "quarter_summary", "arguments": {"quarter": 2}, "task": {}}),
    )
    .await;
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let heard = loop {
        let message = wire.next().await;
        assert_eq!(message["method"], "notifications/tasks/status", "{message}");
        if message["params"]["status"] != "working" {
            break message;
        }
    };
    assert_eq!(heard["params"]["taskId"], id.as_str(), "{heard}");
    assert_eq!(heard["params"]["status"], "completed", "{heard}");
    assert!(heard["params"]["ttl"].is_u64(), "{heard}");
    assert!(
        wire.quiet_for(Duration::from_millis(200)).await,
        "nothing more once it ended"
    );
}
