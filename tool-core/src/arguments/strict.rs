//! A serde `Deserializer` adapter that reads structs only from JSON objects.
//!
//! serde's derived `Deserialize` for a struct also accepts a JSON array of its fields in
//! order (`["C-1", 500]` for `{customer, amount}`). The schema says `object`, so the
//! validator rejects such an array; wrapped in [`Strict`], the deserializer rejects it
//! too, and the two agree. A whole-number float read for a Rust integer (`5.0` for a
//! `u32`) is read as that integer, because JSON Schema calls it one: a client that
//! validates against the published schema and a model that writes `5.0` are both right.
//! Everything else is passed through unchanged, at every depth.

use std::cell::Cell;
use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

/// Wraps a deserializer so that structs (at any depth) come only from maps.
pub struct Strict<D>(pub D);

macro_rules! forward {
    ($($method:ident ( $($arg:ident : $ty:ty),* );)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Self::Error> {
            self.0.$method($($arg,)* Wrap(visitor))
        }
    )*};
}

macro_rules! forward_as_any {
    ($($method:ident;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            self.0.deserialize_any(Wrap(visitor))
        }
    )*};
}

macro_rules! forward_as_integer {
    ($($method:ident;)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            self.0.deserialize_any(Whole(visitor))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Strict<D> {
    type Error = D::Error;

    // JSON scalars are read by what they are: a mismatch is then the visitor's error,
    // which costs nothing to make (see `Mismatch`), not one the JSON parser formats.
    // The visits are the ones the typed methods make (`i128`, `u128` keep theirs, which
    // read integers beyond 64 bits exactly).
    forward_as_any! {
        deserialize_bool;
        deserialize_f32;
        deserialize_f64;
        deserialize_str;
        deserialize_string;
    }

    forward_as_integer! {
        deserialize_i8;
        deserialize_i16;
        deserialize_i32;
        deserialize_i64;
        deserialize_u8;
        deserialize_u16;
        deserialize_u32;
        deserialize_u64;
    }

    // 128-bit integers keep their typed methods (which read integers beyond 64 bits
    // exactly), with whole floats read as integers like the others.
    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.0.deserialize_i128(Whole(visitor))
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        self.0.deserialize_u128(Whole(visitor))
    }

    forward! {
        deserialize_any();
        deserialize_char();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
        deserialize_identifier();
        deserialize_ignored_any();
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        // A struct comes from a map only, so the deserializer is asked for a map (for
        // serde_json a smaller function than its struct reader, which also reads arrays).
        let _ = (name, fields);
        self.0.deserialize_map(MapOnly(visitor))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// Passes every value through, wrapping what it contains.
struct Wrap<V>(V);

macro_rules! visit_scalar {
    ($($method:ident ( $ty:ty );)*) => {$(
        fn $method<E: de::Error>(self, value: $ty) -> Result<Self::Value, E> {
            self.0.$method::<Mismatch>(value).map_err(Mismatch::into_error)
        }
    )*};
}

/// The error of a scalar that does not fit its type (`7` for a `String`, `25` for a
/// `u8`). The fast path only needs to know that it failed, the slow path then explains
/// every problem; formatting serde's message for each rejected call would cost more
/// than the rest of the fast path, so the message is built only when [`explaining`].
#[derive(Debug)]
struct Mismatch(Option<String>);

impl Mismatch {
    fn into_error<E: de::Error>(self) -> E {
        E::custom(self)
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_deref().unwrap_or("a value of another type"))
    }
}

impl std::error::Error for Mismatch {}

impl de::Error for Mismatch {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Mismatch(EXPLAINING.get().then(|| message.to_string()))
    }
}

thread_local! {
    static EXPLAINING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `read` with the messages of mismatched values kept: for the one read that
/// explains a refusal the schema did not catch (a type's own "expected HH:MM"), through
/// the same `Strict` code as the fast path, so no second copy of it is compiled.
pub(crate) fn explaining(
    value: &serde_json::Value,
    read: fn(&serde_json::Value) -> Option<String>,
) -> Option<String> {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            EXPLAINING.set(false);
        }
    }
    EXPLAINING.set(true);
    let _reset = Reset;
    read(value)
}

