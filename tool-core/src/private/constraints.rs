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
    note = "for strings use `min_length`, `max_length`, `pattern` or `format`; for lists `min_items` and `max_items`, and `items(...)` for what each item must meet: `#[arg(items(minimum = 1))]`"
)]
pub trait NumberLike {
    /// The value as a JSON number; `None` for an absent `Option`.
    fn to_number(&self) -> Option<serde_json::Number>;

    /// The value as an exact integer, when it is one.
    #[inline]
    fn to_integer(&self) -> Integer {
        match self.to_number() {
            None => Integer::Absent,
            Some(n) => crate::validate::json::as_i128(&n).map_or(Integer::Other, Integer::Exact),
        }
    }

    // The generated code calls the checks through the trait (`NumberLike::within(..)`),
    // so a value of another kind is reported at the constraint alone, with no note
    // about a bound of a function in `__private`.

    /// [`number_within`].
    #[inline]
    fn within(&self, minimum: i128, maximum: i128) -> bool {
        number_within(self, minimum, maximum)
    }

    /// [`meets_number`].
    #[inline]
    fn meets(&self, keywords: &Keywords) -> bool {
        meets_number(self, keywords)
    }

    /// A number constraint beside another kind's: never true of one type, so this
    /// bound fails at the constraint that does not fit.
    #[inline]
    fn is_kind(&self) -> bool {
        true
    }
}

/// A number as [`number_within`] compares it.
pub enum Integer {
    /// An absent `Option`.
    Absent,
    /// An integer.
    Exact(i128),
    /// A number that is not an integer (or is beyond `i128`).
    Other,
}

/// A type whose JSON form is a string.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a string: `min_length`, `max_length`, `pattern` and `format` apply to strings only",
    label = "this constraint needs a string argument",
    note = "for numbers use `minimum`/`maximum`; for lists `min_items`/`max_items`, and `items(...)` for what each item must meet: `#[arg(max_items = 3, items(format = \"email\"))]`"
)]
pub trait StringLike {
    /// The value as text; `None` for an absent `Option`.
    fn to_text(&self) -> Option<std::borrow::Cow<'_, str>>;

    /// [`meets_string`] (called through the trait: see [`NumberLike::within`]).
    #[inline]
    fn meets(&self, keywords: &Keywords) -> bool {
        meets_string(self, keywords)
    }

    /// See [`NumberLike::is_kind`].
    #[inline]
    fn is_kind(&self) -> bool {
        true
    }
}

/// A type whose JSON form is an array.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a list: `min_items`, `max_items` and `items(...)` apply to `Vec`, sets and arrays only",
    label = "this constraint needs a list argument",
    note = "for strings use `min_length`/`max_length`; for numbers `minimum`/`maximum`"
)]
pub trait ArrayLike {
    /// The type of an item.
    type Item: ?Sized;

    /// The number of items; `None` for an absent `Option`.
    fn item_count(&self) -> Option<usize>;

    /// Whether `check` holds for every item (an absent `Option` has none).
    fn every_item(&self, check: &mut dyn FnMut(&Self::Item) -> bool) -> bool;

    /// [`meets_array`] (called through the trait: see [`NumberLike::within`]).
    #[inline]
    fn meets(&self, keywords: &Keywords) -> bool {
        meets_array(self, keywords)
    }

    /// Whether every item meets `check`: `#[arg(items(...))]`.
    #[inline]
    fn each_item(&self, check: impl Fn(&Self::Item) -> bool) -> bool {
        self.every_item(&mut |item| check(item))
    }

    /// See [`NumberLike::is_kind`].
    #[inline]
    fn is_kind(&self) -> bool {
        true
    }
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

/// Integer types: their value is the integer itself, with no JSON number made.
macro_rules! integer_like {
    ($($ty:ty => |$v:ident| $to:expr),* $(,)?) => {$(
        impl NumberLike for $ty {
            fn to_number(&self) -> Option<serde_json::Number> {
                let $v = self;
                Some($to.into())
            }

            #[inline]
            fn to_integer(&self) -> Integer {
                let $v = self;
                Integer::Exact(i128::from($to))
            }
        }
    )*};
}

integer_like! {
    i8 => |v| *v, i16 => |v| *v, i32 => |v| *v, i64 => |v| *v, isize => |v| *v as i64,
    u8 => |v| *v, u16 => |v| *v, u32 => |v| *v, u64 => |v| *v, usize => |v| *v as u64,
    std::num::NonZeroU8 => |v| v.get(),
    std::num::NonZeroU16 => |v| v.get(),
    std::num::NonZeroU32 => |v| v.get(),
    std::num::NonZeroU64 => |v| v.get(),
    std::num::NonZeroUsize => |v| v.get() as u64,
}

number_like! {
    i128 => |v| i64::try_from(*v).map(Into::into).ok().or_else(|| serde_json::Number::from_f64(*v as f64)),
    u128 => |v| u64::try_from(*v).map(Into::into).ok().or_else(|| serde_json::Number::from_f64(*v as f64)),
    f32 => |v| serde_json::Number::from_f64(f64::from(*v)),
    f64 => |v| serde_json::Number::from_f64(*v),
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
            type Item = T;

            fn item_count(&self) -> Option<usize> {
                Some(self.len())
            }

            fn every_item(&self, check: &mut dyn FnMut(&T) -> bool) -> bool {
                self.iter().all(check)
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

            #[inline]
            fn to_integer(&self) -> Integer {
                T::to_integer(self)
            }
        }
        impl<T: StringLike + ?Sized> StringLike for $wrapper<T> {
            fn to_text(&self) -> Option<std::borrow::Cow<'_, str>> {
                T::to_text(self)
            }
        }
        impl<T: ArrayLike + ?Sized> ArrayLike for $wrapper<T> {
            type Item = T::Item;

