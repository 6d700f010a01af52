//! Code as the action, measured: the same question answered with twenty direct tool
//! calls and with one `run_code` program, by a scripted model, each request counted in
//! tokens with OpenAI's o200k tokenizer (tiktoken-rs).
//!
//! ```text
//! cargo run --example code_mode --features code_mode
//! ```
//!
//! `code_mode measure direct|code|code-in-process invoices|overdue_count N` makes N calls
//! of a tool, directly or from one program (in a worker process or in this one), and prints nothing: `scripts/measure/callgrind-code-mode` counts their
//! instructions.

mod scenario;

use toolwright::Context;

fn main() {
    let registry = scenario::registry();
    let ctx = Context::new();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [measure, mode, tool, n] = &args[..]
        && measure == "measure"
    {
        let n: usize = n.parse().expect("N is a number");
        runtime.block_on(scenario::measure(mode, tool, n));
        return;
    }
    let direct = runtime.block_on(scenario::direct(&registry, &ctx));
    let code = runtime.block_on(scenario::code(&registry, &ctx));
    assert_eq!(direct.answer, code.answer, "both ways give the same answer");
    let bpe = tiktoken_rs::o200k_base().expect("the o200k encoding");
    let tokens = |text: &String| bpe.encode_with_special_tokens(text).len();
    println!("{}\n", scenario::QUESTION);
    println!("| way | turn 1 | turn 2 | model-visible tokens |");
    println!("|---|---:|---:|---:|");
    let mut totals = Vec::new();
    for (way, transcript) in [("direct calls", &direct), ("run_code", &code)] {
        let turns: Vec<usize> = transcript.requests.iter().map(tokens).collect();
        let total: usize = turns.iter().sum();
        println!("| {way} | {} | {} | {total} |", turns[0], turns[1]);
        totals.push(total);
    }
    let saved = 100.0 * (1.0 - totals[1] as f64 / totals[0] as f64);
    println!(
        "\nAnswer: {} customers, {} cents overdue. run_code saves {saved:.1}% of the tokens.",
        code.answer.0.len(),
        code.answer.1
    );
}
