use toolwright::{Context, Tool, ToolError, tool};

pub struct Workspace { pub root: String }

/// Refund a payment to a customer.
///
/// Use only after the customer's request was confirmed.
///
/// # Arguments
/// * `customer` - Customer id, like `C-100`.
/// * `amount` - Amount in the currency's minor unit (cents).
#[tool(effect = "external", idempotent)]
fn refund_payment(
    customer: String,
    #[arg(minimum = 1)] amount: u64,
    /// Shown on the customer's statement.
    #[arg(max_length = 140)] memo: Option<String>,
    #[arg(default = 3)] retries: u8,
    #[ctx] ws: &Workspace,
) -> Result<String, ToolError> {
    Ok(format!("{customer} {amount} {memo:?} {retries} {}", ws.root))
}

#[test]
fn scratch() {
    println!("{}", serde_json::to_string_pretty(RefundPayment.spec()).unwrap());
    let ctx = Context::new().with(Workspace { root: "/w".into() });
    let out = futures_lite(RefundPayment.call(&ctx, r#"{"customer":"C-1","amount":5}"#.into()));
    println!("{out:?}");
}

fn futures_lite<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
}
