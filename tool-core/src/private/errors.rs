//! How a tool's `Err` becomes a `ToolError`.

use std::fmt::Display;

use crate::error::ToolError;

// An `Err` of a tool becomes a `ToolError`: through `Into<ToolError>` when the error type
// has it (keeping the category the tool chose), through `Display` otherwise. The choice is
// made by method resolution on `(&error).__tw_error_kind()`: `ViaToolError` matches `&E`
// by value, `ViaDisplay` only after one more auto-ref, so it loses whenever both apply
// (the same trick as anyhow's `anyhow!`).

/// Marks an error that converts with `Into<ToolError>`.
pub struct ToolErrorTag;
/// Marks an error that converts through `Display`.
pub struct DisplayTag;

/// Selects `Into<ToolError>`.
pub trait ViaToolError {
    /// The tag that converts this error.
    fn __tw_error_kind(&self) -> ToolErrorTag {
        ToolErrorTag
    }
}
impl<E: Into<ToolError>> ViaToolError for E {}

/// Selects `Display`.
pub trait ViaDisplay {
    /// The tag that converts this error.
    fn __tw_error_kind(&self) -> DisplayTag {
        DisplayTag
    }
}
impl<E: Display> ViaDisplay for &E {}

impl ToolErrorTag {
    /// The error, with the category it chose.
    pub fn convert<E: Into<ToolError>>(self, error: E) -> ToolError {
        error.into()
    }
}

impl DisplayTag {
    /// The error as a `failed` error with its message.
    pub fn convert<E: Display>(self, error: E) -> ToolError {
        ToolError::failed(error.to_string())
    }
}
