//! Effects that hold under races, reused keys, colliding call ids, forged tickets and
//! decisions made twice: each side effect happens at most once, and no caller reads
//! another's result. Counts are kept by the tools themselves (a ledger in the context).

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use serde_json::json;
use toolwright::approval::{ApprovalDecision, digest};
use toolwright::policy::{AllowAll, Caller};
use toolwright::{
    Context, ErrorKind, Registry, ToolCall, ToolError, ToolResult, ToolSettings, tool,
};

/// What the tools did, counted where the side effect happens.
#[derive(Default)]
struct Ledger {
    runs: AtomicU32,
}

impl Ledger {
    fn runs(ctx: &Context) -> u32 {
        ctx.get::<Ledger>().unwrap().runs.load(Ordering::SeqCst)
    }
}

/// Refund a payment to a customer; takes a while, as a payment provider does.
#[tool(effect = "external")]
async fn refund(
    /// Customer id, like `C-100`.
    #[arg(pattern = "^C-[0-9]+$")]
    customer: String,
    /// Amount in cents.
    #[arg(minimum = 1)]
    amount: u64,
    #[ctx] ledger: &Ledger,
) -> String {
    let n = ledger.runs.fetch_add(1, Ordering::SeqCst) + 1;
    tokio::time::sleep(Duration::from_millis(150)).await;
    format!("refunded {amount} to {customer} (refund #{n})")
}

/// Delete an account and everything in it.
#[tool(effect = "destructive")]
fn delete_account(
    /// The account.
    account: String,
    #[ctx] ledger: &Ledger,
) -> String {
    ledger.runs.fetch_add(1, Ordering::SeqCst);
    format!("deleted {account}")
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap()
}

fn context() -> Context {
    Context::new().with(Ledger::default())
}

fn error(result: &ToolResult) -> &ToolError {
    result
        .error()
        .unwrap_or_else(|| panic!("expected an error, got {:?}", result.outcome))
}

fn refund_call(id: &str, customer: &str, amount: u64) -> ToolCall {
    ToolCall::new(
        id,
        "refund",
        json!({"customer": customer, "amount": amount}),
    )
}

// 1. A client that retries while its first attempt is still running pays once.
#[test]
fn two_calls_with_one_key_at_the_same_time_run_once() {
    let registry = Registry::builder()
        .with(Refund)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    let ctx = context();
    let (first, second) = runtime().block_on(async {
        tokio::join!(
            registry.dispatch(&ctx, refund_call("a", "C-3", 100).with_idempotency_key("k")),
            registry.dispatch(&ctx, refund_call("b", "C-3", 100).with_idempotency_key("k")),
        )
    });
    assert_eq!(Ledger::runs(&ctx), 1, "the tool ran once");
    assert_eq!(first.outcome, second.outcome, "both get the one result");
    assert!(!first.is_error(), "{}", first.for_model());
    assert!(
        first.duplicate != second.duplicate,
        "exactly one is the duplicate"
    );
    assert_eq!(
        (first.call_id.as_str(), second.call_id.as_str()),
        ("a", "b")
    );
}

// 2. A key reused with other arguments is a conflict, never the first call's result.
#[test]
fn a_key_reused_with_other_arguments_is_a_conflict() {
    let registry = Registry::builder()
        .with(Refund)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    let ctx = context();
    let rt = runtime();
    let first = rt
        .block_on(registry.dispatch(&ctx, refund_call("a", "C-3", 100).with_idempotency_key("k")));
    assert!(first.for_model().starts_with("refunded 100"));
    let second = rt
        .block_on(registry.dispatch(&ctx, refund_call("b", "C-3", 200).with_idempotency_key("k")));
    let refused = error(&second);
    assert_eq!(refused.kind, ErrorKind::Conflict, "{}", second.for_model());
    assert!(!second.for_model().contains("refunded 100"));
    assert!(!second.duplicate);
    assert!(refused.message.contains("already used for another call"));
    assert!(!refused.retryable);
    assert_eq!(Ledger::runs(&ctx), 1);
}

// 3. Call ids repeat across clients (MCP numbers requests per connection): a derived
// key never lets one client's call answer another's.
#[test]
fn calls_that_share_only_an_id_both_run_and_each_gets_its_own_result() {
    let registry = Registry::builder()
        .with(Refund)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    let ctx = context();
    let rt = runtime();
    let one = rt.block_on(registry.dispatch(&ctx, refund_call("3", "C-1", 100)));
    let two = rt.block_on(registry.dispatch(&ctx, refund_call("3", "C-2", 100)));
    assert!(!one.duplicate && !two.duplicate);
    assert!(one.for_model().contains("to C-1"), "{}", one.for_model());
    assert!(two.for_model().contains("to C-2"), "{}", two.for_model());
    assert_eq!(Ledger::runs(&ctx), 2);
}

