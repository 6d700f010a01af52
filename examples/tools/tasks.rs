//! Tools whose calls may outlive their request: served as MCP tasks when the server
//! has them (`McpServer::with_tasks`) and the client asks, answered within the request
//! otherwise. Each declares it with `task = "optional"`.
//!
//! - `build_report` takes a while and says how far it is (read-only: after a crash it
//!   simply runs again);
//! - `send_payout` pays through a provider and waits for a person above 1,000 (external:
//!   it claims its idempotency key, so a crash never pays twice);
//! - `cancel_subscription` cannot be undone (destructive, no key: after a crash
//!   mid-call its task fails "outcome unknown" rather than cancel twice);
//! - `close_account` cannot be undone either, but can tell whether it happened
//!   (`reconcile = account_closed`): after a crash mid-call the answer decides, and the
//!   call runs only if the account is still open.
//!
//! The payout and the cancellation write their effect as a line of a ledger file
//! outside the process, where a test counts them.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use toolwright::{Context, Reconciled, ToolError, ToolOutput, feedback, tool};

/// Where payouts and cancellations are written: a file every process appends to.
pub struct PayoutLedger(pub PathBuf);

impl PayoutLedger {
    /// Appends `line` in one write (appends from several processes do not interleave).
    fn write(&self, line: &str) -> Result<(), ToolError> {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.0)
            .map_err(|e| ToolError::failed(format!("the ledger cannot be opened: {e}")))?;
        file.write_all(format!("{line} {}\n", std::process::id()).as_bytes())
            .map_err(|e| ToolError::failed(format!("the ledger cannot be written: {e}")))
    }
}

/// Build the activity report of the last `weeks` weeks: about a tenth of a second per
/// week. Run it as a task when you can; it reports its progress.
#[tool(effect = "read_only", task = "optional")]
pub async fn build_report(
    /// How many weeks back, 1 to 52.
    #[arg(minimum = 1, maximum = 52)]
    weeks: u32,
) -> String {
    for week in 1..=weeks {
        tokio::time::sleep(Duration::from_millis(100)).await;
        feedback::progress(f64::from(week), Some(f64::from(weeks)), Some("weeks read"));
    }
    format!("activity report of the last {weeks} weeks: all quiet")
}

fn over_limit(_recipient: &str, amount: &u64) -> Option<String> {
    (*amount > 1_000).then(|| format!("a payout of {amount} is over the 1,000 limit"))
}

/// Pay money out to a recipient's account and return the confirmation. Use when the
/// user asks to pay someone; not to refund a charge (use `refund_payment`). The
/// payment provider takes a moment to answer; payouts over 1,000 wait for a person.
#[tool(effect = "external", approval = over_limit, callers = "any", task = "optional")]
pub async fn send_payout(
    /// Who is paid, like `acct-42`.
    #[arg(pattern = "^[a-z0-9-]{1,64}$")]
    recipient: String,
    /// Amount in cents.
    #[arg(minimum = 1, maximum = 1_000_000)]
    amount: u64,
    #[ctx] ledger: &PayoutLedger,
) -> Result<String, ToolError> {
    eprintln!("send_payout: paying {amount} to {recipient}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    ledger.write(&format!("{recipient} {amount}"))?;
    Ok(format!("paid {amount} to {recipient}"))
}

/// End a recipient's subscription at once and return what was cancelled. Use when the
/// user asks to cancel someone's subscription for good; it cannot be undone, so never
/// use it to pause one.
#[tool(effect = "destructive", task = "optional")]
pub async fn cancel_subscription(
    /// Whose subscription, like `acct-42`.
    #[arg(pattern = "^[a-z0-9-]{1,64}$")]
    recipient: String,
    #[ctx] ledger: &PayoutLedger,
) -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    ledger.write(&format!("{recipient} cancelled"))?;
    tokio::time::sleep(Duration::from_millis(50)).await;
    Ok(format!("cancelled the subscription of {recipient}"))
}

/// Close a recipient's account for good and return what was closed. Use when the user
/// asks to close an account; it cannot be undone, so never use it to suspend one.
#[tool(effect = "destructive", task = "optional", reconcile = account_closed)]
pub async fn close_account(
    /// Whose account, like `acct-42`.
    #[arg(pattern = "^[a-z0-9-]{1,64}$")]
    recipient: String,
    #[ctx] ledger: &PayoutLedger,
) -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(300)).await;
    ledger.write(&format!("{recipient} closed"))?;
    tokio::time::sleep(Duration::from_millis(50)).await;
    Ok(format!("closed the account of {recipient}"))
}

/// Whether `close_account` closed `recipient`'s account before its process died: the
/// ledger says. What a reconciliation must do: ask the world (never this process's
/// memory), answer `Happened` with the result the tool would have given, `DidNotHappen`
/// only when sure, and `Unknown` when the world cannot say.
async fn account_closed(ctx: &Context, recipient: &String) -> Reconciled {
    let Some(ledger) = ctx.get::<PayoutLedger>() else {
        return Reconciled::Unknown("no ledger to look in".into());
    };
    let closed = format!("{recipient} closed ");
    let found = match std::fs::read_to_string(&ledger.0) {
        Ok(text) if text.lines().any(|line| line.starts_with(&closed)) => Reconciled::Happened(Ok(
            ToolOutput::Text(format!("closed the account of {recipient}")),
        )),
        Ok(_) => Reconciled::DidNotHappen,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Reconciled::DidNotHappen,
        Err(error) => Reconciled::Unknown(format!("the ledger cannot be read: {error}")),
    };
    let said = match &found {
        Reconciled::Happened(_) => "it happened",
        Reconciled::DidNotHappen => "it did not happen",
        _ => "unknown",
    };
    eprintln!("close_account: reconciled {recipient}: {said}");
    found
}
