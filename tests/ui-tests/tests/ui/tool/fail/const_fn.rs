use toolwright::tool;

/// Add one.
#[tool(effect = "read_only")]
const fn increment(value: i32) -> i32 {
    value + 1
}

fn main() {}