// 4. A ticket changed by its holder approves nothing, and does not spoil the genuine
// approval that follows.
#[test]
fn a_forged_ticket_approves_nothing() {
    let registry = Registry::builder().with(Refund).build().unwrap();
    let ctx = context();
    let rt = runtime();
    let paused = rt.block_on(registry.dispatch(&ctx, refund_call("r", "C-3", 100)));
    assert_eq!(error(&paused).kind, ErrorKind::AwaitingApproval);
    let ticket = paused.ticket.clone().unwrap();
    let mut forged = (*ticket).clone();
    forged.arguments = json!({"customer": "C-666", "amount": 9_000_000});
    forged.digest = digest("refund", &forged.arguments);
    let attempt = rt.block_on(registry.resume(
        &ctx,
        &forged,
        ApprovalDecision::Approve {
            digest: forged.digest.clone(),
        },
    ));
    assert_eq!(error(&attempt).kind, ErrorKind::Denied);
    assert_eq!(Ledger::runs(&ctx), 0, "the forged call did not run");
    let genuine = rt.block_on(registry.resume(
        &ctx,
        &ticket,
        ApprovalDecision::Approve {
            digest: ticket.digest.clone(),
        },
    ));
    assert!(!genuine.duplicate);
    assert!(
        genuine.for_model().starts_with("refunded 100 to C-3"),
        "{}",
        genuine.for_model()
    );
    assert_eq!(Ledger::runs(&ctx), 1);
}

// 5. An approval is spent by its first decision, for every effect class.
#[test]
fn an_approval_is_spent_once() {
    let registry = Registry::builder().with(DeleteAccount).build().unwrap();
    let ctx = context();
    let rt = runtime();
    let paused = rt.block_on(registry.dispatch(
        &ctx,
        ToolCall::new("d", "delete_account", json!({"account": "acme"})),
    ));
    let ticket = paused.ticket.clone().unwrap();
    let approve = || ApprovalDecision::Approve {
        digest: ticket.digest.clone(),
    };
    let first = rt.block_on(registry.resume(&ctx, &ticket, approve()));
    let second = rt.block_on(registry.resume(&ctx, &ticket, approve()));
    assert_eq!(first.for_model(), "deleted acme");
    assert_eq!(second.outcome, first.outcome);
    assert!(second.duplicate && !first.duplicate);
    assert_eq!(Ledger::runs(&ctx), 1, "ran once");
}

// What the claim contract promises beyond the five failures above.

use std::sync::Arc;

use toolwright::approval::ApprovalTicket;
use toolwright::idempotency::{
    Claim, ClaimRequest, Idempotency, IdempotencyStore, MemoryStore, Settlement, StoreError,
    StoreFuture,
};

#[test]
fn a_second_attempt_that_outwaits_its_limit_is_told_the_first_still_runs() {
    let registry = Registry::builder()
        .with(Refund)
        .defaults(ToolSettings::new().policy(AllowAll))
        .with_idempotency(Idempotency::new(MemoryStore::new()).wait(Duration::from_millis(20)))
        .build()
        .unwrap();
    let ctx = context();
    let (first, second) = runtime().block_on(async {
        tokio::join!(
            registry.dispatch(&ctx, refund_call("a", "C-3", 100).with_idempotency_key("k")),
            registry.dispatch(&ctx, refund_call("b", "C-3", 100).with_idempotency_key("k")),
        )
    });
    let (done, waiting) = if first.is_error() {
        (second, first)
    } else {
        (first, second)
    };
    assert!(!done.is_error(), "{}", done.for_model());
    let refused = error(&waiting);
    assert_eq!(refused.kind, ErrorKind::Conflict);
    assert!(
        refused.message.contains("still running"),
        "{}",
        refused.message
    );
    assert!(refused.retryable, "asking again later gets the result");
    assert_eq!(Ledger::runs(&ctx), 1);
    // Asked again once the first finished: its result, not a second run.
    let later = runtime()
        .block_on(registry.dispatch(&ctx, refund_call("c", "C-3", 100).with_idempotency_key("k")));
    assert!(later.duplicate);
    assert_eq!(later.outcome, done.outcome);
    assert_eq!(Ledger::runs(&ctx), 1);
}

