use toolwright::tool;

#[tool(effect = "read_only")]
fn ping() -> String {
    "pong".into()
}

fn main() {}