macro_rules! wrapping_visitor {
    ($name:ident, $seq:expr, $float:expr) => {
        impl<'de, V: Visitor<'de>> Visitor<'de> for $name<V> {
            type Value = V::Value;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.expecting(f)
            }

            visit_scalar! {
                visit_bool(bool);
                visit_i8(i8);
                visit_i16(i16);
                visit_i32(i32);
                visit_i64(i64);
                visit_i128(i128);
                visit_u8(u8);
                visit_u16(u16);
                visit_u32(u32);
                visit_u64(u64);
                visit_u128(u128);
                visit_f32(f32);
                visit_char(char);
                visit_str(&str);
                visit_borrowed_str(&'de str);
                visit_string(String);
                visit_bytes(&[u8]);
                visit_borrowed_bytes(&'de [u8]);
                visit_byte_buf(Vec<u8>);
            }

            fn visit_f64<E: de::Error>(self, value: f64) -> Result<Self::Value, E> {
                let visit: fn(Self, f64) -> Result<Self::Value, Mismatch> = $float;
                visit(self, value).map_err(Mismatch::into_error)
            }

            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                self.0.visit_none()
            }

            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                self.0.visit_unit()
            }

            fn visit_some<D: Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<Self::Value, D::Error> {
                self.0.visit_some(Strict(deserializer))
            }

            fn visit_newtype_struct<D: Deserializer<'de>>(
                self,
                deserializer: D,
            ) -> Result<Self::Value, D::Error> {
                self.0.visit_newtype_struct(Strict(deserializer))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                let visit: fn(Self, A) -> Result<Self::Value, A::Error> = $seq;
                visit(self, seq)
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                self.0.visit_map(StrictMap(map))
            }

            fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
                self.0.visit_enum(StrictEnum(data))
            }
        }
    };
}

wrapping_visitor!(
    Wrap,
    |this, seq| this.0.visit_seq(StrictSeq(seq)),
    |this, value| this.0.visit_f64(value)
);

/// A Rust integer's visitor: a whole-number float is visited as the integer it is, so
/// `5.0` reads as `5` and `300.0` for a `u8` is refused as the integer 300 would be.
/// A float with a fraction, or beyond 64 bits, is visited as the float (and refused).
struct Whole<V>(V);

wrapping_visitor!(
    Whole,
    |this, seq| this.0.visit_seq(StrictSeq(seq)),
    |this, value| {
        // 2^64 and -2^63, exactly representable: every whole float in between converts
        // without loss.
        const U64_END: f64 = 18_446_744_073_709_551_616.0;
        const I64_START: f64 = -9_223_372_036_854_775_808.0;
        if value.fract() != 0.0 || !value.is_finite() {
            this.0.visit_f64(value)
        } else if (0.0..U64_END).contains(&value) {
            this.0.visit_u64(value as u64)
        } else if (I64_START..0.0).contains(&value) {
            this.0.visit_i64(value as i64)
        } else {
            this.0.visit_f64(value)
        }
    }
);

/// A struct's visitor: refuses a sequence, as the schema does.
struct MapOnly<V>(V);

wrapping_visitor!(
    MapOnly,
    |this, _seq| Err(de::Error::invalid_type(de::Unexpected::Seq, &this)),
    |this, value| this.0.visit_f64(value)
);

struct StrictSeed<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for StrictSeed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        self.0.deserialize(Strict(deserializer))
    }
}

