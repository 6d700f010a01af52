use toolwright::tool;

#[doc = concat!("Add two ", "numbers.")]
#[tool(effect = "read_only")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[doc = include_str!("no_such_file.md")]
#[tool(effect = "read_only")]
fn subtract(a: i64, b: i64) -> i64 {
    a - b
}

fn main() {}
