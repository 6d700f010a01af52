use toolwright::toolset;

struct Greeter;

trait Greet {
    fn hello(&self) -> String;
}

#[toolset]
impl Greet for Greeter {
    /// Say hello.
    #[tool(effect = "read_only")]
    fn hello(&self) -> String {
        "hello".into()
    }
}

fn main() {}
