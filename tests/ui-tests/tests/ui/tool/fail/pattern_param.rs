use toolwright::tool;

/// Add two numbers.
#[tool(effect = "read_only")]
fn add((a, b): (i64, i64)) -> i64 {
    a + b
}

fn main() {}
