//! Code mode on a public benchmark nobody on this project wrote: the eight accounting
//! tasks of imran31415/codemode_python_benchmark, its eleven tools written again as
//! toolwright tools (`books.rs`), and a scripted model (`tasks.rs`) that does each task
//! three ways: direct tool calls with the independent calls of a step in one turn,
//! direct calls one a turn (as the benchmark's Claude 3 Haiku runs called them), and one
//! `run_code` program. Every request is an Anthropic Messages request (the benchmark's
//! API) counted with OpenAI's o200k tokenizer, the model's own turns too; the three ways
//! must end with the same books. A scripted model shows tokens, not accuracy.
//!
//! ```text
//! scripts/measure/code-mode-accounting MIRROR
//! ```
//!
//! runs it on the task texts read from the benchmark's repository (its licence is
//! declared in its README, with no licence file, so its texts are not copied here) and
//! checks each way's final books with the benchmark's own validator. By hand:
//! `cargo run --example code_mode_accounting --features code_mode -- SCENARIOS.json
//! STATES.json`, where SCENARIOS.json is the benchmark's `SCENARIOS` list as JSON.

mod books;
mod tasks;
mod ways;

use std::collections::BTreeMap;

use serde_json::Value;

use ways::{code, direct};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [scenarios, states] = &args[..] else {
        eprintln!(
            "usage: code_mode_accounting SCENARIOS.json STATES.json (scripts/measure/code-mode-accounting makes them)"
        );
        std::process::exit(2);
    };
    let scenarios: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(scenarios).expect("the scenarios file reads"),
    )
    .expect("the scenarios are a JSON list");
    let bpe = tiktoken_rs::o200k_base().expect("the o200k encoding");
    let count = |texts: &[String]| -> usize {
        texts
            .iter()
            .map(|text| bpe.encode_with_special_tokens(text).len())
            .sum()
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    println!(
        "| task | direct, batched: requests, tokens in + out | direct, a call a turn | one program | saved against batched | against a call a turn |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    let mut totals = [0usize; 3];
    let mut finals = BTreeMap::new();
    for task in tasks::tasks() {
        let scenario = scenarios
            .iter()
            .find(|s| s["id"] == task.id)
            .unwrap_or_else(|| panic!("the benchmark has no scenario {}", task.id));
        let question = scenario["query"].as_str().expect("a query").trim();
        let one_a_turn = task.one_a_turn();
        let ways = runtime.block_on(async {
            [
                direct(question, &task.turns).await,
                direct(question, &one_a_turn).await,
                code(question, task.program).await,
            ]
        });
        assert!(
            ways.iter().all(|way| way.books == ways[0].books),
            "task {}: the ways end with different books",
            task.id
        );
        let cells: Vec<(usize, usize, usize)> = ways
            .iter()
            .map(|way| (way.requests.len(), count(&way.requests), count(&way.turns)))
            .collect();
        for (total, (_, input, output)) in totals.iter_mut().zip(&cells) {
            *total += input + output;
        }
        let all = |(_, input, output): (usize, usize, usize)| input + output;
        let saved = |against: usize| 100.0 * (1.0 - all(cells[2]) as f64 / against as f64);
        println!(
            "| {} {} | {} | {} | {} | {:.1}% | {:.1}% |",
            task.id,
            scenario["name"].as_str().unwrap_or_default(),
            shown(cells[0]),
            shown(cells[1]),
            shown(cells[2]),
            saved(all(cells[0])),
            saved(all(cells[1])),
        );
        finals.insert(task.id.to_string(), ways[2].books.clone());
    }
    println!(
        "| all | {} | {} | {} | {:.1}% | {:.1}% |",
        totals[0],
        totals[1],
        totals[2],
        100.0 * (1.0 - totals[2] as f64 / totals[0] as f64),
        100.0 * (1.0 - totals[2] as f64 / totals[1] as f64),
    );
    std::fs::write(
        states,
        serde_json::to_string_pretty(&finals).expect("the books serialize"),
    )
    .expect("the states file writes");
}

/// A way's cell: requests, tokens in + out.
fn shown((requests, input, output): (usize, usize, usize)) -> String {
    format!("{requests}: {input} + {output}")
}
