use toolwright::tool;

/// Look a customer up.
///
/// # Arguments
/// * `customer_id` - The customer's id.
#[tool(effect = "read_only")]
fn lookup_customer(customer: String) -> String {
    customer
}

fn main() {}
