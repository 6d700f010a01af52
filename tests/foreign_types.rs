//! Arguments of other crates' types (features `chrono`, `uuid`, `url`) and the standard
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
    Context, Dialect, ErrorKind, Registry, SchemaGenerator, ToolCall, ToolError, ToolSchema, tool,
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

fn registry() -> Registry {
    Registry::new().with(BookRoom)
}

#[test]
fn the_booking_tool_in_every_dialect() {
    let registry = registry();
    for dialect in Dialect::ALL {
        let definitions = registry
            .definitions(dialect)
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
    let mutated = (
        prop::sample::select(valid),
        any::<prop::sample::Index>(),
        prop::sample::select(alphabet.chars().collect::<Vec<_>>()),
        0..3u8,
    )
        .prop_map(|(text, at, c, how)| {
            let mut chars: Vec<char> = text.chars().collect();
            let i = at.index(chars.len() + 1);
            match how {
                0 if i < chars.len() => chars[i] = c,
                1 if i < chars.len() => {
                    chars.remove(i);
                }
                _ => chars.insert(i.min(chars.len()), c),
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
    let validator = Validator::for_arguments(&schema).expect("the schema compiles");
    for text in valid {
        let value = json!(text);
        assert!(
            validator.is_valid(&value),
            "{schema}: the validator refuses {text}"
        );
        assert!(
            serde_json::from_value::<T>(value).is_ok(),
            "serde refuses {text}"
        );
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
                    serde_json::from_value::<T>(value.clone()).is_ok(),
                    "{schema}: the validator admits {value}, which serde refuses"
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

#[test]
fn addresses_agree_with_std() {
    let alphabet = "0123456789abcdef.:%x ";
    agrees::<Ipv4Addr>(&["127.0.0.1", "255.255.255.255", "10.0.0.7"], alphabet);
    agrees::<Ipv6Addr>(&["2001:db8::7", "::1", "::ffff:10.0.0.1"], alphabet);
    agrees::<IpAddr>(&["127.0.0.1", "2001:db8::7"], alphabet);
}

/// What the README's table says each parser reads beyond the schema: true of the parser,
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
}