#[test]
fn an_external_call_cut_off_by_its_time_limit_leaves_its_outcome_unknown() {
    let registry = Registry::builder()
        .with(Refund)
        .defaults(ToolSettings::new().policy(AllowAll))
        .configure(
            "refund",
            ToolSettings::new().timeout(Duration::from_millis(30)),
        )
        .build()
        .unwrap();
    let ctx = context();
    let rt = runtime();
    let cut = rt
        .block_on(registry.dispatch(&ctx, refund_call("a", "C-3", 100).with_idempotency_key("k")));
    assert_eq!(error(&cut).kind, ErrorKind::Timeout);
    let retry = rt
        .block_on(registry.dispatch(&ctx, refund_call("b", "C-3", 100).with_idempotency_key("k")));
    let refused = error(&retry);
    assert_eq!(refused.kind, ErrorKind::OutcomeUnknown);
    assert!(refused.message.contains("unknown"), "{}", refused.message);
    assert!(!refused.retryable);
    assert!(
        refused
            .hint
            .as_deref()
            .unwrap()
            .contains("check the outside world")
    );
    assert_eq!(Ledger::runs(&ctx), 1, "never a second run");
}

/// Send a message; the provider is busy on every first attempt.
#[tool(effect = "external")]
fn send_message(
    /// The text.
    text: String,
    #[ctx] ledger: &Ledger,
) -> Result<String, ToolError> {
    match ledger.runs.fetch_add(1, Ordering::SeqCst) {
        0 => Err(ToolError::retryable("the provider is busy")),
        _ => Ok(format!("sent {text}")),
    }
}

#[test]
fn a_failure_the_tool_calls_retryable_frees_the_key() {
    let registry = Registry::builder()
        .with(SendMessage)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    let ctx = context();
    let rt = runtime();
    let call =
        || ToolCall::new("m", "send_message", json!({"text": "hi"})).with_idempotency_key("k");
    let busy = rt.block_on(registry.dispatch(&ctx, call()));
    assert!(error(&busy).retryable);
    let sent = rt.block_on(registry.dispatch(&ctx, call()));
    assert_eq!(sent.for_model(), "sent hi");
    assert!(!sent.duplicate);
    let again = rt.block_on(registry.dispatch(&ctx, call()));
    assert!(again.duplicate);
    assert_eq!(Ledger::runs(&ctx), 2);
}

#[test]
fn keys_belong_to_their_caller() {
    let registry = Registry::builder()
        .with(Refund)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    let as_caller = |id: &str| context().with(Caller::new(id, Vec::<String>::new()));
    let rt = runtime();
    let (alice_ctx, bob_ctx) = (as_caller("alice"), as_caller("bob"));
    let a = rt.block_on(registry.dispatch(
        &alice_ctx,
        refund_call("1", "C-1", 100).with_idempotency_key("order-1"),
    ));
    let b = rt.block_on(registry.dispatch(
        &bob_ctx,
        refund_call("1", "C-1", 100).with_idempotency_key("order-1"),
    ));
    assert!(
        !a.duplicate && !b.duplicate,
        "bob never reads alice's result"
    );
    assert_eq!(Ledger::runs(&alice_ctx) + Ledger::runs(&bob_ctx), 2);
    // Within one caller the key holds.
    let a2 = rt.block_on(registry.dispatch(
        &alice_ctx,
        refund_call("2", "C-1", 100).with_idempotency_key("order-1"),
    ));
    assert!(a2.duplicate);
}

#[test]
fn derived_keys_tell_origins_apart() {
    let registry = Registry::builder()
        .with(Refund)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    let ctx = context();
    let rt = runtime();
    let one =
        rt.block_on(registry.dispatch(&ctx, refund_call("3", "C-1", 100).with_origin("session-a")));
    let other =
        rt.block_on(registry.dispatch(&ctx, refund_call("3", "C-1", 100).with_origin("session-b")));
    let retry =
        rt.block_on(registry.dispatch(&ctx, refund_call("3", "C-1", 100).with_origin("session-a")));
    assert!(!one.duplicate && !other.duplicate);
    assert!(
        retry.duplicate,
        "the same call from the same origin is a retry"
    );
    assert_eq!(retry.outcome, one.outcome);
    assert_eq!(Ledger::runs(&ctx), 2);
}

