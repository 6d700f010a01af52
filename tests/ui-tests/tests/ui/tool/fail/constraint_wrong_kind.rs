use toolwright::tool;

/// Greet someone.
#[tool(effect = "read_only")]
fn greet(#[arg(minimum = 1)] name: String, #[arg(max_length = 3)] times: u8) -> String {
    name.repeat(times.into())
}

fn main() {}
