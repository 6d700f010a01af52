use toolwright::ToolSchema;

#[derive(serde::Deserialize, ToolSchema)]
struct Point(f64, f64);

fn main() {}
