//! Arguments of other crates' types (features `chrono04`, `uuid1`, `url2`) and the standard
//! library's addresses: a booking tool's schema in every dialect as reviewed snapshots,
//! its calls with valid and invalid values, and, per type, the validator never admitting
//! a string the type's own `Deserialize` refuses.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use insta::assert_json_snapshot;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use toolwright::validate::Validator;
use toolwright::{
    Context, Dialect, ErrorKind, Registry, SchemaGenerator, Tool, ToolCall, ToolError, ToolSchema,
    tool,
};
use url::Url;
use uuid::Uuid;

/// A confirmed room booking.
#[derive(serde::Serialize, ToolSchema)]
struct Booking {
    /// The booking's id.
    id: Uuid,
    room: Uuid,
    starts: DateTime<Utc>,
    ends: NaiveDateTime,
}

/// Book a meeting room for one day.
#[tool(effect = "write")]
fn book_room(
    /// The room's id.
    room: Uuid,
    /// The day of the booking.
    day: NaiveDate,
    /// When the booking starts, with its offset.
    start: DateTime<Utc>,
    /// When it ends, in the room's local time.
    end: NaiveTime,
    /// The agenda's page.
    agenda: Option<Url>,
    /// The projector's address, to switch it on.
    projector: Option<IpAddr>,
) -> Result<Booking, ToolError> {
    let _ = (agenda, projector);
    if start.date_naive() != day {
        return Err(ToolError::conflict(format!(
            "the booking starts on {}, not on {day}",
            start.date_naive()
        )));
    }
    Ok(Booking {
        id: Uuid::from_u128(7),
        room,
        starts: start,
        ends: day.and_time(end),
    })
}

/// Schedule a release of a package.
#[tool(effect = "external")]
#[allow(clippy::too_many_arguments)]
fn schedule_release(
    /// The version to publish.
    version: semver::Version,
    /// When to publish it.
    at: jiff::Timestamp,
    /// The day the changelog is dated.
    dated: jiff::civil::Date,
    /// Budget for the release, in euros.
    budget: rust_decimal::Decimal,
    /// How long the publish may take.
    timeout: std::time::Duration,
    /// Channels to announce it on.
    channels: indexmap::IndexSet<String>,
    /// Up to three reviewers.
    reviewers: arrayvec::ArrayVec<String, 3>,
    /// Labels of the release.
    labels: smallvec::SmallVec<[String; 4]>,
    /// Rollout weight.
    weight: ordered_float::NotNan<f64>,
) -> String {
    let _ = (dated, budget, timeout, channels, reviewers, labels, weight);
    format!("{version} at {at}")
}

