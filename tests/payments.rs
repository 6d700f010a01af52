//! The payments desk: happy paths and refusals (missing scope, refund over the
//! threshold, duplicate refund, business rules after the schema).

use crate::tools;

use serde_json::json;
use std::sync::Arc;

use tools::payments::PaymentsDesk;
use toolwright::ToolSettings;
use toolwright::approval::ApprovalDecision;
use toolwright::policy::{AllowAll, Caller};
use toolwright::{Context, ErrorKind, Registry, ToolCall, ToolResult};

/// The desk as a harness would set it up: external effects are allowed by policy here;
/// the refund's own rule asks a person above 500.00.
fn desk() -> Registry {
    desk_of(PaymentsDesk::shared())
}

/// The desk's tools, registered from the service (kept to look at its ledger).
fn desk_of(service: Arc<PaymentsDesk>) -> Registry {
    Registry::builder()
        .with_toolset(service)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap()
}

fn clerk() -> Context {
    Context::new().with(Caller::new("clerk", ["payments:write"]))
}

fn run(registry: &Registry, ctx: &Context, call: ToolCall) -> ToolResult {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(registry.dispatch(ctx, call))
}

fn kind(result: &ToolResult) -> Option<ErrorKind> {
    result.error().map(|e| e.kind)
}

#[test]
fn lookup_finds_customers_and_says_not_found_for_well_formed_unknown_ids() {
    let (desk, ctx) = (desk(), clerk());
    let found = run(
        &desk,
        &ctx,
        ToolCall::new("1", "lookup_customer", r#"{"id": "C-100"}"#),
    );
    assert!(
        found.for_model().contains("Ada Lovelace"),
        "{}",
        found.for_model()
    );
    let missing = run(
        &desk,
        &ctx,
        ToolCall::new("2", "lookup_customer", r#"{"id": "C-999"}"#),
    );
    assert_eq!(kind(&missing), Some(ErrorKind::NotFound));
    let malformed = run(
        &desk,
        &ctx,
        ToolCall::new("3", "lookup_customer", r#"{"id": "999"}"#),
    );
    assert_eq!(kind(&malformed), Some(ErrorKind::InvalidArguments));
}

#[test]
fn a_refund_without_the_scope_is_denied_naming_it() {
    let ctx = Context::new().with(Caller::new("intern", ["payments:read"]));
    let result = run(
        &desk(),
        &ctx,
        ToolCall::new(
            "1",
            "refund_payment",
            json!({"customer": "C-100", "amount": 500, "currency": "EUR"}),
        ),
    );
    assert_eq!(kind(&result), Some(ErrorKind::Denied));
    assert!(result.error().unwrap().message.contains("payments:write"));
}

#[test]
fn a_refund_over_the_threshold_waits_for_a_person() {
    let service = PaymentsDesk::shared();
    let (desk, ctx) = (desk_of(service.clone()), clerk());
    let paused = run(
        &desk,
        &ctx,
        ToolCall::new(
            "1",
            "refund_payment",
            json!({"customer": "C-100", "amount": 60_000, "currency": "EUR"}),
        ),
    );
    assert_eq!(kind(&paused), Some(ErrorKind::AwaitingApproval));
    assert!(paused.error().unwrap().message.contains("600.00"));
    assert_eq!(service.ledger().refund_count(), 0, "nothing was paid");
    let ticket = paused.ticket.unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let approved = runtime.block_on(desk.resume(
        &ctx,
        &ticket,
        ApprovalDecision::Approve {
            digest: ticket.digest.clone(),
        },
    ));
    assert!(!approved.is_error(), "{}", approved.for_model());
    assert_eq!(service.ledger().refund_count(), 1);
}

#[test]
fn a_duplicate_refund_pays_once() {
    let service = PaymentsDesk::shared();
    let (desk, ctx) = (desk_of(service.clone()), clerk());
    let refund = |id: &str| {
        ToolCall::new(
            id,
            "refund_payment",
            json!({"customer": "C-200", "amount": 1_000, "currency": "USD"}),
        )
        .with_idempotency_key("ticket-4711")
    };
    let first = run(&desk, &ctx, refund("a"));
    let retry = run(&desk, &ctx, refund("b"));
    assert!(!first.is_error(), "{}", first.for_model());
    assert!(retry.duplicate);
    assert_eq!(retry.for_model(), first.for_model());
    assert_eq!(service.ledger().refund_count(), 1);
}

#[test]
fn business_rules_come_after_the_schema() {
    let (desk, ctx) = (desk(), clerk());
    let currency = run(
        &desk,
        &ctx,
        ToolCall::new(
            "1",
            "refund_payment",
            json!({"customer": "C-200", "amount": 100, "currency": "EUR"}),
        ),
    );
    assert_eq!(kind(&currency), Some(ErrorKind::Conflict));
    let too_much = run(
        &desk,
        &ctx,
        ToolCall::new(
            "2",
            "refund_payment",
            json!({"customer": "C-200", "amount": 9_000, "currency": "USD"}),
        ),
    );
    assert_eq!(kind(&too_much), Some(ErrorKind::Conflict));
    let nobody = run(
        &desk,
        &ctx,
        ToolCall::new(
            "3",
            "refund_payment",
            json!({"customer": "C-7", "amount": 100, "currency": "USD"}),
        ),
    );
    assert_eq!(kind(&nobody), Some(ErrorKind::NotFound));
}
