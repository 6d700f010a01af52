use toolwright::tool;

/// Move a file.
#[tool(effect = "write")]
fn move_file(from: String, #[arg(rename = "from")] to: String) -> String {
    format!("{from} -> {to}")
}

fn main() {}
