//! The local embedder (`BertEmbedder`, feature `embed`) against reference vectors of the
//! same model computed independently (`tests/fixtures/embedding/reference.py`, float64
//! numpy), and semantic search through a registry: paraphrases found, vectors saved and
//! loaded, nothing embedded twice.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use toolwright::search::{BertEmbedder, EmbedError, Embedder, SemanticSearch, ToolVectors};
use toolwright::{Registry, tool};

fn embedder() -> Option<BertEmbedder> {
    let model = crate::support::embedding_model()?;
    Some(BertEmbedder::load(model).expect("the model loads"))
}

#[test]
fn vectors_match_the_reference_to_1e_4() {
    let Some(embedder) = embedder() else { return };
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/embedding/reference.json"
    );
    let reference: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let sentences: Vec<&str> = reference["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|sentence| sentence.as_str().unwrap())
        .collect();
    let expected: Vec<Vec<f64>> = serde_json::from_value(reference["vectors"].clone()).unwrap();
    // All in one batch (padded to the longest, which is cut at 256 word pieces), and
    // each alone: the padding must not change a vector.
    let batch = embedder.embed(&sentences).unwrap();
    for (i, sentence) in sentences.iter().enumerate() {
        let alone = embedder.embed(&[sentence]).unwrap().remove(0);
        for (got, what) in [(&batch[i], "in the batch"), (&alone, "alone")] {
            assert_eq!(got.len(), 384);
            let worst = got
                .iter()
                .zip(&expected[i])
                .map(|(got, want)| (f64::from(*got) - want).abs())
                .fold(0.0, f64::max);
            assert!(worst < 1e-4, "sentence {i} {what}: off by {worst}");
        }
    }
    assert_eq!(embedder.embed(&[]).unwrap().len(), 0);
}

#[test]
fn a_model_directory_that_is_not_one_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("toolwright-not-a-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let error = BertEmbedder::load(&dir).unwrap_err();
    assert!(error.message().contains("config.json"), "{error}");
    std::fs::write(dir.join("config.json"), "{}").unwrap();
    let error = BertEmbedder::load(&dir).unwrap_err();
    assert!(error.message().contains("config.json"), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Reserve a table at a restaurant for a number of guests.
#[tool(effect = "write")]
fn reserve_restaurant(
    /** Guests. */
    party: u32,
) {
    _ = party;
}

/// Current conditions and the next days' outlook for a city.
#[tool(effect = "read_only")]
fn city_outlook(
    /** The city. */
    city: String,
) {
    _ = city;
}

/// Send an email message to an address.
#[tool(effect = "external")]
fn send_email(
    /** The address. */
    to: String,
) {
    _ = to;
}

/// Counts what it embeds.
struct Counting(Arc<BertEmbedder>, AtomicUsize);

impl Embedder for Counting {
    fn model(&self) -> &str {
        self.0.model()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.1.fetch_add(texts.len(), Ordering::Relaxed);
        self.0.embed(texts)
    }

    fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        self.0.embed_query(query)
    }
}

#[test]
fn a_registry_finds_paraphrases_and_reuses_saved_vectors() {
    let Some(embedder) = embedder() else { return };
    let embedder = Arc::new(embedder);
    let registry = |vectors: ToolVectors| {
        let counting = Arc::new(Counting(Arc::clone(&embedder), AtomicUsize::new(0)));
        let registry = Registry::builder()
            .with(ReserveRestaurant)
            .with(CityOutlook)
            .with(SendEmail)
            .with_semantic_search(SemanticSearch::new(Arc::clone(&counting)).vectors(vectors))
            .build()
            .unwrap();
        (registry, counting)
    };
    let (first, counting) = registry(ToolVectors::new());
    // No word in common with the tool (stems included): only the meaning finds it.
    assert_eq!(
        first.search("will it rain tomorrow in Oslo", 1)[0].name,
        "city_outlook"
    );
    assert_eq!(
        first.search("book a table for four tonight", 1)[0].name,
        "reserve_restaurant"
    );
    assert_eq!(
        counting.1.load(Ordering::Relaxed),
        3,
        "each tool embedded once"
    );
    let lexical = Registry::builder()
        .with(CityOutlook)
        .with(SendEmail)
        .build()
        .unwrap();
    assert!(
        lexical
            .search("will it rain tomorrow in Oslo", 1)
            .is_empty()
    );

    let path = std::env::temp_dir().join(format!(
        "toolwright-tool-vectors-{}.bin",
        std::process::id()
    ));
    first.tool_vectors().unwrap().save(&path).unwrap();
    let (second, counting) = registry(ToolVectors::load(&path).unwrap());
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        second.search("will it rain tomorrow in Oslo", 1)[0].name,
        "city_outlook"
    );
    assert_eq!(
        counting.1.load(Ordering::Relaxed),
        0,
        "nothing embedded again"
    );
    assert_eq!(
        second.tool_vectors().unwrap(),
        first.tool_vectors().unwrap()
    );
}

#[test]
fn search_tools_ranks_by_meaning_and_claude_loads_what_it_found() {
    use serde_json::json;
    use toolwright::provider::render_results;
    use toolwright::search::{LoadedTools, ToolSearch};
    use toolwright::{Context, Dialect, ToolCall};

    let Some(embedder) = embedder() else { return };
    let anthropic = Dialect::Anthropic { strict: true };
    let registry = Registry::builder()
        .with(ReserveRestaurant)
        .with(CityOutlook)
        .with(SendEmail)
        .with_tool_search(ToolSearch::new(anthropic))
        .with_semantic_search(SemanticSearch::new(embedder))
        .build()
        .unwrap();
    let ctx = Context::new().with(LoadedTools::new());
    let search = ToolCall::new(
        "1",
        "search_tools",
        json!({"query": "will it rain tomorrow", "limit": 1}),
    );
    let found = futures_executor::block_on(registry.dispatch(&ctx, search));
    let rendered = render_results(anthropic, &[found]);
    let references: Vec<&str> = rendered[0]["content"][0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|block| block["type"] == "tool_reference")
        .map(|block| block["tool_name"].as_str().unwrap())
        .collect();
    assert_eq!(references, ["city_outlook"]);
    let call = ToolCall::new("2", "city_outlook", json!({"city": "Oslo"}));
    let result = futures_executor::block_on(registry.dispatch(&ctx, call));
    assert!(
        result.outcome.is_ok(),
        "loaded, so callable: {}",
        result.for_model()
    );
}
