use toolwright::tool;

/// List the newest items.
#[tool(effect = "read_only")]
fn newest(#[arg(minimum = 50, maximum = 10)] count: u32) -> u32 {
    count
}

fn main() {}
