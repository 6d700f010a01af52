use toolwright::tool;

/// Echo a value.
#[tool(effect = "read_only")]
fn echo<T: serde::Serialize>(value: T) -> T {
    value
}

fn main() {}