/// A theatre seat, described by schemars (as a type from a crate that already uses it).
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // read by serde, shown through Debug
struct Seat {
    row: u8,
    number: u16,
    /// A window seat, where there is one.
    #[serde(default)]
    window: Option<bool>,
    section: Section,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Section {
    Stalls,
    Circle,
}

/// toolwright's own `Seat`, so the two definitions collide by name.
mod ours {
    /// A seat on a train.
    #[derive(Debug, serde::Deserialize, toolwright::ToolSchema)]
    pub struct Seat {
        pub coach: u8,
    }
}

/// Reserve a theatre seat, and a train seat to get there.
#[tool(effect = "write")]
fn reserve_seat(
    /// The seat in the theatre.
    #[arg(schemars)]
    seat: Seat,
    /// A second seat beside it.
    #[arg(schemars)]
    beside: Option<Seat>,
    /// The seat on the train.
    train: ours::Seat,
) -> String {
    format!("{seat:?} {beside:?} {train:?}")
}

fn registry() -> Registry {
    Registry::builder()
        .with(BookRoom)
        .with(ScheduleRelease)
        .with(ReserveSeat)
        .build()
        .unwrap()
}

/// A type deriving `schemars::JsonSchema` is an argument with `#[arg(schemars)]`: its
/// definitions join the tool's `$defs` (renamed when toolwright's own type has the name),
/// schemars' integer formats become bounds, and the validator and serde agree on it.
#[test]
fn schemars_types_join_the_canonical_schema() {
    let schema = &ReserveSeat.spec().input_schema;
    let defs = &schema["$defs"];
    let (theirs, ours) = if defs["Seat"]["properties"].get("row").is_some() {
        (&defs["Seat"], &defs["Seat2"])
    } else {
        (&defs["Seat2"], &defs["Seat"])
    };
    assert_eq!(ours["properties"]["coach"]["maximum"], 255);
    assert_eq!(
        theirs["properties"]["row"],
        json!({"type": "integer", "minimum": 0, "maximum": 255})
    );
    assert_eq!(theirs["properties"]["number"]["maximum"], 65535);
    assert_eq!(theirs["additionalProperties"], false);
    assert!(defs.get("Section").is_some(), "{defs}");
    assert_eq!(schema["required"], json!(["seat", "train"]));
    assert!(!schema.to_string().contains("$schema") && !schema.to_string().contains("uint8"));

    let validator = Validator::for_arguments(schema).expect("the schema compiles");
    let seat = json!({"row": 3, "number": 12, "section": "stalls"});
    for (arguments, valid) in [
        (json!({"seat": seat, "train": {"coach": 4}}), true),
        (
            json!({"seat": seat, "beside": null, "train": {"coach": 4}}),
            true,
        ),
        (
            json!({"seat": {"row": 300, "number": 12, "section": "stalls"}, "train": {"coach": 4}}),
            false,
        ),
        (
            json!({"seat": {"row": 3, "number": 12, "section": "balcony"}, "train": {"coach": 4}}),
            false,
        ),
        (
            json!({"seat": {"row": 3, "number": 12, "section": "stalls", "x": 1}, "train": {"coach": 4}}),
            false,
        ),
        (json!({"seat": seat, "train": {"coach": 256}}), false),
    ] {
        assert_eq!(
            validator.is_valid(&arguments),
            valid,
            "validator: {arguments}"
        );
        let result = futures_executor::block_on(registry().dispatch(
            &Context::new(),
            ToolCall::new("c", "reserve_seat", arguments.clone()),
        ));
        assert_eq!(
            result.outcome.is_ok(),
            valid,
            "tool: {arguments}: {:?}",
            result.outcome
        );
    }
    let error = futures_executor::block_on(registry().dispatch(
        &Context::new(),
        ToolCall::new(
            "c",
            "reserve_seat",
            json!({"seat": {"row": 300, "number": 12, "section": "stalls"}, "train": {"coach": 4}}),
        ),
    ))
    .outcome
    .expect_err("row 300 does not fit a u8");
    assert_eq!(error.problems[0].path, "$.seat.row");
}

/// The booking tool and a tool taking every other supported foreign type.
#[test]
fn the_booking_tool_in_every_dialect() {
    let registry = registry();
    for dialect in Dialect::ALL {
        let definitions = registry
            .all_definitions(dialect)
            .unwrap_or_else(|errors| panic!("{dialect:?}: {errors:?}"));
        insta::with_settings!({snapshot_suffix => dialect.slug()}, {
            assert_json_snapshot!(definitions);
        });
    }
}

fn json_output(output: toolwright::ToolOutput) -> Value {
    match output {
        toolwright::ToolOutput::Json(value) => value,
        other => panic!("a JSON output, not {other:?}"),
    }
}

fn call(arguments: Value) -> toolwright::ToolResult {
    let call = ToolCall::new("call_1", "book_room", arguments);
    futures_executor::block_on(registry().dispatch(&Context::new(), call))
}

fn valid() -> Value {
    json!({
        "room": "67e55044-10b1-426f-9247-bb680e5fe0c8",
        "day": "2026-12-01",
        "start": "2026-12-01T09:30:00+01:00",
        "end": "10:30:00",
        "agenda": "https://wiki.example.com/meetings/42",
        "projector": "2001:db8::7"
    })
}

#[test]
fn a_valid_booking_runs_with_typed_values() {
    let result = call(valid());
    let value = json_output(result.outcome.expect("the booking runs"));
    assert_eq!(value["room"], "67e55044-10b1-426f-9247-bb680e5fe0c8");
    assert_eq!(value["starts"], "2026-12-01T08:30:00Z");
    assert_eq!(value["ends"], "2026-12-01T10:30:00");
}

/// One `invalid_arguments` problem per bad value, at its path, naming the expected shape.
#[test]
fn each_invalid_value_is_one_problem_naming_its_format() {
    let cases = [
        ("day", json!("2026-02-30"), "YYYY-MM-DD"),
        ("day", json!("next friday"), "YYYY-MM-DD"),
        ("room", json!("room-12"), "8-4-4-4-12"),
        ("start", json!("2026-12-01 09:30"), "RFC 3339"),
        ("end", json!("10:30:00+01:00"), "without an offset"),
        ("end", json!("25:00:00"), "without an offset"),
        ("agenda", json!("wiki/meetings/42"), "absolute URI"),
        ("agenda", json!("http://999.999.999.999/"), "absolute URI"),
        ("projector", json!("10.0.0.256"), "IPv4 address"),
    ];
    for (field, bad, expected) in cases {
        let mut arguments = valid();
        arguments[field] = bad.clone();
        let error = call(arguments).outcome.expect_err("a bad value is refused");
        assert_eq!(error.kind, ErrorKind::InvalidArguments, "{field} = {bad}");
        assert_eq!(
            error.problems.len(),
            1,
            "{field} = {bad}: {:?}",
            error.problems
        );
        let problem = &error.problems[0];
        assert_eq!(problem.path, format!("$.{field}"), "{field} = {bad}");
        assert!(
            problem.message.contains(expected),
            "{field} = {bad}: {:?} does not say {expected:?}",
            problem.message
        );
    }
}

/// uuid reads the braced, URN and unhyphenated forms too; the schema shows only the
/// standard one, and such a value still runs (the schema is the stricter side).
#[test]
fn the_parsers_leniency_beyond_the_schema_is_harmless() {
    let mut arguments = valid();
    arguments["room"] = json!("67e5504410b1426f9247bb680e5fe0c8");
    let output = call(arguments).outcome.expect("uuid reads the simple form");
    assert_eq!(
        json_output(output)["room"],
        "67e55044-10b1-426f-9247-bb680e5fe0c8"
    );
}

/// Strings near each format: valid ones, each with one character changed, dropped or
/// added, and random text over the format's alphabet.
fn near(valid: &'static [&'static str], alphabet: &'static str) -> BoxedStrategy<String> {
    let edit = (
        any::<prop::sample::Index>(),
        prop::sample::select(alphabet.chars().collect::<Vec<_>>()),
        0..3u8,
    );
    // One to four edits, each replacing, dropping or inserting a character.
    let mutated = (
        prop::sample::select(valid),
        prop::collection::vec(edit, 1..5),
    )
        .prop_map(|(text, edits)| {
            let mut chars: Vec<char> = text.chars().collect();
            for (at, c, how) in edits {
                let i = at.index(chars.len() + 1);
                match how {
                    0 if i < chars.len() => chars[i] = c,
                    1 if i < chars.len() => {
                        chars.remove(i);
                    }
                    _ => chars.insert(i.min(chars.len()), c),
                }
            }
            chars.into_iter().collect()
        });
    let random = prop::collection::vec(
        prop::sample::select(alphabet.chars().collect::<Vec<_>>()),
        0..24,
    )
    .prop_map(|chars| chars.into_iter().collect());
    prop_oneof![
        1 => prop::sample::select(valid).prop_map(str::to_owned),
        6 => mutated,
        2 => random,
    ]
    .boxed()
}

