//! Streaming tool input (`toolwright::partial`): a call's arguments read piece by piece.
//!
//! - Valid arguments for every example tool (generated from each tool's schema, checked
//!   by the validator), cut at every character: no prefix is ever called hopeless, the
//!   whole is complete, and the snapshot at the end is the arguments.
//! - Invalid ones made from valid ones with one defect at a known byte (a value of the
//!   wrong type, an argument the tool does not take, a string past `maxLength`, an array
//!   past `maxItems`, a string no `enum` member begins, malformed JSON): each is reported
//!   hopeless, and the earliest-detection figures (the share reported in the piece that
//!   holds the first impossible byte, or the next) are printed and held at 100%.

use crate::agreement::object;
use crate::tools;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Value, json};
use toolwright::partial::{PartialCall, Verdict};
use toolwright::validate::Validator;
use toolwright::{Context, ErrorKind, Registry};

fn registry() -> Registry {
    tools::every_example_tool(toolwright::policy::AllowAll)
        .build()
        .unwrap()
}

/// `count` valid arguments for `schema`, from the generator the agreement test uses.
fn valid_arguments(schema: &Value, count: usize, seed: u8) -> Vec<Value> {
    let validator = Validator::for_arguments(schema).unwrap();
    let strategy = object(schema, schema, 0);
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        proptest::test_runner::TestRng::from_seed(
            proptest::test_runner::RngAlgorithm::ChaCha,
            &[seed; 32],
        ),
    );
    let mut found = Vec::new();
    for _ in 0..count * 20 {
        let value = strategy.new_tree(&mut runner).unwrap().current();
        if validator.is_valid(&value) {
            found.push(value);
            if found.len() == count {
                break;
            }
        }
    }
    found
}

/// `text` in pieces of at most `size` bytes, cut at character boundaries.
fn pieces(text: &str, size: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        pieces.push(&text[start..end]);
        start = end;
    }
    pieces
}

#[test]
fn no_prefix_of_valid_arguments_is_ever_called_hopeless() {
    let registry = registry();
    let ctx = Context::new();
    let mut checked = 0;
    for (seed, spec) in registry.specs().enumerate() {
        let arguments = valid_arguments(&spec.input_schema, 25, seed as u8);
        assert!(
            arguments.len() >= 5,
            "{}: only {} valid arguments generated",
            spec.name,
            arguments.len()
        );
        for value in arguments {
            for text in [
                serde_json::to_string(&value).unwrap(),
                serde_json::to_string_pretty(&value).unwrap(),
            ] {
                let mut call = registry.partial_call(&ctx, "c", &spec.name);
                for piece in pieces(&text, 1) {
                    if let Verdict::Hopeless { problems, at } = call.push(piece) {
                        panic!(
                            "{}: the valid {text} called hopeless at byte {at} ({:?}): {problems:?}",
                            spec.name,
                            &text[..*at]
                        );
                    }
                }
                assert_eq!(call.verdict(), &Verdict::Complete, "{}: {text}", spec.name);
                assert_eq!(call.snapshot(), value, "{}", spec.name);
                let dispatched = call.finish().expect("a complete call is dispatched");
                assert!(
                    registry.prepare_call(&dispatched).is_ok(),
                    "{}: {text}",
                    spec.name
                );
                checked += 1;
            }
        }
    }
    eprintln!("{checked} valid arguments, every prefix read: none hopeless");
}

#[test]
fn valid_arguments_written_against_each_dialects_lowering_are_never_hopeless() {
    let registry = registry();
    let ctx = Context::new();
    let mut checked = 0;
    for (seed, spec) in registry.specs().enumerate() {
        let arguments = valid_arguments(&spec.input_schema, 6, 50 + seed as u8);
        for dialect in toolwright::Dialect::ALL {
            for value in &arguments {
                // As that dialect's model writes them (nulls for left-out optionals in
                // strict modes, maps as entries where a lowering needs it).
                let written = toolwright::provider::encode_arguments(spec, dialect, value);
                let text = serde_json::to_string(&written).unwrap();
                let mut call = registry.partial_call_in(&ctx, dialect, "c", &spec.name);
                for piece in pieces(&text, 7) {
                    call.push(piece);
                }
                assert_eq!(
                    call.verdict(),
                    &Verdict::Complete,
                    "{} in {dialect:?}: {text}",
                    spec.name
                );
                let dispatched = call.finish().expect("complete");
                assert_eq!(dispatched.written_for, Some(dialect));
                assert!(
                    registry.prepare_call(&dispatched).is_ok(),
                    "{} in {dialect:?}: {text}",
                    spec.name
                );
                checked += 1;
            }
        }
    }
    eprintln!("{checked} arguments as each dialect writes them: none hopeless, all read");
}