fn paused_refund(registry: &Registry, ctx: &Context) -> ApprovalTicket {
    let paused = runtime().block_on(registry.dispatch(ctx, refund_call("r", "C-3", 100)));
    assert_eq!(error(&paused).kind, ErrorKind::AwaitingApproval);
    *paused.ticket.clone().unwrap()
}

fn approve(ticket: &ApprovalTicket) -> ApprovalDecision {
    ApprovalDecision::Approve {
        digest: ticket.digest.clone(),
    }
}

#[test]
fn tickets_are_refused_when_expired_or_presented_by_another_caller() {
    let caller = |id: &str| context().with(Caller::new(id, Vec::<String>::new()));
    let registry = Registry::builder().with(Refund).build().unwrap();
    let ticket = paused_refund(&registry, &caller("alice"));
    assert_eq!(ticket.caller.as_deref(), Some("alice"));
    assert!(ticket.expires_at >= ticket.issued_at + 24 * 3600);
    let bob = caller("bob");
    let stolen = runtime().block_on(registry.resume(&bob, &ticket, approve(&ticket)));
    assert_eq!(error(&stolen).kind, ErrorKind::Denied);
    assert!(error(&stolen).message.contains("another caller"));
    assert_eq!(Ledger::runs(&bob), 0);

    let hasty = Registry::builder()
        .with(Refund)
        .with_approval_lifetime(Duration::ZERO)
        .build()
        .unwrap();
    let alice = caller("alice");
    let ticket = paused_refund(&hasty, &alice);
    let late = runtime().block_on(hasty.resume(&alice, &ticket, approve(&ticket)));
    assert!(
        error(&late).message.contains("expired"),
        "{}",
        late.for_model()
    );
    assert_eq!(Ledger::runs(&alice), 0);
}

#[test]
fn replicas_accept_each_others_tickets_only_with_the_shared_secret_and_spend_them_once() {
    let store = Arc::new(MemoryStore::new());
    let replica = |secret: &[u8]| {
        Registry::builder()
            .with(Refund)
            .with_approval_secret(secret)
            .with_idempotency(Idempotency::new(store.clone()))
            .build()
            .unwrap()
    };
    let (a, b, stranger) = (replica(b"shared"), replica(b"shared"), replica(b"other"));
    let ctx = context();
    let rt = runtime();
    let ticket = paused_refund(&a, &ctx);
    // A registry with its own random secret refuses it too.
    for refuser in [
        &stranger,
        &Registry::builder().with(Refund).build().unwrap(),
    ] {
        let refused = rt.block_on(refuser.resume(&ctx, &ticket, approve(&ticket)));
        assert!(
            error(&refused)
                .message
                .contains("not issued by this server"),
            "{}",
            refused.for_model()
        );
    }
    let approved = rt.block_on(b.resume(&ctx, &ticket, approve(&ticket)));
    assert!(!approved.is_error(), "{}", approved.for_model());
    let replayed = rt.block_on(a.resume(&ctx, &ticket, approve(&ticket)));
    assert!(replayed.duplicate);
    assert_eq!(replayed.outcome, approved.outcome);
    assert_eq!(Ledger::runs(&ctx), 1);
}

#[test]
fn a_decision_cannot_be_changed_once_made() {
    let registry = Registry::builder().with(Refund).build().unwrap();
    let ctx = context();
    let rt = runtime();
    let ticket = paused_refund(&registry, &ctx);
    let declined = rt.block_on(registry.resume(
        &ctx,
        &ticket,
        ApprovalDecision::Decline {
            digest: ticket.digest.clone(),
            reason: "no".into(),
        },
    ));
    let approved_after = rt.block_on(registry.resume(&ctx, &ticket, approve(&ticket)));
    assert!(approved_after.duplicate);
    assert_eq!(approved_after.outcome, declined.outcome);
    assert_eq!(Ledger::runs(&ctx), 0);
}

#[test]
fn an_edited_approval_runs_the_edited_call_once() {
    let registry = Registry::builder().with(Refund).build().unwrap();
    let ctx = context();
    let rt = runtime();
    let ticket = paused_refund(&registry, &ctx);
    let edit = || ApprovalDecision::ApproveWithEdits {
        digest: ticket.digest.clone(),
        arguments: json!({"customer": "C-3", "amount": 80}),
    };
    let edited = rt.block_on(registry.resume(&ctx, &ticket, edit()));
    assert!(
        edited.for_model().starts_with("refunded 80 to C-3"),
        "{}",
        edited.for_model()
    );
    let again = rt.block_on(registry.resume(&ctx, &ticket, edit()));
    assert!(again.duplicate);
    assert_eq!(Ledger::runs(&ctx), 1);
}

