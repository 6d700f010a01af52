//! A call whose process died after it started and before it recorded how it ended: in
//! doubt. Its tool's effect decides what becomes of it, wherever the call was kept (a
//! task in the store, a durable engine's journal): run it again where that cannot
//! repeat an effect, ask the tool's reconciliation where it has one, else report
//! "outcome unknown" and never run it a second time.

use crate::call::{ToolCall, ToolResult};
use crate::context::Context;
use crate::effect::Effect;
use crate::error::{ErrorKind, ToolError};
use crate::registry::Registry;
use crate::spec::Idempotence;
use crate::tool::{CallInfo, Reconciled, ToolOutcome};

/// What becomes of a call in doubt.
pub(crate) enum InDoubt {
    /// It runs (again): it has no effect to repeat, or its idempotency key answers a
    /// second run with the first's outcome.
    Run,
    /// Its tool's reconciliation decides ([`reconciled`]).
    Reconcile,
    /// It fails, with why.
    Fail(String),
}

/// What becomes of `call`, which started and did not record its end. `decided`: the call
/// was a person's decision on a ticket (a reconciliation is asked only of plain calls).
pub(crate) fn verdict(
    registry: &Registry,
    ctx: &Context,
    call: &ToolCall,
    decided: bool,
) -> InDoubt {
    let Some(tool) = registry.get(&call.name) else {
        return InDoubt::Fail(format!(
            "outcome unknown: the process running this call of '{}' stopped, and this server no longer serves the tool; the call may have happened: check before you call again",
            call.name
        ));
    };
    let spec = tool.spec();
    let again = spec.effect == Effect::ReadOnly
        || spec.idempotence == Idempotence::Idempotent
        || spec.needs_idempotency_key(spec.effect);
    if again {
        return InDoubt::Run;
    }
    let can_reconcile = !decided
        && registry.prepare_call(call).is_ok_and(|(tool, prepared)| {
            (tool.hooks()).is_some_and(|hooks| {
                hooks
                    .reconcile(ctx, unkeyed(registry, &call.id), &prepared)
                    .is_some()
            })
        });
    if can_reconcile {
        InDoubt::Reconcile
    } else {
        InDoubt::Fail(format!(
            "outcome unknown: the process running this call of '{}' stopped before it recorded how the call ended, so the call may have happened; check before you call again",
            call.name
        ))
    }
}

/// The call, decided by its tool's reconciliation: the result it had if it happened, the
/// call run now if it did not, "outcome unknown" with the reason if the world cannot say.
pub(crate) async fn reconciled(registry: &Registry, ctx: &Context, call: ToolCall) -> ToolResult {
    let outcome = match ask(registry, ctx, &call).await {
        Err(error) => Err(error),
        Ok(Reconciled::Happened(outcome)) => outcome,
        Ok(Reconciled::DidNotHappen) => return registry.dispatch(ctx, call).await,
        Ok(Reconciled::Unknown(why)) => Err(unknown(&call.name, &why)),
    };
    finished(registry, call, outcome)
}

/// What `call`'s tool answers when asked whether the call took effect; an error when
/// the call cannot be read, or its tool has no reconciliation.
pub(crate) async fn ask(
    registry: &Registry,
    ctx: &Context,
    call: &ToolCall,
) -> Result<Reconciled, ToolError> {
    let (tool, prepared) = registry.prepare_call(call)?;
    match (tool.hooks()).and_then(|h| h.reconcile(ctx, unkeyed(registry, &call.id), &prepared)) {
        None => Err(unknown(&call.name, "it has no reconciliation")),
        Some(asking) => Ok(asking.await),
    }
}

/// `call` ended with `outcome`, decided without running it.
pub(crate) fn finished(registry: &Registry, call: ToolCall, outcome: ToolOutcome) -> ToolResult {
    let notes = super::Notes {
        entry: registry.entry(&call.name),
        ..Default::default()
    };
    registry.finish((call.id, call.name, call.program), outcome, notes)
}

/// What a call without an idempotency claim tells its reconciliation.
fn unkeyed<'a>(registry: &'a Registry, id: &'a str) -> CallInfo<'a> {
    CallInfo {
        id,
        idempotency_key: None,
        approved: false,
        tasks: registry.settings.idempotency.store().tasks(),
    }
}

pub(crate) fn unknown(tool: &str, why: &str) -> ToolError {
    ToolError::new(
        ErrorKind::OutcomeUnknown,
        format!(
            "the process running this call of '{tool}' stopped before it recorded how the call ended, and asking the world did not settle it ({why}); the call may have happened: check before you call again"
        ),
    )
    .with_retryable(false)
}
