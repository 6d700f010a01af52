//! The example tools, shared by the examples and the tests, so every schema a reader
//! sees in the examples is also reviewed in `tests/snapshots/`:
//!
//! - `basics`: a notes store and a unit converter;
//! - `payments`: a payments desk (lookup, refunds with scopes, approval and idempotency);
//! - `coding`: a coding agent's tools, confined to a workspace;
//! - `tasks`: calls that may outlive their request (a slow report, a payout that may
//!   wait for approval, a cancellation that cannot be undone).

#![allow(dead_code, unused_imports)] // each example and test uses a different part of these tools

pub mod basics;
pub mod coding;
pub mod payments;
pub mod tasks;

pub use basics::*;
pub use payments::*;

/// Every example tool in one registry (the payments desk, notes, the converter, the
/// coding tools, the tools that may run as tasks), with `policy`: what the dialect snapshots and the real-client tests
/// cover.
pub fn every_example_tool(
    policy: impl toolwright::policy::Policy + 'static,
) -> toolwright::RegistryBuilder {
    toolwright::Registry::builder()
        .defaults(toolwright::ToolSettings::new().policy(policy))
        .with_toolset(PaymentsDesk::shared())
        .with(SaveNote)
        .with(SearchNotes)
        .with(ConvertTemperature)
        .with(coding::ListDir)
        .with(coding::ReadFile)
        .with(coding::SearchFiles)
        .with(coding::EditFile)
        .with(coding::ApplyPatch)
        .with(coding::UndoEdit)
        .with(coding::WriteFile)
        .with(coding::RunCommand)
        .with(coding::ReadEnv)
        .with(tasks::BuildReport)
        .with(tasks::SendPayout)
        .with(tasks::CancelSubscription)
        .with(tasks::CloseAccount)
        .with_final_result(coding::final_report())
}
