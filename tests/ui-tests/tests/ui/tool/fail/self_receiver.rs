use toolwright::tool;

struct Counter;

impl Counter {
    /// Read the counter.
    #[tool(effect = "read_only")]
    fn read(&self) -> u64 {
        0
    }
}

fn main() {}
