//! Results made of blocks (`Content`) in every dialect, and what tools report while they
//! run (`feedback`).

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use toolwright::ToolSettings;
use toolwright::feedback::{self, Feedback, Level};
use toolwright::output::OutputBudget;
use toolwright::provider::render_results;
use toolwright::{Content, Context, Dialect, Registry, ToolCall, ToolOutput, ToolResult, tool};

const PNG: &[u8] = &[0x89, b'P', b'N', b'G', 0, 1, 2, 3, 4, 5];

/// Render the weekly sales chart.
#[tool(effect = "read_only")]
fn sales_chart() -> Content {
    Content::new()
        .text("Sales rose 4% this week.")
        .image(PNG, "image/png")
        .resource_text("file:///sales.csv", "text/csv", "week,sales\n1,100\n")
}

/// Play back this week's sales call, with its spreadsheet.
#[tool(effect = "read_only")]
fn sales_call() -> Content {
    Content::new()
        .audio(b"RIFF0000WAVE", "audio/wav")
        .resource_bytes(
            "file:///sales.xlsx",
            "application/vnd.ms-excel",
            b"PK\x03\x04",
        )
}

/// Render the yearly sales chart, with every week's figure.
#[tool(effect = "read_only")]
fn yearly_chart() -> Content {
    let weeks: String = (1..=52)
        .map(|week| format!("week {week}: {}\n", 100 + week))
        .collect();
    Content::new().text(weeks).image(PNG, "image/png")
}

/// Index the workspace.
#[tool(effect = "read_only")]
async fn reindex(
    /// How many files to index.
    files: u32,
) -> String {
    for done in 1..=files {
        feedback::progress(f64::from(done), Some(f64::from(files)), Some("indexing"));
        tokio::task::yield_now().await;
    }
    feedback::log(Level::Info, "index rebuilt");
    format!("{files} files indexed")
}

/// Count the words of a text.
#[tool(effect = "read_only")]
fn count_words(
    /// The text.
    text: String,
) -> usize {
    feedback::log(Level::Debug, "counting");
    text.split_whitespace().count()
}

fn run<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
        .block_on(future)
}

fn dispatch(registry: &Registry, name: &str, arguments: &str) -> ToolResult {
    run(registry.dispatch(&Context::new(), ToolCall::new("call-1", name, arguments)))
}

