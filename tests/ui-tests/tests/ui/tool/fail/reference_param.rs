use toolwright::tool;

/// Count the words in a text.
#[tool(effect = "read_only")]
fn count_words(text: &str) -> usize {
    text.split_whitespace().count()
}

fn main() {}
