//! The official JSON Schema test suite (draft 2020-12) for every keyword toolwright
//! emits, run against toolwright's validator.
//!
//! The suite is not part of this repository: it is read from `$JSON_SCHEMA_TEST_SUITE`
//! or from `../shared/json-schema-test-suite` beside the checkout. When it is missing the
//! test fails under `CI=true` and is skipped (with a message) elsewhere.
//!
//! Every skipped case is listed in `SKIPPED` with the reason.

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolwright::validate::{Options, Validator};

/// The files run in specification mode (formats are annotations).
const FILES: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "ref",
    "defs",
    "boolean_schema",
    "format",
    "default",
];

/// The formats toolwright asserts, run with format assertion on.
const FORMAT_FILES: &[&str] = &[
    "date",
    "date-time",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
    "uri",
];

/// (file, case description prefix, test description or "*", why it is skipped).
const SKIPPED: &[(&str, &str, &str, &str)] = &[
    (
        "ref",
        "remote ref",
        "*",
        "remote documents are never fetched: a tool schema is one self-contained document",
    ),
    (
        "ref",
        "Recursive references between schemas",
        "*",
        "uses `$id`-based resolution; toolwright emits only local JSON-pointer refs",
    ),
    (
        "ref",
        "ref creates new scope when adjacent to keywords",
        "*",
        "uses `unevaluatedProperties`, which toolwright does not emit",
    ),
    (
        "ref",
        "refs with relative uris and defs",
        "*",
        "uses `$id`-based resolution",
    ),
    (
        "ref",
        "relative refs with absolute uris and defs",
        "*",
        "uses `$id`-based resolution",
    ),
    (
        "ref",
        "$id must be resolved against nearest parent",
        "*",
        "uses `$id`-based resolution",
    ),
    (
        "ref",
        "order of evaluation",
        "*",
        "uses `$id`/`$anchor`-based resolution",
    ),
    (
        "ref",
        "simple URN base URI",
        "*",
        "uses `$id`-based resolution",
    ),
    ("ref", "URN", "*", "uses `$id`-based resolution"),
    (
        "ref",
        "ref to if",
        "*",
        "uses `$id`-based resolution and `if`",
    ),
    (
        "ref",
        "ref to then",
        "*",
        "uses `$id`-based resolution and `then`",
    ),
    (
        "ref",
        "ref to else",
        "*",
        "uses `$id`-based resolution and `else`",
    ),
    (
        "ref",
        "ref with absolute-path-reference",
        "*",
        "uses `$id`-based resolution",
    ),
    (
        "ref",
        "$id with file URI",
        "*",
        "uses `$id`-based resolution",
    ),
    (
        "not",
        "collect annotations inside a 'not'",
        "*",
        "uses `unevaluatedProperties`, which toolwright does not emit",
    ),
    (
        "defs",
        "validate definition against metaschema",
        "*",
        "needs the remote 2020-12 meta-schema",
    ),
    (
        "hostname",
        "validation of host names",
        "xn--",
        "IDNA 2008 rules for A-labels need Unicode tables; toolwright checks RFC 1123 syntax only",
    ),
    (
        "hostname",
        "validation of host names",
        "invalid Punycode",
        "IDNA 2008 rules for A-labels need Unicode tables",
    ),
    (
        "hostname",
        "validation of A-label",
        "*",
        "IDNA 2008 rules for A-labels need Unicode tables",
    ),
];

fn suite_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("JSON_SCHEMA_TEST_SUITE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/json-schema-test-suite")
        });
    dir.join("draft2020-12").is_dir().then_some(dir)
}

/// toolwright's date and time formats take at most nine fraction digits (nanoseconds).
const SKIPPED_FRACTIONS: (&str, &str, &str, &str) = (
    "date-time",
    "validation of date-time strings",
    "a second fraction of fifteen nines is valid",
    "at most nine fraction digits (nanoseconds), what Rust's date-time types store; jiff refuses more",
);

