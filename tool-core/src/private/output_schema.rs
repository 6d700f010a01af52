//! The schema of a tool's result type, when it has one.

use serde_json::Value;

use crate::schema::{SchemaGenerator, ToolSchema};

/// The output schema of a tool's result type, when it has one: `ToolSchema` types give
/// `Some`, others `None` (chosen by auto-ref, as for errors above).
pub struct OutputSchema<T: ?Sized>(std::marker::PhantomData<T>);

impl<T: ?Sized> OutputSchema<T> {
    /// A probe for `T`.
    pub const fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

impl<T: ?Sized> Default for OutputSchema<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// `T` has a schema.
pub trait HasOutputSchema {
    /// The root schema of the result.
    fn output_schema(&self) -> Option<Value>;
}
impl<T: ToolSchema + ?Sized> HasOutputSchema for OutputSchema<T> {
    fn output_schema(&self) -> Option<Value> {
        Some(SchemaGenerator::root_schema_for::<T>())
    }
}

/// `T` has none.
pub trait NoOutputSchema {
    /// `None`.
    fn output_schema(&self) -> Option<Value> {
        None
    }
}
impl<T: ?Sized> NoOutputSchema for &OutputSchema<T> {}
