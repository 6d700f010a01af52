// Three mistakes in one function: all three are reported by one build.
use toolwright::tool;

#[tool(effect = "read_onyl")]
fn search(query: &str, #[arg(minimum = 10, maximum = 1)] limit: u32) -> Vec<String> {
    let _ = (query, limit);
    Vec::new()
}

fn main() {}
