//! The string formats toolwright asserts (`#[arg(format = "date")]`): a model that
//! sends "next friday" for a date gets told so, with the shape it should have used.
//! Other format names stay annotations, as JSON Schema 2020-12 makes them by default.

use super::uri::{is_ipv4, is_ipv6, is_uri};

/// A format the validator checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `date`: RFC 3339 full-date, `2026-11-29`.
    Date,
    /// `date-time`: RFC 3339, `2026-11-29T12:00:00Z`.
    DateTime,
    /// `time`: RFC 3339 full-time with an offset, `12:00:00+01:00`.
    Time,
    /// `duration`: ISO 8601 as in RFC 3339 appendix A, `PT1H30M`.
    Duration,
    /// `email`: an RFC 5321 mailbox.
    Email,
    /// `hostname`: RFC 1123 labels.
    Hostname,
    /// `ipv4`: dotted quad, no leading zeros.
    Ipv4,
    /// `ipv6`: RFC 4291.
    Ipv6,
    /// `uuid`: 8-4-4-4-12 hexadecimal digits.
    Uuid,
    /// `uri`: an RFC 3986 absolute URI; with the `url` feature, one the url crate also
    /// parses (so a `url::Url` argument and its schema agree).
    Uri,
    /// `local-date-time` (toolwright's): an RFC 3339 date and time without an offset,
    /// `2026-11-29T12:00:00`, as chrono's `NaiveDateTime` reads it.
    LocalDateTime,
    /// `local-time` (toolwright's): RFC 3339 `partial-time`, `12:00:00`.
    LocalTime,
}

impl Format {
    /// The asserted format of that name; `None` for formats that stay annotations.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "date" => Format::Date,
            "date-time" => Format::DateTime,
            "time" => Format::Time,
            "duration" => Format::Duration,
            "email" => Format::Email,
            "hostname" => Format::Hostname,
            "ipv4" => Format::Ipv4,
            "ipv6" => Format::Ipv6,
            "uuid" => Format::Uuid,
            "uri" => Format::Uri,
            "local-date-time" => Format::LocalDateTime,
            "local-time" => Format::LocalTime,
            _ => return None,
        })
    }

    /// What a valid value looks like, for the message a model reads.
    pub fn expected(self) -> &'static str {
        match self {
            Format::Date => "YYYY-MM-DD",
            Format::DateTime => "YYYY-MM-DDTHH:MM:SS with a Z or ±HH:MM offset (RFC 3339)",
            Format::Time => "HH:MM:SS with a Z or ±HH:MM offset (RFC 3339)",
            Format::Duration => "an ISO 8601 duration such as P3D or PT1H30M",
            Format::Email => "name@example.com",
            Format::Hostname => "a host name such as api.example.com",
            Format::Ipv4 => "four decimal numbers 0-255 separated by dots",
            Format::Ipv6 => "an IPv6 address such as 2001:db8::1",
            Format::Uuid => "8-4-4-4-12 hexadecimal digits",
            Format::Uri => "an absolute URI such as https://example.com/path",
            Format::LocalDateTime => "YYYY-MM-DDTHH:MM:SS without an offset",
            Format::LocalTime => "HH:MM:SS without an offset",
        }
    }

    /// The article and noun for messages: "is not a date".
    pub fn noun(self) -> &'static str {
        match self {
            Format::Date => "a date",
            Format::DateTime => "a date-time",
            Format::Time => "a time",
            Format::Duration => "a duration",
            Format::Email => "an email address",
            Format::Hostname => "a host name",
            Format::Ipv4 => "an IPv4 address",
            Format::Ipv6 => "an IPv6 address",
            Format::Uuid => "a UUID",
            Format::Uri => "an absolute URI",
            Format::LocalDateTime => "a local date-time",
            Format::LocalTime => "a local time",
        }
    }

    /// Whether `text` has this format.
    pub fn matches(self, text: &str) -> bool {
        match self {
            Format::Date => is_date(text),
            Format::DateTime => is_date_time(text),
            Format::Time => is_time(text),
            Format::Duration => is_duration(text),
            Format::Email => is_email(text),
            Format::Hostname => is_hostname(text),
            Format::Ipv4 => is_ipv4(text),
            Format::Ipv6 => is_ipv6(text),
            Format::Uuid => is_uuid(text),
            Format::Uri => is_uri(text),
            Format::LocalDateTime => match text.split_once('T') {
                Some((date, time)) => is_date(date) && partial_time(time, false).is_some(),
                None => false,
            },
            Format::LocalTime => partial_time(text, false).is_some(),
        }
    }
}