/// A store that cannot be reached.
struct Unreachable;

impl IdempotencyStore for Unreachable {
    fn name(&self) -> &str {
        "postgres"
    }
    fn claim<'a>(&'a self, _: ClaimRequest<'a>) -> StoreFuture<'a, Claim> {
        Box::pin(async { Err(StoreError::new("connecting: connection refused")) })
    }
    fn settle<'a>(
        &'a self,
        _: &'a str,
        _: &'a str,
        _: Settlement,
        _: Duration,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async { Err(StoreError::new("connecting: connection refused")) })
    }
    fn renew<'a>(&'a self, _: &'a str, _: &'a str, _: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async { Err(StoreError::new("connecting: connection refused")) })
    }
}

#[test]
fn a_store_that_cannot_answer_stops_the_call_and_is_named() {
    let registry = Registry::builder()
        .with(Refund)
        .defaults(ToolSettings::new().policy(AllowAll))
        .with_idempotency(Idempotency::new(Unreachable))
        .build()
        .unwrap();
    let ctx = context();
    let result = runtime().block_on(registry.dispatch(&ctx, refund_call("a", "C-3", 100)));
    let failed = error(&result);
    assert_eq!(failed.kind, ErrorKind::Internal);
    assert_eq!(
        failed.message,
        "the idempotency store (postgres) failed: connecting: connection refused"
    );
    assert!(failed.retryable);
    assert_eq!(
        Ledger::runs(&ctx),
        0,
        "a key that could not be claimed never runs"
    );
}

#[test]
fn a_call_longer_than_its_lease_keeps_its_key_while_it_runs() {
    // Lease 60 ms, the refund takes 150 ms: renewed while it runs, so the second attempt
    // (arriving at ~100 ms, waiting at most 20 ms) hears "still running", not "unknown".
    let registry = Registry::builder()
        .with(Refund)
        .defaults(ToolSettings::new().policy(AllowAll))
        .with_idempotency(
            Idempotency::new(MemoryStore::new())
                .lease(Duration::from_millis(60))
                .wait(Duration::from_millis(20)),
        )
        .build()
        .unwrap();
    let ctx = context();
    let (first, second) = runtime().block_on(async {
        tokio::join!(
            registry.dispatch(&ctx, refund_call("a", "C-3", 100).with_idempotency_key("k")),
            async {
                tokio::time::sleep(Duration::from_millis(100)).await;
                registry
                    .dispatch(&ctx, refund_call("b", "C-3", 100).with_idempotency_key("k"))
                    .await
            },
        )
    });
    assert!(!first.is_error(), "{}", first.for_model());
    assert!(
        error(&second).message.contains("still running"),
        "{}",
        second.for_model()
    );
    assert_eq!(Ledger::runs(&ctx), 1);
}

/// Suspends once, as a tool waiting on I/O would, without needing any runtime's timer.
struct YieldOnce(bool);

impl std::future::Future for YieldOnce {
    type Output = ();
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
}

/// Send a notice to a customer.
#[tool(effect = "external")]
async fn send_notice(
    /// The text.
    text: String,
    #[ctx] ledger: &Ledger,
) -> String {
    YieldOnce(false).await;
    ledger.runs.fetch_add(1, Ordering::SeqCst);
    format!("sent {text}")
}

#[test]
fn claims_need_no_runtime_timer() {
    // No tokio at all, then a tokio runtime without its time driver: a keyed call that
    // suspends, and a resumed one, still run (the lease renewal has its own timer).
    let registry = Registry::builder()
        .with(SendNotice)
        .with(DeleteAccount)
        .build()
        .unwrap();
    let allowing = Registry::builder()
        .with(SendNotice)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    let ctx = context();
    let call =
        || ToolCall::new("n", "send_notice", json!({"text": "hi"})).with_idempotency_key("k");
    let sent = futures_executor::block_on(allowing.dispatch(&ctx, call()));
    assert_eq!(sent.for_model(), "sent hi");
    let no_timer = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let again = no_timer.block_on(allowing.dispatch(&ctx, call()));
    assert!(again.duplicate);
    let paused = no_timer.block_on(registry.dispatch(
        &ctx,
        ToolCall::new("d", "delete_account", json!({"account": "acme"})),
    ));
    let ticket = paused.ticket.clone().unwrap();
    let deleted = no_timer.block_on(registry.resume(&ctx, &ticket, approve(&ticket)));
    assert_eq!(deleted.for_model(), "deleted acme");
    assert_eq!(Ledger::runs(&ctx), 2);
}

