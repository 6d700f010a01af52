use toolwright::tool;

/// Echo a value.
#[tool(effect = "read_only")]
fn echo<'a>(value: String) -> String {
    value
}

fn main() {}
