//! Effects in force: a policy, scopes, an approval that pauses a call and resumes it, a
//! dry run, an idempotent retry that pays once, and a batch scheduled by effect.
//!
//! Run it with `cargo run --example effects`.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use toolwright::ToolSettings;
use toolwright::approval::ApprovalDecision;
use toolwright::policy::{Caller, Decision, PolicyRequest};
use toolwright::{Context, Effect, Registry, ToolCall, ToolError, tool};

static PAYMENTS: AtomicU32 = AtomicU32::new(0);

fn over_limit(_customer: &str, amount: &u64) -> Option<String> {
    (*amount > 50_000).then(|| "refunds over 500.00 need a person's approval".to_owned())
}

fn describe_refund(customer: &str, amount: &u64) -> String {
    format!(
        "would refund {}.{:02} to {customer}",
        amount / 100,
        amount % 100
    )
}

/// Refund a payment to a customer.
#[tool(effect = "external", scopes = ["payments:write"], approval = over_limit, describe = describe_refund)]
fn refund(
    /// Customer id, like `C-100`.
    #[arg(pattern = "^C-[0-9]+$")]
    customer: String,
    /// Amount in cents.
    #[arg(minimum = 1)]
    amount: u64,
) -> Result<String, ToolError> {
    let n = PAYMENTS.fetch_add(1, Ordering::SeqCst) + 1;
    Ok(format!("payment #{n}: refunded {amount} to {customer}"))
}

fn classify(command: &str) -> Effect {
    match command.split_whitespace().next() {
        Some("ls" | "cat") => Effect::ReadOnly,
        Some("rm") => Effect::Destructive,
        _ => Effect::RISKIEST,
    }
}

/// Run a shell command.
#[tool(effect = "dynamic", classify = classify)]
async fn shell(command: String) -> String {
    tokio::time::sleep(Duration::from_millis(10)).await;
    format!("$ {command}")
}

/// Edit a file in the workspace.
#[tool(effect = "write")]
async fn edit(#[arg(resource)] path: String) -> String {
    tokio::time::sleep(Duration::from_millis(10)).await;
    format!("edited {path}")
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::builder()
        .with(Refund)
        .with(Shell)
        .with(Edit)
        // External effects may run without asking, within the tools' own approval rules;
        // everything destructive asks.
        .defaults(
            ToolSettings::new().policy(|request: &PolicyRequest<'_>| match request.effect {
                Effect::Destructive => Decision::ask("deleting files needs a person"),
                _ => Decision::Allow,
            }),
        )
        .with_observer(|event| {
            println!(
                "   event: {}",
                serde_json::to_string(event).unwrap_or_default()
            )
        })
        .build()
        .expect("three tools, three names");
    let ctx = Context::new().with(Caller::new("agent-1", ["payments:write"]));

    println!("== Dry run: every check, nothing happens ==");
    let dry = registry.dry_run(
        &ctx,
        &ToolCall::new("d1", "refund", r#"{"customer": "C-7", "amount": 1250}"#),
    );
    println!("{}\n", serde_json::to_string(&dry).unwrap_or_default());

    println!("== A refund without the scope is denied ==");
    let denied = registry
        .dispatch(
            &Context::new(),
            ToolCall::new("c1", "refund", r#"{"customer": "C-7", "amount": 1250}"#),
        )
        .await;
    println!("{}\n", denied.for_model());

    println!("== A large refund pauses for approval; the ticket resumes it ==");
    let paused = registry
        .dispatch(
            &ctx,
            ToolCall::new("c2", "refund", r#"{"customer": "C-7", "amount": 90000}"#),
        )
        .await;
    println!("{}", paused.for_model());
    let ticket = paused.ticket.expect("a ticket");
    let approved = registry
        .resume(
            &ctx,
            &ticket,
            ApprovalDecision::Approve {
                digest: ticket.digest.clone(),
            },
        )
        .await;
    println!("approved: {}\n", approved.for_model());

    println!("== The model retries after a timeout on its side: same key, paid once ==");
    for id in ["c3", "c4"] {
        let call = ToolCall::new(id, "refund", r#"{"customer": "C-8", "amount": 500}"#)
            .with_idempotency_key("order-8");
        let result = registry.dispatch(&ctx, call).await;
        println!(
            "{id}: duplicate={} {}",
            result.duplicate,
            result.for_model()
        );
    }
    println!("payments made: {}\n", PAYMENTS.load(Ordering::SeqCst));

    println!("== A batch: reads together, writes alone, in listed order ==");
    let calls = vec![
        ToolCall::new("b1", "shell", r#"{"command": "ls src"}"#),
        ToolCall::new("b2", "shell", r#"{"command": "cat README.md"}"#),
        ToolCall::new("b3", "edit", r#"{"path": "src/lib.rs"}"#),
        ToolCall::new("b4", "shell", r#"{"command": "rm -rf target"}"#),
    ];
    for result in registry.dispatch_batch(&ctx, calls).await {
        println!(
            "{} ({:?}): {}",
            result.call_id,
            result.effect,
            result.for_model()
        );
    }
}
