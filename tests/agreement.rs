//! The schema the model sees and the code that reads its answer never disagree: for
//! random JSON arguments against every example tool, the validator accepts a value
//! exactly when the tool's fast path (serde plus the typed constraint checks) does.
//!
//! Values are generated from each tool's own schema (so most are near the boundary
//! between valid and invalid) mixed with arbitrary JSON.

use crate::tools;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};
use toolwright::validate::Validator;
use toolwright::{Arguments, Tool};

fn leaf() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-1000i64..1000).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        Just(json!(1.0)),
        Just(json!(-3.0)),
        Just(json!(1e3)),
        Just(json!(1.5)),
        "[a-zA-Z0-9 -]{0,12}".prop_map(Value::String),
    ]
    .boxed()
}

pub(crate) fn any_json() -> BoxedStrategy<Value> {
    leaf()
        .prop_recursive(3, 16, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[a-z]{1,6}", inner, 0..4)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
        .boxed()
}

/// Values shaped by `schema`: right and slightly wrong ones, and now and then anything.
fn shaped(schema: &Value, root: &Value, depth: usize) -> BoxedStrategy<Value> {
    if depth > 4 {
        return any_json();
    }
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let target = root
            .pointer(reference.trim_start_matches('#'))
            .cloned()
            .unwrap_or(Value::Bool(true));
        return shaped(&target, root, depth + 1);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            let strategies: Vec<BoxedStrategy<Value>> = branches
                .iter()
                .map(|branch| shaped(branch, root, depth + 1))
                .collect();
            return proptest::strategy::Union::new(strategies).boxed();
        }
    }
    // Mostly values of the right shape (valid or just off), sometimes anything.
    let mut options: Vec<(u32, BoxedStrategy<Value>)> = vec![(1, any_json())];
    if let Some(constant) = schema.get("const") {
        options.push((8, Just(constant.clone()).boxed()));
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let mut values = values.clone();
        values.push(json!("usd"));
        options.push((8, proptest::sample::select(values).boxed()));
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(ty)) => vec![ty.as_str()],
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    for ty in types {
        let strategy = match ty {
            "integer" => {
                let min = schema.get("minimum").and_then(Value::as_i64).unwrap_or(-5);
                let max = schema
                    .get("maximum")
                    .and_then(Value::as_i64)
                    .unwrap_or(min + 10)
                    .min(min + 1000);
                // Integer literals, the same values written as whole floats (`5.0`,
                // an integer in JSON Schema, read as one), and values with a fraction.
                prop_oneof![
                    4 => (min - 2..=max + 2).prop_map(Value::from),
                    2 => (min - 2..=max + 2).prop_map(|n| Value::from(n as f64)),
                    1 => (min - 2..=max + 2).prop_map(|n| Value::from(n as f64 + 0.5)),
                ]
                .boxed()
            }
            "number" => prop_oneof![
                (-500.0f64..500.0).prop_map(Value::from),
                (-5i64..5).prop_map(Value::from)
            ]
            .boxed(),
            "string" => {
                let max = schema.get("maxLength").and_then(Value::as_u64).unwrap_or(8) as usize + 2;
                let mut strings = vec![
                    proptest::string::string_regex(&format!("[a-zA-Z -]{{0,{max}}}"))
                        .unwrap()
                        .prop_map(Value::String)
                        .boxed(),
                ];
                if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
                    let unanchored = pattern.trim_start_matches('^').trim_end_matches('$');
                    strings.push(
                        proptest::string::string_regex(unanchored)
                            .unwrap()
                            .prop_map(Value::String)
                            .boxed(),
                    );
                }
                proptest::strategy::Union::new(strings).boxed()
            }
            "boolean" => any::<bool>().prop_map(Value::Bool).boxed(),
            "null" => Just(Value::Null).boxed(),
            "array" => {
                let items = schema.get("items").cloned().unwrap_or(Value::Bool(true));
                prop::collection::vec(shaped(&items, root, depth + 1), 0..4)
                    .prop_map(Value::Array)
                    .boxed()
            }
            "object" => object(schema, root, depth),
            _ => continue,
        };
        options.push((8, strategy));
    }
    proptest::strategy::Union::new_weighted(options).boxed()
}

/// An object with each declared property present or not, and now and then an extra one.
pub(crate) fn object(schema: &Value, root: &Value, depth: usize) -> BoxedStrategy<Value> {
    let properties: Vec<(String, Value)> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|map| map.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default();
    let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = properties
        .into_iter()
        .map(|(name, property)| {
            let value = shaped(&property, root, depth + 1);
            prop::option::weighted(0.9, value.prop_map(move |v| (name.clone(), v))).boxed()
        })
        .collect();
    let extra = prop::option::weighted(0.1, ("[a-z]{1,8}", any_json()));
    let as_object = (fields.clone(), extra).prop_map(|(fields, extra)| {
        let mut map: Map<String, Value> = fields.into_iter().flatten().collect();
        if let Some((key, value)) = extra {
            map.entry(key).or_insert(value);
        }
        Value::Object(map)
    });
    // serde can read a struct from an array of its fields in order; the schema says
    // object, so such arrays must be refused on both paths.
    let as_array = fields.prop_map(|fields| {
        Value::Array(
            fields
                .into_iter()
                .flatten()
                .map(|(_, value)| value)
                .collect(),
        )
    });
    prop_oneof![8 => as_object, 1 => as_array].boxed()
}

