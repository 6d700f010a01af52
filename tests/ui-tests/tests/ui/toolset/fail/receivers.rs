// A tool method takes `&self` or `self: Arc<Self>`; every wrong receiver is reported in
// one build, and the registration below still compiles.
use std::sync::Arc;
use toolwright::{Registry, toolset};

struct Counter {
    count: u64,
}

#[toolset]
impl Counter {
    /// Add one.
    #[tool(effect = "write")]
    fn bump(&mut self) -> u64 {
        self.count += 1;
        self.count
    }

    /// Take the counter.
    #[tool(effect = "read_only")]
    fn take(self) -> u64 {
        self.count
    }

    /// Box the counter.
    #[tool(effect = "read_only")]
    fn boxed(self: Box<Self>) -> u64 {
        self.count
    }
}

fn main() {
    let _ = Registry::builder().with_toolset(Arc::new(Counter { count: 0 })).build().unwrap();
}
