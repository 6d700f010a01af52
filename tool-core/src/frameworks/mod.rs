//! toolwright tools inside the agent frameworks Rust users already run, one module and
//! one cargo feature per framework: `rig`, `async_openai`, `genai`, `swiftide`.
//!
//! Each is a thin translation and nothing more: the tools a caller is offered come from
//! [`Registry::definitions`] in the dialect the framework speaks, and every call goes
//! through [`Registry::dispatch`] (or [`Registry::dispatch_batch`]), so validation with
//! every problem at once, effects, policies, idempotency, approval tickets, budgets and
//! telemetry hold exactly as they do without a framework. What the model reads back is
//! toolwright's model view ([`ToolResult::for_model`]), never a Rust `Display`.
//!
//! This file holds what the four share: a response's calls answered; `offered.rs` the
//! offered tools as name, description and parameters (rig, genai, swiftide), `runner.rs`
//! the dispatch and the calls waiting for a person of the adapters that run the tools
//! themselves (rig, swiftide).

#[cfg(feature = "async-openai")]
pub mod async_openai;
#[cfg(feature = "genai")]
pub mod genai;
#[cfg(feature = "rig")]
pub mod rig;
#[cfg(feature = "swiftide")]
pub mod swiftide;
crate::cfg_framework_offered! {
    mod offered;
}
crate::cfg_framework_runner! {
    mod runner;
    pub use runner::PendingApprovals;
    pub(crate) use runner::Runner;
}

#[cfg(doc)]
use crate::registry::Registry;
use crate::call::ToolResult;

/// A response's calls, answered: the results (with their errors, effects and approval
/// tickets, for the host) and the framework's messages that carry them back to the
/// model, one per call, in the calls' order.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Answered<M> {
    /// Every call's result. A call that waits for approval has its ticket here.
    pub results: Vec<ToolResult>,
    /// What to append to the conversation.
    pub messages: Vec<M>,
}
