//! The validator's unit tests.

use serde_json::json;

use super::*;

fn problems(schema: Value, value: Value) -> Vec<String> {
    Validator::for_arguments(&schema)
        .unwrap()
        .validate(&value)
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn every_problem_at_once_with_paths_and_hints() {
    let schema = json!({
        "type": "object",
        "properties": {
            "amount": {"type": "integer", "minimum": 1},
            "currency": {"type": "string", "enum": ["EUR", "GBP", "USD"]},
            "pay_on": {"type": "string", "format": "date"}
        },
        "required": ["amount", "currency"],
        "additionalProperties": false
    });
    let value = json!({"ammount": 5, "currency": "usd", "pay_on": "next friday"});
    assert_eq!(
        problems(schema, value),
        [
            "$: missing required field 'amount'",
            "$: unexpected field 'ammount' (allowed: amount, currency, pay_on); did you mean 'amount'?",
            "$.currency: must be one of [\"EUR\", \"GBP\", \"USD\"], got \"usd\"",
            "$.pay_on: \"next friday\" is not a date; expected YYYY-MM-DD",
        ]
    );
}

#[test]
fn a_whole_float_is_an_integer_and_a_fraction_is_not() {
    // As JSON Schema reads `integer`, for tool arguments too: the argument reader reads
    // `5.0` into a Rust integer (arguments::strict), so a client that validated against
    // the published schema is never refused by the server.
    let schema = json!({"type": "integer", "minimum": 1, "maximum": 50});
    for options in [Options::SPECIFICATION, Options::TOOL_ARGUMENTS] {
        let validator = Validator::compile(&schema, options).unwrap();
        assert!(validator.is_valid(&json!(5.0)));
        assert!(!validator.is_valid(&json!(51.0)));
    }
    assert_eq!(
        problems(schema.clone(), json!(5.5)),
        ["$: expected integer, got number 5.5"]
    );
    assert_eq!(
        problems(schema, json!(51.0)),
        ["$: must be <= 50, got 51.0"]
    );
}

#[test]
fn an_unknown_tag_lists_every_tag_and_a_known_one_explains_its_own_form() {
    let schema = json!({"oneOf": [
        {"type": "object", "properties": {"method": {"const": "card"}, "number": {"type": "string"}}, "required": ["method", "number"]},
        {"type": "object", "properties": {"method": {"const": "invoice"}, "email": {"type": "string"}}, "required": ["method", "email"]},
        {"type": "object", "properties": {"method": {"const": "free"}}, "required": ["method"]}
    ]});
    let problems = |value: Value| problems(schema.clone(), value);
    assert_eq!(
        problems(json!({"method": "cash"})),
        ["$.method: must be one of [\"card\", \"invoice\", \"free\"], got \"cash\""]
    );
    assert_eq!(
        problems(json!({"number": "4242"})),
        ["$: missing required field 'method', one of [\"card\", \"invoice\", \"free\"]"]
    );
    assert_eq!(
        problems(json!({"method": "invoice"})),
        ["$: missing required field 'email'"]
    );
    assert!(problems(json!({"method": "free"})).is_empty());
}

#[test]
fn the_closest_alternative_explains_a_failed_any_of() {
    let schema = json!({
        "anyOf": [
            {"type": "object", "properties": {"kind": {"const": "circle"}, "radius": {"type": "number"}}, "required": ["kind", "radius"]},
            {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}}, "required": ["kind", "side"]},
            {"type": "null"}
        ]
    });
    assert_eq!(
        problems(schema, json!({"kind": "square", "side": "2"})),
        ["$.side: expected number, got string \"2\""]
    );
}

#[test]
fn a_ref_cycle_is_a_schema_error_not_a_hang() {
    let error = Validator::compile(&json!({"$ref": "#"}), Options::SPECIFICATION).unwrap_err();
    assert!(error.to_string().contains("cycle"), "{error}");
    // Recursion through properties is fine.
    let tree = json!({"type": "object", "properties": {"child": {"$ref": "#"}}});
    assert!(
        Validator::compile(&tree, Options::SPECIFICATION)
            .unwrap()
            .is_valid(&json!({"child": {"child": {}}}))
    );
}

#[test]
fn unresolvable_refs_are_errors() {
    assert!(
        Validator::compile(
            &json!({"$ref": "https://example.com/s.json"}),
            Options::SPECIFICATION
        )
        .is_err()
    );
    assert!(
        Validator::compile(&json!({"$ref": "#/$defs/missing"}), Options::SPECIFICATION).is_err()
    );
}

#[test]
fn if_then_else_picks_the_branch_the_condition_chooses() {
    // The conformance suite's contact schema: a phone when the method is phone,
    // else an email.
    let schema = json!({
        "type": "object",
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]}
    });
    assert!(
        problems(
            schema.clone(),
            json!({"contactMethod": "phone", "phone": "1"})
        )
        .is_empty()
    );
    assert_eq!(
        problems(
            schema.clone(),
            json!({"contactMethod": "phone", "email": "a@b.c"})
        ),
        ["$: missing required field 'phone'"]
    );
    assert_eq!(
        problems(schema.clone(), json!({"phone": "1"})),
        ["$: missing required field 'email'"]
    );
    assert!(problems(schema, json!({"email": "a@b.c"})).is_empty());
    // Without `if`, `then` and `else` assert nothing.
    assert!(problems(json!({"then": false, "else": false}), json!(1)).is_empty());
    // An `if` alone asserts nothing either.
    assert!(problems(json!({"if": false}), json!(1)).is_empty());
}
