use toolwright::tool;

/// Tag notes.
#[tool(effect = "write")]
fn tag_notes(
    /// Note ids.
    #[arg(items(min_length = 1))]
    ids: Vec<u64>,
    /// How many.
    #[arg(items(minimum = 1))]
    count: u32,
    /// Labels.
    #[arg(min_items = 1, items(max_items = 2))]
    labels: Vec<String>,
) {
    let _ = (ids, count, labels);
}

fn main() {}