            fn item_count(&self) -> Option<usize> {
                T::item_count(self)
            }

            fn every_item(&self, check: &mut dyn FnMut(&T::Item) -> bool) -> bool {
                T::every_item(self, check)
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

    #[inline]
    fn to_integer(&self) -> Integer {
        match self {
            Some(value) => value.to_integer(),
            None => Integer::Absent,
        }
    }
}
impl<T: StringLike> StringLike for Option<T> {
    fn to_text(&self) -> Option<std::borrow::Cow<'_, str>> {
        self.as_ref().and_then(T::to_text)
    }
}
impl<T: ArrayLike> ArrayLike for Option<T> {
    type Item = T::Item;

    fn item_count(&self) -> Option<usize> {
        self.as_ref().and_then(T::item_count)
    }

    fn every_item(&self, check: &mut dyn FnMut(&T::Item) -> bool) -> bool {
        self.as_ref().is_none_or(|list| list.every_item(check))
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

/// Whether a number is within `[minimum, maximum]`: `#[arg(minimum, maximum)]` with
/// integer bounds, the common case (an absent bound is `i128::MIN` or `i128::MAX`). Two
/// comparisons for an integer, and no keywords compiled; the same answer as
/// [`Keywords::accepts_number`] for those keywords.
#[inline]
pub fn number_within<T: NumberLike + ?Sized>(value: &T, minimum: i128, maximum: i128) -> bool {
    match value.to_integer() {
        Integer::Absent => true,
        Integer::Exact(n) => minimum <= n && n <= maximum,
        Integer::Other => value
            .to_number()
            .is_none_or(|n| other_number_within(&n, minimum, maximum)),
    }
}

/// [`number_within`] for a number that is not an integer, compared as the validator
/// compares it.
fn other_number_within(n: &serde_json::Number, minimum: i128, maximum: i128) -> bool {
    use crate::validate::json::compare_numbers;
    use std::cmp::Ordering::{Greater, Less};
    let bound = |b: i128| {
        i64::try_from(b)
            .map(serde_json::Number::from)
            .or_else(|_| u64::try_from(b).map(serde_json::Number::from))
            .ok()
    };
    let above =
        minimum == i128::MIN || bound(minimum).is_none_or(|b| compare_numbers(n, &b) != Some(Less));
    let below = maximum == i128::MAX
        || bound(maximum).is_none_or(|b| compare_numbers(n, &b) != Some(Greater));
    above && below
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

/// The keywords of `#[arg(items(...))]` as one object, merged into the list's `items`.
pub fn keyword_object(pairs: Vec<(&'static str, Value)>) -> Value {
    Value::Object(pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
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

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::{NumberLike, number_within};
    use crate::validate::Keywords;

    /// `number_within` (two comparisons, no keywords) says yes exactly when the compiled
    /// keywords do, for integers of every width, floats, absent values and bounds at the
    /// edges of `i64` and `u64`.
    #[test]
    fn integer_bounds_agree_with_the_keywords() {
        let bounds: [(Option<i128>, Option<i128>); 6] = [
            (Some(0), Some(23)),
            (Some(-5), None),
            (None, Some(7)),
            (Some(15), Some(15)),
            (Some(i128::from(i64::MIN)), Some(-1)),
            (Some(1), Some(i128::from(u64::MAX))),
        ];
        for (minimum, maximum) in bounds {
            let mut schema = Map::new();
            if let Some(minimum) = minimum {
                schema.insert("minimum".into(), json_integer(minimum));
            }
            if let Some(maximum) = maximum {
                schema.insert("maximum".into(), json_integer(maximum));
            }
            let keywords = Keywords::compile(&schema, true).unwrap();
            let agree = |value: &dyn NumberLikeDyn| {
                let fast = value.within(minimum.unwrap_or(i128::MIN), maximum.unwrap_or(i128::MAX));
                let slow = value.number().is_none_or(|n| keywords.accepts_number(&n));
                assert_eq!(
                    fast,
                    slow,
                    "{:?} in {minimum:?}..={maximum:?}",
                    value.number()
                );
            };
            for n in [-6_i64, -5, -1, 0, 1, 7, 8, 15, 23, 24, i64::MIN, i64::MAX] {
                agree(&n);
                agree(&Some(n));
                agree(&(n as f64));
                agree(&(n as f64 + 0.5));
            }
            for n in [0_u8, 23, 24, 255] {
                agree(&n);
            }
            for n in [u64::MAX, u64::MAX - 1] {
                agree(&n);
            }
            agree(&(u128::from(u64::MAX) + 1));
            agree(&None::<u32>);
            agree(&f64::MAX);
            agree(&-f64::MAX);
        }
    }

    fn json_integer(n: i128) -> Value {
        match i64::try_from(n) {
            Ok(n) => json!(n),
            Err(_) => json!(u64::try_from(n).unwrap()),
        }
    }

    /// A `NumberLike` value behind a reference the test can hold in one list.
    trait NumberLikeDyn {
        fn within(&self, minimum: i128, maximum: i128) -> bool;
        fn number(&self) -> Option<serde_json::Number>;
    }

    impl<T: NumberLike> NumberLikeDyn for T {
        fn within(&self, minimum: i128, maximum: i128) -> bool {
            number_within(self, minimum, maximum)
        }
        fn number(&self) -> Option<serde_json::Number> {
            self.to_number()
        }
    }
}
