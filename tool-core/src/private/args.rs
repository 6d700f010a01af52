//! What a `#[tool]`'s generated arguments reader calls: the field names read as indices
//! by one shared seed, an absent argument made `None` or refused. The generated
//! `visit_map` is then a loop and a `match`, and the code that reads names exists once
//! for all tools instead of once per tool (serde's derive writes a field visitor per
//! struct).

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, Visitor};

/// Reads an argument's name as the index of its parameter. `names` pairs every accepted
/// name (wire names and aliases) with its index; `wire` lists the wire names for the
/// error an unknown name gets (arguments are closed: `deny_unknown_fields`). Read
/// through a reference (a `static`): one word handed down for every key, not four.
pub struct FieldIndex {
    pub names: &'static [(&'static str, usize)],
    pub wire: &'static [&'static str],
}

impl<'de> DeserializeSeed<'de> for &FieldIndex {
    type Value = usize;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for &FieldIndex {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the name of an argument")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<usize, E> {
        for &(known, index) in self.names {
            if same_name(known.as_bytes(), name.as_bytes()) {
                return Ok(index);
            }
        }
        Err(E::unknown_field(name, self.wire))
    }

    fn visit_bytes<E: de::Error>(self, name: &[u8]) -> Result<usize, E> {
        match std::str::from_utf8(name) {
            Ok(name) => self.visit_str(name),
            Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(name), &self)),
        }
    }
}

/// Whether two names are the same. Argument names are short: up to 16 bytes they are
/// compared as two overlapping words each, inline, where `==` calls `memcmp` (which
/// costs more than the comparison itself for a name that matches).
#[inline]
fn same_name(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |bytes: &[u8], at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap());
    let half = |bytes: &[u8], at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    match n {
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        _ => a == b,
    }
}

/// An argument that was not sent: `None` for a type that reads an absent value so (an
/// `Option`), else serde's "missing field" error.
pub fn missing<'de, T: de::Deserialize<'de>, E: de::Error>(name: &'static str) -> Result<T, E> {
    T::deserialize(Missing(name, PhantomData))
}

/// An argument sent twice.
pub fn duplicate<E: de::Error>(name: &'static str) -> E {
    E::duplicate_field(name)
}

struct Missing<E>(&'static str, PhantomData<E>);

impl<'de, E: de::Error> Deserializer<'de> for Missing<E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.0))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_none()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::same_name;

    /// Every length, and a difference at every position: the word comparisons see all
    /// of both names.
    #[test]
    fn names_are_the_same_exactly_when_their_bytes_are() {
        for n in 0..=24 {
            let name: Vec<u8> = (0..n).map(|i| b'a' + i as u8).collect();
            assert!(same_name(&name, &name.clone()));
            for at in 0..n {
                let mut other = name.clone();
                other[at] = b'_';
                assert!(!same_name(&name, &other), "length {n}, differing at {at}");
            }
            let longer = [name.as_slice(), b"x"].concat();
            assert!(!same_name(&name, &longer));
        }
    }
}
