use toolwright::tool;

/// Sum numbers.
#[tool(effect = "read_only")]
unsafe extern "C" fn sum(count: i32, _args: ...) -> i32 {
    count
}

fn main() {}
