//! Policy: before anything runs, allow, deny (with a reason) or ask a person, from the
//! tool's effect, its scopes and the caller's credentials.

use std::collections::BTreeSet;

use crate::effect::Effect;
use crate::spec::ToolSpec;
use crate::tool::Arguments;

/// Who is calling: put one in the [`Context`](crate::context::Context) and policies and scope
/// checks read it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caller {
    /// An id for logs and policies.
    pub id: String,
    /// The scopes the caller holds (`payments:write`).
    pub scopes: BTreeSet<String>,
}

impl Caller {
    /// A caller holding `scopes`.
    pub fn new(id: impl Into<String>, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self {
            id: id.into(),
            scopes: scopes.into_iter().map(Into::into).collect(),
        }
    }
}

/// What a policy decided.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// Run the call.
    Allow,
    /// Do not run it.
    Deny {
        /// Why, for the model and the logs.
        reason: String,
        /// Whether asking again (later, or after the user acts) can help.
        retry_may_help: bool,
    },
    /// Ask a person first: the call pauses with an approval ticket.
    Ask {
        /// What the person is asked, and why.
        reason: String,
    },
}

impl Decision {
    /// A denial.
    pub fn deny(reason: impl Into<String>) -> Self {
        Decision::Deny {
            reason: reason.into(),
            retry_may_help: false,
        }
    }

    /// A request for approval.
    pub fn ask(reason: impl Into<String>) -> Self {
        Decision::Ask {
            reason: reason.into(),
        }
    }
}

/// What a policy sees of a call. The arguments have been validated already: nobody is
/// asked to approve a malformed call.
#[derive(Debug, Clone, Copy)]
pub struct PolicyRequest<'a> {
    /// The tool's contract.
    pub tool: &'a ToolSpec,
    /// The effect of this call (classified, for a dynamic tool).
    pub effect: Effect,
    /// The call's validated arguments, as they arrived.
    pub arguments: Arguments<'a>,
    /// The caller, when the context has one.
    pub caller: Option<&'a Caller>,
    /// The call's id.
    pub call_id: &'a str,
}

/// Decides whether a call runs. Implement it, or pass a closure
/// `|request: &PolicyRequest<'_>| Decision::Allow`. A policy that returns an error or
/// panics denies the call (fails closed).
pub trait Policy: Send + Sync {
    /// The decision for `request`.
    fn decide(&self, request: &PolicyRequest<'_>) -> Result<Decision, String>;
}

impl<F: Fn(&PolicyRequest<'_>) -> Decision + Send + Sync> Policy for F {
    fn decide(&self, request: &PolicyRequest<'_>) -> Result<Decision, String> {
        Ok(self(request))
    }
}

/// The default policy, from the effect table: `read_only` and `write` run, `destructive`
/// and `external` ask a person.
#[derive(Debug, Clone, Copy, Default)]
pub struct EffectPolicy;

impl Policy for EffectPolicy {
    fn decide(&self, request: &PolicyRequest<'_>) -> Result<Decision, String> {
        Ok(match request.effect {
            Effect::ReadOnly | Effect::Write => Decision::Allow,
            Effect::Destructive => Decision::ask(format!(
                "'{}' makes a change that cannot be undone",
                request.tool.name
            )),
            Effect::External | Effect::Dynamic => {
                Decision::ask(format!("'{}' acts on the outside world", request.tool.name))
            }
        })
    }
}

/// Policies that allow everything (for tests and trusted batch jobs).
#[derive(Debug, Clone, Copy, Default)]
pub struct AllowAll;

impl Policy for AllowAll {
    fn decide(&self, _: &PolicyRequest<'_>) -> Result<Decision, String> {
        Ok(Decision::Allow)
    }
}

/// The policy for an MCP server whose host asks its user before every call: Claude
/// Desktop, Claude Code, Cursor and VS Code show each tool call (with the tool's
/// `destructiveHint` and `openWorldHint`, which toolwright sends from the effect) and run
/// it only once the person agrees. Every call is allowed here, since the person already
/// said yes; scopes and visibility still apply.
///
/// Under the default [`EffectPolicy`], a destructive or external tool answers
/// `awaiting_approval` with a ticket such a host has no way to resume, so the call never
/// completes. `.defaults(ToolSettings::new().policy(HostConfirms))` on the registry's builder is the one line that fits these
/// hosts. Keep the default where nobody confirms (a model running unattended, a client
/// of your own that resumes tickets, or [`McpServer::with_client_approval`] on
/// 2026-07-28 clients that ask through elicitation).
///
/// [`McpServer::with_client_approval`]: https://docs.rs/toolwright/latest/toolwright/mcp/struct.McpServer.html#method.with_client_approval
#[derive(Debug, Clone, Copy, Default)]
pub struct HostConfirms;

impl Policy for HostConfirms {
    fn decide(&self, _: &PolicyRequest<'_>) -> Result<Decision, String> {
        Ok(Decision::Allow)
    }
}

/// A visibility rule for [`RegistryBuilder::with_visibility`](crate::RegistryBuilder::with_visibility):
/// a tool is offered to a caller holding every scope it needs (`#[tool(scopes = [...])]`),
/// and a context without a [`Caller`] sees only the tools that need none.
pub fn caller_holds_scopes(ctx: &crate::Context, spec: &ToolSpec) -> bool {
    missing_scopes(spec, ctx.get::<Caller>()).is_empty()
}

/// The scopes `spec` needs that `caller` lacks.
pub(crate) fn missing_scopes<'a>(spec: &'a ToolSpec, caller: Option<&Caller>) -> Vec<&'a str> {
    spec.scopes
        .iter()
        .filter(|scope| caller.is_none_or(|caller| !caller.scopes.contains(*scope)))
        .map(String::as_str)
        .collect()
}
