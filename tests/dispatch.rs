//! The dispatcher: one result per call, every argument problem at once, errors as data.

use crate::support::block_on;
use crate::tools;

use std::time::Duration;

use insta::assert_json_snapshot;
use serde_json::{Value, json};
use tools::{ConvertTemperature, Notes, PaymentsDesk, SaveNote, SearchNotes};
use toolwright::output::OutputBudget;
use toolwright::{
    Context, ErrorKind, Registry, RegistryError, Tool, ToolCall, ToolError, ToolOutput,
    ToolSettings, tool,
};

/// The example tools, with a policy that lets every call run: these tests are about
/// dispatch; policy and approval have their own (`tests/effects.rs`).
fn registry() -> toolwright::RegistryBuilder {
    Registry::builder()
        .defaults(ToolSettings::new().policy(toolwright::policy::AllowAll))
        .with_toolset(PaymentsDesk::shared())
        .with(SaveNote)
        .with(SearchNotes)
        .with(ConvertTemperature)
}

fn ctx() -> Context {
    Context::new()
        .with(Notes::default())
        .with(toolwright::policy::Caller::new("tests", ["payments:write"]))
}

/// The argument problems of a refused call, as the model reads them.
fn problems_of(result: &toolwright::ToolResult) -> Vec<String> {
    result
        .error()
        .unwrap_or_else(|| panic!("refused, not run: {}", result.for_model()))
        .problems
        .iter()
        .map(ToString::to_string)
        .collect()
}

fn model_json(result: &toolwright::ToolResult) -> Value {
    serde_json::from_str(result.for_model()).expect("an error's model view is JSON")
}

/// Returns its input; panics on "boom".
#[tool(effect = "read_only")]
fn echo(text: String) -> String {
    assert!(text != "boom", "echo was asked to explode");
    text
}

/// Waits for a while.
#[tool(effect = "read_only")]
async fn slow(millis: u64) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    "done".to_owned()
}

/// Report the time.
#[tool(effect = "read_only")]
fn now() -> String {
    "12:00".to_owned()
}

/// Produce a long report.
#[tool(effect = "read_only")]
fn long_report(lines: u32) -> String {
    (1..=lines).map(|i| format!("row {i}\n")).collect()
}

#[test]
fn a_valid_call_runs_and_answers_with_its_id() {
    let result = block_on(registry().build().unwrap().dispatch(
        &ctx(),
        ToolCall::new(
            "call_1",
            "convert_temperature",
            r#"{"value": 100, "from": "celsius", "to": "fahrenheit"}"#,
        ),
    ));
    assert_eq!(result.call_id, "call_1");
    assert_eq!(result.outcome, Ok(ToolOutput::Json(json!(212.0))));
    assert_eq!(result.for_model(), "212.0");
}

#[test]
fn an_unknown_tool_names_the_real_ones_closest_first() {
    let result = block_on(
        registry()
            .build()
            .unwrap()
            .dispatch(&ctx(), ToolCall::new("c", "serch_notes", "{}")),
    );
    let error = result.error().unwrap();
    assert_eq!(error.kind, ErrorKind::UnknownTool);
    assert_eq!(
        error.message,
        "there is no tool named 'serch_notes'; did you mean 'search_notes'?"
    );
    assert!(
        error
            .hint
            .as_deref()
            .unwrap()
            .starts_with("available tools, closest first: search_notes, ")
    );
}

#[test]
fn every_argument_problem_is_reported_at_once() {
    let result = block_on(registry().build().unwrap().dispatch(
        &ctx(),
        ToolCall::new(
            "c",
            "refund_payment",
            json!({"customer": "100", "ammount": 0, "currency": "usd", "memo": 7}),
        ),
    ));
    assert_json_snapshot!(model_json(&result));
    assert_eq!(result.error().unwrap().problems.len(), 5);
}

