//! The example tools, shared by the examples and the tests, so every schema a reader
//! sees in the examples is also reviewed in `tests/snapshots/`:
//!
//! - `basics`: a notes store and a unit converter;
//! - `payments`: a payments desk (lookup, refunds with scopes, approval and idempotency);
//! - `coding`: a coding agent's tools, confined to a workspace.

#![allow(dead_code, unused_imports)] // each example and test uses a different part of these tools

pub mod basics;
pub mod coding;
pub mod payments;

pub use basics::*;
pub use payments::*;
