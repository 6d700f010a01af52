use toolwright::ToolSchema;

#[derive(serde::Deserialize, ToolSchema)]
struct Query {
    #[arg(rename = "q")]
    text: String,
    #[arg(default = 10)]
    limit: u32,
}

fn main() {}
