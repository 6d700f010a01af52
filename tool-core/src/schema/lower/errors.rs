//! What a lowering refuses: one error per construct a target cannot express, and the
//! list of them (an `Error`, so `?` carries it out of `main`).

use std::fmt;

use serde::Serialize;

use super::Target;

/// A construct a target cannot express.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct LoweringError {
    /// The tool.
    pub tool: String,
    /// JSON pointer of the construct in the tool's canonical schema (`/properties/x`).
    pub path: String,
    /// The target.
    pub target: Target,
    /// What cannot be expressed, and what to do instead.
    pub reason: String,
}

impl fmt::Display for LoweringError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            &self.path
        };
        write!(
            f,
            "tool '{}' at {path}: {} cannot express this: {}",
            self.tool, self.target, self.reason
        )
    }
}

impl std::error::Error for LoweringError {}

/// Every construct, in every tool, that a target cannot express. An
/// [`Error`](std::error::Error), so `registry.all_definitions(dialect)?` works in a `main`
/// returning `Box<dyn Error>` or `anyhow::Result`; it reads as the list of
/// [`LoweringError`]s (`errors.len()`, `errors.iter()`, `for error in errors`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct LoweringErrors(Vec<LoweringError>);

impl LoweringErrors {
    /// The errors, one per construct.
    pub fn into_vec(self) -> Vec<LoweringError> {
        self.0
    }
}

impl From<Vec<LoweringError>> for LoweringErrors {
    fn from(errors: Vec<LoweringError>) -> Self {
        LoweringErrors(errors)
    }
}

impl std::ops::Deref for LoweringErrors {
    type Target = [LoweringError];

    fn deref(&self) -> &[LoweringError] {
        &self.0
    }
}

impl IntoIterator for LoweringErrors {
    type Item = LoweringError;
    type IntoIter = std::vec::IntoIter<LoweringError>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a LoweringErrors {
    type Item = &'a LoweringError;
    type IntoIter = std::slice::Iter<'a, LoweringError>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl fmt::Display for LoweringErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_slice() {
            [one] => one.fmt(f),
            all => {
                write!(f, "{} constructs cannot be expressed:", all.len())?;
                all.iter().try_for_each(|error| write!(f, "\n  {error}"))
            }
        }
    }
}

impl std::error::Error for LoweringErrors {}
