use toolwright::tool;

/// Look a customer up.
#[tool(effect = "read_only")]
fn lookup(#[arg(pattern = "^C-[0-9+$")] customer: String) -> String {
    customer
}

fn main() {}
