//! JSON helpers the validator needs: equality by value (so `1` equals `1.0`), exact
//! number comparison, paths, and short renderings of values for messages.

use std::cmp::Ordering;
use std::fmt::Write as _;

use serde_json::{Number, Value};

/// `format!` into a string made big enough up front: messages are short, and growing an
/// empty string to their size costs more than writing them.
macro_rules! message {
    ($($arg:tt)*) => {{
        let mut message = String::with_capacity(96);
        let _ = std::fmt::Write::write_fmt(&mut message, format_args!($($arg)*));
        message
    }};
}
pub(crate) use message;

/// JSON equality as JSON Schema defines it: numbers by mathematical value.
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => compare_numbers(a, b) == Some(Ordering::Equal),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, a)| b.get(key).is_some_and(|b| json_eq(a, b)))
        }
        _ => a == b,
    }
}

/// Compares two JSON numbers exactly when both are integers, as `f64` otherwise.
pub fn compare_numbers(a: &Number, b: &Number) -> Option<Ordering> {
    if let (Some(a), Some(b)) = (as_i128(a), as_i128(b)) {
        return Some(a.cmp(&b));
    }
    a.as_f64()?.partial_cmp(&b.as_f64()?)
}

/// `n` as an exact integer, when it is one that fits `i64` or `u64`.
pub fn as_i128(n: &Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

/// Whether `value` is a multiple of `factor` (> 0): exact for integers, within a few
/// ulps for floats (`0.0075` is a multiple of `0.0001`), never for infinite quotients.
pub fn is_multiple_of(value: &Number, factor: &Number) -> bool {
    if let (Some(value), Some(factor)) = (as_i128(value), as_i128(factor))
        && factor != 0
    {
        return value % factor == 0;
    }
    let (Some(value), Some(factor)) = (value.as_f64(), factor.as_f64()) else {
        return false;
    };
    let quotient = value / factor;
    quotient.is_finite()
        && (quotient - quotient.round()).abs() <= 4.0 * f64::EPSILON * quotient.abs().max(1.0)
}

/// Whether a number is an integer. `strict` (tool arguments) asks what serde asks: an
/// integer literal that fits `i64` or `u64`. Otherwise (JSON Schema) `1.0` counts too.
pub fn is_integer(n: &Number, strict: bool) -> bool {
    if n.is_i64() || n.is_u64() {
        return true;
    }
    !strict
        && n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// The JSON type name of a value, for messages.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A value rendered for a message: compact JSON, cut at about 60 characters.
pub fn show(value: &Value) -> String {
    Shown(value).to_string()
}

/// [`show`] as a `Display`, to format into a message without an extra string.
pub struct Shown<'a>(pub &'a Value);

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Value::Null | Value::Bool(_) | Value::Number(_) => write!(f, "{}", self.0),
            Value::String(text) if text.len() <= 40 => write!(f, "{}", self.0),
            other => {
                let text = other.to_string();
                if text.len() <= 60 || text.chars().count() <= 60 {
                    return f.write_str(&text);
                }
                let cut: String = text.chars().take(57).collect();
                write!(f, "{cut}...")
            }
        }
    }
}

/// A JSON path in the `$.a.b[3]` notation, built up while the validator descends. The
/// text after `$` is kept as it grows, so a problem copies it instead of formatting it,
/// and the root allocates nothing.
#[derive(Debug, Clone)]
pub struct JsonPath {
    /// The path after the leading `$`.
    text: String,
    /// Where each segment starts in `text`.
    starts: Vec<usize>,
}

impl Default for JsonPath {
    fn default() -> Self {
        Self::root()
    }
}

impl JsonPath {
    /// The root, `$`.
    pub fn root() -> Self {
        Self {
            text: String::with_capacity(32),
            starts: Vec::with_capacity(8),
        }
    }

    /// Enters an object member.
    pub fn push_key(&mut self, key: &str) {
        self.starts.push(self.text.len());
        if is_plain_key(key) {
            self.text.push('.');
            self.text.push_str(key);
        } else {
            let _ = write!(self.text, "[{}]", Value::String(key.to_owned()));
        }
    }

    /// Enters an array element.
    pub fn push_index(&mut self, index: usize) {
        self.starts.push(self.text.len());
        let _ = write!(self.text, "[{index}]");
    }

    /// Leaves the last member or element entered.
    pub fn pop(&mut self) {
        if let Some(start) = self.starts.pop() {
            self.text.truncate(start);
        }
    }

    /// How deep the path is (`$` is 0).
    pub fn depth(&self) -> usize {
        self.starts.len()
    }
}

impl JsonPath {
    /// The path as text, `$.a[0]` (what `to_string` gives, without the formatter).
    pub fn text(&self) -> String {
        let mut text = String::with_capacity(1 + self.text.len());
        text.push('$');
        text.push_str(&self.text);
        text
    }
}

impl std::fmt::Display for JsonPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("$")?;
        f.write_str(&self.text)
    }
}

fn is_plain_key(key: &str) -> bool {
    // Bytes, not chars: a plain key is ASCII, and a byte of a multi-byte character is
    // never an ASCII letter, digit or `_`, so there is nothing to decode.
    let mut bytes = key.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A key that is an identifier is written after a dot; any other (a digit first, a
    /// space, a non-ASCII letter, nothing) is quoted in brackets.
    #[test]
    fn keys_are_plain_only_when_they_are_identifiers() {
        let path = |key: &str| {
            let mut path = JsonPath::root();
            path.push_key(key);
            path.text()
        };
        assert_eq!(path("room"), "$.room");
        assert_eq!(path("_x1"), "$._x1");
        assert_eq!(path("1a"), r#"$["1a"]"#);
        assert_eq!(path("a b"), r#"$["a b"]"#);
        assert_eq!(path("é"), r#"$["é"]"#);
        assert_eq!(path("aé"), r#"$["aé"]"#);
        assert_eq!(path(""), r#"$[""]"#);
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(json_eq(&json!(1), &json!(1.0)));
        assert!(json_eq(&json!({"a": [1]}), &json!({"a": [1.0]})));
        assert!(!json_eq(&json!(1), &json!(true)));
        let big = json!(u64::MAX);
        assert_eq!(
            compare_numbers(
                big.as_number().unwrap(),
                json!(u64::MAX - 1).as_number().unwrap()
            ),
            Some(Ordering::Greater)
        );
    }

    #[test]
    fn multiples_tolerate_float_rounding_only() {
        let number = |v: f64| Number::from_f64(v).unwrap();
        assert!(is_multiple_of(&number(0.0075), &number(0.0001)));
        assert!(!is_multiple_of(&number(0.00751), &number(0.0001)));
        assert!(!is_multiple_of(&number(1e308), &number(0.123456789)));
        assert!(is_multiple_of(&Number::from(10), &Number::from(5)));
    }

    #[test]
    fn paths_read_like_code() {
        let mut path = JsonPath::root();
        path.push_key("items");
        path.push_index(3);
        path.push_key("odd key");
        assert_eq!(path.to_string(), r#"$.items[3]["odd key"]"#);
    }
}
