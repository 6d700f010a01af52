//! Search by meaning (`SemanticSearch` with the local all-MiniLM-L6-v2, feature `embed`)
//! on 1,012 and 10,120 tools (the 506 tools of `tests/fixtures/catalog/`, 2 and 20
//! copies), each beside its baselines in the same run: the same registry searching by
//! words alone, and a textbook BM25 scan.
//!
//! 1. a query, the query's embedding included (every query is embedded afresh), and a
//!    query asked before (its vector kept);
//! 2. the query's embedding alone;
//! 3. indexing 64 tools at build (the index's cost per tool), 16 to a batch.
//!
//! It also prints each mode's p50 and p99 over 300 queries, and the vectors' memory.
//! The model comes from `scripts/test/embedding-model`; the tools' vectors are kept in
//! the target directory after the first run (embedding 10,120 tools takes minutes).
//! Run with `cargo bench --bench semantic --features embed`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};

#[path = "support/catalog.rs"]
mod catalog;

use catalog::{PlainBm25, catalog, queries, registry_of};
use toolwright::Registry;
use toolwright::search::{BertEmbedder, Embedder, SemanticSearch, ToolVectors};

fn model() -> BertEmbedder {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/test/embedding-model");
    let fetched = std::process::Command::new(script)
        .output()
        .expect("scripts/test/embedding-model runs");
    assert!(
        fetched.status.success(),
        "scripts/test/embedding-model could not fetch the model"
    );
    BertEmbedder::load(String::from_utf8(fetched.stdout).unwrap().trim()).expect("the model loads")
}

fn target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
        PathBuf::from,
    )
}

/// The catalog `copies` times, searching by words and meaning, every query embedded
/// afresh (no recent queries kept); the vectors kept in the target directory.
fn hybrid(embedder: &Arc<BertEmbedder>, copies: usize) -> Registry {
    let specs = catalog();
    let path = target().join(format!("bench-catalog-{copies}.vectors"));
    let saved = ToolVectors::load(&path).unwrap_or_default();
    let search = SemanticSearch::new(Arc::clone(embedder))
        .vectors(saved.clone())
        .recent_queries(0);
    let registry = registry_of(&specs, copies)
        .with_semantic_search(search)
        .build()
        .unwrap();
    let vectors = registry.tool_vectors().expect("the catalog embeds");
    if vectors != saved {
        vectors.save(&path).unwrap();
    }
    println!(
        "{} tools: {} vectors of {} dimensions, {:.1} MB",
        registry.len(),
        vectors.len(),
        vectors.dimensions(),
        (vectors.len() * vectors.dimensions() * 4) as f64 / 1e6
    );
    registry
}

/// p50 and p99 of `search` over 300 queries.
fn percentiles(
    queries: &[(String, String)],
    search: impl Fn(&str) -> usize,
) -> (Duration, Duration) {
    let mut times: Vec<Duration> = queries
        .iter()
        .cycle()
        .take(300)
        .map(|(query, _)| {
            let started = Instant::now();
            black_box(search(query));
            started.elapsed()
        })
        .collect();
    times.sort();
    (times[150], times[297])
}

fn semantic(c: &mut Criterion) {
    let embedder = Arc::new(model());
    let queries = queries();
    for copies in [2, 20] {
        let hybrid = hybrid(&embedder, copies);
        let words = registry_of(&catalog(), copies).build().unwrap();
        words.search("warm the index", 1);
        let descriptions: Vec<&str> = words
            .specs()
            .map(|spec| spec.description.as_str())
            .collect();
        let plain = PlainBm25::new(&descriptions);
        for (mode, (p50, p99)) in [
            (
                "hybrid",
                percentiles(&queries, |query| hybrid.search(query, 5).len()),
            ),
            (
                "words",
                percentiles(&queries, |query| words.search(query, 5).len()),
            ),
            (
                "textbook BM25",
                percentiles(&queries, |query| plain.rank(query, 5).len()),
            ),
        ] {
            println!(
                "{} tools, {mode}: p50 {p50:.2?}, p99 {p99:.2?}",
                hybrid.len()
            );
        }
        let mut group = c.benchmark_group(format!("search {} tools", hybrid.len()));
        let mut next = 0;
        group.bench_function("hybrid (query embedded), top 5", |b| {
            b.iter(|| {
                next = (next + 1) % queries.len();
                black_box(hybrid.search(&queries[next].0, 5).len())
            })
        });
        // The same registry keeping recent queries: every query here is asked again.
        let remembering = registry_of(&catalog(), copies)
            .with_semantic_search(
                SemanticSearch::new(Arc::clone(&embedder)).vectors(hybrid.tool_vectors().unwrap()),
            )
            .build()
            .unwrap();
        queries
            .iter()
            .for_each(|(query, _)| _ = remembering.search(query, 5));
        group.bench_function("hybrid, a query asked before, top 5", |b| {
            b.iter(|| {
                next = (next + 1) % queries.len();
                black_box(remembering.search(&queries[next].0, 5).len())
            })
        });
        group.bench_function("baseline: words only, top 5", |b| {
            b.iter(|| {
                next = (next + 1) % queries.len();
                black_box(words.search(&queries[next].0, 5).len())
            })
        });
        group.bench_function("baseline: textbook BM25, top 5", |b| {
            b.iter(|| {
                next = (next + 1) % queries.len();
                black_box(plain.rank(&queries[next].0, 5).len())
            })
        });
        group.finish();
    }

    let mut group = c.benchmark_group("embedding");
    let mut next = 0;
    group.bench_function("one query", |b| {
        b.iter(|| {
            next = (next + 1) % queries.len();
            black_box(embedder.embed_query(&queries[next].0).unwrap().len())
        })
    });
    // Indexing at build: 64 tools embedded as the registry embeds them (name,
    // description and arguments), in batches of 16.
    let tools: Vec<_> = catalog().into_iter().take(64).collect();
    group.sample_size(10);
    group.bench_function("indexing 64 tools at build", |b| {
        b.iter(|| {
            let registry = registry_of(&tools, 1)
                .with_semantic_search(SemanticSearch::new(Arc::clone(&embedder)))
                .build()
                .unwrap();
            black_box(registry.len())
        })
    });
    group.finish();
}

criterion_group!(benches, semantic);
criterion_main!(benches);
