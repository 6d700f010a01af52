//! Tool search over a catalog of 506 tools (`tests/fixtures/catalog/`, written by
//! `scripts/catalog-fixture`): the registry's BM25F ranking against 221 labelled queries,
//! side by side with a textbook BM25 over the descriptions alone on the same queries.
//! The test fails if recall@5 falls more than 2 points below what was measured when the
//! ranking was written.

#[path = "../benches/support/catalog.rs"]
mod catalog;

use catalog::{PlainBm25, catalog, queries, registry_of};

/// Recall@5 of the registry's search on the fixture, measured when it was written.
const MEASURED_RECALL_AT_5: f64 = 0.914;

/// Recall@1, recall@5 and mean reciprocal rank of a ranking function.
fn quality(queries: &[(String, String)], rank: impl Fn(&str) -> Vec<String>) -> (f64, f64, f64) {
    let (mut at1, mut at5, mut reciprocal) = (0.0, 0.0, 0.0);
    for (query, expected) in queries {
        if let Some(position) = rank(query).iter().position(|name| name == expected) {
            at1 += f64::from(position == 0);
            at5 += f64::from(position < 5);
            reciprocal += 1.0 / (position as f64 + 1.0);
        }
    }
    let n = queries.len() as f64;
    (at1 / n, at5 / n, reciprocal / n)
}

#[test]
fn search_finds_the_right_tool_more_often_than_plain_bm25() {
    let specs = catalog();
    let queries = queries();
    assert!(specs.len() >= 500 && queries.len() >= 200);
    let registry = registry_of(&specs, 1);

    let ours = quality(&queries, |query| {
        registry
            .search(query, 50)
            .into_iter()
            .map(|hit| hit.name.to_owned())
            .collect()
    });
    let descriptions: Vec<&str> = specs.iter().map(|spec| spec.description.as_str()).collect();
    let plain = PlainBm25::new(&descriptions);
    let baseline = quality(&queries, |query| {
        plain
            .rank(query, 50)
            .into_iter()
            .map(|index| specs[index].name.clone())
            .collect()
    });
    println!(
        "{} tools, {} queries\n                     recall@1  recall@5  MRR\n  registry.search    {:.3}     {:.3}     {:.3}\n  plain BM25         {:.3}     {:.3}     {:.3}",
        specs.len(),
        queries.len(),
        ours.0,
        ours.1,
        ours.2,
        baseline.0,
        baseline.1,
        baseline.2
    );
    assert!(
        ours.1 >= MEASURED_RECALL_AT_5 - 0.02,
        "recall@5 fell to {:.3} (measured {MEASURED_RECALL_AT_5:.3})",
        ours.1
    );
    assert!(
        ours.1 >= baseline.1 + 0.10,
        "recall@5 {:.3} is not 10 points above plain BM25's {:.3}",
        ours.1,
        baseline.1
    );
}
