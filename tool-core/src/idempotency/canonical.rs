//! Canonical JSON and the hashes built on it: the same call always gives the same bytes,
//! so the same digest and the same key.

use serde_json::Value;
use sha2::{Digest as _, Sha256};

/// The store key for `parts`: SHA-256 (hex) of the parts, each preceded by its length
/// (or a marker for an absent part), so a key is always 64 bytes whatever a client sent,
/// and no two different lists of parts share one.
pub(crate) fn scoped_key(parts: &[Option<&str>]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        match part {
            Some(part) => {
                hasher.update((part.len() as u64).to_le_bytes());
                hasher.update(part.as_bytes());
            }
            None => hasher.update(u64::MAX.to_le_bytes()),
        }
    }
    hex(&hasher.finalize())
}

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(DIGITS[usize::from(byte >> 4)] as char);
        text.push(DIGITS[usize::from(byte & 15)] as char);
    }
    text
}

/// Writes `value` into `sink` in a canonical form: objects with their keys sorted, no
/// whitespace, strings and numbers as serde_json writes them, so equal JSON values always
/// give the same bytes. Nothing is allocated but the list of an object's keys.
pub(crate) fn write_canonical(value: &Value, sink: &mut impl FnMut(&[u8])) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            sink(b"{");
            for (index, (key, value)) in entries.into_iter().enumerate() {
                if index > 0 {
                    sink(b",");
                }
                write_json_string(key, sink);
                sink(b":");
                write_canonical(value, sink);
            }
            sink(b"}");
        }
        Value::Array(items) => {
            sink(b"[");
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    sink(b",");
                }
                write_canonical(item, sink);
            }
            sink(b"]");
        }
        Value::String(text) => write_json_string(text, sink),
        scalar => {
            // Numbers, booleans and null, written by serde_json into the sink directly.
            let _ = serde_json::to_writer(Forward(sink), scalar);
        }
    }
}

/// Writes `text` as a JSON string: as is between quotes when nothing needs escaping (the
/// common case), through serde_json's escaping otherwise.
pub(crate) fn write_json_string(text: &str, sink: &mut impl FnMut(&[u8])) {
    if text.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        sink(b"\"");
        sink(text.as_bytes());
        sink(b"\"");
    } else {
        let _ = serde_json::to_writer(Forward(sink), text);
    }
}

/// An `io::Write` that hands every chunk to a sink.
struct Forward<'s, F: FnMut(&[u8])>(&'s mut F);

impl<F: FnMut(&[u8])> std::io::Write for Forward<'_, F> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        (self.0)(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{scoped_key, write_canonical};

    fn canonical(value: &serde_json::Value) -> String {
        let mut bytes = Vec::new();
        write_canonical(value, &mut |chunk| bytes.extend_from_slice(chunk));
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn canonical_json_sorts_keys_at_every_depth_and_escapes_strings() {
        assert_eq!(
            canonical(&json!({"b": [{"z": 1, "a": "\"x\""}], "a": null})),
            r#"{"a":null,"b":[{"a":"\"x\"","z":1}]}"#
        );
    }

    #[test]
    fn strings_and_numbers_are_written_as_serde_json_writes_them() {
        for value in [
            json!("plain"),
            json!("tab\tquote\"back\\slash\u{1}é"),
            json!(1.5e300),
            json!(-0.0),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(true),
            json!(null),
        ] {
            assert_eq!(canonical(&value), value.to_string());
        }
    }

    #[test]
    fn scoped_keys_are_fixed_length_and_do_not_run_parts_together() {
        let a = scoped_key(&[Some("ab"), Some("c")]);
        assert_eq!(a.len(), 64);
        assert_ne!(a, scoped_key(&[Some("a"), Some("bc")]));
        assert_ne!(a, scoped_key(&[Some("ab"), Some("c"), None]));
        assert_eq!(scoped_key(&[Some(&"k".repeat(1 << 20))]).len(), 64);
    }
}