#[test]
fn constraints_are_checked_on_the_fast_path_too() {
    // Deserializes fine, but `amount` is below its minimum and `customer` misses its
    // pattern: the typed checks catch it and the validator explains.
    let result = block_on(registry().build().unwrap().dispatch(
        &ctx(),
        ToolCall::new(
            "c",
            "refund_payment",
            r#"{"customer": "C-1", "amount": 0, "currency": "EUR"}"#,
        ),
    ));
    assert_eq!(problems_of(&result), ["$.amount: must be >= 1, got 0"]);
    let result = block_on(registry().build().unwrap().dispatch(
        &ctx(),
        ToolCall::new("c", "save_note", r#"{"note": {"title": "", "body": "b"}}"#),
    ));
    assert_eq!(
        problems_of(&result),
        ["$.note.title: must be at least 1 character long, got 0"]
    );
    // `#[arg(items(...))]`: each tag is checked, on the fast path and explained by the
    // slow one with the item's path.
    let result = block_on(registry().build().unwrap().dispatch(
        &ctx(),
        ToolCall::new(
            "c",
            "save_note",
            r#"{"note": {"title": "t", "body": "b", "tags": ["ok", ""]}}"#,
        ),
    ));
    assert_eq!(
        problems_of(&result),
        ["$.note.tags[1]: must be at least 1 character long, got 0"]
    );
    let result = block_on(registry().build().unwrap().dispatch(
        &ctx(),
        ToolCall::new(
            "c",
            "save_note",
            r#"{"note": {"title": "t", "body": "b", "tags": ["ok", "fine"]}}"#,
        ),
    ));
    assert!(!result.is_error(), "{}", result.for_model());
}

/// JSON Schema calls `5.0` an integer, so a client that validated against the published
/// schema sends it: read as the integer on every path (text or parsed arguments, every
/// dialect's decoding, fast path and slow), and still refused with a fraction or out of
/// range.
#[test]
fn a_whole_float_for_an_integer_is_read_as_that_integer_everywhere() {
    let registry = registry().build().unwrap();
    let ctx = ctx();
    for dialect in toolwright::Dialect::ALL {
        for (arguments, outcome) in [
            (json!({"query": "x", "max_results": 5.0}), Ok(())),
            (json!({"query": "x", "max_results": 1e1}), Ok(())),
            (
                json!({"query": "x", "max_results": 5.5}),
                Err("$.max_results: expected integer or null, got number 5.5"),
            ),
            (
                json!({"query": "x", "max_results": 51.0}),
                Err("$.max_results: must be <= 50, got 51.0"),
            ),
            (
                json!({"query": "", "max_results": 5.0}),
                Err("$.query: must be at least 1 character long, got 0"),
            ),
        ] {
            let text = arguments.to_string();
            for call in [
                ToolCall::new("f", "search_notes", arguments.clone()),
                ToolCall::new("f", "search_notes", text.as_str()),
            ] {
                let result = block_on(registry.dispatch(&ctx, call.written_for(dialect)));
                match outcome {
                    Ok(()) => assert!(
                        !result.is_error(),
                        "{dialect:?} {text}: {}",
                        result.for_model()
                    ),
                    Err(problem) => {
                        assert_eq!(problems_of(&result), [problem], "{dialect:?} {text}");
                    }
                }
            }
        }
    }
}

#[test]
fn malformed_arguments_get_clear_errors() {
    let registry = registry().with(Now).build().unwrap();
    let cases = [
        ("refund_payment", json!("{\"customer\": ")),
        ("refund_payment", json!("[1, 2]")),
        ("now", json!("null")),
        (
            "refund_payment",
            json!(r#""{\"customer\": \"C-1\", \"amount\": 5, \"currency\": \"EUR\"}""#),
        ),
    ];
    let views: Vec<Value> = cases
        .into_iter()
        .map(|(name, raw)| {
            let result = block_on(
                registry.dispatch(&ctx(), ToolCall::new("c", name, raw.as_str().unwrap())),
            );
            assert_eq!(result.error().unwrap().kind, ErrorKind::InvalidArguments);
            model_json(&result)
        })
        .collect();
    assert_json_snapshot!(views);
}

#[test]
fn repairs_are_explicit_and_listed() {
    let registry = registry().with(Now).repair_arguments(true).build().unwrap();
    let stringified = ToolCall::new(
        "c",
        "refund_payment",
        json!("{\"customer\": \"C-100\", \"amount\": 5, \"currency\": \"EUR\"}"),
    );
    let result = block_on(registry.dispatch(&ctx(), stringified));
    assert!(!result.is_error(), "{:?}", result.outcome);
    assert_eq!(
        result.repairs,
        ["the arguments were a JSON object inside a string; read the object"]
    );
    for empty in ["", "null"] {
        let result = block_on(registry.dispatch(&ctx(), ToolCall::new("c", "now", empty)));
        assert_eq!(
            result.outcome,
            Ok(ToolOutput::Text("12:00".into())),
            "{empty:?}"
        );
        assert_eq!(result.repairs.len(), 1);
    }
    // A tool with parameters is not called with nothing.
    let result = block_on(registry.dispatch(&ctx(), ToolCall::new("c", "refund_payment", "null")));
    assert!(result.is_error());
}

#[test]
fn a_panicking_tool_gets_an_internal_error_and_the_registry_keeps_serving() {
    let registry = Registry::builder().with(Echo).build().unwrap();
    let result =
        block_on(registry.dispatch(&ctx(), ToolCall::new("p", "echo", r#"{"text": "boom"}"#)));
    let error = result.error().unwrap();
    assert_eq!(error.kind, ErrorKind::Internal);
    assert!(!error.retryable);
    assert!(
        error.message.contains("echo was asked to explode"),
        "{}",
        error.message
    );
    let result =
        block_on(registry.dispatch(&ctx(), ToolCall::new("q", "echo", r#"{"text": "fine"}"#)));
    assert_eq!(result.outcome, Ok(ToolOutput::Text("fine".into())));
}

#[test]
fn a_slow_tool_gets_a_timeout_result() {
    let registry = Registry::builder()
        .with(Slow)
        .defaults(ToolSettings::new().timeout(Duration::from_millis(20)))
        .build()
        .unwrap();
    let result =
        block_on(registry.dispatch(&ctx(), ToolCall::new("t", "slow", r#"{"millis": 10000}"#)));
    let error = result.error().unwrap();
    assert_eq!(error.kind, ErrorKind::Timeout);
    assert!(error.retryable);
    let result =
        block_on(registry.dispatch(&ctx(), ToolCall::new("t2", "slow", r#"{"millis": 1}"#)));
    assert_eq!(result.outcome, Ok(ToolOutput::Text("done".into())));
}

#[test]
fn a_batch_answers_every_call_in_listed_order() {
    let calls = vec![
        ToolCall::new(
            "a",
            "save_note",
            json!({"note": {"title": "t", "body": "b"}}),
        ),
        ToolCall::new("b", "nope", "{}"),
        ToolCall::new("c", "search_notes", r#"{"query": "t"}"#),
        ToolCall::new("d", "search_notes", "not json"),
    ];
    let results = block_on(registry().build().unwrap().dispatch_batch(&ctx(), calls));
    let ids: Vec<&str> = results.iter().map(|r| r.call_id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d"]);
    let errors: Vec<bool> = results.iter().map(|r| r.is_error()).collect();
    assert_eq!(errors, [false, true, false, true]);
    // The search ran after the save, so it found the note.
    assert_eq!(
        results[2].for_model(),
        r#"[{"title":"t","body":"b","tags":[]}]"#
    );
}

#[test]
fn huge_arguments_are_refused_before_parsing() {
    let registry = registry().with_max_argument_bytes(1024).build().unwrap();
    let memo = "x".repeat(2000);
    let raw = format!(r#"{{"customer": "C-1", "amount": 5, "currency": "EUR", "memo": "{memo}"}}"#);
    let result =
        block_on(registry.dispatch(&ctx(), ToolCall::new("c", "refund_payment", raw.clone())));
    assert_eq!(
        result.error().unwrap().problems[0].message,
        format!("{} bytes of JSON; the limit is 1024", raw.len())
    );
}

#[test]
fn output_over_budget_is_cut_and_saved() {
    let dir =
        std::env::temp_dir().join(format!("toolwright-test-artifacts-{}", std::process::id()));
    let registry = Registry::builder()
        .with(LongReport)
        .configure(
            "long_report",
            ToolSettings::new().budget(OutputBudget::chars(500)),
        )
        .with_artifact_store(toolwright::output::DirectoryStore::new(&dir))
        .build()
        .unwrap();
    let result = block_on(registry.dispatch(
        &ctx(),
        ToolCall::new("r", "long_report", r#"{"lines": 1000}"#),
    ));
    let truncation = result.truncation().expect("cut to the budget");
    assert!(result.for_model().chars().count() <= 500);
    assert!(result.for_model().starts_with("row 1\n"));
    assert!(result.for_model().trim_end().ends_with("row 1000"));
    let saved = std::fs::read_to_string(truncation.saved_to.as_ref().unwrap()).unwrap();
    assert_eq!(
        saved.lines().count(),
        1000,
        "the artifact has the full output"
    );
    // The harness keeps the full output too.
    assert!(matches!(&result.outcome, Ok(ToolOutput::Text(text)) if text.lines().count() == 1000));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn registry_refuses_duplicates_and_checks_context_at_start_up() {
    let errors = registry().with(SaveNote).build().err().unwrap();
    assert_eq!(
        errors.0,
        [RegistryError::DuplicateName {
            name: "save_note".into(),
            first: std::any::type_name::<SaveNote>().into(),
            second: std::any::type_name::<SaveNote>().into(),
        }]
    );
    let registry = registry().build().unwrap();
    let missing = registry.check_context(&Context::new()).unwrap_err();
    let text = missing.to_string();
    assert!(text.contains("tool 'save_note' needs `"), "{text}");
    assert!(text.contains("tool 'search_notes' needs `"), "{text}");
    assert!(text.contains("Notes`"), "{text}");
    assert!(registry.check_context(&ctx()).is_ok());
}

/// Every configuration problem comes back from `build` at once, each naming what to do:
/// settings for a name no tool has (with the closest name) beside a duplicate tool.
#[test]
fn every_configuration_problem_is_reported_at_once() {
    let errors = registry()
        .configure(
            "serch_notes",
            ToolSettings::new().budget(OutputBudget::chars(10)),
        )
        .with(SaveNote)
        .configure("zzz", ToolSettings::new())
        .build()
        .err()
        .unwrap();
    assert_eq!(errors.len(), 3, "{errors}");
    assert!(matches!(&errors[0], RegistryError::DuplicateName { name, .. } if name == "save_note"));
    assert_eq!(
        errors[1],
        RegistryError::UnknownTool {
            name: "serch_notes".into(),
            closest: Some("search_notes".into()),
        }
    );
    assert_eq!(
        errors[1].to_string(),
        "no tool named 'serch_notes' to configure; did you mean 'search_notes'?"
    );
    assert!(
        matches!(&errors[2], RegistryError::UnknownTool { name, closest: None } if name == "zzz")
    );
    let text = errors.to_string();
    assert!(
        text.starts_with("the registry has 3 problems:\n  - two tools are named 'save_note'"),
        "{text}"
    );
}

#[test]
fn the_contract_of_all_tools_is_one_reviewed_snapshot() {
    assert_json_snapshot!(registry().build().unwrap().contract());
}

#[test]
fn every_error_category_as_the_model_sees_it() {
    let examples: Vec<Value> = [
        ToolError::invalid_arguments(
            "1 problem with the arguments of 'refund_payment'",
            vec![toolwright::Problem::new(
                "$.currency",
                "must be one of [\"EUR\", \"GBP\", \"USD\"], got \"usd\"",
            )],
        )
        .with_hint("fix every problem listed and call the tool again"),
        ToolError::new(
            ErrorKind::UnknownTool,
            "there is no tool named 'serch_notes'; did you mean 'search_notes'?",
        )
        .with_hint("available tools, closest first: search_notes, save_note"),
        ToolError::new(ErrorKind::Denied, "refunds need the scope payments:write")
            .with_hint("ask the user to grant it"),
        ToolError::not_found("no customer C-7").with_hint("look the customer up first"),
        ToolError::conflict("the file changed since it was read; old_text was not found")
            .with_hint("read the file again"),
        ToolError::new(ErrorKind::Timeout, "'slow' did not finish within 20 ms"),
        ToolError::new(
            ErrorKind::Cancelled,
            "the batch was cancelled before 'slow' finished",
        ),
        ToolError::failed("-500 is below absolute zero"),
        ToolError::retryable("the payment service is busy"),
        ToolError::internal(
            "'echo' failed unexpectedly while running (it panicked: index out of bounds)",
        )
        .with_retryable(false),
    ]
    .iter()
    .map(ToolError::to_model_json)
    .collect();
    assert_json_snapshot!(examples);
}

/// Summarize a build log for the model; the harness keeps every line.
#[tool(effect = "read_only")]
fn build_log() -> toolwright::Observation<Vec<String>> {
    let lines: Vec<String> = (1..=300).map(|i| format!("compiling crate {i}")).collect();
    let summary = format!("{} crates compiled, no errors", lines.len());
    toolwright::Observation::new(lines, summary)
}

#[test]
fn an_observation_chooses_its_model_view() {
    let registry = Registry::builder().with(BuildLog).build().unwrap();
    let result = block_on(registry.dispatch(&ctx(), ToolCall::new("o", "build_log", "{}")));
    assert_eq!(result.for_model(), "300 crates compiled, no errors");
    match &result.outcome {
        Ok(ToolOutput::Observation { data, .. }) => {
            assert_eq!(data.as_array().map(Vec::len), Some(300))
        }
        other => panic!("expected an observation, got {other:?}"),
    }
    // The output schema describes the data.
    assert_eq!(
        BuildLog.spec().output_schema,
        Some(json!({"type": "array", "items": {"type": "string"}}))
    );
}
