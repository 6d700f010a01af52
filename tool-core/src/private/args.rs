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

/// An argument's type as the generated reader names its slot:
/// `<Slot<T, { <T as ToolSchema>::OPTIONAL }> as SlotType>::Value` is `T`. Through the
/// schema's constant, so that a type without `ToolSchema` is reported once, as exactly
/// that (the error is the schema's own, which rustc shows once), and the reader's
/// `Deserialize` bounds, on a type that did not resolve, are not reported again.
pub struct Slot<T, const OPTIONAL: bool>(PhantomData<T>);

/// What [`Slot`] names.
pub trait SlotType {
    /// The argument's type.
    type Value;
}

impl<T> SlotType for Slot<T, true> {
    type Value = T;
}

impl<T> SlotType for Slot<T, false> {
    type Value = T;
}

/// Reads the value of argument `name` into its slot; an argument sent twice is refused.
/// Generic over the argument's type, not the tool: tools that take the same types share
/// one copy in a user's crate.
pub fn read_arg<'de, T: de::Deserialize<'de>, A: de::MapAccess<'de>>(
    map: &mut A,
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(duplicate(name));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// [`read_arg`] through `#[serde(deserialize_with)]`'s function (as a seed).
pub fn read_arg_with<'de, S: DeserializeSeed<'de>, A: de::MapAccess<'de>>(
    map: &mut A,
    slot: &mut Option<S::Value>,
    name: &'static str,
    seed: S,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(duplicate(name));
    }
    *slot = Some(map.next_value_seed(seed)?);
    Ok(())
}

/// Skips the value of a name the tool does not read (the name itself was refused).
pub fn skip_value<'de, A: de::MapAccess<'de>>(map: &mut A) -> Result<(), A::Error> {
    map.next_value::<de::IgnoredAny>().map(|_| ())
}

/// An argument not sent gets what its type reads an absence as (`None` for an
/// `Option`), or serde's "missing field" error.
pub fn fill_absent<'de, T: de::Deserialize<'de>, E: de::Error>(
    slot: &mut Option<T>,
    name: &'static str,
) -> Result<(), E> {
    if slot.is_none() {
        *slot = Some(missing(name)?);
    }
    Ok(())
}

/// An argument not sent gets its `#[arg(default)]`.
pub fn fill_default<T, E>(slot: &mut Option<T>, default: fn() -> T) -> Result<(), E> {
    if slot.is_none() {
        *slot = Some(default());
    }
    Ok(())
}

/// An argument read by a function of its own (`#[serde(deserialize_with)]`) must be
/// sent, as with serde's derive.
pub fn require<T, E: de::Error>(slot: &Option<T>, name: &'static str) -> Result<(), E> {
    match slot {
        Some(_) => Ok(()),
        None => Err(E::missing_field(name)),
    }
}

/// The value of a slot the reader filled.
pub fn filled<T>(slot: Option<T>) -> T {
    match slot {
        Some(value) => value,
        None => unreachable!("the arguments reader fills every slot before it builds them"),
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