/// With the `url` feature a `uri` must also parse as a WHATWG URL (so that `url::Url`
/// arguments and their schema agree), and that parser refuses these RFC 3986 reg-names.
const SKIPPED_WITH_URL: &[(&str, &str, &str, &str)] = &[(
    "uri",
    "validation of URIs",
    "structurally valid as a reg-name",
    "a dotted host that is not a valid IPv4 address is refused by url::Url, which reads `uri` arguments",
)];

/// Without the `unicode-patterns` feature patterns run on regex-lite, which has no Unicode
/// property classes: such a schema is refused (the validator's error names the feature).
const SKIPPED_WITHOUT_UNICODE: &[(&str, &str, &str, &str)] = &[(
    "pattern",
    "pattern with Unicode property escape",
    "*",
    "`\\p{Letter}` needs the `unicode-patterns` feature; without it the schema is refused",
)];

fn skip_reason(file: &str, case: &str, test: &str) -> Option<&'static str> {
    let with_url = if cfg!(feature = "url2") {
        SKIPPED_WITH_URL
    } else {
        &[]
    };
    let without_unicode = if cfg!(feature = "unicode-patterns") {
        &[]
    } else {
        SKIPPED_WITHOUT_UNICODE
    };
    SKIPPED
        .iter()
        .chain(with_url)
        .chain(without_unicode)
        .chain(std::slice::from_ref(&SKIPPED_FRACTIONS))
        .find_map(|(f, c, t, reason)| {
            (*f == file
                && case.starts_with(c)
                && (*t == "*" || test.contains(t) || test.starts_with(t)))
            .then_some(*reason)
        })
}

struct Tally {
    passed: usize,
    skipped: usize,
    failures: Vec<String>,
}

fn run_file(dir: &Path, relative: &str, file: &str, options: Options, tally: &mut Tally) {
    let path = dir.join("draft2020-12").join(relative);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let cases: Vec<Value> = serde_json::from_str(&text).expect("suite files are JSON");
    for case in cases {
        let description = case["description"].as_str().unwrap_or_default();
        let tests = case["tests"].as_array().expect("tests");
        let validator = Validator::compile(&case["schema"], options);
        for test in tests {
            let name = test["description"].as_str().unwrap_or_default();
            let data_text = test["data"].as_str().unwrap_or_default();
            if skip_reason(file, description, name)
                .or_else(|| skip_reason(file, description, data_text))
                .is_some()
            {
                tally.skipped += 1;
                continue;
            }
            let expected = test["valid"].as_bool().expect("valid");
            match &validator {
                Ok(validator) if validator.is_valid(&test["data"]) == expected => tally.passed += 1,
                Ok(_) => tally.failures.push(format!(
                    "{file}: {description} / {name}: expected valid={expected}"
                )),
                Err(error) => tally
                    .failures
                    .push(format!("{file}: {description}: {error}")),
            }
        }
    }
}

#[test]
fn official_suite() {
    let Some(dir) = suite_dir() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "the JSON Schema test suite is missing: CI must have ../shared/json-schema-test-suite"
        );
        eprintln!(
            "skipped: the JSON Schema test suite was not found. Set JSON_SCHEMA_TEST_SUITE to a checkout of \
             json-schema-org/JSON-Schema-Test-Suite (it reads draft2020-12/ inside), or place it at \
             ../shared/json-schema-test-suite beside this repository."
        );
        return;
    };
    let mut tally = Tally {
        passed: 0,
        skipped: 0,
        failures: Vec::new(),
    };
    for file in FILES {
        run_file(
            &dir,
            &format!("{file}.json"),
            file,
            Options::SPECIFICATION,
            &mut tally,
        );
    }
    let asserting = Options::SPECIFICATION.assert_formats(true);
    for file in FORMAT_FILES {
        run_file(
            &dir,
            &format!("optional/format/{file}.json"),
            file,
            asserting,
            &mut tally,
        );
    }
    eprintln!(
        "JSON Schema suite: {} passed, {} skipped (reasons in SKIPPED)",
        tally.passed, tally.skipped
    );
    assert!(
        tally.failures.is_empty(),
        "{} failures:\n{}",
        tally.failures.len(),
        tally.failures.join("\n")
    );
    assert!(
        tally.passed > 1000,
        "the suite ran too few tests: {}",
        tally.passed
    );
}
