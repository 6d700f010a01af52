use toolwright::toolset;

struct Greeter;

#[toolset]
impl Greeter {
    /// Say hello (but not marked as a tool).
    fn hello(&self) -> String {
        "hello".into()
    }
}

fn main() {}
