// The checks of #[tool] hold on methods: each mistake is reported, all in one build.
use toolwright::toolset;

struct Greeter;

#[toolset]
impl Greeter {
    #[tool(effect = "read_only")]
    fn undocumented(&self) -> String {
        "hello".into()
    }

    /// Greet someone.
    #[tool(effect = "read_mostly")]
    fn greet(
        &self,
        /// Who.
        name: String,
    ) -> String {
        name
    }

    /// Say hello twice.
    #[tool(effect = "read_only", name = "greet")]
    fn greet_twice(&self) -> String {
        "hello hello".into()
    }
}

fn main() {}
