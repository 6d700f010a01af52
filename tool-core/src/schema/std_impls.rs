//! `ToolSchema` for the std types (the table: `toolwright::reference::types`).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::num::{NonZeroU8, NonZeroU16, NonZeroU32, NonZeroU64, NonZeroUsize};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use serde_json::{Value, json};

use super::{SchemaGenerator, ToolSchema, nullable};

/// Integers beyond ±2^53 cannot round-trip through every JSON parser (JavaScript's
/// numbers are f64), so only bounds inside that range are written into the schema.
const MAX_SAFE_INTEGER: i128 = (1 << 53) - 1;

fn integer(min: i128, max: i128) -> Value {
    let mut schema = json!({"type": "integer"});
    if min.abs() <= MAX_SAFE_INTEGER {
        schema["minimum"] = json!(min as i64);
    }
    if max <= MAX_SAFE_INTEGER {
        schema["maximum"] = json!(max as i64);
    }
    schema
}

macro_rules! integer_schema {
    ($($ty:ty => $min:expr, $max:expr;)*) => {$(
        impl ToolSchema for $ty {
            fn tool_schema(_: &mut SchemaGenerator) -> Value {
                integer($min as i128, $max as i128)
            }
        }
    )*};
}

integer_schema! {
    i8 => i8::MIN, i8::MAX;
    i16 => i16::MIN, i16::MAX;
    i32 => i32::MIN, i32::MAX;
    i64 => i64::MIN, i64::MAX;
    isize => isize::MIN, isize::MAX;
    u8 => 0, u8::MAX;
    u16 => 0, u16::MAX;
    u32 => 0, u32::MAX;
    u64 => 0, u64::MAX;
    usize => 0, usize::MAX;
    NonZeroU8 => 1, u8::MAX;
    NonZeroU16 => 1, u16::MAX;
    NonZeroU32 => 1, u32::MAX;
    NonZeroU64 => 1, u64::MAX;
    NonZeroUsize => 1, usize::MAX;
}

impl ToolSchema for i128 {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({"type": "integer"})
    }
}

impl ToolSchema for u128 {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({"type": "integer", "minimum": 0})
    }
}

impl ToolSchema for f32 {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({"type": "number"})
    }
}

impl ToolSchema for f64 {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({"type": "number"})
    }
}

impl ToolSchema for bool {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({"type": "boolean"})
    }
}

impl ToolSchema for char {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({"type": "string", "minLength": 1, "maxLength": 1})
    }
}

impl ToolSchema for String {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({"type": "string"})
    }
}

impl ToolSchema for str {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({"type": "string"})
    }
}

impl ToolSchema for PathBuf {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({"type": "string"})
    }
}

/// Any JSON value.
impl ToolSchema for Value {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({})
    }
}

/// Any JSON object.
impl ToolSchema for serde_json::Map<String, Value> {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({"type": "object"})
    }
}

impl ToolSchema for () {
    fn tool_schema(_: &mut SchemaGenerator) -> Value {
        json!({"type": "null"})
    }
}

/// Absent or `null` both read as `None`, so the schema admits `null` and the argument
/// is not required.
impl<T: ToolSchema> ToolSchema for Option<T> {
    fn tool_schema(generator: &mut SchemaGenerator) -> Value {
        nullable(generator.subschema_for::<T>())
    }
    const OPTIONAL: bool = true;
    fn meets_constraints(&self) -> bool {
        self.as_ref().is_none_or(T::meets_constraints)
    }
}

macro_rules! transparent_schema {
    ($($ty:ident),*) => {$(
        impl<T: ToolSchema + ?Sized> ToolSchema for $ty<T> {
            fn tool_schema(generator: &mut SchemaGenerator) -> Value {
                T::tool_schema(generator)
            }
            fn schema_name() -> Option<std::borrow::Cow<'static, str>> {
                T::schema_name()
            }
            fn schema_id() -> std::borrow::Cow<'static, str> {
                T::schema_id()
            }
            const OPTIONAL: bool = T::OPTIONAL;
            fn meets_constraints(&self) -> bool {
                T::meets_constraints(self)
            }
        }
    )*};
}

transparent_schema!(Box, Arc, Rc);

pub(super) fn array(items: Value) -> Value {
    json!({"type": "array", "items": items})
}

impl<T: ToolSchema> ToolSchema for Vec<T> {
    fn tool_schema(generator: &mut SchemaGenerator) -> Value {
        array(generator.subschema_for::<T>())
    }
    fn meets_constraints(&self) -> bool {
        self.iter().all(T::meets_constraints)
    }
}

impl<T: ToolSchema> ToolSchema for VecDeque<T> {
    fn tool_schema(generator: &mut SchemaGenerator) -> Value {
        array(generator.subschema_for::<T>())
    }
    fn meets_constraints(&self) -> bool {
        self.iter().all(T::meets_constraints)
    }
}

impl<T: ToolSchema> ToolSchema for [T] {
    fn tool_schema(generator: &mut SchemaGenerator) -> Value {
        array(generator.subschema_for::<T>())
    }
    fn meets_constraints(&self) -> bool {
        self.iter().all(T::meets_constraints)
    }
}

impl<T: ToolSchema, const N: usize> ToolSchema for [T; N] {
    fn tool_schema(generator: &mut SchemaGenerator) -> Value {
        let mut schema = array(generator.subschema_for::<T>());
        schema["minItems"] = json!(N);
        schema["maxItems"] = json!(N);
        schema
    }
    fn meets_constraints(&self) -> bool {
        self.iter().all(T::meets_constraints)
    }
}

pub(super) fn set(items: Value) -> Value {
    json!({"type": "array", "items": items, "uniqueItems": true})
}

impl<T: ToolSchema, S> ToolSchema for HashSet<T, S> {
    fn tool_schema(generator: &mut SchemaGenerator) -> Value {
        set(generator.subschema_for::<T>())
    }
    fn meets_constraints(&self) -> bool {
        self.iter().all(T::meets_constraints)
    }
}

impl<T: ToolSchema> ToolSchema for BTreeSet<T> {
    fn tool_schema(generator: &mut SchemaGenerator) -> Value {
        set(generator.subschema_for::<T>())
    }
    fn meets_constraints(&self) -> bool {
        self.iter().all(T::meets_constraints)
    }
}

/// A type that JSON can use as an object key: JSON object keys are always strings.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a map key in a tool argument: JSON object keys are strings",
    label = "use `String` as the key type",
    note = "write `HashMap<String, V>` or `BTreeMap<String, V>`, or a `Vec` of key/value structs"
)]
pub trait MapKey {}

impl MapKey for String {}
impl MapKey for Box<str> {}
impl MapKey for Arc<str> {}

pub(super) fn map(values: Value) -> Value {
    json!({"type": "object", "additionalProperties": values})
}

impl<K: MapKey, V: ToolSchema, S> ToolSchema for HashMap<K, V, S> {
    fn tool_schema(generator: &mut SchemaGenerator) -> Value {
        map(generator.subschema_for::<V>())
    }
    fn meets_constraints(&self) -> bool {
        self.values().all(V::meets_constraints)
    }
}

impl<K: MapKey, V: ToolSchema> ToolSchema for BTreeMap<K, V> {
    fn tool_schema(generator: &mut SchemaGenerator) -> Value {
        map(generator.subschema_for::<V>())
    }
    fn meets_constraints(&self) -> bool {
        self.values().all(V::meets_constraints)
    }
}