/// For every generated string: the validator accepts it only if `T` deserializes it
/// (the schema may be stricter than the parser, never looser), and each standard form in
/// `valid` is accepted by both.
fn agrees<T: ToolSchema + DeserializeOwned>(
    valid: &'static [&'static str],
    alphabet: &'static str,
) {
    let schema = SchemaGenerator::root_schema_for::<T>();
    agrees_with(
        schema,
        |value| serde_json::from_value::<T>(value).is_ok(),
        valid,
        alphabet,
    );
}

/// [`agrees`] for a schema and a reader of its own.
fn agrees_with(
    schema: Value,
    reads: impl Fn(Value) -> bool,
    valid: &'static [&'static str],
    alphabet: &'static str,
) {
    let validator = Validator::for_arguments(&schema).expect("the schema compiles");
    for text in valid {
        let value = json!(text);
        assert!(
            validator.is_valid(&value),
            "{schema}: the validator refuses {text}"
        );
        assert!(reads(value), "the reader refuses {text}");
    }
    let mut runner = TestRunner::new(Config {
        cases: 3000,
        ..Config::default()
    });
    runner
        .run(&near(valid, alphabet), |text| {
            let value = json!(text);
            if validator.is_valid(&value) {
                prop_assert!(
                    reads(value.clone()),
                    "{schema}: the validator admits {value}, which the reader refuses"
                );
            }
            Ok(())
        })
        .unwrap();
}

