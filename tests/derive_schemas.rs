//! `#[derive(ToolSchema)]` against serde: each tagging, renames, defaults, flatten,
//! recursion, generics and every supported std type. The schemas are insta snapshots
//! (`tests/snapshots/derive_schemas__*.snap`); the asserts beside them check that what
//! the schema describes is what serde reads.

#![allow(dead_code)] // the types exist for their schemas

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use insta::assert_json_snapshot;
use serde::Deserialize;
use serde_json::{Value, json};
use toolwright::{SchemaGenerator, ToolSchema};

fn schema<T: ToolSchema>() -> Value {
    SchemaGenerator::root_schema_for::<T>()
}

/// A shape to draw.
#[derive(Deserialize, ToolSchema)]
enum ExternallyTagged {
    /// A circle around the origin.
    Circle {
        radius: f64,
    },
    Label(String),
    Origin,
    Nothing,
}

#[test]
fn externally_tagged_enum() {
    assert_json_snapshot!(schema::<ExternallyTagged>());
    for value in [
        json!({"Circle": {"radius": 1.0}}),
        json!({"Label": "x"}),
        json!("Origin"),
    ] {
        serde_json::from_value::<ExternallyTagged>(value).unwrap();
    }
}

#[derive(Deserialize, ToolSchema)]
struct KeyPress {
    key: char,
    shift: bool,
}

#[derive(Deserialize, ToolSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum InternallyTagged {
    MouseClick { x: i32, y: i32 },
    KeyPress(KeyPress),
    Quit,
}

#[test]
fn internally_tagged_enum() {
    assert_json_snapshot!(schema::<InternallyTagged>());
    for value in [
        json!({"kind": "mouse_click", "x": 1, "y": 2}),
        json!({"kind": "key_press", "key": "a", "shift": false}),
        json!({"kind": "quit"}),
    ] {
        serde_json::from_value::<InternallyTagged>(value).unwrap();
    }
}

#[derive(Deserialize, ToolSchema)]
#[serde(deny_unknown_fields)]
struct Card {
    number: String,
}

#[derive(Deserialize, ToolSchema)]
#[serde(tag = "method", rename_all = "snake_case")]
enum Payment {
    Card(Card),
    Free,
}

/// A newtype variant of an internally tagged enum whose struct denies unknown fields:
/// serde takes the tag out before the struct reads the rest, so the schema must admit
/// the tag beside the struct's own fields (it once refused every card payment).
#[test]
fn internally_tagged_newtype_of_a_closed_struct() {
    let schema = schema::<Payment>();
    let validator = toolwright::validate::Validator::for_arguments(&schema).unwrap();
    for (value, valid) in [
        (json!({"method": "card", "number": "4242"}), true),
        (json!({"method": "free"}), true),
        (
            json!({"method": "card", "number": "4242", "cvv": "1"}),
            false,
        ),
        (json!({"method": "card"}), false),
    ] {
        assert_eq!(validator.is_valid(&value), valid, "validator: {value}");
        assert_eq!(
            serde_json::from_value::<Payment>(value.clone()).is_ok(),
            valid,
            "serde: {value}"
        );
    }
}

#[derive(Deserialize, ToolSchema)]
#[serde(tag = "t", content = "c", deny_unknown_fields)]
enum AdjacentlyTagged {
    Text(String),
    Ping,
    Move { dx: i32, dy: i32 },
}

#[test]
fn adjacently_tagged_enum() {
    assert_json_snapshot!(schema::<AdjacentlyTagged>());
    // A unit variant's content key may come, as `null` only (found by the agreement
    // property test: `{"t": "Stop", "c": false}` passed the schema, serde refused it).
    let validator =
        toolwright::validate::Validator::for_arguments(&schema::<AdjacentlyTagged>()).unwrap();
    for (value, valid) in [
        (json!({"t": "Ping", "c": null}), true),
        (json!({"t": "Ping", "c": false}), false),
    ] {
        assert_eq!(validator.is_valid(&value), valid, "validator: {value}");
        let read = serde_json::from_value::<AdjacentlyTagged>(value.clone()).is_ok();
        assert_eq!(read, valid, "serde: {value}");
    }
    for value in [
        json!({"t": "Text", "c": "hi"}),
        json!({"t": "Ping"}),
        json!({"t": "Move", "c": {"dx": 1, "dy": -1}}),
    ] {
        serde_json::from_value::<AdjacentlyTagged>(value).unwrap();
    }
}

#[derive(Deserialize, ToolSchema)]
#[serde(untagged)]
enum Untagged {
    Id(u64),
    Name(String),
    Full { first: String, last: String },
    Nothing,
}

#[test]
fn untagged_enum() {
    assert_json_snapshot!(schema::<Untagged>());
    for value in [
        json!(7),
        json!("ada"),
        json!({"first": "Ada", "last": "L"}),
        json!(null),
    ] {
        serde_json::from_value::<Untagged>(value).unwrap();
    }
}

#[derive(Deserialize, ToolSchema)]
enum PartlyUntagged {
    Number(i64),
    #[serde(untagged)]
    Anything(String),
}

#[test]
fn untagged_variant_after_tagged_ones() {
    assert_json_snapshot!(schema::<PartlyUntagged>());
    serde_json::from_value::<PartlyUntagged>(json!({"Number": 1})).unwrap();
    serde_json::from_value::<PartlyUntagged>(json!("free text")).unwrap();
}

