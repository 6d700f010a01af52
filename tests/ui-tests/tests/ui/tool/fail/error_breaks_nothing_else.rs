// A tool with a mistake still has its function and its companion, so code that calls or
// registers it compiles and the user reads only the real error (the missing description).
use toolwright::{Tool, tool};

#[tool(effect = "read_only")]
fn ping(host: String) -> String {
    host
}

fn main() {
    let _ = ping("example.org".to_owned());
    let tools: Vec<Box<dyn Tool>> = vec![Box::new(Ping)];
    let _ = tools[0].spec();
}