const DATE_ALPHABET: &str = "0123456789-:.TtZz+ ";

#[test]
fn dates_and_times_agree_with_chrono() {
    agrees::<NaiveDate>(
        &["2026-11-30", "2024-02-29", "0001-01-01", "9999-12-31"],
        DATE_ALPHABET,
    );
    agrees::<NaiveTime>(
        &["14:30:00", "00:00:00.5", "23:59:59.123456789"],
        DATE_ALPHABET,
    );
    agrees::<NaiveDateTime>(
        &["2026-11-30T14:30:00", "2024-02-29T23:59:59.25"],
        DATE_ALPHABET,
    );
    let offsets = &[
        "2026-11-30T14:30:00Z",
        "2026-11-30T14:30:00+01:00",
        "2026-11-30T14:30:00.5-08:00",
        "2016-12-31T23:59:60Z",
    ];
    agrees::<DateTime<Utc>>(offsets, DATE_ALPHABET);
    agrees::<DateTime<FixedOffset>>(offsets, DATE_ALPHABET);
}

#[test]
fn dates_and_times_agree_with_jiff() {
    agrees::<jiff::civil::Date>(
        &["2026-11-30", "2024-02-29", "0000-01-01", "9999-12-31"],
        DATE_ALPHABET,
    );
    agrees::<jiff::civil::Time>(
        &["14:30:00", "00:00:00.5", "23:59:59.123456789"],
        DATE_ALPHABET,
    );
    agrees::<jiff::civil::DateTime>(
        &["2026-11-30T14:30:00", "9999-12-31T23:59:59.25"],
        DATE_ALPHABET,
    );
    agrees::<jiff::Timestamp>(
        &[
            "2026-11-30T14:30:00Z",
            "2026-11-30T14:30:00.123456789+01:00",
            "9998-12-31T23:59:59-08:00",
            "0000-01-01T00:00:00+14:00",
            "2016-12-31T23:59:60Z",
        ],
        DATE_ALPHABET,
    );
}

#[test]
fn decimals_and_versions_agree_with_their_crates() {
    agrees::<rust_decimal::Decimal>(
        &[
            "0",
            "-12.50",
            "7922816251426433759354395033",
            "0.0000000000000000000000000001",
            "-7922816251426433759354395033.5",
        ],
        "0123456789.-+e_ ",
    );
    agrees::<semver::Version>(
        &[
            "1.4.0",
            "0.0.0-alpha.1+build.5",
            "10.20.30-rc.1.x-y",
            "9999999999999999999.0.0",
        ],
        "0123456789.-+abxAZ ",
    );
}

