//! The scalar keywords (bounds, lengths, pattern, format, item counts), compiled once
//! and shared by the schema validator and by the typed checks of the fast path, so the
//! two can never disagree about what a constraint means.

use serde_json::{Map, Number, Value};

use super::format::Format;
use super::json::{as_i128, compare_numbers, is_multiple_of, message, show};
use super::pattern::Pattern;
use super::{Issue, IssueKind, SchemaError};
use crate::validate::json::JsonPath;

/// The scalar keywords of one schema.
#[derive(Debug, Clone, Default)]
pub struct Keywords {
    minimum: Option<Number>,
    maximum: Option<Number>,
    exclusive_minimum: Option<Number>,
    exclusive_maximum: Option<Number>,
    multiple_of: Option<Number>,
    min_length: Option<u64>,
    max_length: Option<u64>,
    pattern: Option<Pattern>,
    format: Option<Format>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    /// The bounds as one inclusive range, when every bound is an integer: an integer is
    /// then checked with two comparisons.
    integer_range: Option<(i128, i128)>,
}

impl Keywords {
    /// Reads the scalar keywords of `schema`. `assert_formats` makes `format` a check
    /// (for the formats toolwright knows) instead of an annotation.
    pub fn compile(schema: &Map<String, Value>, assert_formats: bool) -> Result<Self, SchemaError> {
        let number = |key: &str| -> Result<Option<Number>, SchemaError> {
            match schema.get(key) {
                None => Ok(None),
                Some(Value::Number(n)) => Ok(Some(n.clone())),
                Some(other) => Err(SchemaError::new(format!(
                    "`{key}` must be a number, not {other}"
                ))),
            }
        };
        let count = |key: &str| -> Result<Option<u64>, SchemaError> {
            match schema.get(key) {
                None => Ok(None),
                Some(Value::Number(n)) => n
                    .as_u64()
                    .or_else(|| {
                        n.as_f64()
                            .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                            .map(|f| f as u64)
                    })
                    .map(Some)
                    .ok_or_else(|| {
                        SchemaError::new(format!("`{key}` must be a non-negative integer"))
                    }),
                Some(other) => Err(SchemaError::new(format!(
                    "`{key}` must be an integer, not {other}"
                ))),
            }
        };
        let pattern = match schema.get("pattern") {
            None => None,
            Some(Value::String(source)) => Some(Pattern::new(source).map_err(|error| {
                SchemaError::new(format!("`pattern` {source:?} does not compile: {error}"))
            })?),
            Some(other) => {
                return Err(SchemaError::new(format!(
                    "`pattern` must be a string, not {other}"
                )));
            }
        };
        let format = match schema.get("format") {
            Some(Value::String(name)) if assert_formats => Format::from_name(name),
            _ => None,
        };
        let multiple_of = number("multipleOf")?;
        if multiple_of
            .as_ref()
            .and_then(Number::as_f64)
            .is_some_and(|f| f <= 0.0)
        {
            return Err(SchemaError::new("`multipleOf` must be greater than 0"));
        }
        let (minimum, maximum) = (number("minimum")?, number("maximum")?);
        let (exclusive_minimum, exclusive_maximum) =
            (number("exclusiveMinimum")?, number("exclusiveMaximum")?);
        let integer_range = integer_range(
            [&minimum, &exclusive_minimum],
            [&maximum, &exclusive_maximum],
        );
        Ok(Self {
            minimum,
            maximum,
            exclusive_minimum,
            exclusive_maximum,
            integer_range,
            multiple_of,
            min_length: count("minLength")?,
            max_length: count("maxLength")?,
            pattern,
            format,
            min_items: count("minItems")?,
            max_items: count("maxItems")?,
        })
    }

