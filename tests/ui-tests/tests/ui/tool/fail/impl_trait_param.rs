use toolwright::tool;

/// Echo a value.
#[tool(effect = "read_only")]
fn echo(value: impl std::fmt::Display) -> String {
    value.to_string()
}

fn main() {}