/// A `time::OffsetDateTime` read by `#[serde(with = "time::serde::rfc3339")]`, its schema
/// given by `#[arg(schema_with = toolwright::schema::formats::date_time)]`.
#[tool(effect = "write")]
fn log_event(
    /// When it happened.
    #[serde(with = "time::serde::rfc3339")]
    #[arg(schema_with = toolwright::schema::formats::date_time)]
    at: time::OffsetDateTime,
) -> String {
    at.unix_timestamp().to_string()
}

#[test]
fn serde_with_and_a_ready_format_schema() {
    let schema = &LogEvent.spec().input_schema;
    assert_eq!(schema["properties"]["at"]["format"], "date-time");
    let run = |at: &str| {
        let call = ToolCall::new("c", "log_event", json!({"at": at}));
        futures_executor::block_on(
            Registry::builder()
                .with(LogEvent)
                .build()
                .unwrap()
                .dispatch(&Context::new(), call),
        )
    };
    let output = run("2026-11-30T14:30:00+01:00")
        .outcome
        .expect("RFC 3339 is read");
    assert_eq!(output, toolwright::ToolOutput::Text("1796045400".into()));
    let error = run("30 Nov 2026").outcome.expect_err("not RFC 3339");
    assert_eq!(error.problems[0].path, "$.at");
    assert!(
        error.problems[0].message.contains("RFC 3339"),
        "{:?}",
        error.problems
    );
    // The validator never admits what time's RFC 3339 reader refuses.
    let mut generator = SchemaGenerator::new();
    agrees_with(
        toolwright::schema::formats::date_time(&mut generator),
        |value| time::serde::rfc3339::deserialize(value).is_ok(),
        &[
            "2026-11-30T14:30:00Z",
            "2026-11-30T14:30:00.123456789+01:00",
            "9999-12-31T23:59:59-08:00",
            "0000-01-01T00:00:00+14:00",
        ],
        DATE_ALPHABET,
    );
}

#[test]
fn uuids_agree_with_uuid() {
    agrees::<Uuid>(
        &[
            "67e55044-10b1-426f-9247-bb680e5fe0c8",
            "00000000-0000-0000-0000-000000000000",
            "67E55044-10B1-426F-9247-BB680E5FE0C8",
        ],
        "0123456789abcdefABCDEFg-{}:urn",
    );
}

#[test]
fn urls_agree_with_url() {
    agrees::<Url>(
        &[
            "https://example.com/path?q=1#top",
            "http://[2001:db8::7]:8080/",
            "mailto:someone@example.com",
            "urn:isbn:0451450523",
            "file:///etc/hosts",
            "http://user:pw@example.com:80/a%20b",
        ],
        "abcz:/?#[]@!$&'()*+,;=%-._~0189AF \\\"<>{}|^`",
    );
}

