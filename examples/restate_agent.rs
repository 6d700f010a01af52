//! An agent run on Restate: a workflow that alternates a model turn (scripted here,
//! journaled as a step) and the batch of calls it asks for, scheduled by effect (the
//! reads together, one step; the payout and the cancellation each alone) through a
//! toolwright registry; a payout waits for a person's approval on a Restate awakeable.
//! A crash at any point is survived: Restate replays the run, recorded calls are served
//! from the journal, and a call cut mid-step is decided by its effect: the payout by its
//! reconciliation (the ledger says whether it was paid; if not, it is paid now), the
//! cancellation, which has none, reported "outcome unknown", never run twice.
//!
//!     restate="$(scripts/test/restate-server)"; "$restate" --base-dir /tmp/restate &
//!     cargo run --example restate_agent --features restate_agent -- \
//!         --port 9080 --store /tmp/agent.redb --ledger /tmp/ledger --approvals /tmp/approvals
//!     curl -X POST localhost:9070/deployments -H 'content-type: application/json' \
//!         -d '{"uri": "http://127.0.0.1:9080"}'
//!     curl -X POST localhost:8080/AgentRun/run-1/run -H 'content-type: application/json' -d '"A-1"'
//!     # in another shell: the payout waits; approve it with the file's command
//!     cat /tmp/approvals/*
//!
//! - `--port N`: where the workflow's endpoint listens (127.0.0.1).
//! - `--store PATH`: the idempotency store (redb), which a keyed call's claim outlives
//!   the process in.
//! - `--ledger PATH`: where the tools write their effects, a line each (the crash test
//!   counts them).
//! - `--approvals DIR`: each call waiting for approval writes `DIR/<awakeable id>`, the
//!   ticket as JSON, for whoever approves.
//! - `--lease-ms N`: how long a claim holds without word from its process.
//! - `--pause-ms N`: how long each effectful tool takes before and after its effect
//!   (default 100), to widen the windows a crash can fall in.
//!
//! `TOOLWRIGHT_APPROVAL_SECRET` signs the tickets (default: a fixed development secret),
//! the same in every process that serves the run.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use restate_sdk::prelude::*;
use serde_json::{Value, json};
use toolwright::idempotency::{Idempotency, RedbStore};
use toolwright::policy::AllowAll;
use toolwright::restate::Journal;
use toolwright::{
    Context, Reconciled, Registry, ToolCall, ToolError, ToolOutput, ToolSettings, tool,
};

/// Where effects are written, and how long each takes.
struct World {
    ledger: PathBuf,
    pause: Duration,
}

impl World {
    /// Writes `line` to the ledger and syncs it: the effect, done.
    fn happen(&self, line: &str) -> Result<(), ToolError> {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.ledger)
            .map_err(|e| ToolError::failed(format!("the ledger: {e}")))?;
        writeln!(file, "{line}").map_err(|e| ToolError::failed(format!("the ledger: {e}")))?;
        file.sync_all()
            .map_err(|e| ToolError::failed(format!("the ledger: {e}")))
    }
}

/// Look an order up: its customer and amount. Use before acting on an order.
#[tool(effect = "read_only")]
fn look_up(
    /// The order, like `A-1`.
    order: String,
) -> String {
    format!("order {order}: 120 EUR, customer wants a refund and no more deliveries")
}

/// When the orders' deliveries stop. Use before cancelling a subscription.
#[tool(effect = "read_only")]
fn delivery_status(
    /// The order, like `A-1`.
    order: String,
) -> String {
    format!("order {order}: delivered monthly, next delivery on the 1st")
}

/// Pay an amount back to the order's customer. Use once the order was looked up.
#[tool(effect = "external", reconcile = payout_made)]
async fn send_payout(
    /// The order, like `A-1`.
    order: String,
    /// The amount in euros.
    #[arg(minimum = 1, maximum = 10_000)]
    amount: u32,
    #[ctx] world: &World,
) -> Result<String, ToolError> {
    tokio::time::sleep(world.pause).await;
    world.happen(&format!("payout {order} {amount}"))?;
    tokio::time::sleep(world.pause).await;
    Ok(format!("paid {amount} EUR for {order}"))
}

/// Whether `send_payout` paid `amount` for `order` before its process died: the ledger
/// says (the world, never this process's memory). The answer is written to the ledger
/// too, for the crash test to count.
async fn payout_made(ctx: &Context, order: &String, amount: &u32) -> Reconciled {
    let Some(world) = ctx.get::<World>() else {
        return Reconciled::Unknown("no ledger to look in".into());
    };
    let line = format!("payout {order} {amount}");
    let found = match std::fs::read_to_string(&world.ledger) {
        Ok(text) if text.lines().any(|l| l == line) => Reconciled::Happened(Ok(ToolOutput::Text(
            format!("paid {amount} EUR for {order}"),
        ))),
        Ok(_) => Reconciled::DidNotHappen,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Reconciled::DidNotHappen,
        Err(error) => return Reconciled::Unknown(format!("the ledger cannot be read: {error}")),
    };
    let said = match found {
        Reconciled::Happened(_) => "happened",
        _ => "did not happen",
    };
    match world.happen(&format!("checked payout {order}: {said}")) {
        Ok(()) => found,
        Err(error) => Reconciled::Unknown(error.message),
    }
}

