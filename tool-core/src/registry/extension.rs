//! Extensions: capabilities that plug into a registry as values, through this one trait
//! (search's `search_tools` and its deferred loading, code mode's `run_code`). The
//! registry holds them as a list (the ones every registry holds, from
//! `crate::standing_extensions`, then the ones added) and asks each what it adds (a
//! built-in tool, made at `build` from the tools' specs), runs that tool through it (the
//! run reads the registry, which no [`Tool`] can hold), and asks it about what only it
//! knows: the
//! tickets it issues and resumes, the tickets its runs leave for their calls' results,
//! which tools a caller may call and how they are listed. It names none of them.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::Value;

use super::{Registry, RegistryError, ToolSettings};
use crate::approval::{ApprovalDecision, ApprovalTicket};
use crate::call::{ToolCall, ToolResult};
use crate::context::Context;
use crate::dialect::Dialect;
use crate::error::ToolError;
use crate::provider::Listing;
use crate::spec::ToolSpec;
use crate::tool::{Prepared, Tool, ToolFuture};

/// A resumption in progress: `None` when the ticket is not the extension's own.
pub(crate) type Resumption<'a> = Pin<Box<dyn Future<Output = Option<ToolResult>> + Send + 'a>>;

/// What an extension sees of the registry being built: the specs of the tools added
/// (built-ins of other extensions left out) and whether a name is one of them. Which
/// parts are read depends on the extensions the features build.
#[allow(dead_code)]
pub(crate) struct Building<'b> {
    pub(crate) specs: Vec<&'b ToolSpec>,
    pub(crate) errors: Vec<RegistryError>,
    pub(crate) unknown: &'b dyn Fn(&str) -> Option<RegistryError>,
}

#[allow(dead_code)]
impl Building<'_> {
    /// Keeps the error for `name` if no tool has it.
    pub(crate) fn require(&mut self, name: &str) {
        if let Some(error) = (self.unknown)(name) {
            self.errors.push(error);
        }
    }
}

/// The built-in tool an extension adds: the tool (its contract and its arguments read;
/// it runs through [`Extension::run`]) and its own settings, which a `configure` of it
/// replaces.
pub(crate) struct BuiltIn {
    pub(crate) tool: Arc<dyn Tool>,
    pub(crate) settings: ToolSettings,
}

/// A capability held by a registry as a value. Every method but `origin`, `build` and
/// `run` has a default that leaves the registry as it would be without the extension.
pub(crate) trait Extension: std::any::Any + Send + Sync {
    /// The builder method that added it, named in errors ("RegistryBuilder::with_code_mode").
    fn origin(&self) -> &'static str;

    /// At `build`, once: the built-in tool it adds (if it adds one), made from the tools
    /// added; what is wrong with them for it goes into `building.errors`.
    fn build(&mut self, building: &mut Building<'_>) -> Option<BuiltIn>;

    /// Runs a call of its built-in tool.
    fn run<'a>(
        &'a self,
        registry: &'a Registry,
        ctx: &'a Context,
        call: &'a ToolCall,
        args: Prepared,
    ) -> ToolFuture<'a>;

    /// Whether it issues approval tickets of its own for calls of its tool (a paused
    /// program's, for a call the program made): a retry of its call may carry a ticket
    /// for another tool's call, and [`Extension::resume`] decides them.
    fn issues_tickets(&self) -> bool {
        false
    }

    /// Resumes a call of its own that waited for approval (a paused program), before the
    /// registry resumes the ticket's call alone: `None` when the ticket is not its own.
    fn resume<'a>(
        &'a self,
        registry: &'a Registry,
        ctx: &'a Context,
        ticket: &'a ApprovalTicket,
        decision: &'a ApprovalDecision,
    ) -> Resumption<'a> {
        let _ = (registry, ctx, ticket, decision);
        Box::pin(std::future::ready(None))
    }

    /// The ticket a run of its tool left for `call`'s result (a program that paused for
    /// a nested call's approval): the tool's outcome has no room for one.
    fn left_ticket(&self, call: &ToolCall) -> Option<Box<ApprovalTicket>> {
        let _ = call;
        None
    }

    /// Whether it makes some caller offered fewer tools than are registered (asked once,
    /// at build: an extension that does not filter is never asked
    /// [`Extension::callable`]).
    fn filters(&self) -> bool {
        false
    }

    /// Whether the caller in `ctx` may call the tool `name` now.
    fn callable(&self, ctx: &Context, name: &str) -> bool {
        let _ = (ctx, name);
        true
    }

    /// Why the caller in `ctx` may not call the tool `name` now, and what to do about
    /// it, for a tool it may see but [`Extension::callable`] refuses.
    fn refusal(&self, ctx: &Context, name: &str) -> Option<ToolError> {
        let _ = (ctx, name);
        None
    }

    /// How the tool `name` is listed to the caller in `ctx` in `dialect`, when the
    /// extension decides it.
    fn listing(&self, ctx: &Context, name: &str, dialect: Dialect) -> Option<Listing> {
        let _ = (ctx, name, dialect);
        None
    }

    /// A definition of its own listed after the tools' in `dialect` (a provider's own
    /// search tool).
    fn definition(&self, dialect: Dialect) -> Option<Value> {
        let _ = dialect;
        None
    }

    /// Whether a call of its built-in tool ends the run (a final result): it runs after
    /// every other call of its batch, so what it checks sees them.
    fn ends_run(&self) -> bool {
        false
    }

    /// At the end of `build`, once, with the registry whole: work that needs every tool,
    /// built-ins included (the search by meaning embeds them); what fails is an error of
    /// the build.
    fn built(&self, registry: &Registry) -> Result<(), RegistryError> {
        let _ = registry;
        Ok(())
    }
}
