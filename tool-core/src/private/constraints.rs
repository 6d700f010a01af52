//! What `#[arg]` constraints apply to, and checking them on typed values (the fast path).

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::schema::ToolSchema;
use crate::validate::Keywords;

// `#[arg]` constraints apply to one kind of value each; the generated code asserts the
// argument's type is of that kind, so `minimum` on a `String` fails to compile at the
// `minimum` key.

/// A type whose JSON form is a number.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a number: `minimum`, `maximum`, `exclusive_minimum`, `exclusive_maximum` and `multiple_of` apply to numbers only",
    label = "this constraint needs a numeric argument",
    note = "for strings use `min_length`, `max_length`, `pattern` or `format`; for lists `min_items` and `max_items`"
)]
pub trait NumberLike {
    /// The value as a JSON number; `None` for an absent `Option`.
    fn to_number(&self) -> Option<serde_json::Number>;
}

/// A type whose JSON form is a string.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a string: `min_length`, `max_length`, `pattern` and `format` apply to strings only",
    label = "this constraint needs a string argument",
    note = "for numbers use `minimum`/`maximum`; for lists `min_items`/`max_items`"
)]
pub trait StringLike {
    /// The value as text; `None` for an absent `Option`.
    fn to_text(&self) -> Option<std::borrow::Cow<'_, str>>;
}

/// A type whose JSON form is an array.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a list: `min_items` and `max_items` apply to `Vec`, sets and arrays only",
    label = "this constraint needs a list argument",
    note = "for strings use `min_length`/`max_length`; for numbers `minimum`/`maximum`"
)]
pub trait ArrayLike {
    /// The number of items; `None` for an absent `Option`.
    fn item_count(&self) -> Option<usize>;
}

macro_rules! number_like {
    ($($ty:ty => |$v:ident| $to:expr),* $(,)?) => {$(
        impl NumberLike for $ty {
            fn to_number(&self) -> Option<serde_json::Number> {
                let $v = self;
                $to
            }
        }
    )*};
}

number_like! {
    i8 => |v| Some((*v).into()), i16 => |v| Some((*v).into()), i32 => |v| Some((*v).into()),
    i64 => |v| Some((*v).into()), isize => |v| Some((*v as i64).into()),
    u8 => |v| Some((*v).into()), u16 => |v| Some((*v).into()), u32 => |v| Some((*v).into()),
    u64 => |v| Some((*v).into()), usize => |v| Some((*v as u64).into()),
    i128 => |v| i64::try_from(*v).map(Into::into).ok().or_else(|| serde_json::Number::from_f64(*v as f64)),
    u128 => |v| u64::try_from(*v).map(Into::into).ok().or_else(|| serde_json::Number::from_f64(*v as f64)),
    f32 => |v| serde_json::Number::from_f64(f64::from(*v)),
    f64 => |v| serde_json::Number::from_f64(*v),
    std::num::NonZeroU8 => |v| Some(v.get().into()),
    std::num::NonZeroU16 => |v| Some(v.get().into()),
    std::num::NonZeroU32 => |v| Some(v.get().into()),
    std::num::NonZeroU64 => |v| Some(v.get().into()),
    std::num::NonZeroUsize => |v| Some((v.get() as u64).into()),
}

impl StringLike for String {
    fn to_text(&self) -> Option<std::borrow::Cow<'_, str>> {
        Some(self.as_str().into())
    }
}
impl StringLike for str {
    fn to_text(&self) -> Option<std::borrow::Cow<'_, str>> {
        Some(self.into())
    }
}
impl StringLike for char {
    fn to_text(&self) -> Option<std::borrow::Cow<'_, str>> {
        Some(self.to_string().into())
    }
}
impl StringLike for std::path::PathBuf {
    fn to_text(&self) -> Option<std::borrow::Cow<'_, str>> {
        Some(self.to_string_lossy())
    }
}

