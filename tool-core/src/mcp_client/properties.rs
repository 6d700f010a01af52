//! Property tests of the import and result paths against arbitrary server output: random
//! JSON (deep, huge strings, odd Unicode) mixed with well-formed tools. No panic, every
//! well-formed tool with a free name still imports, and every result is one outcome.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::import::{ImportLimits, Trust, import};
use super::listing::read_entry;
use super::names::assign;
use super::result::read_result;

/// Strings a hostile server might send: control characters, bidirectional overrides,
/// tags, separators, long runs.
fn odd_string() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z_]{1,12}",
        "\\PC{0,40}",
        prop::collection::vec(
            prop_oneof![
                Just('\n'),
                Just('\0'),
                Just('\u{202e}'),
                Just('\u{e0041}'),
                Just('\u{2028}'),
                Just('\u{1b}'),
                Just('é'),
                Just('a'),
                Just(':'),
                Just('/')
            ],
            0..30
        )
        .prop_map(|chars| chars.into_iter().collect()),
        (1usize..200_000).prop_map(|n| "x".repeat(n)),
    ]
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        odd_string().prop_map(Value::String),
    ];
    leaf.prop_recursive(24, 200, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((odd_string(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// An entry that looks like a tool but may break any of its fields.
fn entry() -> impl Strategy<Value = Value> {
    prop_oneof![
        any_json(),
        (odd_string(), any_json(), any_json()).prop_map(|(name, schema, annotations)| {
            json!({"name": name, "inputSchema": schema, "annotations": annotations})
        }),
        (odd_string(), any_json()).prop_map(|(name, properties)| {
            json!({"name": name, "inputSchema": {"type": "object", "properties": properties}})
        }),
    ]
}

/// A well-formed tool, named so no other entry can take its name.
fn good(index: usize) -> Value {
    json!({
        "name": format!("good_tool_{index}"),
        "description": "A tool with nothing wrong.",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}}
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn any_listing_imports_every_good_tool_and_never_panics(
        garbage in prop::collection::vec(entry(), 0..12),
        goods in 0usize..4,
    ) {
        let mut entries: Vec<Value> = garbage;
        for index in 0..goods {
            entries.insert(index * 2 % (entries.len() + 1), good(index));
        }
        let mut findings = Vec::new();
        let tools: Vec<rmcp::model::Tool> = entries
            .into_iter()
            .enumerate()
            .filter_map(|(position, entry)| match read_entry(entry, position + 1) {
                Ok(tool) => Some(tool),
                Err(finding) => {
                    findings.push(finding);
                    None
                }
            })
            .collect();
        let remotes: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
        let names = assign(&remotes, Some("srv"), &mut findings);
        let limits = ImportLimits::default();
        let mut imported = Vec::new();
        for (tool, name) in tools.iter().zip(names) {
            if let Some(name) = name
                && let Some(done) = import(tool, name, Trust::Untrusted, &limits, &mut findings)
            {
                imported.push(done.spec.name);
            }
        }
        for index in 0..goods {
            let name = format!("srv_good_tool_{index}");
            prop_assert!(imported.contains(&name), "{name} was lost: {findings:?}");
        }
        let mut unique = imported.clone();
        unique.sort();
        unique.dedup();
        prop_assert_eq!(unique.len(), imported.len(), "two tools share a name");
        for finding in &findings {
            let shown = finding.to_string();
            prop_assert!(!shown.contains(['\n', '\0', '\u{202e}']), "{:?}", shown);
        }
    }

    #[test]
    fn any_result_is_one_outcome_and_never_panics(
        result in any_json(),
        blocks in prop::collection::vec(any_json(), 0..6),
        text in odd_string(),
    ) {
        let _ = read_result(result, None);
        let mut content = blocks;
        content.push(json!({"type": "text", "text": text}));
        let outcome = read_result(json!({"content": content}), None);
        // A result with a text block is never refused whole for its other blocks.
        prop_assert!(outcome.is_ok(), "{outcome:?}");
        let shown = outcome.unwrap().to_text();
        prop_assert!(!shown.contains(['\u{1b}', '\u{e0041}']), "{:?}", shown);
    }
}