/// A customer record.
#[derive(Deserialize, ToolSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Renamed {
    /// Given name.
    first_name: String,
    #[serde(rename = "surname")]
    last_name: String,
    #[serde(default)]
    loyalty_points: u32,
    #[serde(skip)]
    cache: Option<String>,
    #[serde(alias = "mail")]
    email_address: Option<String>,
    #[arg(minimum = 0, maximum = 150, description = "Age in years.")]
    age: Option<u8>,
    #[arg(pattern = "^[A-Z]{2}$", example = "DE")]
    country: String,
}

#[test]
fn rename_all_rename_default_skip_and_constraints() {
    let schema = schema::<Renamed>();
    assert_json_snapshot!(schema);
    assert_eq!(
        schema["required"],
        json!(["firstName", "surname", "country"])
    );
    serde_json::from_value::<Renamed>(json!({"firstName": "A", "surname": "B", "country": "DE"}))
        .unwrap();
}

#[derive(Deserialize, ToolSchema)]
struct Paging {
    /// 1-based page number.
    #[arg(minimum = 1)]
    page: u32,
    per_page: Option<u32>,
}

#[derive(Deserialize, ToolSchema)]
struct Flattened {
    query: String,
    #[serde(flatten)]
    paging: Paging,
}

#[test]
fn flatten_merges_properties() {
    let schema = schema::<Flattened>();
    assert_json_snapshot!(schema);
    assert_eq!(schema["required"], json!(["query", "page"]));
    serde_json::from_value::<Flattened>(json!({"query": "q", "page": 2})).unwrap();
}

/// A directory tree.
#[derive(Deserialize, ToolSchema)]
struct Tree {
    name: String,
    children: Vec<Tree>,
    parent: Option<Box<Tree>>,
}

/// Two types that refer to each other.
#[derive(Deserialize, ToolSchema)]
struct Employee {
    name: String,
    team: Option<Team>,
}

#[derive(Deserialize, ToolSchema)]
struct Team {
    members: Vec<Employee>,
}

#[test]
fn recursion_goes_through_defs() {
    assert_json_snapshot!("recursive_tree", schema::<Tree>());
    assert_json_snapshot!("mutually_recursive", schema::<Employee>());
}

#[derive(Deserialize, ToolSchema)]
#[serde(transparent)]
struct Transparent {
    inner: Vec<String>,
}

/// Meters, never negative.
#[derive(Deserialize, ToolSchema)]
struct Meters(#[arg(minimum = 0)] f64);

#[derive(Deserialize, ToolSchema)]
struct Wrappers {
    transparent: Transparent,
    meters: Meters,
}

#[test]
fn newtype_and_transparent_structs_are_inlined() {
    let schema = schema::<Wrappers>();
    assert_json_snapshot!(schema);
    serde_json::from_value::<Wrappers>(json!({"transparent": ["a"], "meters": 1.5})).unwrap();
}

#[derive(Deserialize, ToolSchema)]
struct Page<T> {
    items: Vec<T>,
    next: Option<String>,
}

#[derive(Deserialize, ToolSchema)]
struct Pages {
    employees: Page<Employee>,
    numbers: Page<u32>,
}

#[test]
fn generic_types_get_one_definition_per_instance() {
    assert_json_snapshot!(schema::<Pages>());
}

#[derive(Deserialize, ToolSchema)]
#[serde(from = "String")]
struct ParsedFromString {
    parts: Vec<String>,
}

impl From<String> for ParsedFromString {
    fn from(text: String) -> Self {
        Self {
            parts: text.split(',').map(str::to_owned).collect(),
        }
    }
}

#[test]
fn serde_from_uses_the_source_type() {
    assert_eq!(schema::<ParsedFromString>()["$defs"], Value::Null);
    assert_eq!(schema::<ParsedFromString>()["type"], "string");
}

mod a {
    #[derive(serde::Deserialize, toolwright::ToolSchema)]
    pub struct Item {
        pub id: u32,
    }
}

mod b {
    #[derive(serde::Deserialize, toolwright::ToolSchema)]
    pub struct Item {
        pub label: String,
    }
}

#[derive(Deserialize, ToolSchema)]
struct SameNames {
    first: a::Item,
    second: b::Item,
}

#[test]
fn types_with_the_same_name_get_distinct_definitions() {
    let schema = schema::<SameNames>();
    assert_json_snapshot!(schema);
    assert_ne!(schema["$defs"]["Item"], schema["$defs"]["Item2"]);
}

#[derive(Deserialize, ToolSchema)]
struct StdTypes {
    boolean: bool,
    i8: i8,
    i16: i16,
    i32: i32,
    i64: i64,
    i128: i128,
    isize: isize,
    u8: u8,
    u16: u16,
    u32: u32,
    u64: u64,
    u128: u128,
    usize: usize,
    non_zero: NonZeroU32,
    f32: f32,
    f64: f64,
    char: char,
    string: String,
    path: PathBuf,
    optional: Option<String>,
    vec: Vec<u8>,
    deque: VecDeque<String>,
    hash_set: HashSet<String>,
    btree_set: BTreeSet<i32>,
    hash_map: HashMap<String, u32>,
    btree_map: BTreeMap<String, Vec<bool>>,
    array: [f64; 3],
    boxed: Box<str>,
    arc: Arc<str>,
    rc: Rc<u16>,
    json: Value,
    json_object: serde_json::Map<String, Value>,
    optional_struct: Option<KeyPress>,
    optional_enum: Option<Scale>,
}

/// A scale.
#[derive(Deserialize, ToolSchema)]
enum Scale {
    Celsius,
    Kelvin,
}

#[test]
fn every_std_type() {
    assert_json_snapshot!(schema::<StdTypes>());
}
