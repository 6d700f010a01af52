use toolwright::ToolSchema;

#[derive(serde::Deserialize, ToolSchema)]
#[tool_schema(crate = ::toolwright, rename_all = "camelCase")]
struct Query {
    text: String,
}

#[derive(serde::Deserialize, ToolSchema)]
#[tool_schema(crate)]
struct Page {
    number: u32,
}

fn main() {}