macro_rules! array_like {
    ($([$($generics:tt)*] $ty:ty),* $(,)?) => {$(
        impl<$($generics)*> ArrayLike for $ty {
            fn item_count(&self) -> Option<usize> {
                Some(self.len())
            }
        }
    )*};
}

array_like! {
    [T] Vec<T>,
    [T] std::collections::VecDeque<T>,
    [T] [T],
    [T, const N: usize] [T; N],
    [T, S] std::collections::HashSet<T, S>,
    [T] std::collections::BTreeSet<T>,
}

macro_rules! kind_through {
    ($($wrapper:ident),*) => {$(
        impl<T: NumberLike + ?Sized> NumberLike for $wrapper<T> {
            fn to_number(&self) -> Option<serde_json::Number> {
                T::to_number(self)
            }
        }
        impl<T: StringLike + ?Sized> StringLike for $wrapper<T> {
            fn to_text(&self) -> Option<std::borrow::Cow<'_, str>> {
                T::to_text(self)
            }
        }
        impl<T: ArrayLike + ?Sized> ArrayLike for $wrapper<T> {
            fn item_count(&self) -> Option<usize> {
                T::item_count(self)
            }
        }
    )*};
}
use std::rc::Rc;
use std::sync::Arc;
kind_through!(Box, Arc, Rc);
impl<T: NumberLike> NumberLike for Option<T> {
    fn to_number(&self) -> Option<serde_json::Number> {
        self.as_ref().and_then(T::to_number)
    }
}
impl<T: StringLike> StringLike for Option<T> {
    fn to_text(&self) -> Option<std::borrow::Cow<'_, str>> {
        self.as_ref().and_then(T::to_text)
    }
}
impl<T: ArrayLike> ArrayLike for Option<T> {
    fn item_count(&self) -> Option<usize> {
        self.as_ref().and_then(T::item_count)
    }
}

/// The keywords of one argument or field, compiled on first use (`pairs` runs once).
pub fn keywords<I: IntoIterator<Item = (&'static str, Value)>>(
    cell: &'static OnceLock<Keywords>,
    pairs: impl FnOnce() -> I,
) -> &'static Keywords {
    cell.get_or_init(|| {
        let map: Map<String, Value> = pairs()
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
        // The macro checked every keyword at compile time.
        Keywords::compile(&map, true).unwrap_or_default()
    })
}

/// Whether a number meets its keywords (an absent `Option` always does).
pub fn meets_number<T: NumberLike + ?Sized>(value: &T, keywords: &Keywords) -> bool {
    value
        .to_number()
        .is_none_or(|n| keywords.accepts_number(&n))
}

/// Whether a string meets its keywords.
pub fn meets_string<T: StringLike + ?Sized>(value: &T, keywords: &Keywords) -> bool {
    value
        .to_text()
        .is_none_or(|text| keywords.accepts_string(&text))
}

/// Whether a list meets its keywords.
pub fn meets_array<T: ArrayLike + ?Sized>(value: &T, keywords: &Keywords) -> bool {
    value
        .item_count()
        .is_none_or(|count| keywords.accepts_items(count))
}

/// Checks the constraints inside a value's type when the type has a schema; a type
/// without one is reported elsewhere, once (auto-ref picks `NestedConstraints` when it
/// applies).
pub struct ConstraintProbe<'a, T: ?Sized>(pub &'a T);

/// The type has a schema: check what it declares.
pub trait NestedConstraints {
    /// Whether the value meets its type's nested constraints.
    fn meets_nested(&self) -> bool;
}
impl<T: ToolSchema + ?Sized> NestedConstraints for ConstraintProbe<'_, T> {
    fn meets_nested(&self) -> bool {
        self.0.meets_constraints()
    }
}

/// The type has no schema (a compile error reported at the parameter already).
pub trait NoNestedConstraints {
    /// `true`.
    fn meets_nested(&self) -> bool {
        true
    }
}
impl<T: ?Sized> NoNestedConstraints for &ConstraintProbe<'_, T> {}