struct StrictSeq<A>(A);

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for StrictSeq<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(StrictSeed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

struct StrictMap<A>(A);

impl<'de, A: MapAccess<'de>> MapAccess<'de> for StrictMap<A> {
    type Error = A::Error;

    // A key is text (JSON object keys are strings), never a struct: read as it is, so a
    // map with integer keys reads them the way the format parses them.
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(seed)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.0.next_value_seed(StrictSeed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

struct StrictEnum<A>(A);

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for StrictEnum<A> {
    type Error = A::Error;
    type Variant = StrictVariant<A::Variant>;

    fn variant_seed<S: DeserializeSeed<'de>>(
        self,
        seed: S,
    ) -> Result<(S::Value, Self::Variant), A::Error> {
        let (value, variant) = self.0.variant_seed(StrictSeed(seed))?;
        Ok((value, StrictVariant(variant)))
    }
}

struct StrictVariant<A>(A);

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for StrictVariant<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, A::Error> {
        self.0.newtype_variant_seed(StrictSeed(seed))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Wrap(visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(fields, MapOnly(visitor))
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::Strict;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Point {
        x: i32,
        y: i32,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Line {
        from: Point,
        to: Option<Point>,
        points: Vec<Point>,
    }

    fn strict<T: for<'de> Deserialize<'de>>(json: &str) -> Result<T, serde_json::Error> {
        T::deserialize(Strict(&mut serde_json::Deserializer::from_str(json)))
    }

    #[test]
    fn structs_come_only_from_objects_at_any_depth() {
        assert!(
            serde_json::from_str::<Point>("[1, 2]").is_ok(),
            "plain serde takes arrays"
        );
        assert!(strict::<Point>("[1, 2]").is_err());
        assert!(strict::<Line>(r#"{"from": [1, 2], "to": null, "points": []}"#).is_err());
        assert!(
            strict::<Line>(r#"{"from": {"x": 1, "y": 2}, "to": [1, 2], "points": []}"#).is_err()
        );
        assert!(
            strict::<Line>(r#"{"from": {"x": 1, "y": 2}, "to": null, "points": [[1, 2]]}"#)
                .is_err()
        );
        let line = strict::<Line>(
            r#"{"from": {"x": 1, "y": 2}, "to": {"x": 3, "y": 4}, "points": [{"x": 5, "y": 6}]}"#,
        );
        assert_eq!(line.unwrap().points, [Point { x: 5, y: 6 }]);
        assert!(Point::deserialize(Strict(&json!([1, 2]))).is_err());
        assert!(Point::deserialize(Strict(&json!({"x": 1, "y": 2}))).is_ok());
    }

    #[test]
    fn whole_floats_are_read_as_integers_at_any_depth() {
        assert_eq!(strict::<u32>("5.0").unwrap(), 5);
        assert_eq!(strict::<i8>("-128.0").unwrap(), -128);
        assert_eq!(strict::<u64>("1e3").unwrap(), 1000);
        assert_eq!(strict::<i128>("-7.0").unwrap(), -7);
        assert_eq!(strict::<Option<u16>>("2.0").unwrap(), Some(2));
        assert_eq!(strict::<Vec<i64>>("[1.0, -2.0, 3]").unwrap(), [1, -2, 3]);
        assert_eq!(
            strict::<Point>(r#"{"x": 1.0, "y": -0.0}"#).unwrap(),
            Point { x: 1, y: 0 }
        );
        assert_eq!(u32::deserialize(Strict(&json!(9.0))).unwrap(), 9);
        // A fraction, a value out of the type's range, or beyond 64 bits is still refused.
        assert!(strict::<u32>("5.5").is_err());
        assert!(strict::<u8>("300.0").is_err());
        assert!(strict::<u32>("-1.0").is_err());
        assert!(strict::<u64>("1e20").is_err());
        assert!(strict::<i32>("\"5\"").is_err());
        // Floats and values of any type stay as they were written.
        assert_eq!(strict::<f64>("5.0").unwrap(), 5.0);
        let value: serde_json::Value = strict("{\"n\": 5.0}").unwrap();
        assert!(value["n"].is_f64());
    }

    #[test]
    fn map_keys_are_read_as_the_format_reads_them() {
        use std::collections::BTreeMap;
        let map: BTreeMap<u32, String> = strict(r#"{"1": "a", "22": "b"}"#).unwrap();
        assert_eq!(map[&22], "b");
        let map = BTreeMap::<u32, String>::deserialize(Strict(&json!({"7": "c"}))).unwrap();
        assert_eq!(map[&7], "c");
        assert!(strict::<BTreeMap<u32, String>>(r#"{"x": "a"}"#).is_err());
    }
}