fn check_agreement(tool: &dyn Tool) {
    let schema = tool.spec().input_schema.clone();
    let validator = Validator::for_arguments(&schema).expect("the schema compiles");
    let strategy = prop_oneof![9 => object(&schema, &schema, 0), 1 => any_json()];
    let mut runner = TestRunner::new(Config {
        cases: 2000,
        failure_persistence: None,
        ..Config::default()
    });
    let (accepted, rejected) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    runner
        .run(&strategy, |value| {
            let by_validator = validator.is_valid(&value);
            let by_tool = tool.prepare(Arguments::Value(&value)).is_ok();
            let side = if by_tool { &accepted } else { &rejected };
            side.set(side.get() + 1);
            prop_assert_eq!(
                by_validator,
                by_tool,
                "{} disagrees on {}: validator problems {:?}",
                tool.spec().name,
                value,
                validator.validate(&value)
            );
            Ok(())
        })
        .unwrap();
    // The generator must reach both sides, or the test proves nothing.
    let (accepted, rejected) = (accepted.get(), rejected.get());
    eprintln!(
        "{}: {accepted} accepted, {rejected} rejected, validator and tool agreeing on each",
        tool.spec().name
    );
    assert!(
        accepted > 50 && rejected > 50,
        "{}: {accepted} accepted, {rejected} rejected",
        tool.spec().name
    );
}

#[test]
fn refund_payment_agrees() {
    check_agreement(&*tools::PaymentsDesk::shared().tool("refund_payment"));
    check_agreement(&*tools::PaymentsDesk::shared().tool("lookup_customer"));
}

#[test]
fn save_note_agrees() {
    check_agreement(&tools::SaveNote);
}

#[test]
fn search_notes_agrees() {
    check_agreement(&tools::SearchNotes);
}

#[test]
fn convert_temperature_agrees() {
    check_agreement(&tools::ConvertTemperature);
}

/// A point.
#[derive(serde::Deserialize, toolwright::ToolSchema)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(serde::Deserialize, toolwright::ToolSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Internal {
    Click { at: Point },
    Move(Point),
    Quit,
}

#[derive(serde::Deserialize, toolwright::ToolSchema)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Go(Point),
    Stop,
}

#[derive(serde::Deserialize, toolwright::ToolSchema)]
#[serde(untagged)]
enum Untagged {
    At(Point),
    Named { name: bool },
}

#[derive(serde::Deserialize, toolwright::ToolSchema)]
enum External {
    Jump(Point),
    Sit,
}

#[derive(serde::Deserialize, toolwright::ToolSchema)]
struct Flat {
    label: bool,
    #[serde(flatten)]
    at: Point,
}

/// Click or move.
#[toolwright::tool(effect = "read_only")]
fn internal_shape(shape: Internal) {
    let _ = shape;
}

/// Go or stop.
#[toolwright::tool(effect = "read_only")]
fn adjacent_shape(shape: Adjacent) {
    let _ = shape;
}

/// A point or a name.
#[toolwright::tool(effect = "read_only")]
fn untagged_shape(shape: Untagged) {
    let _ = shape;
}

/// Jump or sit.
#[toolwright::tool(effect = "read_only")]
fn external_shape(shape: External) {
    let _ = shape;
}

/// A labelled point.
#[toolwright::tool(effect = "read_only")]
fn flat_shape(shape: Flat) {
    let _ = shape;
}

/// Enums of every tagging and a flattened struct: serde reads the internally tagged,
/// untagged and flattened ones from buffered content, where it would take a struct from
/// an array; the fast path then checks the schema too, and the two paths agree.
#[test]
fn enums_of_every_tagging_agree() {
    check_agreement(&InternalShape);
    check_agreement(&AdjacentShape);
    check_agreement(&UntaggedShape);
    check_agreement(&ExternalShape);
    check_agreement(&FlatShape);
}

