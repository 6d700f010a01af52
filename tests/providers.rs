//! Golden fixtures: a realistic response from each provider with two tool calls (one
//! valid, one invalid), in the provider's documented shape, is parsed, dispatched
//! through the registry, and the follow-up it renders is a reviewed snapshot.

use crate::tools;

use insta::assert_json_snapshot;
use serde_json::{Value, json};
use toolwright::provider::{ToolChoice, parse_calls, render_results, tool_choice};
use toolwright::{Context, Dialect, Registry};

fn registry() -> Registry {
    Registry::builder()
        .with_toolset(tools::PaymentsDesk::shared())
        .with(tools::SaveNote)
        .with(tools::SearchNotes)
        .with(tools::ConvertTemperature)
        .build()
        .unwrap()
}

fn fixture(path: &str) -> Value {
    let path = format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}")))
        .unwrap()
}

/// Parses `response`, dispatches its calls, renders the follow-up.
fn round_trip(dialect: Dialect, response: &Value) -> Value {
    let calls = parse_calls(dialect, response).expect("the fixture has the documented shape");
    assert_eq!(calls.len(), 2);
    let ctx = Context::new()
        .with(tools::Notes::default())
        .with(toolwright::policy::Caller::new("tests", ["payments:write"]));
    let results = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(registry().dispatch_batch(&ctx, calls.clone()));
    assert!(!results[0].is_error(), "{}", results[0].for_model());
    assert!(results[1].is_error(), "the second call is invalid");
    json!({
        "calls": calls.iter().map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments})).collect::<Vec<_>>(),
        "follow_up": render_results(dialect, &results),
    })
}

#[test]
fn openai_chat() {
    assert_json_snapshot!(round_trip(
        Dialect::OpenAiChat { strict: true },
        &fixture("openai_chat/response.json")
    ));
}

#[test]
fn openai_responses() {
    assert_json_snapshot!(round_trip(
        Dialect::OpenAiResponses { strict: true },
        &fixture("openai_responses/response.json")
    ));
}

#[test]
fn anthropic() {
    assert_json_snapshot!(round_trip(
        Dialect::Anthropic { strict: false },
        &fixture("anthropic/response.json")
    ));
}

#[test]
fn gemini() {
    let rendered = round_trip(Dialect::GeminiJsonSchema, &fixture("gemini/response.json"));
    // Gemini sent no ids: toolwright made stable ones and does not send them back.
    assert_eq!(rendered["calls"][0]["id"], "toolwright-call-0");
    assert!(
        rendered["follow_up"][0]["parts"][0]["functionResponse"]
            .get("id")
            .is_none()
    );
    assert_json_snapshot!(rendered);
}

#[test]
fn mcp() {
    let requests = fixture("mcp/requests.json");
    let mut calls = Vec::new();
    for request in requests.as_array().unwrap() {
        calls.extend(parse_calls(Dialect::Mcp, request).unwrap());
    }
    let ctx = Context::new().with(toolwright::policy::Caller::new("tests", ["payments:write"]));
    let results = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(registry().dispatch_batch(&ctx, calls));
    let rendered = render_results(Dialect::Mcp, &results);
    assert_eq!(rendered[1]["isError"], true);
    assert!(
        rendered[1].get("structuredContent").is_none(),
        "never on an error"
    );
    assert_json_snapshot!(rendered);
}

#[test]
fn tool_choice_in_every_dialect() {
    let choices = [
        ToolChoice::Auto,
        ToolChoice::None,
        ToolChoice::Required,
        ToolChoice::Tool("search_notes".into()),
    ];
    let table: Vec<Value> = Dialect::ALL
        .iter()
        .filter(|d| !matches!(d, Dialect::OpenAiChat { strict: false } | Dialect::OpenAiResponses { strict: false } | Dialect::Anthropic { strict: true } | Dialect::GeminiParameters))
        .map(|dialect| {
            json!({
                "dialect": dialect.slug(),
                "choices": choices.iter().map(|c| tool_choice(*dialect, c, true)).collect::<Vec<_>>(),
                "one_call_per_turn": tool_choice(*dialect, &ToolChoice::Auto, false),
            })
        })
        .collect();
    assert_json_snapshot!(table);
}

#[test]
fn malformed_responses_are_errors_not_panics() {
    for dialect in Dialect::ALL {
        for response in [
            json!(null),
            json!([]),
            json!({"choices": [{"message": {"tool_calls": [{"id": 1}]}}]}),
            json!({"output": "x"}),
        ] {
            let _ = parse_calls(dialect, &response);
        }
    }
    assert!(parse_calls(Dialect::Anthropic { strict: false }, &json!({})).is_err());
}

#[test]
fn definitions_are_rendered_once_per_dialect() {
    let registry = Registry::builder()
        .with(tools::ConvertTemperature)
        .with(tools::SaveNote)
        .build()
        .unwrap();
    for dialect in [Dialect::Mcp, Dialect::OpenAiChat { strict: true }] {
        let first = registry.all_definitions_shared(dialect).unwrap();
        let again = registry.all_definitions_shared(dialect).unwrap();
        assert!(
            std::sync::Arc::ptr_eq(&first, &again),
            "rendered once: {dialect:?}"
        );
        assert_eq!(
            *first,
            registry.all_definitions(dialect).unwrap(),
            "{dialect:?}"
        );
        let names: Vec<Value> = first
            .iter()
            .map(|definition| {
                definition
                    .pointer("/name")
                    .or(definition.pointer("/function/name"))
                    .cloned()
                    .unwrap()
            })
            .collect();
        assert_eq!(
            names,
            [json!("convert_temperature"), json!("save_note")],
            "{dialect:?}"
        );
    }
}

/// Each dialect's facts (`Dialect::facts`) are what its definitions show: the function
/// and its parameters where the row says, an examples field where it says there is one,
/// and `allowed_callers` for a tool offered to hosted code only where the provider has
/// hosted code.
/// Books a meeting room for the user, and returns the booking's id.
#[toolwright::tool(
    effect = "write",
    callers = "any",
    hosted_code,
    example = r#"{"room": "Ada"}"#
)]
fn book_room(
    /** The room, by its name. */
    room: String,
) -> String {
    room
}

#[test]
fn every_dialects_facts_are_what_its_definitions_show() {
    let registry = Registry::builder().with(BookRoom).build().unwrap();
    for dialect in Dialect::ALL {
        let facts = dialect.facts();
        let definition = registry.all_definitions(dialect).unwrap()[0].clone();
        let function = dialect.function_of(&definition).unwrap();
        assert_eq!(function["name"], "book_room", "{dialect:?}: {definition}");
        let parameters = dialect.parameters_of(&definition).unwrap();
        assert_eq!(parameters["required"], json!(["room"]), "{dialect:?}");
        // Anthropic's `input_examples`; MCP's in the input schema's `examples`.
        let examples =
            function.get("input_examples").is_some() || parameters.get("examples").is_some();
        assert_eq!(examples, facts.examples_field, "{dialect:?}: {definition}");
        assert_eq!(
            function.get("allowed_callers").is_some(),
            facts.hosted_code,
            "{dialect:?}: {definition}"
        );
    }
}
