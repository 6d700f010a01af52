use toolwright::tool;

/// Look up an order.
#[tool(effect = "read_only", callers = "python")]
fn lookup_order(id: String) {
    let _ = id;
}

/// Refund an order.
#[tool(effect = "external", callers = "everyone")]
fn refund_order(id: String) {
    let _ = id;
}

fn main() {}