/// The same check when the arguments come as JSON text (parsed once into a value that
/// serde and the validator both read).
#[test]
fn buffered_arguments_as_text_are_checked_too() {
    let prepare = |json: &str| InternalShape.prepare(Arguments::Json(json)).is_ok();
    assert!(prepare(r#"{"shape": {"kind": "quit"}}"#));
    assert!(prepare(r#"{"shape": {"kind": "move", "x": 1, "y": 2}}"#));
    assert!(!prepare(r#"{"shape": ["quit"]}"#), "serde alone reads this");
    assert!(!prepare(r#"{"shape": {"kind": "move", "x": 1}}"#));
    assert!(!prepare(r#"{"shape": "#), "not JSON");
}

/// The part of a provider's definition that is the arguments' schema, when it is JSON
/// Schema (Gemini `parameters` is OpenAPI's dialect: not checked here).
fn lowered_schema(definition: &Value, dialect: toolwright::Dialect) -> Option<Value> {
    use toolwright::Dialect;
    let schema = match dialect {
        Dialect::OpenAiChat { .. } => &definition["function"]["parameters"],
        Dialect::OpenAiResponses { .. } => &definition["parameters"],
        Dialect::Anthropic { .. } => &definition["input_schema"],
        Dialect::GeminiJsonSchema => &definition["parametersJsonSchema"],
        Dialect::Mcp => &definition["inputSchema"],
        Dialect::GeminiParameters => return None,
        other => panic!("a dialect this test does not know: {other:?}"),
    };
    Some(schema.clone())
}

/// Through every dialect's lowering, for random arguments `v`: when the tool's own schema
/// accepts `v`, the lowered schema accepts `v` as that dialect's model writes it
/// (`encode_arguments`: nothing valid is inexpressible), and the dispatcher, decoding
/// that call, accepts it; when the tool's schema refuses `v`, the dispatcher refuses the
/// encoded call too, even where the lowered schema lets it through (a bound a provider
/// does not enforce, moved into the description, is still enforced here).
fn check_lowered_agreement(tool: std::sync::Arc<dyn Tool>, extra: &[&str]) {
    let spec = tool.spec().clone();
    let registry = toolwright::Registry::builder()
        .with_arc(tool)
        .build()
        .unwrap();
    let canonical = Validator::for_arguments(&spec.input_schema).expect("the schema compiles");
    for dialect in toolwright::Dialect::ALL {
        let Ok(definition) = toolwright::provider::definition(&spec, dialect) else {
            // Refused with its reason (tests/dialects.rs); nothing is sent.
            assert!(
                extra.contains(&format!("{dialect:?}").as_str()),
                "{} refused by {dialect:?}",
                spec.name
            );
            continue;
        };
        let lowered = lowered_schema(&definition, dialect)
            .map(|schema| Validator::for_arguments(&schema).expect("the lowered schema compiles"));
        let strategy =
            prop_oneof![9 => object(&spec.input_schema, &spec.input_schema, 0), 1 => any_json()];
        let mut runner = TestRunner::new(Config {
            cases: 1000,
            failure_persistence: None,
            ..Config::default()
        });
        let counts = std::cell::Cell::new((0, 0, 0));
        runner
            .run(&strategy, |value| {
                let valid = canonical.is_valid(&value);
                let sent = toolwright::provider::encode_arguments(&spec, dialect, &value);
                let call = toolwright::ToolCall::new("p", spec.name.clone(), sent.clone())
                    .written_for(dialect);
                let dispatched = registry.prepare_call(&call).is_ok();
                let expressed = lowered.as_ref().map(|lowered| lowered.is_valid(&sent));
                let (mut accepted, mut read_as_encoding, mut rejected) = counts.get();
                if valid {
                    accepted += 1;
                    prop_assert!(
                        dispatched,
                        "{} under {:?}: valid {} sent as {} is refused",
                        spec.name,
                        dialect,
                        value,
                        sent
                    );
                    prop_assert!(
                        expressed != Some(false),
                        "{} under {:?}: valid {} is not expressible as {}",
                        spec.name,
                        dialect,
                        value,
                        sent
                    );
                } else {
                    rejected += 1;
                    if dispatched {
                        // Accepted though the tool's schema refuses `value`: only because
                        // what was sent is a well-formed call of the dialect that means
                        // another, valid one (`"tags": []`, the empty map as entries).
                        prop_assert!(
                            expressed != Some(false),
                            "{} under {:?}: invalid {} sent as {} is accepted",
                            spec.name,
                            dialect,
                            value,
                            sent
                        );
                        read_as_encoding += 1;
                    }
                }
                counts.set((accepted, read_as_encoding, rejected));
                Ok(())
            })
            .unwrap();
        let (accepted, read_as_encoding, rejected) = counts.get();
        eprintln!(
            "{} under {dialect:?}: {accepted} valid, each expressible and accepted; {rejected} invalid, each refused but {read_as_encoding} that are a well-formed call of the dialect meaning a valid one",
            spec.name
        );
        assert!(
            accepted > 10 && rejected > 10,
            "{} under {dialect:?}: {accepted} valid, {rejected} invalid",
            spec.name
        );
    }
}

/// Tag a file: a map argument, sent as entries where objects must list their fields.
#[toolwright::tool(effect = "write")]
fn tag_file(
    /// The file.
    path: String,
    /// Tags by name.
    tags: std::collections::HashMap<String, u8>,
    /// Why.
    reason: Option<String>,
) {
    let _ = (path, tags, reason);
}

#[test]
fn every_example_tool_agrees_through_every_lowering() {
    let desk = tools::PaymentsDesk::shared();
    check_lowered_agreement(desk.tool("refund_payment"), &[]);
    check_lowered_agreement(desk.tool("lookup_customer"), &[]);
    check_lowered_agreement(std::sync::Arc::new(tools::SaveNote), &[]);
    check_lowered_agreement(std::sync::Arc::new(tools::SearchNotes), &[]);
    check_lowered_agreement(std::sync::Arc::new(tools::ConvertTemperature), &[]);
    check_lowered_agreement(std::sync::Arc::new(TagFile), &[]);
}
