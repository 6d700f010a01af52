use toolwright::toolset;

struct Store<T>(T);

#[toolset]
impl<T: Send + Sync + 'static> Store<T> {
    /// Say hello.
    #[tool(effect = "read_only")]
    fn hello(&self) -> String {
        "hello".into()
    }
}

fn main() {}