/// Stop the order's subscription. Use when the customer wants no more deliveries.
#[tool(effect = "destructive")]
async fn cancel_subscription(
    /// The order, like `A-1`.
    order: String,
    #[ctx] world: &World,
) -> Result<String, ToolError> {
    tokio::time::sleep(world.pause).await;
    world.happen(&format!("cancel {order}"))?;
    tokio::time::sleep(world.pause).await;
    Ok(format!("cancelled the subscription of {order}"))
}

/// The scripted model: what it asks for at turn `turn` of the run for `order`, having
/// read `seen` (the answers so far); `None` when it has its final answer.
fn model_turn(turn: usize, order: &str, seen: &[String]) -> Option<Vec<(String, Value)>> {
    match turn {
        0 => Some(vec![
            ("look_up".into(), json!({"order": order})),
            ("delivery_status".into(), json!({"order": order})),
        ]),
        1 if seen.iter().any(|answer| answer.contains("120 EUR")) => Some(vec![
            ("send_payout".into(), json!({"order": order, "amount": 120})),
            ("cancel_subscription".into(), json!({"order": order})),
        ]),
        _ => None,
    }
}

/// One agent run per order.
struct AgentRun {
    registry: Arc<Registry>,
    context: Arc<Context>,
    approvals: PathBuf,
}

#[restate_sdk::workflow]
impl AgentRun {
    /// Runs the agent on `order` until the model has its answer: every answer, in order.
    #[handler]
    async fn run(
        &self,
        ctx: WorkflowContext<'_>,
        order: String,
    ) -> Result<Json<Vec<String>>, HandlerError> {
        let approvals = self.approvals.clone();
        let journal = Journal::new(self.registry.clone(), self.context.clone(), ctx.key())
            .on_approval(move |awakeable, ticket| {
                let ticket = serde_json::to_string(ticket).unwrap_or_default();
                let _ = std::fs::create_dir_all(&approvals);
                let _ = std::fs::write(approvals.join(awakeable), ticket);
            });
        let mut seen: Vec<String> = Vec::new();
        for turn in 0.. {
            // The model's turn is a step too: replayed, it asks for the same calls.
            let asked = seen.clone();
            let order_now = order.clone();
            let Json(calls) = ctx
                .run(move || async move { Ok(Json(model_turn(turn, &order_now, &asked))) })
                .name(format!("model turn {turn}"))
                .await?;
            let Some(calls) = calls else { break };
            // Scheduled by effect: the reads together (one step), the rest one by one.
            let calls = (calls.into_iter().enumerate())
                .map(|(index, (name, arguments))| {
                    ToolCall::new(format!("t{turn}-{index}"), name, arguments)
                })
                .collect();
            for result in journal.dispatch_batch(&ctx, calls).await? {
                seen.push(result.for_model().to_owned());
            }
        }
        Ok(Json(seen))
    }
}

fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|arg| arg == name)
        .and_then(|at| args.get(at + 1).cloned())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let need = |name: &str| {
        flag(&args, name)
            .ok_or_else(|| format!("restate_agent: {name} is required (see the example's header)"))
    };
    let port: u16 = need("--port")?.parse()?;
    let millis = |name: &str, default: u64| -> Result<Duration, Box<dyn std::error::Error>> {
        Ok(Duration::from_millis(match flag(&args, name) {
            Some(value) => value.parse()?,
            None => default,
        }))
    };
    let mut idempotency = Idempotency::new(RedbStore::open(need("--store")?)?);
    idempotency = idempotency.lease(millis("--lease-ms", 60_000)?);
    let secret = std::env::var("TOOLWRIGHT_APPROVAL_SECRET")
        .unwrap_or_else(|_| "restate-agent-development-secret-0123".into());
    let registry = Registry::builder()
        .with(LookUp)
        .with(DeliveryStatus)
        .with(SendPayout)
        .with(CancelSubscription)
        // The payout asks a person (the default policy for an external tool); the rest run.
        .configure("look_up", ToolSettings::new().policy(AllowAll))
        .configure("delivery_status", ToolSettings::new().policy(AllowAll))
        .configure("cancel_subscription", ToolSettings::new().policy(AllowAll))
        .with_idempotency(idempotency)
        .with_approval_secret(secret)
        .build()?;
    let world = World {
        ledger: need("--ledger")?.into(),
        pause: millis("--pause-ms", 100)?,
    };
    let run = AgentRun {
        registry: Arc::new(registry),
        context: Arc::new(Context::new().with(world)),
        approvals: need("--approvals")?.into(),
    };
    eprintln!("restate_agent: serving AgentRun on 127.0.0.1:{port}");
    HttpServer::new(Endpoint::builder().bind(run).build())
        .listen_and_serve(format!("127.0.0.1:{port}").parse()?)
        .await;
    Ok(())
}
