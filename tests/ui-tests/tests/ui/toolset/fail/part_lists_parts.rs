use toolwright::toolset;

struct Greeter;

#[toolset(part = extra, parts = [more])]
impl Greeter {
    /// Say hello.
    #[tool(effect = "read_only")]
    fn hello(&self) -> String {
        "hello".into()
    }
}

fn main() {}
