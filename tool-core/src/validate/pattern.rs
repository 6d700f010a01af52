//! `pattern` and `patternProperties`: the regular expressions of a schema.
//!
//! JSON Schema's patterns are ECMA-262 regular expressions. Without the
//! `unicode-patterns` feature they run on `regex-lite`: `\d`, `\w` and `\b` are ASCII, as
//! in ECMA-262 (`\s` is ASCII too, where ECMA-262's also takes Unicode spaces), and a
//! stdio MCP server's binary is 1.2 MB smaller
//! (`scripts/measure/mcp-serving-cost`). What `regex-lite` cannot read (Unicode property
//! classes such as `\p{Letter}`) is a schema error naming the feature, never a pattern
//! left unchecked. With the feature they run on `regex` with its Unicode tables, so
//! `\p{Letter}` and `\p{Script=Greek}` work, `\s` includes Unicode spaces, and `\d`,
//! `\w` are Unicode-aware.
//!
//! Either engine matches in time linear in the text's length: a hostile pattern or
//! argument cannot make a check backtrack forever.

/// A compiled `pattern`.
#[derive(Debug, Clone)]
pub(crate) struct Pattern(
    #[cfg(feature = "unicode-patterns")] regex::Regex,
    #[cfg(not(feature = "unicode-patterns"))] regex_lite::Regex,
);

impl Pattern {
    /// Compiles `source`, or says why it does not compile (and, for a Unicode class
    /// the engine lacks, which feature adds it).
    pub(crate) fn new(source: &str) -> Result<Self, String> {
        #[cfg(feature = "unicode-patterns")]
        let engine = regex::Regex::new(source).map_err(|error| error.to_string());
        #[cfg(not(feature = "unicode-patterns"))]
        let engine = lite(source);
        engine.map(Pattern)
    }

    /// The pattern as written.
    pub(crate) fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// Whether `text` contains a match (patterns are not anchored, as in JSON Schema).
    pub(crate) fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }
}

/// `source` on regex-lite, the engine without the feature (tested whatever the
/// features, so the default build's engine is checked by every test run).
#[cfg_attr(all(feature = "unicode-patterns", not(test)), allow(dead_code))]
fn lite(source: &str) -> Result<regex_lite::Regex, String> {
    regex_lite::Regex::new(source).map_err(|error| {
        if source.contains("\\p") || source.contains("\\P") {
            format!(
                "{error}; Unicode property classes (`\\p{{...}}`) need toolwright's \
                 `unicode-patterns` feature"
            )
        } else {
            error.to_string()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{Pattern, lite};

    #[test]
    fn patterns_are_unanchored() {
        let pattern = Pattern::new("[0-9]{3}").unwrap();
        assert!(pattern.is_match("abc123def"));
        assert!(!pattern.is_match("12"));
        assert_eq!(pattern.as_str(), "[0-9]{3}");
    }

    #[test]
    fn without_the_feature_classes_are_ecma_ascii_and_unicode_properties_are_refused() {
        let digits = lite(r"^\d+$").unwrap();
        assert!(digits.is_match("2026"));
        // ECMA-262's `\d` and `\w` are ASCII.
        assert!(!digits.is_match("٢٠٢٦"));
        assert!(!lite(r"^\w+$").unwrap().is_match("été"));
        // Any character is still one character, whatever its script.
        assert!(lite("^.{2}$").unwrap().is_match("πé"));
        let error = lite(r"^\p{Letter}+$").unwrap_err();
        assert!(error.contains("`unicode-patterns` feature"), "{error}");
    }

    /// The patterns of the other crates' types (with their features), which a default
    /// build must be able to check.
    #[test]
    fn the_patterns_toolwright_emits_compile_without_the_feature() {
        #[allow(unused_mut)]
        let mut schemas: Vec<serde_json::Value> = Vec::new();
        #[cfg(feature = "semver1")]
        schemas.push(crate::SchemaGenerator::root_schema_for::<semver::Version>());
        #[cfg(feature = "jiff02")]
        schemas.push(crate::SchemaGenerator::root_schema_for::<jiff::Timestamp>());
        #[cfg(feature = "rust_decimal1")]
        schemas.push(crate::SchemaGenerator::root_schema_for::<
            rust_decimal::Decimal,
        >());
        for schema in schemas {
            let source = schema["pattern"].as_str().expect("a pattern");
            let pattern = lite(source).unwrap_or_else(|error| panic!("{source}: {error}"));
            assert!(!pattern.is_match("not a value of the type"), "{source}");
        }
    }

    #[cfg(feature = "unicode-patterns")]
    #[test]
    fn with_the_feature_unicode_properties_work() {
        let letters = Pattern::new(r"^\p{Letter}+$").unwrap();
        assert!(letters.is_match("π"));
        assert!(!letters.is_match("123"));
    }
}