/// The kinds of defect, and what each is called in the figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Defect {
    WrongType,
    UnknownKey,
    MaxLength,
    MaxItems,
    EnumPrefix,
    Malformed,
    /// A character an anchored `pattern` cannot take, after a valid value (read on a
    /// prefix with the `unicode-patterns` feature).
    Pattern,
}

/// The schema of `name` in `schema`'s properties, `$ref`s followed.
fn property<'a>(root: &'a Value, schema: &'a Value, name: &str) -> Option<&'a Value> {
    let mut schema = schema.get("properties")?.get(name)?;
    while let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        schema = root.pointer(reference.trim_start_matches('#'))?;
    }
    Some(schema)
}

/// The types a property allows, when it says (through `type` or every `anyOf` branch).
fn types(root: &Value, schema: &Value) -> Option<Vec<String>> {
    let mut schema = schema;
    while let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        schema = root.pointer(reference.trim_start_matches('#'))?;
    }
    match schema.get("type") {
        Some(Value::String(name)) => Some(vec![name.clone()]),
        Some(Value::Array(names)) => Some(
            names
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        ),
        _ => {
            let branches = schema.get("anyOf").or_else(|| schema.get("oneOf"))?;
            let mut all = Vec::new();
            for branch in branches.as_array()? {
                all.extend(types(root, branch)?);
            }
            Some(all)
        }
    }
}

const SENTINEL: &str = "\u{1}sentinel";

/// `value` with `member` set to `bad` (raw JSON text), and the offset where `bad` starts.
fn with_member(value: &Value, member: &str, bad: &str) -> (String, usize) {
    let mut marked = value.clone();
    marked[member] = Value::String(SENTINEL.to_owned());
    let text = serde_json::to_string(&marked).unwrap();
    let quoted = serde_json::to_string(SENTINEL).unwrap();
    let at = text.find(&quoted).unwrap();
    (text.replacen(&quoted, bad, 1), at)
}

