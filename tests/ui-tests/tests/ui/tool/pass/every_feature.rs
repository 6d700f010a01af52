// A tool using every attribute compiles and runs.
use std::collections::BTreeMap;

use toolwright::{Context, Tool, ToolError, ToolSchema, tool};

#[derive(serde::Deserialize, serde::Serialize, ToolSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Filter {
    Tag { name: String },
    Newer { days: u32 },
}

struct Store;

/// Search the store.
///
/// # Arguments
/// * `query` - Text to find.
#[tool(
    name = "store_search",
    title = "Search the store",
    effect = "read_only",
    idempotent,
    open_world = false
)]
async fn search(
    query: String,
    #[arg(rename = "max", minimum = 1, maximum = 100, default = 10, example = 20)] max_results: u32,
    #[arg(description = "Filters, all must hold.", min_items = 0, max_items = 5)] filters: Vec<Filter>,
    #[arg(exclusive_minimum = 0.0, exclusive_maximum = 1.0, multiple_of = 0.25)] threshold: Option<f64>,
    #[arg(min_length = 2, max_length = 8, pattern = "^[a-z]+$", format = "hostname")] host: Option<String>,
    labels: BTreeMap<String, String>,
    #[ctx] store: &Store,
) -> Result<Vec<String>, ToolError> {
    let _ = (store, filters, threshold, host, labels);
    Ok(vec![query; max_results as usize])
}

fn main() {
    let spec = Search.spec();
    assert_eq!(spec.name, "store_search");
    assert_eq!(spec.input_schema["properties"]["max"]["default"], 10);
    let ctx = Context::new().with(Store);
    let output = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(Search.call(&ctx, r#"{"query": "q", "max": 2, "filters": [], "labels": {}}"#.into()))
        .unwrap();
    assert_eq!(output.to_text(), r#"["q","q"]"#);
}
