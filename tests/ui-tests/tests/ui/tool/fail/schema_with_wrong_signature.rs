use toolwright::tool;

#[derive(serde::Deserialize)]
struct Stamp(String);

fn wrong_schema() -> serde_json::Value {
    serde_json::json!({"type": "string"})
}

/// Record a stamp.
#[tool(effect = "write")]
fn record(
    #[arg(schema_with = wrong_schema)] stamp: Stamp,
) -> String {
    stamp.0
}

fn main() {}
