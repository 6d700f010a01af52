use toolwright::tool;

/// Look up the weather.
#[tool(effect = "read_only", name = "weather.lookup")]
fn weather(city: String) -> String {
    city
}

fn main() {}
