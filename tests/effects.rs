//! Effects in force: policy before anything runs, approval as a serializable
//! interruption, dry runs, idempotency, retries, per-call effects and the batch
//! scheduler. Orderings are asserted from recorded start and end events, never from
//! wall-clock time.

use crate::support::block_on;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use toolwright::approval::{ApprovalDecision, ApprovalTicket};
use toolwright::policy::{AllowAll, Caller, Decision, PolicyRequest};
use toolwright::{
    Context, DryRunVerdict, Effect, ErrorKind, Event, Registry, Retry, ToolCall, ToolError,
    ToolOutput, ToolResult, ToolSettings, tool,
};

static REFUNDS: AtomicU32 = AtomicU32::new(0);

fn needs_approval(_customer: &str, amount: &u64) -> Option<String> {
    (*amount > 50_000).then(|| {
        format!(
            "a refund of {}.{:02} is over the 500.00 limit",
            amount / 100,
            amount % 100
        )
    })
}

fn describe_refund(customer: &str, amount: &u64) -> String {
    format!(
        "would refund {}.{:02} to {customer}",
        amount / 100,
        amount % 100
    )
}

/// Refund a payment.
#[tool(effect = "external", scopes = ["payments:write"], approval = needs_approval, describe = describe_refund)]
fn refund(
    #[arg(pattern = "^C-[0-9]+$")] customer: String,
    #[arg(minimum = 1)] amount: u64,
) -> String {
    let n = REFUNDS.fetch_add(1, Ordering::SeqCst) + 1;
    format!("refund #{n}: {amount} to {customer}")
}

fn classify_command(command: &str) -> Effect {
    let words: Vec<&str> = command.split_whitespace().collect();
    match words.as_slice() {
        ["ls", ..] | ["git", "status", ..] | ["git", "diff", ..] => Effect::ReadOnly,
        ["rm", ..] => Effect::Destructive,
        _ => Effect::RISKIEST,
    }
}

/// Run a shell command from the allow-list.
#[tool(effect = "dynamic", classify = classify_command)]
fn run_command(command: String) -> String {
    format!("ran {command}")
}

fn payer() -> Context {
    Context::new().with(Caller::new("agent-1", ["payments:write"]))
}

fn error(result: &ToolResult) -> &ToolError {
    result
        .error()
        .unwrap_or_else(|| panic!("expected an error, got {:?}", result.outcome))
}