/// RFC 3339 appendix A: `P` then a date part (day, month[day], year[month[day]]) with an
/// optional time part (hour[minute[second]], minute[second], second), or a time part
/// alone, or weeks alone: `P1Y2M3DT4H5M6S`, `PT30M`, `P2W`.
fn is_duration(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('P') else {
        return false;
    };
    if let Some(weeks) = rest.strip_suffix('W') {
        return !weeks.is_empty() && weeks.bytes().all(|b| b.is_ascii_digit());
    }
    let (date, time) = match rest.split_once('T') {
        Some((date, time)) => (date, Some(time)),
        None => (rest, None),
    };
    let Some(date_parts) = unit_run(date, b"YMD") else {
        return false;
    };
    match time {
        None => date_parts > 0,
        Some(time) => unit_run(time, b"HMS").is_some_and(|parts| parts > 0),
    }
}

/// How many number-and-unit parts `text` is, when each unit is one of `units` and the
/// units are consecutive in that order (`1Y2M`, `2M3D`, not `1Y3D` or `2M1Y`); `None`
/// when it is not such a run.
fn unit_run(text: &str, units: &[u8]) -> Option<usize> {
    let mut rest = text.as_bytes();
    let mut last: Option<usize> = None;
    let mut parts = 0;
    while !rest.is_empty() {
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let unit = *rest.get(digits).filter(|_| digits > 0)?;
        let at = units.iter().position(|&u| u == unit)?;
        if last.is_some_and(|last| at != last + 1) {
            return None;
        }
        last = Some(at);
        parts += 1;
        rest = &rest[digits + 1..];
    }
    Some(parts)
}

/// `8-4-4-4-12` hexadecimal digits: `0f8fad5b-d9cb-469f-a165-70867728950e`.
fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// `n` ASCII digits at the start of `text`, as a number.
fn digits(text: &str, n: usize) -> Option<u32> {
    let part = text.get(..n)?;
    part.bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| part.parse().ok())?
}

fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (
        digits(text, 4),
        digits(&text[5..], 2),
        digits(&text[8..], 2),
    ) else {
        return false;
    };
    (1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month)
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn is_date_time(text: &str) -> bool {
    match text.get(10..11) {
        Some("T" | "t") => is_date(&text[..10]) && is_time(&text[11..]),
        _ => false,
    }
}

/// RFC 3339 `partial-time`, `HH:MM:SS[.frac]` (at most nine fraction digits), as its
/// hour, minute and second: seconds up to 59, or 60 when `leap_second` (the caller
/// checks where a leap second may fall).
fn partial_time(text: &str, leap_second: bool) -> Option<(u32, u32, u32)> {
    let bytes = text.as_bytes();
    if bytes.len() < 8 || bytes[2] != b':' || bytes[5] != b':' {
        return None;
    }
    let (hour, minute, second) = (
        digits(text, 2)?,
        digits(&text[3..], 2)?,
        digits(&text[6..], 2)?,
    );
    // At most nine fraction digits (nanoseconds): what Rust's date-time types store;
    // jiff refuses more, and RFC 3339 sets no limit.
    let fraction_ok = match text[8..].strip_prefix('.') {
        Some(fraction) => {
            (1..=9).contains(&fraction.len()) && fraction.bytes().all(|b| b.is_ascii_digit())
        }
        None => text.len() == 8,
    };
    let valid = fraction_ok
        && hour <= 23
        && minute <= 59
        && (second <= 59 || (leap_second && second == 60));
    valid.then_some((hour, minute, second))
}

/// RFC 3339 `full-time`: `HH:MM:SS[.frac]` and `Z` or `±HH:MM`. A leap second (`:60`) is
/// valid only at 23:59 UTC, whatever the offset.
fn is_time(text: &str) -> bool {
    let Some(split) = text.rfind(['Z', 'z', '+', '-']) else {
        return false;
    };
    let (partial, rest) = text.split_at(split);
    let Some((hour, minute, second)) = partial_time(partial, true) else {
        return false;
    };
    let offset_minutes: i64 = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first() {
                Some(b'+') => 1,
                Some(b'-') => -1,
                _ => return false,
            };
            let offset = &rest[1..];
            if offset.len() != 5 || offset.as_bytes()[2] != b':' {
                return false;
            }
            let (Some(oh), Some(om)) = (digits(offset, 2), digits(&offset[3..], 2)) else {
                return false;
            };
            if oh > 23 || om > 59 {
                return false;
            }
            sign * i64::from(oh * 60 + om)
        }
    };
    if second == 60 {
        let utc = (i64::from(hour * 60 + minute) - offset_minutes).rem_euclid(24 * 60);
        return utc == 23 * 60 + 59;
    }
    true
}

fn is_hostname(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 253
        && text.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}