/// Invalid arguments made from `value`: each with its defect and the offset of its first
/// impossible byte.
fn defects(root: &Value, schema: &Value, value: &Value) -> Vec<(Defect, String, usize)> {
    let mut made = Vec::new();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return made;
    };
    for name in properties.keys() {
        let Some(property) = property(root, schema, name) else {
            continue;
        };
        // The defects of an object member, inside this object.
        if let Some(inner) = value.get(name).filter(|inner| inner.is_object()) {
            for (defect, text, at) in defects(root, property, inner) {
                let (outer, start) = with_member(value, name, &text);
                made.push((defect, outer, start + at));
            }
        }
        if let Some(types) = types(root, property) {
            if !types.iter().any(|ty| ty == "number" || ty == "integer") {
                let (text, at) = with_member(value, name, "12345");
                made.push((Defect::WrongType, text, at));
            } else if !types.iter().any(|ty| ty == "string") {
                let (text, at) = with_member(value, name, "\"12\"");
                made.push((Defect::WrongType, text, at));
            }
        }
        if let Some(most) = property.get("maxLength").and_then(Value::as_u64) {
            let long = "a".repeat(most as usize + 5);
            let (text, at) = with_member(value, name, &format!("\"{long}\""));
            // The quote, then `most` characters fit; the next does not.
            made.push((Defect::MaxLength, text, at + 1 + most as usize));
        }
        if let Some(members) = property.get("enum").and_then(Value::as_array)
            && members.iter().all(Value::is_string)
        {
            let bad = "zq-not-a-member";
            let fits = (0..=bad.len())
                .rev()
                .find(|&n| {
                    members
                        .iter()
                        .any(|m| m.as_str().unwrap().starts_with(&bad[..n]))
                })
                .unwrap_or(0);
            let (text, at) = with_member(value, name, &format!("\"{bad}\""));
            made.push((Defect::EnumPrefix, text, at + 1 + fits));
        }
        // Items copied from the value's own first item, or a one-letter string where the
        // items are strings.
        let item = (value.get(name).and_then(Value::as_array))
            .and_then(|items| items.first().cloned())
            .or_else(|| {
                (property.pointer("/items/type") == Some(&json!("string"))).then(|| json!("x"))
            });
        if let Some(most) = property.get("maxItems").and_then(Value::as_u64)
            && let Some(item) = item
        {
            let item = serde_json::to_string(&item).unwrap();
            let items = vec![item.as_str(); most as usize + 1];
            let (text, at) = with_member(value, name, &format!("[{}]", items.join(",")));
            // `[`, then `most` items and the commas between them; the next comma promises
            // one too many (or, with a limit of 0, the first item's first byte).
            let at = if most == 0 {
                at + 1
            } else {
                at + 1 + most as usize * item.len() + (most as usize - 1)
            };
            made.push((Defect::MaxItems, text, at));
        }
        // `@` after a valid value, where the anchored pattern has no class that could
        // take it: the `@` is the first impossible byte.
        if cfg!(feature = "unicode-patterns")
            && let Some(pattern) = property.get("pattern").and_then(Value::as_str)
            && pattern.starts_with('^')
            && pattern.ends_with('$')
            && !["@", ".", "\\S", "\\W", "[^"]
                .iter()
                .any(|open| pattern.contains(open))
            && let Some(valid) = value.get(name).and_then(Value::as_str)
        {
            let bad = serde_json::to_string(&format!("{valid}@")).unwrap();
            let (text, at) = with_member(value, name, &bad);
            let at_sign = at + bad.rfind('@').unwrap();
            made.push((Defect::Pattern, text, at_sign));
        }
        let (text, at) = with_member(value, name, "@");
        made.push((Defect::Malformed, text, at));
    }
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        let key = "zq_unknown";
        let fits = (0..=key.len())
            .rev()
            .find(|&n| properties.keys().any(|name| name.starts_with(&key[..n])))
            .unwrap_or(0);
        let mut marked = value.clone();
        marked[key] = json!(1);
        let text = serde_json::to_string(&marked).unwrap();
        let at = text.find(&format!("\"{key}\"")).unwrap() + 1 + fits;
        made.push((Defect::UnknownKey, text, at));
    }
    made
}

#[test]
fn a_defect_is_reported_in_the_piece_that_holds_its_first_impossible_byte() {
    let registry = registry();
    let ctx = Context::new();
    // defect → (cases, reported at the byte, within its piece or the next)
    let mut figures: std::collections::BTreeMap<Defect, (usize, usize, usize)> = Default::default();
    for (seed, spec) in registry.specs().enumerate() {
        let schema = &spec.input_schema;
        let validator = Validator::for_arguments(schema).unwrap();
        for value in valid_arguments(schema, 8, 100 + seed as u8) {
            for (defect, text, impossible) in defects(schema, schema, &value) {
                if let Ok(parsed) = serde_json::from_str::<Value>(&text) {
                    assert!(!validator.is_valid(&parsed), "{defect:?} left {text} valid");
                }
                let entry = figures.entry(defect).or_default();
                entry.0 += 1;
                // Byte by byte: the report is at the first impossible byte exactly.
                let mut call = registry.partial_call(&ctx, "c", &spec.name);
                for piece in pieces(&text, 1) {
                    call.push(piece);
                }
                match call.verdict() {
                    Verdict::Hopeless { at, problems } => {
                        assert!(!problems.is_empty());
                        if *at == impossible {
                            entry.1 += 1;
                        } else {
                            eprintln!(
                                "{}: {defect:?} reported at byte {at}, first impossible {impossible}: {text}\n  {problems:?}",
                                spec.name
                            );
                        }
                    }
                    other => panic!("{}: {defect:?} not reported ({other:?}): {text}", spec.name),
                }
                // In 16-byte pieces: reported in the piece holding that byte, or the next.
                let mut call = registry.partial_call(&ctx, "c", &spec.name);
                let holding = impossible / 16;
                let mut reported = None;
                for (index, piece) in pieces(&text, 16).into_iter().enumerate() {
                    if let Verdict::Hopeless { .. } = call.push(piece) {
                        reported = Some(index);
                        break;
                    }
                }
                if reported.is_some_and(|index| index <= holding + 1) {
                    entry.2 += 1;
                }
                let answered = call
                    .finish()
                    .expect_err("a hopeless call is not dispatched");
                assert_eq!(answered.error().unwrap().kind, ErrorKind::InvalidArguments);
            }
        }
    }
    eprintln!(
        "earliest detection (cases; reported at the first impossible byte; within one 16-byte piece of it):"
    );
    for (defect, (cases, exact, within)) in &figures {
        eprintln!(
            "  {defect:?}: {cases}; {exact} ({:.0}%); {within} ({:.0}%)",
            100.0 * *exact as f64 / *cases as f64,
            100.0 * *within as f64 / *cases as f64
        );
    }
    for defect in [
        Defect::WrongType,
        Defect::UnknownKey,
        Defect::MaxLength,
        Defect::MaxItems,
        Defect::EnumPrefix,
        Defect::Malformed,
        #[cfg(feature = "unicode-patterns")]
        Defect::Pattern,
    ] {
        let (cases, exact, within) = figures.get(&defect).copied().unwrap_or_default();
        assert!(cases >= 3, "{defect:?}: only {cases} cases made");
        assert_eq!(
            within, cases,
            "{defect:?}: {within} of {cases} within one piece"
        );
        assert_eq!(exact, cases, "{defect:?}: {exact} of {cases} at the byte");
    }
}

