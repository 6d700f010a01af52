use toolwright::tool;

/// List the newest items.
#[tool(effect = "read_only")]
fn newest(
    #[arg(minimum = 50, maximum = 10)] count: u32,
    #[arg(items(min_length = 9, max_length = 3))] tags: Vec<String>,
) -> u32 {
    let _ = tags;
    count
}

fn main() {}
