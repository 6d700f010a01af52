use toolwright::tool;

struct Counter {
    value: u64,
}

/// Increment the counter.
#[tool(effect = "write")]
fn increment(#[ctx] counter: &mut Counter) -> u64 {
    counter.value += 1;
    counter.value
}

fn main() {}