/// RFC 5321 mailbox: a dot-atom or quoted local part, `@`, and a host name or an
/// address literal (`[127.0.0.1]`, `[IPv6:::1]`).
fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.rsplit_once('@') else {
        return false;
    };
    let local_ok = if let Some(quoted) = local.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
        is_quoted_content(quoted)
    } else {
        !local.is_empty()
            && local.split('.').all(|atom| {
                !atom.is_empty()
                    && atom
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c))
            })
    };
    let domain_ok = match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => match literal.strip_prefix("IPv6:") {
            Some(v6) => is_ipv6(v6),
            None => is_ipv4(literal),
        },
        None => is_hostname(domain),
    };
    local_ok && domain_ok
}

fn is_quoted_content(text: &str) -> bool {
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.next().is_none() => {
                return false;
            }
            '"' => return false,
            c if c.is_ascii_control() => return false,
            _ => {}
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::Format;

    #[test]
    fn the_examples_in_the_messages_are_valid() {
        assert!(Format::Date.matches("2026-11-29"));
        assert!(!Format::Date.matches("next friday"));
        assert!(Format::DateTime.matches("2026-11-29T12:00:00Z"));
        assert!(Format::Time.matches("12:00:00+01:00"));
        assert!(Format::Duration.matches("PT1H30M") && Format::Duration.matches("P3D"));
        assert!(Format::Email.matches("name@example.com"));
        assert!(Format::Hostname.matches("api.example.com"));
        assert!(Format::Ipv6.matches("2001:db8::1"));
        assert!(Format::Uuid.matches("67e55044-10b1-426f-9247-bb680e5fe0c8"));
        assert!(Format::Uri.matches("https://example.com/path"));
        assert!(Format::LocalDateTime.matches("2026-11-29T12:00:00"));
        assert!(Format::LocalTime.matches("12:00:00"));
    }

    #[test]
    fn durations_take_their_units_in_order_and_without_gaps() {
        for valid in [
            "P1Y2M3DT4H5M6S",
            "P1Y",
            "P2M3D",
            "PT5M6S",
            "PT6S",
            "P4W",
            "P1DT1H",
        ] {
            assert!(Format::Duration.matches(valid), "{valid}");
        }
        for invalid in [
            "P", "PT", "P1DT", "P1Y3D", "P2M1Y", "PT1H6S", "P1W1D", "P1Y1W", "P1.5Y", "1Y", "P١Y",
            "PW", "P1D2", "P1H",
        ] {
            assert!(!Format::Duration.matches(invalid), "{invalid}");
        }
    }

    /// The hand-written durations say what the RFC 3339 pattern they replaced said, on
    /// 50,000 strings made of the characters that matter.
    #[test]
    fn durations_agree_with_the_pattern_they_replaced() {
        let pattern = regex_lite::Regex::new(r"^P(?:(?:[0-9]+D|[0-9]+M(?:[0-9]+D)?|[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?)(?:T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S))?|T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)|[0-9]+W)$").unwrap();
        let strings =
            crate::validate::uri::tests::strings(b"P19YMDTHSW", &["P", "PT", "P1"], 50_000);
        let mut valid = 0;
        for text in strings {
            assert_eq!(
                Format::Duration.matches(&text),
                pattern.is_match(&text),
                "{text:?}"
            );
            valid += usize::from(pattern.is_match(&text));
        }
        assert!(valid > 500, "{valid}");
    }

    #[test]
    fn uuids_are_hex_in_five_groups() {
        assert!(Format::Uuid.matches("0F8FAD5B-D9CB-469F-A165-70867728950E"));
        for invalid in [
            "0f8fad5b-d9cb-469f-a165-70867728950",
            "0f8fad5bd9cb469fa16570867728950e",
            "0f8fad5b-d9cb-469f-a165-70867728950g",
            "{0f8fad5b-d9cb-469f-a165-70867728950}",
            "0f8fad5b-d9cb-469f-a165_70867728950e",
        ] {
            assert!(!Format::Uuid.matches(invalid), "{invalid}");
        }
    }

    #[test]
    fn local_times_have_no_offset_and_no_leap_second() {
        for valid in ["00:00:00", "23:59:59.999999999", "12:00:00.5"] {
            assert!(Format::LocalTime.matches(valid), "{valid}");
        }
        for invalid in [
            "12:00:00Z",
            "12:00",
            "24:00:00",
            "12:00:60",
            "12:00:00.",
            "12:00:00+01:00",
        ] {
            assert!(!Format::LocalTime.matches(invalid), "{invalid}");
        }
        assert!(!Format::LocalDateTime.matches("2026-02-30T12:00:00"));
        assert!(!Format::LocalDateTime.matches("2026-11-29t12:00:00"));
        // `full-time` still takes its leap second at 23:59 UTC only.
        assert!(Format::Time.matches("23:59:60Z") && Format::Time.matches("00:59:60+01:00"));
        assert!(!Format::Time.matches("12:00:60Z"));
    }
}
