//! Streaming tool input: a call's arguments fed to a `PartialCall` in 16-byte pieces, as a
//! provider streams them, each value checked against the schema as it is written; beside
//! its baseline in the same run, `serde_json::from_slice` of the whole text (one parse,
//! no checks). Two large arguments: a 1 MB string, and an array of 10,000 objects.
//!
//! Run with `cargo bench --bench streaming_input`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde::Deserialize;
use serde_json::Value;
use toolwright::partial::Verdict;
use toolwright::{Context, Registry, ToolSchema, tool};

/// Write a file.
#[tool(effect = "write")]
fn write_file(
    /// The file.
    #[arg(max_length = 4096)]
    path: String,
    /// Its new content.
    #[arg(max_length = 2_000_000)]
    content: String,
) -> String {
    format!("wrote {} bytes to {path}", content.len())
}

/// A row to import.
#[derive(Deserialize, ToolSchema)]
struct Row {
    /// Its id.
    id: u64,
    /// Its name.
    #[arg(max_length = 64)]
    name: String,
    /// Whether it is active.
    active: bool,
}

/// Import rows.
#[tool(effect = "write")]
fn import_rows(
    /// The rows.
    #[arg(max_items = 20_000)]
    rows: Vec<Row>,
) -> u64 {
    rows.iter()
        .filter(|row| row.active)
        .map(|row| row.id + row.name.len() as u64)
        .sum()
}

fn stream(c: &mut Criterion) {
    let registry = Registry::builder()
        .with(WriteFile)
        .with(ImportRows)
        .build()
        .unwrap();
    let ctx = Context::new();
    let content: String = "let x = 1; // some code\n".repeat(1_000_000 / 24);
    let large_string = serde_json::json!({"path": "src/big.rs", "content": content}).to_string();
    let rows: Vec<Value> = (0..10_000)
        .map(|id| serde_json::json!({"id": id, "name": format!("row number {id}"), "active": id % 2 == 0}))
        .collect();
    let large_array = serde_json::json!({ "rows": rows }).to_string();

    for (label, tool, text) in [
        ("a 1 MB string", "write_file", &large_string),
        ("10,000 objects", "import_rows", &large_array),
    ] {
        let mut group = c.benchmark_group(format!("streamed arguments: {label}"));
        group.sample_size(20);
        group.throughput(Throughput::Bytes(text.len() as u64));
        let pieces: Vec<&str> = text
            .as_bytes()
            .chunks(16)
            .map(|chunk| std::str::from_utf8(chunk).unwrap())
            .collect();
        group.bench_function("PartialCall::push, 16-byte pieces", |b| {
            b.iter(|| {
                let mut call = registry.partial_call(&ctx, "c", tool);
                for piece in &pieces {
                    call.push(piece);
                }
                assert_eq!(call.verdict(), &Verdict::Complete);
                black_box(call.text().len())
            })
        });
        group.bench_function("baseline: serde_json::from_slice of the whole text", |b| {
            b.iter(|| black_box(serde_json::from_slice::<Value>(text.as_bytes()).unwrap()))
        });
        group.finish();
    }
}

criterion_group!(benches, stream);
criterion_main!(benches);