#[test]
fn the_default_policy_follows_the_effect_table() {
    let registry = Registry::builder()
        .with(Refund)
        .with(RunCommand)
        .build()
        .unwrap();
    let ctx = payer();
    let read = block_on(registry.dispatch(
        &ctx,
        ToolCall::new("1", "run_command", r#"{"command": "ls -la"}"#),
    ));
    assert_eq!(read.outcome, Ok(ToolOutput::Text("ran ls -la".into())));
    assert_eq!(read.effect, Some(Effect::ReadOnly));
    let rm = block_on(registry.dispatch(
        &ctx,
        ToolCall::new("2", "run_command", r#"{"command": "rm -rf build"}"#),
    ));
    assert_eq!(error(&rm).kind, ErrorKind::AwaitingApproval);
    assert_eq!(rm.effect, Some(Effect::Destructive));
    let unknown = block_on(registry.dispatch(
        &ctx,
        ToolCall::new("3", "run_command", r#"{"command": "curl evil.sh"}"#),
    ));
    assert_eq!(
        unknown.effect,
        Some(Effect::External),
        "what the classifier cannot tell is the riskiest class"
    );
    let refund = block_on(registry.dispatch(
        &ctx,
        ToolCall::new("4", "refund", r#"{"customer": "C-1", "amount": 100}"#),
    ));
    assert_eq!(error(&refund).kind, ErrorKind::AwaitingApproval);
}

#[test]
fn a_missing_scope_is_a_denial_naming_it() {
    let registry = Registry::builder()
        .with(Refund)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    let result = block_on(registry.dispatch(
        &Context::new(),
        ToolCall::new("1", "refund", r#"{"customer": "C-1", "amount": 100}"#),
    ));
    let error = error(&result);
    assert_eq!(error.kind, ErrorKind::Denied);
    assert!(
        error.message.contains("payments:write"),
        "{}",
        error.message
    );
    assert!(!error.retryable);
}

#[test]
fn arguments_are_validated_before_any_policy_is_asked() {
    let asked = Arc::new(AtomicU32::new(0));
    let counter = asked.clone();
    let registry = Registry::builder()
        .with(Refund)
        .defaults(ToolSettings::new().policy(move |_: &PolicyRequest<'_>| {
            counter.fetch_add(1, Ordering::SeqCst);
            Decision::ask("someone must look")
        }))
        .build()
        .unwrap();
    let result = block_on(registry.dispatch(
        &payer(),
        ToolCall::new("1", "refund", r#"{"customer": "nobody", "amount": 0}"#),
    ));
    assert_eq!(error(&result).kind, ErrorKind::InvalidArguments);
    assert_eq!(error(&result).problems.len(), 2);
    assert_eq!(
        asked.load(Ordering::SeqCst),
        0,
        "nobody approves a malformed call"
    );
}

#[test]
fn policies_can_be_closures_per_tool_and_fail_closed() {
    let registry = Registry::builder()
        .with(RunCommand)
        .with(Refund)
        .defaults(
            ToolSettings::new().policy(|request: &PolicyRequest<'_>| match request.effect {
                Effect::Destructive => Decision::Deny {
                    reason: "nothing is deleted on Fridays".into(),
                    retry_may_help: true,
                },
                _ => Decision::Allow,
            }),
        )
        .configure(
            "refund",
            ToolSettings::new()
                .policy(|_: &PolicyRequest<'_>| -> Decision { panic!("a buggy policy") }),
        )
        .build()
        .unwrap();
    let ctx = payer();
    let rm = block_on(registry.dispatch(
        &ctx,
        ToolCall::new("1", "run_command", r#"{"command": "rm x"}"#),
    ));
    assert_eq!(error(&rm).kind, ErrorKind::Denied);
    assert_eq!(error(&rm).message, "nothing is deleted on Fridays");
    assert!(error(&rm).retryable);
    let refund = block_on(registry.dispatch(
        &ctx,
        ToolCall::new("2", "refund", r#"{"customer": "C-1", "amount": 1}"#),
    ));
    assert_eq!(
        error(&refund).kind,
        ErrorKind::Denied,
        "a panicking policy denies"
    );
}

#[test]
fn approval_pauses_and_resumes_across_a_serialized_ticket() {
    let registry = Registry::builder()
        .with(Refund)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    let ctx = payer();
    // Small refunds run; the tool's own approval rule stops large ones.
    let small = block_on(registry.dispatch(
        &ctx,
        ToolCall::new("s", "refund", r#"{"customer": "C-1", "amount": 100}"#),
    ));
    assert!(!small.is_error(), "{}", small.for_model());
    let large = block_on(registry.dispatch(
        &ctx,
        ToolCall::new("l", "refund", r#"{"customer": "C-7", "amount": 90000}"#),
    ));
    assert_eq!(error(&large).kind, ErrorKind::AwaitingApproval);
    assert!(error(&large).message.contains("over the 500.00 limit"));
    // The ticket survives a trip through JSON (another process resumes it).
    let json = serde_json::to_string(large.ticket.as_ref().unwrap()).unwrap();
    let ticket: ApprovalTicket = serde_json::from_str(&json).unwrap();
    assert_eq!(
        ticket.arguments,
        json!({"customer": "C-7", "amount": 90000})
    );

    // A decision for another digest is refused.
    let wrong = block_on(registry.resume(
        &ctx,
        &ticket,
        ApprovalDecision::Approve {
            digest: "0".repeat(64),
        },
    ));
    assert_eq!(error(&wrong).kind, ErrorKind::Denied);
    // A ticket whose arguments were changed no longer matches its digest.
    let mut forged = ticket.clone();
    forged.arguments["amount"] = json!(99_999_999);
    let forged_result = block_on(registry.resume(
        &ctx,
        &forged,
        ApprovalDecision::Approve {
            digest: ticket.digest.clone(),
        },
    ));
    assert_eq!(error(&forged_result).kind, ErrorKind::Denied);

    let before = REFUNDS.load(Ordering::SeqCst);
    let approved = block_on(registry.resume(
        &ctx,
        &ticket,
        ApprovalDecision::Approve {
            digest: ticket.digest.clone(),
        },
    ));
    assert!(!approved.is_error(), "{}", approved.for_model());
    assert_eq!(approved.call_id, "l");
    assert_eq!(REFUNDS.load(Ordering::SeqCst), before + 1);
}

#[test]
fn a_declined_call_tells_the_model_not_to_retry() {
    let registry = Registry::builder().with(Refund).build().unwrap();
    let ctx = payer();
    let paused = block_on(registry.dispatch(
        &ctx,
        ToolCall::new("d", "refund", r#"{"customer": "C-2", "amount": 500}"#),
    ));
    let ticket = paused.ticket.clone().unwrap();
    let declined = block_on(registry.resume(
        &ctx,
        &ticket,
        ApprovalDecision::Decline {
            digest: ticket.digest.clone(),
            reason: "the customer withdrew".into(),
        },
    ));
    let error = error(&declined);
    assert_eq!(error.kind, ErrorKind::Denied);
    assert!(!error.retryable);
    assert!(error.message.contains("the customer withdrew"));
    assert!(error.hint.as_deref().unwrap().contains("do not retry"));
}

#[test]
fn approved_edits_are_validated_again() {
    let registry = Registry::builder().with(Refund).build().unwrap();
    let ctx = payer();
    let paused = block_on(registry.dispatch(
        &ctx,
        ToolCall::new("e", "refund", r#"{"customer": "C-3", "amount": 700}"#),
    ));
    let ticket = paused.ticket.clone().unwrap();
    let bad = block_on(registry.resume(
        &ctx,
        &ticket,
        ApprovalDecision::ApproveWithEdits {
            digest: ticket.digest.clone(),
            arguments: json!({"customer": "C-3", "amount": -5}),
        },
    ));
    assert_eq!(error(&bad).kind, ErrorKind::InvalidArguments);
    let good = block_on(registry.resume(
        &ctx,
        &ticket,
        ApprovalDecision::ApproveWithEdits {
            digest: ticket.digest.clone(),
            arguments: json!({"customer": "C-3", "amount": 600}),
        },
    ));
    assert!(
        good.for_model().ends_with("600 to C-3"),
        "{}",
        good.for_model()
    );
}

#[test]
fn a_dry_run_checks_everything_and_changes_nothing() {
    let registry = Registry::builder()
        .with(Refund)
        .with(RunCommand)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    let ctx = payer();
    let before = REFUNDS.load(Ordering::SeqCst);
    let would = registry.dry_run(
        &ctx,
        &ToolCall::new("1", "refund", r#"{"customer": "C-1", "amount": 1234}"#),
    );
    assert_eq!(
        would.verdict,
        DryRunVerdict::WouldRun {
            description: "would refund 12.34 to C-1".into()
        }
    );
    assert_eq!(would.effect, Some(Effect::External));
    let asks = registry.dry_run(
        &ctx,
        &ToolCall::new("2", "refund", r#"{"customer": "C-1", "amount": 123456}"#),
    );
    assert!(matches!(asks.verdict, DryRunVerdict::WouldAsk { .. }));
    let refused = registry.dry_run(
        &Context::new(),
        &ToolCall::new("3", "refund", r#"{"customer": "C-1", "amount": 1}"#),
    );
    assert!(
        matches!(&refused.verdict, DryRunVerdict::Refused { error } if error.kind == ErrorKind::Denied)
    );
    let default_words = registry.dry_run(
        &ctx,
        &ToolCall::new("4", "run_command", r#"{"command": "ls"}"#),
    );
    assert_eq!(
        default_words.verdict,
        DryRunVerdict::WouldRun {
            description: r#"would call 'run_command' with {"command": "ls"}"#.into()
        }
    );
    assert_eq!(REFUNDS.load(Ordering::SeqCst), before, "nothing ran");
}

static CHARGES: AtomicU32 = AtomicU32::new(0);

/// Charge a card.
#[tool(effect = "external")]
fn charge(amount: u64) -> String {
    let n = CHARGES.fetch_add(1, Ordering::SeqCst) + 1;
    format!("charge #{n} of {amount}")
}

#[test]
fn an_external_call_with_a_seen_key_returns_the_first_result() {
    let registry = Registry::builder()
        .with(Charge)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    let ctx = Context::new();
    let before = CHARGES.load(Ordering::SeqCst);
    let first = block_on(registry.dispatch(
        &ctx,
        ToolCall::new("a", "charge", r#"{"amount": 5}"#).with_idempotency_key("order-17"),
    ));
    // The model retries after a timeout on its side: same key, new call id.
    let again = block_on(registry.dispatch(
        &ctx,
        ToolCall::new("b", "charge", r#"{"amount": 5}"#).with_idempotency_key("order-17"),
    ));
    assert!(again.duplicate && !first.duplicate);
    assert_eq!(again.outcome, first.outcome);
    assert_eq!(again.call_id, "b");
    assert_eq!(CHARGES.load(Ordering::SeqCst), before + 1, "paid once");
    // Without a key, the call id is the key.
    let c1 = block_on(registry.dispatch(&ctx, ToolCall::new("c", "charge", r#"{"amount": 5}"#)));
    let c2 = block_on(registry.dispatch(&ctx, ToolCall::new("c", "charge", r#"{"amount": 5}"#)));
    assert!(!c1.duplicate && c2.duplicate);
}

#[cfg(feature = "redb")]
#[test]
fn the_persistent_store_catches_a_duplicate_after_a_restart() {
    use toolwright::idempotency::{Idempotency, RedbStore};
    let path = std::env::temp_dir().join(format!(
        "toolwright-idempotency-{}.redb",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let before = CHARGES.load(Ordering::SeqCst);
    {
        let registry = Registry::builder()
            .with(Charge)
            .defaults(ToolSettings::new().policy(AllowAll))
            .with_idempotency(Idempotency::new(RedbStore::open(&path).unwrap()))
            .build()
            .unwrap();
        let first = block_on(registry.dispatch(
            &Context::new(),
            ToolCall::new("x", "charge", r#"{"amount": 9}"#).with_idempotency_key("order-99"),
        ));
        assert!(!first.is_error());
    }
    // A new process: the store is opened again from the file.
    let registry = Registry::builder()
        .with(Charge)
        .defaults(ToolSettings::new().policy(AllowAll))
        .with_idempotency(Idempotency::new(RedbStore::open(&path).unwrap()))
        .build()
        .unwrap();
    let again = block_on(registry.dispatch(
        &Context::new(),
        ToolCall::new("y", "charge", r#"{"amount": 9}"#).with_idempotency_key("order-99"),
    ));
    assert!(again.duplicate);
    assert_eq!(CHARGES.load(Ordering::SeqCst), before + 1);
    let _ = std::fs::remove_file(&path);
}

static FLAKY: AtomicU32 = AtomicU32::new(0);

/// Read a sensor that is busy now and then.
#[tool(effect = "read_only")]
fn read_sensor() -> Result<u32, ToolError> {
    match FLAKY.fetch_add(1, Ordering::SeqCst) % 3 {
        0 | 1 => Err(ToolError::retryable("the sensor is busy")),
        _ => Ok(21),
    }
}

#[test]
fn retries_are_off_by_default_and_on_per_tool() {
    FLAKY.store(0, Ordering::SeqCst);
    let plain = Registry::builder().with(ReadSensor).build().unwrap();
    let failed = block_on(plain.dispatch(&Context::new(), ToolCall::new("1", "read_sensor", "{}")));
    assert_eq!(error(&failed).message, "the sensor is busy");
    FLAKY.store(0, Ordering::SeqCst);
    let retrying = Registry::builder()
        .with(ReadSensor)
        .configure(
            "read_sensor",
            ToolSettings::new().retries(Retry {
                attempts: 3,
                backoff: Duration::from_millis(1),
            }),
        )
        .build()
        .unwrap();
    let result =
        block_on(retrying.dispatch(&Context::new(), ToolCall::new("2", "read_sensor", "{}")));
    assert_eq!(result.outcome, Ok(ToolOutput::Json(json!(21))));
}

/// Wait, then answer.
#[tool(effect = "read_only")]
async fn slow_read(name: String, millis: u64) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    name
}

/// Edit a file.
#[tool(effect = "write")]
async fn edit_file(#[arg(resource)] path: String) -> String {
    tokio::time::sleep(Duration::from_millis(5)).await;
    format!("edited {path}")
}

/// Run the test suite.
#[tool(effect = "read_only")]
async fn run_tests() -> String {
    tokio::time::sleep(Duration::from_millis(5)).await;
    "ok".into()
}

/// Records events in order.
fn recorder() -> (
    Arc<Mutex<Vec<String>>>,
    impl Fn(&Event) + Send + Sync + 'static,
) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let sink = log.clone();
    let observe = move |event: &Event| {
        let line = match event {
            Event::Started { call_id, .. } => format!("start {call_id}"),
            Event::Finished { call_id, .. } => format!("end {call_id}"),
            other => format!("{other:?}"),
        };
        sink.lock().unwrap().push(line);
    };
    (log, observe)
}

fn position(log: &[String], line: &str) -> usize {
    log.iter()
        .position(|l| l == line)
        .unwrap_or_else(|| panic!("{line} not in {log:?}"))
}

#[test]
fn a_batch_runs_reads_together_and_writes_alone_in_listed_order() {
    let (log, observe) = recorder();
    let registry = Registry::builder()
        .with(SlowRead)
        .with(EditFile)
        .with(RunTests)
        .with_observer(observe)
        .build()
        .unwrap();
    let calls = vec![
        ToolCall::new("read_a", "slow_read", r#"{"name": "a", "millis": 20}"#),
        ToolCall::new("read_b", "slow_read", r#"{"name": "b", "millis": 5}"#),
        ToolCall::new("edit", "edit_file", r#"{"path": "auth/session.py"}"#),
        ToolCall::new("tests", "run_tests", "{}"),
    ];
    let results = block_on(registry.dispatch_batch(&Context::new(), calls));
    let log = log.lock().unwrap().clone();
    eprintln!("event log: {log:?}");
    // Results in listed order, whatever finished first.
    let ids: Vec<&str> = results.iter().map(|r| r.call_id.as_str()).collect();
    assert_eq!(ids, ["read_a", "read_b", "edit", "tests"]);
    // The two reads overlap: b starts before a ends (and ends first).
    assert!(position(&log, "start read_b") < position(&log, "end read_a"));
    assert!(position(&log, "end read_b") < position(&log, "end read_a"));
    // The edit starts after both reads ended; the test run after the edit ended.
    assert!(position(&log, "end read_a") < position(&log, "start edit"));
    assert!(position(&log, "end edit") < position(&log, "start tests"));
}

#[test]
fn writes_to_different_resources_share_a_turn_and_the_same_resource_does_not() {
    let (log, observe) = recorder();
    let registry = Registry::builder()
        .with(EditFile)
        .with_observer(observe)
        .build()
        .unwrap();
    let calls = vec![
        ToolCall::new("a", "edit_file", r#"{"path": "a.py"}"#),
        ToolCall::new("b", "edit_file", r#"{"path": "b.py"}"#),
        ToolCall::new("a_again", "edit_file", r#"{"path": "a.py"}"#),
    ];
    block_on(registry.dispatch_batch(&Context::new(), calls));
    let log = log.lock().unwrap().clone();
    assert!(
        position(&log, "start b") < position(&log, "end a"),
        "different files overlap: {log:?}"
    );
    assert!(
        position(&log, "end a") < position(&log, "start a_again"),
        "the same file waits: {log:?}"
    );
}

#[test]
fn a_cancelled_batch_still_answers_every_call() {
    let registry = Registry::builder()
        .with(SlowRead)
        .with(EditFile)
        .build()
        .unwrap();
    let calls = vec![
        ToolCall::new("quick", "slow_read", r#"{"name": "q", "millis": 1}"#),
        ToolCall::new("edit", "edit_file", r#"{"path": "x"}"#),
        ToolCall::new("forever", "slow_read", r#"{"name": "f", "millis": 100000}"#),
        ToolCall::new("after", "edit_file", r#"{"path": "y"}"#),
    ];
    let results = block_on(async {
        let cancel = tokio::time::sleep(Duration::from_millis(200));
        registry
            .dispatch_batch_until(&Context::new(), calls, cancel)
            .await
    });
    let kinds: Vec<Option<ErrorKind>> = results.iter().map(|r| r.error().map(|e| e.kind)).collect();
    assert_eq!(
        kinds,
        [
            None,
            None,
            Some(ErrorKind::Cancelled),
            Some(ErrorKind::Cancelled)
        ]
    );
    assert_eq!(results[3].call_id, "after");
}