    /// The number keywords `n` breaks: `(relation, bound)`, such as `(">=", 1)`.
    fn number_violations<'a>(
        &'a self,
        n: &Number,
    ) -> impl Iterator<Item = (&'static str, &'a Number)> {
        use std::cmp::Ordering::{Greater, Less};
        let cmp = |bound: &Number| compare_numbers(n, bound);
        [
            self.minimum
                .as_ref()
                .filter(|min| cmp(min) == Some(Less))
                .map(|b| (">=", b)),
            self.maximum
                .as_ref()
                .filter(|max| cmp(max) == Some(Greater))
                .map(|b| ("<=", b)),
            self.exclusive_minimum
                .as_ref()
                .filter(|min| cmp(min) != Some(Greater))
                .map(|b| (">", b)),
            self.exclusive_maximum
                .as_ref()
                .filter(|max| cmp(max) != Some(Less))
                .map(|b| ("<", b)),
            self.multiple_of
                .as_ref()
                .filter(|factor| !is_multiple_of(n, factor))
                .map(|b| ("a multiple of", b)),
        ]
        .into_iter()
        .flatten()
    }

    pub(crate) fn check_number(&self, n: &Number, path: &JsonPath, issues: &mut Vec<Issue>) {
        for (relation, bound) in self.number_violations(n) {
            issues.push(Issue::new(
                path,
                IssueKind::Constraint,
                message!("must be {relation} {bound}, got {n}"),
            ));
        }
    }

    pub(crate) fn check_string(&self, text: &str, path: &JsonPath, issues: &mut Vec<Issue>) {
        let mut fail =
            |message: String| issues.push(Issue::new(path, IssueKind::Constraint, message));
        if self.min_length.is_some() || self.max_length.is_some() {
            let length = text.chars().count() as u64;
            if let Some(min) = self.min_length
                && length < min
            {
                fail(format!(
                    "must be at least {} long, got {length}",
                    counted(min, "character", "characters")
                ));
            }
            if let Some(max) = self.max_length
                && length > max
            {
                fail(format!(
                    "must be at most {} long, got {length}",
                    counted(max, "character", "characters")
                ));
            }
        }
        if let Some(pattern) = &self.pattern
            && !pattern.is_match(text)
        {
            fail(format!(
                "{} does not match the pattern {}",
                show(&Value::String(text.to_owned())),
                pattern.as_str()
            ));
        }
        if let Some(format) = self.format
            && !format.matches(text)
        {
            fail(format!(
                "{} is not {}; expected {}",
                show(&Value::String(text.to_owned())),
                format.noun(),
                format.expected()
            ));
        }
    }

    pub(crate) fn check_items(&self, count: usize, path: &JsonPath, issues: &mut Vec<Issue>) {
        let count = count as u64;
        if let Some(min) = self.min_items
            && count < min
        {
            issues.push(Issue::new(
                path,
                IssueKind::Constraint,
                format!(
                    "must have at least {}, got {count}",
                    counted(min, "item", "items")
                ),
            ));
        }
        if let Some(max) = self.max_items
            && count > max
        {
            issues.push(Issue::new(
                path,
                IssueKind::Constraint,
                format!(
                    "must have at most {}, got {count}",
                    counted(max, "item", "items")
                ),
            ));
        }
    }

    /// Whether a number passes (the fast path's check; no messages are built).
    pub fn accepts_number(&self, n: &Number) -> bool {
        use std::cmp::Ordering::{Greater, Less};
        if let Some((low, high)) = self.integer_range
            && let Some(value) = as_i128(n)
        {
            return low <= value
                && value <= high
                && self
                    .multiple_of
                    .as_ref()
                    .is_none_or(|factor| is_multiple_of(n, factor));
        }
        // Straight-line, stopping at the first failure: this runs for every constrained
        // number of every valid call. The same rules as `number_violations`.
        let breaks = |bound: &Option<Number>, fails: fn(Option<std::cmp::Ordering>) -> bool| {
            bound
                .as_ref()
                .is_some_and(|bound| fails(compare_numbers(n, bound)))
        };
        !(breaks(&self.minimum, |o| o == Some(Less))
            || breaks(&self.maximum, |o| o == Some(Greater))
            || breaks(&self.exclusive_minimum, |o| o != Some(Greater))
            || breaks(&self.exclusive_maximum, |o| o != Some(Less))
            || self
                .multiple_of
                .as_ref()
                .is_some_and(|factor| !is_multiple_of(n, factor)))
    }

    /// Whether a string passes.
    pub fn accepts_string(&self, text: &str) -> bool {
        let mut issues = Vec::new();
        self.check_string(text, &JsonPath::root(), &mut issues);
        issues.is_empty()
    }

    /// Whether a list of `count` items passes.
    pub fn accepts_items(&self, count: usize) -> bool {
        let mut issues = Vec::new();
        self.check_items(count, &JsonPath::root(), &mut issues);
        issues.is_empty()
    }
}

/// `[minimum, exclusiveMinimum]` and `[maximum, exclusiveMaximum]` as one inclusive
/// integer range, when every bound present is an integer (`None` otherwise, or when
/// there is no bound).
fn integer_range(
    [minimum, exclusive_minimum]: [&Option<Number>; 2],
    [maximum, exclusive_maximum]: [&Option<Number>; 2],
) -> Option<(i128, i128)> {
    let bound = |n: &Option<Number>, shift: i128| match n {
        None => Some(None),
        Some(n) => as_i128(n).map(|value| Some(value + shift)),
    };
    let lows = [bound(minimum, 0)?, bound(exclusive_minimum, 1)?];
    let highs = [bound(maximum, 0)?, bound(exclusive_maximum, -1)?];
    if lows.iter().chain(&highs).all(Option::is_none) {
        return None;
    }
    let low = lows.into_iter().flatten().max().unwrap_or(i128::MIN);
    let high = highs.into_iter().flatten().min().unwrap_or(i128::MAX);
    Some((low, high))
}

/// `1 character`, `5 characters`.
fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use serde_json::{Number, json};

    use super::Keywords;

    /// The fast check (`accepts_number`, with its integer range) says yes exactly when
    /// the validator finds no violation, for integer, float and mixed bounds.
    #[test]
    fn the_fast_number_check_agrees_with_the_validator() {
        let schemas = [
            json!({"minimum": 0, "maximum": 23}),
            json!({"exclusiveMinimum": 0, "exclusiveMaximum": 10}),
            json!({"minimum": 5, "exclusiveMinimum": 3, "maximum": 7, "exclusiveMaximum": 7}),
            json!({"minimum": -3, "multipleOf": 2}),
            json!({"maximum": 2.5}),
            json!({"exclusiveMinimum": -0.5, "maximum": 4}),
            json!({"minimum": 9_223_372_036_854_775_807_u64}),
            json!({"maximum": -9_223_372_036_854_775_808_i64}),
            json!({"multipleOf": 0.5}),
            json!({}),
        ];
        let mut values: Vec<Number> = (-12..=12).map(Number::from).collect();
        values.extend([u64::MAX, i64::MAX as u64].map(Number::from));
        values.push(Number::from(i64::MIN));
        values.extend(
            [-0.5, 0.0, 2.5, 2.75, 6.5, 9.99, 23.0, 1e300].map(|f| Number::from_f64(f).unwrap()),
        );
        for schema in &schemas {
            let keywords = Keywords::compile(schema.as_object().unwrap(), true).unwrap();
            for n in &values {
                assert_eq!(
                    keywords.accepts_number(n),
                    keywords.number_violations(n).next().is_none(),
                    "{n} against {schema}"
                );
            }
        }
    }
}
