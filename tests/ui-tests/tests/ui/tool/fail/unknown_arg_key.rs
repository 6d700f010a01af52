use toolwright::tool;

/// List files.
#[tool(effect = "read_only")]
fn list_files(#[arg(max_lenght = 10)] dir: String) -> Vec<String> {
    vec![dir]
}

fn main() {}
