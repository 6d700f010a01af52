//! The lint over 1,030 real tools as one set (the 506 of `tests/fixtures/catalog/` and
//! the 524 MCP tools of `tests/fixtures/description-quality/`), beside its baseline in
//! the same run: serializing every spec to JSON once (`serde_json`), the least any
//! reading of all the tools costs.
//!
//! Run with `cargo bench --bench lint`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;
use toolwright::lint::Lint;
use toolwright::{Effect, ToolSpec};

#[path = "support/catalog.rs"]
mod catalog;

fn tools() -> Vec<ToolSpec> {
    let mut specs = catalog::catalog();
    let path = format!(
        "{}/tests/fixtures/description-quality/tools.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    for tool in fixture["tools"].as_array().unwrap() {
        specs.push(ToolSpec::new(
            tool["name"].as_str().unwrap(),
            tool["description"].as_str().unwrap(),
            tool["input_schema"].clone(),
            Effect::ReadOnly,
        ));
    }
    specs
}

fn lint(c: &mut Criterion) {
    let specs = tools();
    assert_eq!(specs.len(), 1_030);
    let lint = Lint::new();
    let mut group = c.benchmark_group("lint 1,030 tools");
    group.sample_size(20);
    group.bench_function("Lint::check", |b| {
        b.iter(|| black_box(lint.check(&specs).len()))
    });
    group.bench_function("baseline: serde_json::to_string of every spec", |b| {
        b.iter(|| {
            black_box(
                specs
                    .iter()
                    .map(|spec| serde_json::to_string(spec).unwrap().len())
                    .sum::<usize>(),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, lint);
criterion_main!(benches);
