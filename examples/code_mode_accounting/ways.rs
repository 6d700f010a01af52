//! The three ways of doing a task (direct calls in batches, direct calls one a turn, one
//! program), each on fresh books, every request kept as the model would be sent it.

use std::sync::Arc;

use serde_json::{Value, json};
use toolwright::code::CodeMode;
use toolwright::provider::render_results;
use toolwright::{Context, Dialect, Registry, ToolCall};

use super::books::Books;

const DIALECT: Dialect = Dialect::Anthropic { strict: false };

/// One way of doing a task: each request sent, each turn the model wrote, the books after.
pub struct Transcript {
    pub requests: Vec<String>,
    pub turns: Vec<String>,
    pub books: Value,
}

fn registry(books: &Arc<Books>) -> Registry {
    Registry::builder()
        .with_toolset(books.clone())
        .with_code_mode(CodeMode::new())
        .build()
        .expect("the benchmark's registry builds")
}

fn request(tools: &[Value], messages: &[Value]) -> String {
    json!({"model": "claude-3-haiku-20240307", "max_tokens": 4096, "tools": tools, "messages": messages})
        .to_string()
}

/// The model's closing message: the same words whichever way it worked, from the books.
fn answer(books: &Value) -> String {
    format!(
        "Done. {} transactions; income ${}, expenses ${}, net ${}; balances {}; invoices {} ({}), ${} outstanding.",
        books["total_transactions"],
        books["total_income"],
        books["total_expenses"],
        books["net_income"],
        books["accounts"],
        books["total_invoices"],
        books["invoices_by_status"],
        books["outstanding_receivables"],
    )
}

/// The tools a way offers: every tool but `run_code`, or `run_code` alone.
fn offered(registry: &Registry, ctx: &Context, code: bool) -> Vec<Value> {
    registry
        .definitions(ctx, DIALECT)
        .expect("the tools lower")
        .into_iter()
        .filter(|tool| (tool["name"] == "run_code") == code)
        .collect()
}

/// Direct calls, `turns` of them, each turn's calls dispatched as one batch.
pub async fn direct(question: &str, turns: &[Vec<(&'static str, Value)>]) -> Transcript {
    let books = Books::new();
    let registry = registry(&books);
    let ctx = Context::new();
    let tools = offered(&registry, &ctx, false);
    let mut messages = vec![json!({"role": "user", "content": question})];
    let (mut requests, mut written) = (Vec::new(), Vec::new());
    let mut n = 0;
    for turn in turns {
        requests.push(request(&tools, &messages));
        let calls: Vec<ToolCall> = turn
            .iter()
            .map(|(tool, arguments)| {
                n += 1;
                ToolCall::new(format!("toolu_{n:02}"), *tool, arguments.clone())
            })
            .collect();
        let content: Vec<Value> = calls
            .iter()
            .map(|call| {
                let arguments = match &call.arguments {
                    toolwright::CallArguments::Value(value) => value.clone(),
                    toolwright::CallArguments::Json(text) => {
                        serde_json::from_str(text).expect("arguments are JSON")
                    }
                };
                json!({"type": "tool_use", "id": call.id, "name": call.name, "input": arguments})
            })
            .collect();
        let assistant = json!({"role": "assistant", "content": content});
        written.push(assistant.to_string());
        messages.push(assistant);
        let results = registry.dispatch_batch(&ctx, calls).await;
        for result in &results {
            assert!(!result.is_error(), "{}: {:?}", result.name, result.outcome);
        }
        messages.extend(render_results(DIALECT, &results));
    }
    requests.push(request(&tools, &messages));
    let books = serde_json::to_value(books.summary()).expect("the books serialize");
    written.push(answer(&books));
    Transcript {
        requests,
        turns: written,
        books,
    }
}

/// One `run_code` program.
pub async fn code(question: &str, program: &str) -> Transcript {
    let books = Books::new();
    let registry = registry(&books);
    let ctx = Context::new();
    let tools = offered(&registry, &ctx, true);
    let mut messages = vec![json!({"role": "user", "content": question})];
    let mut requests = vec![request(&tools, &messages)];
    let call = ToolCall::new("toolu_01", "run_code", json!({ "code": program }));
    let assistant = json!({"role": "assistant", "content": [{"type": "tool_use", "id": call.id, "name": "run_code", "input": {"code": program}}]});
    let mut turns = vec![assistant.to_string()];
    messages.push(assistant);
    let result = registry.dispatch(&ctx, call).await;
    assert!(
        !result.is_error(),
        "the program fails: {:?}",
        result.outcome
    );
    messages.extend(render_results(DIALECT, std::slice::from_ref(&result)));
    requests.push(request(&tools, &messages));
    let books = serde_json::to_value(books.summary()).expect("the books serialize");
    turns.push(answer(&books));
    Transcript {
        requests,
        turns,
        books,
    }
}
