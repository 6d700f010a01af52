//! The code-mode scenario: an accounts desk whose `invoices` tool returns each
//! customer's open invoices in full (lines, addresses, notes: what a real billing API
//! returns), and one question, "which of these customers have an overdue invoice, and
//! what is the total?", answered twice by a scripted model: with direct tool calls (every
//! invoice goes through the model's context) and with one `run_code` program (only the
//! answer does). Each request is counted in tokens with a real tokenizer by the caller.

use serde::Serialize;
use serde_json::{Value, json};
use toolwright::code::CodeMode;
use toolwright::provider::render_results;
use toolwright::{Context, Dialect, Registry, ToolCall, ToolSchema, tool};

/// The customers the question is about.
pub const CUSTOMERS: usize = 20;

/// One line of an invoice.
#[derive(Serialize, ToolSchema)]
pub struct Line {
    /// What was sold.
    pub item: String,
    /// How many.
    pub quantity: u32,
    /// Price of one, in cents.
    pub unit_cents: u64,
}

/// An open invoice.
#[derive(Serialize, ToolSchema)]
pub struct Invoice {
    /// The invoice's number.
    pub number: String,
    /// When it was issued, `YYYY-MM-DD`.
    pub issued: String,
    /// When it is due, `YYYY-MM-DD`.
    pub due: String,
    /// `open` or `overdue`.
    pub status: String,
    /// Amount due, in cents.
    pub amount_cents: u64,
    /// ISO currency code.
    pub currency: String,
    /// Where the invoice was sent.
    pub billing_address: String,
    /// The lines.
    pub lines: Vec<Line>,
    /// Notes from the accounts team.
    pub notes: String,
}

/// The open invoices of a customer, in full.
#[tool(effect = "read_only")]
pub fn invoices(
    /// Customer id, like `C-7`.
    #[arg(pattern = "^C-[0-9]+$")]
    customer: String,
) -> Vec<Invoice> {
    let n: u64 = customer[2..].parse().unwrap_or(0);
    (0..(n % 4) + 1)
        .map(|i| {
            let overdue = (n * 7 + i * 3).is_multiple_of(5);
            let lines: Vec<Line> = (0..3)
                .map(|l| Line {
                    item: format!("Support plan, tier {} (month {})", (n + l) % 3 + 1, l + 1),
                    quantity: (l as u32) + 1,
                    unit_cents: 4_900 + 100 * (n + i + l),
                })
                .collect();
            Invoice {
                number: format!("INV-{n:03}-{i}"),
                issued: format!("2026-{:02}-{:02}", 8 + i % 3, 1 + n % 27),
                due: format!("2026-{:02}-{:02}", 9 + i % 3, 1 + n % 27),
                status: if overdue { "overdue" } else { "open" }.to_owned(),
                amount_cents: lines.iter().map(|l| l.unit_cents * u64::from(l.quantity)).sum(),
                currency: "EUR".to_owned(),
                billing_address: format!("Accounts payable, {n} Harbour Street, 10{n:02}7 Lisbon, Portugal"),
                lines,
                notes: "Sent by email to the billing contact; reminder scheduled 7 days after the due date.".to_owned(),
            }
        })
        .collect()
}

/// The desk: `invoices`, offered to the model directly and to programs.
pub fn registry() -> Registry {
    Registry::builder()
        .with(Invoices)
        .with_code_mode(CodeMode::new())
        .build()
        .expect("the example registry builds")
}

/// The answer: the customers with an overdue invoice, and the overdue total in cents.
pub type Answer = (Vec<String>, u64);

/// The program the scripted model writes in code mode.
pub const PROGRAM: &str = r#"customers = [f"C-{n}" for n in range(1, 21)]
found = await asyncio.gather(*[invoices(c) for c in customers])
late = {c: sum(i["amount_cents"] for i in f if i["status"] == "overdue") for c, f in zip(customers, found)}
{"customers": [c for c, cents in late.items() if cents > 0], "total_cents": sum(late.values())}"#;

/// The question, as the user asks it.
pub const QUESTION: &str =
    "Which of customers C-1 to C-20 have an overdue invoice, and what is the overdue total?";

/// One way of answering: each request the model was sent (for counting), and the answer
/// it gave.
pub struct Transcript {
    pub requests: Vec<String>,
    pub answer: Answer,
}

/// A request to an OpenAI Responses model: the tools and the conversation so far.
fn request(tools: &[Value], input: &[Value]) -> String {
    json!({ "model": "gpt-5", "tools": tools, "input": input }).to_string()
}