/// Collections of other crates take the std ones' schemas; arrayvec's capacity is
/// `maxItems`; a set merges a duplicate (serde reads `[1, 1]` as `{1}`) where the schema
/// says `uniqueItems`: the schema is the stricter side, and nothing is lost.
#[test]
fn collections_of_other_crates_and_their_bounds() {
    let schema = |value: Value| Validator::for_arguments(&value).expect("the schema compiles");
    let index_map = SchemaGenerator::root_schema_for::<indexmap::IndexMap<String, u8>>();
    assert_eq!(
        index_map,
        json!({"type": "object", "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 255}})
    );
    let small = SchemaGenerator::root_schema_for::<smallvec::SmallVec<[u8; 4]>>();
    assert_eq!(small["type"], "array");
    let capped = SchemaGenerator::root_schema_for::<arrayvec::ArrayVec<u8, 3>>();
    assert_eq!(capped["maxItems"], 3);
    for (value, fits) in [(json!([1, 2, 3]), true), (json!([1, 2, 3, 4]), false)] {
        assert_eq!(schema(capped.clone()).is_valid(&value), fits, "{value}");
        assert_eq!(
            serde_json::from_value::<arrayvec::ArrayVec<u8, 3>>(value.clone()).is_ok(),
            fits,
            "{value}"
        );
    }
    let float = SchemaGenerator::root_schema_for::<ordered_float::NotNan<f64>>();
    assert_eq!(float, json!({"type": "number"}));
    let set = SchemaGenerator::root_schema_for::<indexmap::IndexSet<u8>>();
    assert_eq!(set["uniqueItems"], true);
    assert!(!schema(set).is_valid(&json!([1, 1])));
    let merged: indexmap::IndexSet<u8> =
        serde_json::from_value(json!([1, 1])).expect("serde merges");
    assert_eq!(merged.len(), 1);
}

/// `std::time::Duration` in serde's form, `{"secs": .., "nanos": ..}`: what the schema
/// admits, serde reads; arrays (which serde would also read) are refused by both paths.
#[test]
fn durations_in_serdes_form() {
    let schema = SchemaGenerator::root_schema_for::<std::time::Duration>();
    let validator = Validator::for_arguments(&schema).expect("the schema compiles");
    for value in [
        json!({"secs": 90, "nanos": 0}),
        json!({"secs": 0, "nanos": 999_999_999}),
        json!({"secs": 9_007_199_254_740_991_u64, "nanos": 5}),
    ] {
        assert!(validator.is_valid(&value), "{value}");
        assert!(
            serde_json::from_value::<std::time::Duration>(value.clone()).is_ok(),
            "{value}"
        );
    }
    for value in [
        json!({"secs": 90}),
        json!({"secs": -1, "nanos": 0}),
        json!({"secs": 1, "nanos": 0, "x": 1}),
        json!("PT90S"),
    ] {
        assert!(!validator.is_valid(&value), "{value}");
        assert!(
            serde_json::from_value::<std::time::Duration>(value.clone()).is_err(),
            "{value}"
        );
    }
}

#[test]
fn addresses_agree_with_std() {
    let alphabet = "0123456789abcdef.:%x ";
    agrees::<Ipv4Addr>(&["127.0.0.1", "255.255.255.255", "10.0.0.7"], alphabet);
    agrees::<Ipv6Addr>(&["2001:db8::7", "::1", "::ffff:10.0.0.1"], alphabet);
    agrees::<IpAddr>(&["127.0.0.1", "2001:db8::7"], alphabet);
}

/// What the supported-types table (`reference::types`) says each parser reads beyond the schema: true of the parser,
/// refused by the validator.
#[test]
fn the_parsers_read_more_than_the_schema_shows() {
    fn beyond<T: ToolSchema + DeserializeOwned>(texts: &[&str]) {
        let validator = Validator::for_arguments(&SchemaGenerator::root_schema_for::<T>())
            .expect("the schema compiles");
        for text in texts {
            let value = json!(text);
            assert!(!validator.is_valid(&value), "the validator admits {text}");
            assert!(
                serde_json::from_value::<T>(value).is_ok(),
                "serde refuses {text}"
            );
        }
    }
    beyond::<NaiveDate>(&["2026-1-5", "+2026-11-30"]);
    beyond::<NaiveTime>(&["14:30:60"]);
    beyond::<DateTime<Utc>>(&["2026-11-30 14:30:00Z", "2026-11-30T14:30:60Z"]);
    beyond::<Uuid>(&[
        "67e5504410b1426f9247bb680e5fe0c8",
        "{67e55044-10b1-426f-9247-bb680e5fe0c8}",
        "urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8",
    ]);
    beyond::<Url>(&["https://example.com/a b", r"https:\\example.com\path"]);
    beyond::<jiff::Timestamp>(&["2026-11-30T14:30:00Z[UTC]"]);
    beyond::<jiff::civil::Time>(&["14:30"]);
    beyond::<jiff::civil::DateTime>(&["2026-11-30 14:30:00"]);
    beyond::<rust_decimal::Decimal>(&["+1.5", "1_000", "1e3", "79228162514264337593543950335"]);
    assert!(serde_json::from_value::<rust_decimal::Decimal>(json!(1.5)).is_ok());
    beyond::<semver::Version>(&["18446744073709551615.0.0"]);
}
