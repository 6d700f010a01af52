use toolwright::tool;

/// Refund an order to the card it was paid with.
#[tool(effect = "external", hosted_code)]
fn refund_order(id: String) {
    let _ = id;
}

/// Cancel an order before it ships.
#[tool(effect = "write", callers = "direct", hosted_code = true)]
fn cancel_order(id: String) {
    let _ = id;
}

/// Look up an order.
#[tool(effect = "read_only", hosted_code)]
fn lookup_order(id: String) {
    let _ = id;
}

fn main() {}
