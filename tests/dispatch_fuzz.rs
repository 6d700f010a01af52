//! Hostile input: arbitrary bytes and arbitrary JSON as arguments, arbitrary names, to
//! the dispatcher. Never a panic, never a lost call: always exactly one result, carrying
//! the call's id.

use crate::tools;

use proptest::prelude::*;
use serde_json::Value;
use toolwright::{CallArguments, Context, Registry, ToolCall};

fn registry(repair: bool) -> Registry {
    Registry::builder()
        .with_toolset(tools::PaymentsDesk::shared())
        .with(tools::SaveNote)
        .with(tools::SearchNotes)
        .with(tools::ConvertTemperature)
        .repair_arguments(repair)
        .build()
        .unwrap()
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,20}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(".{0,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("refund_payment".to_owned()),
        Just("save_note".to_owned()),
        Just("search_notes".to_owned()),
        Just("convert_temperature".to_owned()),
        ".{0,80}",
    ]
}

fn arguments() -> impl Strategy<Value = CallArguments> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..200)
            .prop_map(|bytes| CallArguments::Json(String::from_utf8_lossy(&bytes).into_owned())),
        any_json().prop_map(|value| CallArguments::Json(value.to_string())),
        any_json().prop_map(CallArguments::Value),
        // Objects with the real parameter names and arbitrary values.
        prop::collection::btree_map(
            prop::sample::select(vec![
                "customer", "amount", "currency", "memo", "note", "query", "value", "from", "to"
            ]),
            any_json(),
            0..6,
        )
        .prop_map(|m| CallArguments::Value(Value::Object(
            m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
        ))),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_call_gets_exactly_one_result_with_its_id(
        calls in prop::collection::vec((".{0,12}", name(), arguments()), 1..5),
        repair in any::<bool>(),
    ) {
        let registry = registry(repair);
        let ctx = Context::new().with(tools::Notes::default());
        let calls: Vec<ToolCall> = calls
            .into_iter()
            .map(|(id, name, arguments)| ToolCall::new(id, name, arguments))
            .collect();
        let ids: Vec<String> = calls.iter().map(|call| call.id.clone()).collect();
        let results = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(registry.dispatch_batch(&ctx, calls));
        let result_ids: Vec<String> = results.iter().map(|result| result.call_id.clone()).collect();
        prop_assert_eq!(result_ids, ids);
        for result in &results {
            if let Err(error) = &result.outcome {
                // Errors the model reads are compact JSON.
                prop_assert!(serde_json::from_str::<Value>(result.for_model()).is_ok());
                prop_assert!(!error.message.is_empty());
            }
        }
    }
}