#[test]
fn a_call_cut_before_its_end_is_answered_not_run() {
    let registry = registry();
    let ctx = Context::new();
    let mut call: PartialCall<'_> = registry.partial_call(&ctx, "c1", "save_note");
    call.push(r#"{"note": {"title": "groceries", "bo"#);
    assert_eq!(call.verdict(), &Verdict::Incomplete);
    assert_eq!(call.snapshot(), json!({"note": {"title": "groceries"}}));
    let answered = call.finish().expect_err("a cut call is not dispatched");
    assert_eq!(answered.call_id, "c1");
    let text = answered.for_model();
    assert!(text.contains("was cut off before its end"), "{text}");
    assert!(text.contains("write the whole call again"), "{text}");
}

#[test]
fn an_unknown_tool_is_refused_before_its_arguments() {
    let registry = registry();
    let ctx = Context::new();
    let mut call = registry.partial_call(&ctx, "c1", "save_nite");
    assert!(matches!(call.verdict(), Verdict::Hopeless { .. }));
    call.push("{}");
    let answered = call.finish().unwrap_err();
    assert_eq!(answered.error().unwrap().kind, ErrorKind::UnknownTool);
    assert!(answered.for_model().contains("did you mean 'save_note'"));
}

#[test]
fn the_snapshot_shows_what_is_known_so_far() {
    let registry = registry();
    let ctx = Context::new();
    let mut call = registry.partial_call(&ctx, "c1", "save_note");
    assert_eq!(call.snapshot(), Value::Null);
    let mut seen = Vec::new();
    for piece in [
        r#"{"note": {"ti"#,
        r#"tle": "shop"#,
        r#"ping", "tags": ["a"#,
        r#"", "b"], "body": "milk\n"#,
        r#"eggs"}}"#,
    ] {
        call.push(piece);
        seen.push(call.snapshot());
    }
    assert_eq!(
        seen,
        [
            json!({"note": {}}),
            json!({"note": {"title": "shop"}}),
            json!({"note": {"title": "shopping", "tags": ["a"]}}),
            json!({"note": {"title": "shopping", "tags": ["a", "b"], "body": "milk\n"}}),
            json!({"note": {"title": "shopping", "tags": ["a", "b"], "body": "milk\neggs"}}),
        ]
    );
    assert_eq!(call.verdict(), &Verdict::Complete);
    // Text after the arguments' end makes them malformed.
    call.push(" }");
    assert!(matches!(call.verdict(), Verdict::Hopeless { at, .. } if *at == call.text().len() - 1));
}