/// Direct calls: the model asks for all twenty customers at once, reads every invoice,
/// and answers.
pub async fn direct(registry: &Registry, ctx: &Context) -> Transcript {
    let dialect = Dialect::OpenAiResponses { strict: false };
    let tools: Vec<Value> = registry
        .definitions(ctx, dialect)
        .expect("the tools lower")
        .into_iter()
        .filter(|tool| tool["name"] != "run_code")
        .collect();
    let mut input = vec![json!({"role": "user", "content": QUESTION})];
    let mut requests = vec![request(&tools, &input)];
    let calls: Vec<ToolCall> = (1..=CUSTOMERS)
        .map(|n| {
            ToolCall::new(
                format!("call_{n}"),
                "invoices",
                json!({ "customer": format!("C-{n}") }),
            )
        })
        .collect();
    input.extend(calls.iter().map(function_call));
    let results = registry.dispatch_batch(ctx, calls).await;
    input.extend(render_results(dialect, &results));
    requests.push(request(&tools, &input));
    // The model reads every invoice to answer.
    let mut late = Vec::new();
    let mut total = 0;
    for (n, result) in (1..).zip(&results) {
        let invoices: Value = serde_json::from_str(result.for_model()).expect("invoices are JSON");
        let cents: u64 = invoices
            .as_array()
            .into_iter()
            .flatten()
            .filter(|invoice| invoice["status"] == "overdue")
            .map(|invoice| invoice["amount_cents"].as_u64().unwrap_or(0))
            .sum();
        if cents > 0 {
            late.push(format!("C-{n}"));
        }
        total += cents;
    }
    Transcript {
        requests,
        answer: (late, total),
    }
}

/// Code mode: the model writes one program, reads what it returns, and answers.
pub async fn code(registry: &Registry, ctx: &Context) -> Transcript {
    let dialect = Dialect::OpenAiResponses { strict: false };
    let tools: Vec<Value> = registry
        .definitions(ctx, dialect)
        .expect("the tools lower")
        .into_iter()
        .filter(|tool| tool["name"] == "run_code")
        .collect();
    let mut input = vec![json!({"role": "user", "content": QUESTION})];
    let mut requests = vec![request(&tools, &input)];
    let call = ToolCall::new("call_1", "run_code", json!({ "code": PROGRAM }));
    input.push(function_call(&call));
    let result = registry.dispatch(ctx, call).await;
    input.extend(render_results(dialect, std::slice::from_ref(&result)));
    requests.push(request(&tools, &input));
    let value: Value = serde_json::from_str(result.for_model()).expect("the program returns JSON");
    let late = value["customers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c.as_str().map(str::to_owned))
        .collect();
    Transcript {
        requests,
        answer: (late, value["total_cents"].as_u64().unwrap_or(0)),
    }
}

/// The `function_call` item of the model's turn that made `call`.
fn function_call(call: &ToolCall) -> Value {
    let arguments = match &call.arguments {
        toolwright::CallArguments::Json(json) => json.clone(),
        toolwright::CallArguments::Value(value) => value.to_string(),
    };
    json!({"type": "function_call", "call_id": call.id, "name": call.name, "arguments": arguments})
}

/// How many invoices of a customer are overdue (a small result, for measuring).
#[tool(effect = "read_only")]
pub fn overdue_count(
    /// Customer id, like `C-7`.
    #[arg(pattern = "^C-[0-9]+$")]
    customer: String,
) -> u64 {
    invoices(customer)
        .iter()
        .filter(|i| i.status == "overdue")
        .count() as u64
}

/// `n` calls of `tool` (`invoices`, a kilobyte of JSON, or `overdue_count`, a number),
/// made directly (`mode` `direct`) or by one program (`code`), for counting
/// instructions.
pub async fn measure(mode: &str, tool: &str, n: usize) {
    let registry = Registry::builder()
        .with(Invoices)
        .with(OverdueCount)
        .with_code_mode(
            CodeMode::new()
                .limits(toolwright::code::CodeLimits::default().tool_calls(10_000))
                .isolation(if mode == "code-in-process" {
                    toolwright::code::Isolation::InProcess
                } else {
                    toolwright::code::Isolation::Workers
                }),
        )
        .build()
        .expect("the measuring registry builds");
    let (registry, ctx) = (&registry, &Context::new());
    let arguments = json!({ "customer": "C-4" });
    match mode {
        "direct" => {
            for i in 0..n {
                let call = ToolCall::new(format!("call_{i}"), tool, arguments.clone());
                let result = registry.dispatch(ctx, call).await;
                assert!(!result.is_error());
            }
        }
        _ => {
            let program = format!("for i in range({n}):\n    await {tool}('C-4')\n{n}");
            let call = ToolCall::new("call_1", "run_code", json!({ "code": program }));
            let result = registry.dispatch(ctx, call).await;
            assert!(!result.is_error(), "{:?}", result.outcome);
        }
    }
}
