use toolwright::tool;

#[derive(serde::Deserialize)]
struct Stamp(String);

fn stamp_schema(_: &mut toolwright::SchemaGenerator) -> serde_json::Value {
    serde_json::json!({"type": "string"})
}

/// Record a stamp.
#[tool(effect = "write")]
fn record(
    #[arg(schema_with = stamp_schema, schema_as = String)] first: Stamp,
) -> String {
    first.0
}

fn main() {}
