//! Whole-call examples (`#[tool(example = ...)]`): the macro checks them against the
//! signature (tests/ui-tests: bad_examples), the registry reads each one as a call when
//! the tool joins, so an example the tool would refuse never reaches a model, and each
//! dialect gets them where it has a place for them.

use crate::tools;

use insta::assert_json_snapshot;
use serde_json::json;
use toolwright::{Dialect, Registry, RegistryError, tool};

/// Reserve a room.
#[tool(
    effect = "write",
    example = r#"{"room": "B-2", "hours": 2}"#,
    example = r#"{"room": "B-2", "hours": 30}"#
)]
fn reserve_room(
    /// The room, like `B-2`.
    #[arg(pattern = "^[A-Z]-[0-9]+$")]
    room: String,
    /// For how long.
    #[arg(minimum = 1, maximum = 8)]
    hours: u8,
) -> String {
    format!("{room} for {hours} h")
}

#[test]
fn an_example_the_tool_would_refuse_keeps_the_tool_out() {
    let errors = Registry::builder().with(ReserveRoom).build().err().unwrap();
    let error = &errors[0];
    let RegistryError::InvalidExample {
        tool,
        example,
        problems,
    } = error
    else {
        panic!("{error:?}")
    };
    assert_eq!((tool.as_str(), *example), ("reserve_room", 2));
    assert!(problems.contains("$.hours"), "{problems}");
    assert!(
        error
            .to_string()
            .contains("would teach the model a mistake"),
        "{error}"
    );
}

fn desk() -> toolwright::RegistryBuilder {
    Registry::builder().with_toolset(tools::PaymentsDesk::shared())
}

fn refund(registry: &Registry, dialect: Dialect) -> serde_json::Value {
    let definitions = registry.all_definitions(dialect).unwrap();
    definitions
        .into_iter()
        .find(|definition| {
            definition["name"] == "refund_payment"
                || definition["function"]["name"] == "refund_payment"
        })
        .unwrap()
}

#[test]
fn each_dialect_gets_the_examples_where_it_has_a_place() {
    let registry = desk().build().unwrap();
    let examples = json!([
        {"customer": "C-100", "amount": 2500, "currency": "EUR"},
        {"customer": "C-200", "amount": 800, "currency": "USD", "memo": "Damaged on arrival"}
    ]);
    for strict in [false, true] {
        let anthropic = refund(&registry, Dialect::Anthropic { strict });
        assert_eq!(anthropic["input_examples"], examples);
    }
    assert_eq!(
        refund(&registry, Dialect::Mcp)["inputSchema"]["examples"],
        examples
    );
    // No place for them elsewhere, and not in the description unless asked: they cost
    // tokens on every request.
    let openai = refund(&registry, Dialect::OpenAiChat { strict: true });
    assert!(!openai.to_string().contains("C-200"), "{openai}");

    let registry = desk().with_examples_in_descriptions().build().unwrap();
    for dialect in [
        Dialect::OpenAiChat { strict: true },
        Dialect::OpenAiResponses { strict: false },
        Dialect::GeminiParameters,
    ] {
        let definition = refund(&registry, dialect);
        let text = definition.to_string();
        assert!(
            text.contains(r#"Examples:\n{\"customer\":\"C-100\""#),
            "{text}"
        );
    }
    // Where there is a field, the description stays as it was.
    let anthropic = refund(&registry, Dialect::Anthropic { strict: false });
    assert!(
        !anthropic["description"]
            .as_str()
            .unwrap()
            .contains("Examples:")
    );
    assert_json_snapshot!(
        "examples_in_the_description",
        refund(&registry, Dialect::OpenAiResponses { strict: true })
    );
}
