//! Tool search on a 10,120-tool catalog (the 506 tools of `tests/fixtures/catalog/`, 20
//! copies), each beside its baseline in the same run:
//!
//! 1. a query: `Registry::search` (BM25F over the prebuilt index) against a textbook BM25
//!    scan over the descriptions alone;
//! 2. building the index: the first search after registration, against rendering every
//!    tool's definitions once (`Registry::all_definitions`, what a harness does anyway).
//!
//! Run with `cargo bench --bench search --features search`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

#[path = "support/catalog.rs"]
mod catalog;

use catalog::{PlainBm25, catalog, queries, registry_of};
use toolwright::Dialect;

fn search(c: &mut Criterion) {
    let specs = catalog();
    let registry = registry_of(&specs, 20).build().unwrap();
    assert_eq!(registry.len(), 10_120);
    let queries = queries();
    let descriptions: Vec<&str> = registry
        .specs()
        .map(|spec| spec.description.as_str())
        .collect();
    let plain = PlainBm25::new(&descriptions);
    registry.search("warm the index", 1);

    let mut group = c.benchmark_group("search 10,120 tools");
    let mut next = 0;
    group.bench_function("registry.search, top 5", |b| {
        b.iter(|| {
            next = (next + 1) % queries.len();
            black_box(registry.search(&queries[next].0, 5).len())
        })
    });
    group.bench_function("baseline: textbook BM25, top 5", |b| {
        b.iter(|| {
            next = (next + 1) % queries.len();
            black_box(plain.rank(&queries[next].0, 5).len())
        })
    });
    group.finish();

    let mut group = c.benchmark_group("index 10,120 tools");
    group.sample_size(10);
    group.bench_function("first search (builds the index)", |b| {
        b.iter_batched(
            || registry_of(&specs, 20).build().unwrap(),
            |registry| black_box(registry.search("create an issue", 5).len()),
            criterion::BatchSize::LargeInput,
        )
    });
    group.bench_function("baseline: definitions, OpenAI strict", |b| {
        b.iter_batched(
            || registry_of(&specs, 20).build().unwrap(),
            |registry| {
                black_box(
                    registry
                        .all_definitions(Dialect::OpenAiResponses { strict: true })
                        .map(|definitions| definitions.len()),
                )
            },
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