#[test]
fn content_blocks_reach_mcp_as_blocks_and_other_providers_as_text() {
    let result = dispatch(
        &Registry::builder().with(SalesChart).build().unwrap(),
        "sales_chart",
        "{}",
    );
    let Ok(ToolOutput::Content(blocks)) = &result.outcome else {
        panic!("{:?}", result.outcome)
    };
    assert_eq!(blocks.len(), 3);

    let mcp = &render_results(Dialect::Mcp, std::slice::from_ref(&result))[0];
    assert_eq!(
        mcp["content"],
        json!([
            {"type": "text", "text": "Sales rose 4% this week."},
            {"type": "image", "data": "iVBORwABAgMEBQ==", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///sales.csv", "mimeType": "text/csv", "text": "week,sales\n1,100\n"}}
        ])
    );
    assert_eq!(mcp["isError"], false);
    assert!(mcp.get("structuredContent").is_none());

    // A text-only model reads the text, a placeholder for the image, and the resource.
    let text = "Sales rose 4% this week.\n\n[image/png image, 10 bytes]\n\n\
                [resource file:///sales.csv (text/csv)]\nweek,sales\n1,100\n";
    assert_eq!(result.for_model(), text);
    let chat = &render_results(
        Dialect::OpenAiChat { strict: false },
        std::slice::from_ref(&result),
    )[0];
    assert_eq!(chat["content"], text);

    // Claude reads the image itself, beside the text.
    let claude = &render_results(
        Dialect::Anthropic { strict: false },
        std::slice::from_ref(&result),
    )[0];
    assert_eq!(
        claude["content"][0]["content"],
        json!([
            {"type": "text", "text": "Sales rose 4% this week."},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORwABAgMEBQ=="}},
            {"type": "text", "text": "[resource file:///sales.csv (text/csv)]\nweek,sales\n1,100\n"}
        ])
    );
}

#[test]
fn content_over_budget_sends_the_cut_text_and_keeps_the_other_blocks() {
    let registry = Registry::builder()
        .with(YearlyChart)
        .defaults(ToolSettings::new().budget(OutputBudget::chars(200)))
        .build()
        .unwrap();
    let result = dispatch(&registry, "yearly_chart", "{}");
    assert!(result.truncation().is_some());
    let mcp = &render_results(Dialect::Mcp, std::slice::from_ref(&result))[0];
    let types: Vec<&str> = mcp["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|block| block["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["text", "image"]);
    assert!(
        result.for_model().contains("truncated"),
        "{}",
        result.for_model()
    );
    assert_eq!(mcp["content"][0]["text"], result.for_model());
    // Over budget, Claude gets the cut text only.
    let claude = &render_results(
        Dialect::Anthropic { strict: false },
        std::slice::from_ref(&result),
    )[0];
    assert_eq!(claude["content"][0]["content"], result.for_model());
}

#[test]
fn feedback_reaches_the_scope_in_order_and_is_a_no_op_outside_one() {
    let registry = Registry::builder().with(Reindex).build().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let seen = seen.clone();
        move |message: Feedback| seen.lock().unwrap().push(message)
    };
    let call = ToolCall::new("1", "reindex", r#"{"files": 3}"#);
    let result = run(feedback::scope(
        sink,
        registry.dispatch(&Context::new(), call),
    ));
    assert_eq!(result.for_model(), "3 files indexed");
    let progress = |done: f64| Feedback::Progress {
        progress: done,
        total: Some(3.0),
        message: Some("indexing".into()),
    };
    assert_eq!(
        *seen.lock().unwrap(),
        [
            progress(1.0),
            progress(2.0),
            progress(3.0),
            Feedback::Log {
                level: Level::Info,
                message: "index rebuilt".into()
            }
        ]
    );

    // Without a scope the same tool runs, reporting to no one.
    let result = dispatch(&registry, "reindex", r#"{"files": 2}"#);
    assert_eq!(result.for_model(), "2 files indexed");
}

#[test]
fn a_synchronous_tool_reports_to_the_scope_and_finishes_on_the_first_poll() {
    use std::task::{Context as TaskContext, Poll, Waker};
    use toolwright::{Arguments, Tool};

    let logs = Arc::new(Mutex::new(0));
    let sink = |logs: &Arc<Mutex<i32>>| {
        let logs = logs.clone();
        move |_: Feedback| *logs.lock().unwrap() += 1
    };
    let registry = Registry::builder().with(CountWords).build().unwrap();
    let ctx = Context::new();
    let call = ToolCall::new("1", "count_words", r#"{"text": "a b c"}"#);
    // Dispatch runs nothing before it is polled, so the tool runs inside the scope; a
    // synchronous tool's result is there on the first poll (a waker that does nothing
    // would never be woken).
    let mut scoped = std::pin::pin!(feedback::scope(sink(&logs), registry.dispatch(&ctx, call)));
    let Poll::Ready(result) = scoped
        .as_mut()
        .poll(&mut TaskContext::from_waker(Waker::noop()))
    else {
        panic!("a synchronous tool's dispatch suspended");
    };
    assert_eq!(result.for_model(), "3");
    assert_eq!(*logs.lock().unwrap(), 1);

    // `Tool::call` runs a synchronous tool at once: its future is ready before any poll.
    let future = CountWords.call(&ctx, Arguments::Json(r#"{"text": "a b"}"#));
    assert!(future.is_ready());
    assert_eq!(run(future).unwrap(), ToolOutput::Json(json!(2)));
    // Wrapped in an async block, as `feedback::scope` documents, it runs in the scope.
    let outcome = run(feedback::scope(sink(&logs), async {
        CountWords
            .call(&ctx, Arguments::Json(r#"{"text": "a"}"#))
            .await
    }));
    assert_eq!(outcome.unwrap(), ToolOutput::Json(json!(1)));
    assert_eq!(*logs.lock().unwrap(), 2);
}

#[test]
fn scopes_nest_and_the_outer_one_comes_back() {
    let outer = Arc::new(Mutex::new(Vec::<Value>::new()));
    let inner = Arc::new(Mutex::new(Vec::<Value>::new()));
    let into = |seen: &Arc<Mutex<Vec<Value>>>| {
        let seen = seen.clone();
        move |message: Feedback| {
            if let Feedback::Log { message, .. } = message {
                seen.lock().unwrap().push(json!(message));
            }
        }
    };
    run(feedback::scope(into(&outer), async {
        feedback::log(Level::Info, "outer 1");
        feedback::scope(into(&inner), async { feedback::log(Level::Info, "inner") }).await;
        feedback::log(Level::Info, "outer 2");
    }));
    assert_eq!(*outer.lock().unwrap(), [json!("outer 1"), json!("outer 2")]);
    assert_eq!(*inner.lock().unwrap(), [json!("inner")]);
}

/// Look a customer's profile up.
#[tool(effect = "read_only")]
fn profile() -> serde_json::Value {
    json!({"id": "C-1", "name": "Ada", "tags": ["vip"]})
}

/// The first primes.
#[tool(effect = "read_only")]
fn primes() -> Vec<u32> {
    vec![2, 3, 5, 7]
}

/// A summary for the model, the data for the harness.
#[tool(effect = "read_only")]
fn summary() -> toolwright::Observation<serde_json::Value> {
    toolwright::Observation::new(json!({"rows": 3}), "3 rows")
}

/// Always fails.
#[tool(effect = "read_only")]
fn broken() -> Result<String, toolwright::ToolError> {
    Err(toolwright::ToolError::not_found("no such thing").with_hint("look it up first"))
}

/// The MCP server builds its `CallToolResult` from the result's typed parts; it must say
/// exactly what the MCP dialect renders, for every kind of output (text, JSON object and
/// array, observation, content blocks of every kind, content cut to budget, argument
/// errors, tool errors).
#[cfg(feature = "mcp")]
#[test]
fn the_mcp_server_answers_exactly_what_the_mcp_dialect_renders() {
    use toolwright::mcp::McpServer;
    use toolwright::mcp::rmcp::model::CallToolRequestParams;
    let registry = || {
        Registry::builder()
            .with(SalesChart)
            .with(SalesCall)
            .with(YearlyChart)
            .with(CountWords)
            .with(Profile)
            .with(Primes)
            .with(Summary)
            .with(Broken)
            .defaults(ToolSettings::new().budget(OutputBudget::chars(200)))
            .build()
            .unwrap()
    };
    let server = McpServer::new(registry(), Context::new()).unwrap();
    let plain = registry();
    // The two runs save their cut output under different artifact names.
    let saved = regex::Regex::new(r"saved to [^ ]+\.txt").unwrap();
    for (name, arguments) in [
        ("sales_chart", json!({})),
        ("sales_call", json!({})),
        ("yearly_chart", json!({})),
        ("count_words", json!({"text": "one two three"})),
        ("count_words", json!({"text": 7, "extra": true})),
        ("profile", json!({})),
        ("primes", json!({})),
        ("summary", json!({})),
        ("broken", json!({})),
    ] {
        let Value::Object(object) = arguments.clone() else {
            unreachable!()
        };
        let mut params = CallToolRequestParams::new(name);
        params.arguments = Some(object);
        let served = run(server.call("1".into(), params, None, |_| {})).unwrap();
        let result = run(plain.dispatch(&Context::new(), ToolCall::new("1", name, arguments)));
        let mut expected = render_results(Dialect::Mcp, std::slice::from_ref(&result))[0].clone();
        expected["resultType"] = json!("complete");
        let same = |value: Value| -> Value {
            serde_json::from_str(&saved.replace_all(&value.to_string(), "saved to …")).unwrap()
        };
        assert_eq!(
            same(serde_json::to_value(&served).unwrap()),
            same(expected),
            "{name}"
        );
    }
}