/// The charges the outside world holds, as a payment provider's records would.
#[derive(Default)]
struct Charges(std::sync::Mutex<Vec<String>>);

/// Charge a customer's card; the provider records the charge at once, then takes a while
/// to answer (for customers numbered 200 and above it answers first, then records).
#[tool(effect = "external", reconcile = charge_recorded)]
async fn charge(
    /// Customer id, like `C-100`.
    #[arg(pattern = "^C-[0-9]+$")]
    customer: String,
    #[ctx] charges: &Charges,
    #[ctx] ledger: &Ledger,
) -> String {
    ledger.runs.fetch_add(1, Ordering::SeqCst);
    let late = customer[2..].parse::<u32>().unwrap_or(0) >= 200;
    if !late {
        charges.0.lock().unwrap().push(customer.clone());
    }
    tokio::time::sleep(Duration::from_millis(150)).await;
    if late {
        charges.0.lock().unwrap().push(customer.clone());
    }
    format!("charged {customer}")
}

/// Whether the provider holds a charge of `customer`: asked when an attempt's outcome is
/// unknown. Customer `C-999`'s records cannot be read.
async fn charge_recorded(ctx: &Context, customer: &String) -> toolwright::Reconciled {
    if customer == "C-999" {
        return toolwright::Reconciled::Unknown("the provider's records are offline".into());
    }
    let charges = ctx.get::<Charges>().unwrap();
    if charges.0.lock().unwrap().contains(customer) {
        toolwright::Reconciled::Happened(Ok(toolwright::ToolOutput::Text(format!(
            "charged {customer} (found in the provider's records)"
        ))))
    } else {
        toolwright::Reconciled::DidNotHappen
    }
}

/// A keyed call whose earlier attempt was cut off (its outcome unknown) is decided by the
/// tool's reconciliation, never by running it again under the key: found done, its
/// outcome is recorded and served from then on; not done, the call is refused saying a
/// new key may run it; not knowable, it stays unknown with the reason.
#[test]
fn a_call_in_doubt_is_decided_by_its_tools_reconciliation() {
    let registry = Registry::builder()
        .with(Charge)
        .defaults(ToolSettings::new().policy(AllowAll))
        .configure(
            "charge",
            ToolSettings::new().timeout(Duration::from_millis(30)),
        )
        .build()
        .unwrap();
    let ctx = context().with(Charges::default());
    let rt = runtime();
    let call = |id: &str, customer: &str, key: &str| {
        ToolCall::new(id, "charge", json!({"customer": customer})).with_idempotency_key(key)
    };
    let cut = |customer: &str, key: &str| {
        let first = rt.block_on(registry.dispatch(&ctx, call("first", customer, key)));
        assert_eq!(error(&first).kind, ErrorKind::Timeout);
        rt.block_on(registry.dispatch(&ctx, call("again", customer, key)))
    };

    // Happened: the world's answer is the outcome, recorded under the key.
    let found = cut("C-1", "k1");
    assert_eq!(
        found.for_model(),
        "charged C-1 (found in the provider's records)"
    );
    let later = rt.block_on(registry.dispatch(&ctx, call("later", "C-1", "k1")));
    assert!(later.duplicate, "served from the key's record");
    assert_eq!(later.outcome, found.outcome);

    // Did not happen: refused, retryable with a new key; nothing ran under the old one.
    let runs = Ledger::runs(&ctx);
    let not_done = cut("C-200", "k2");
    let refused = error(&not_done);
    assert_eq!(refused.kind, ErrorKind::OutcomeUnknown);
    assert!(
        refused.message.contains("did not take effect"),
        "{}",
        refused.message
    );
    assert!(refused.retryable);
    assert!(
        refused
            .hint
            .as_deref()
            .unwrap()
            .contains("new idempotency key")
    );
    assert_eq!(Ledger::runs(&ctx), runs + 1, "only the cut-off attempt ran");

    // Not knowable: still unknown, with the reason.
    let offline = cut("C-999", "k3");
    let refused = error(&offline);
    assert_eq!(refused.kind, ErrorKind::OutcomeUnknown);
    assert!(!refused.retryable);
    assert!(
        refused.message.contains("records are offline"),
        "{}",
        refused.message
    );
}
