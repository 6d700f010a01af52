//! The idempotency claim around a run: a call with side effects that must not happen
//! twice claims its key before the tool runs, keeps the claim's lease alive while it
//! runs, and records how it ended (see `crate::idempotency` for the contract).

use serde_json::Value;

use super::Run;
use crate::approval::digest;
use crate::call::ToolCall;
use crate::effect::Effect;
use crate::error::{ErrorKind, ToolError};
use crate::idempotency::{Claim, ClaimRequest, Settlement, StoredOutcome, scoped_key};
use crate::policy::Caller;
use crate::registry::Registry;
use crate::tool::ToolOutcome;

impl Registry {
    /// Claims `claim` for a call of `tool`. An attempt in flight with the same key is
    /// waited for, within the call's own time limit (`limit`). `what` names the key in
    /// messages.
    pub(crate) async fn claim(
        &self,
        claim: &ClaimKey,
        tool: &str,
        limit: Option<std::time::Duration>,
        what: &str,
    ) -> Result<(), Held> {
        let settings = &self.settings.idempotency;
        let store = settings.store();
        let request = ClaimRequest {
            key: &claim.key,
            digest: &claim.digest,
            tool,
            lease: settings.lease,
            retention: settings.retention_for_store(),
        };
        let wait = limit.map_or(settings.wait, |limit| limit.min(settings.wait));
        let mut started = None;
        let mut pause = std::time::Duration::from_millis(5);
        loop {
            let refusal = match store.claim(request).await {
                Ok(Claim::Claimed) => return Ok(()),
                Ok(Claim::Done(stored)) => return Err(Held::Done(stored)),
                Ok(Claim::Mismatch { tool: first }) => ToolError::new(
                    ErrorKind::Conflict,
                    format!(
                        "this {what} was already used for another call (of '{first}', or with other arguments), so this call did not run"
                    ),
                )
                .with_retryable(false)
                .with_hint("a new call needs a new idempotency key; to repeat the first call, send its exact arguments"),
                Ok(Claim::Unknown) => ToolError::new(
                    ErrorKind::OutcomeUnknown,
                    format!(
                        "an earlier attempt with this {what} started and never reported how it ended (it was cut off, or its process stopped), so whether it took effect is unknown; this call did not run"
                    ),
                )
                .with_retryable(false)
                .with_hint("check the outside world (the payment, the message) before acting again; if it did not happen, call again with a new idempotency key"),
                Ok(Claim::InFlight) => {
                    // The clock is read only when there is something to wait for.
                    let since = *started.get_or_insert_with(std::time::Instant::now);
                    if since.elapsed() + pause <= wait {
                        crate::timer::sleep(pause).await;
                        pause = (pause * 2).min(std::time::Duration::from_millis(250));
                        continue;
                    }
                    ToolError::new(
                        ErrorKind::Conflict,
                        format!("an earlier attempt with this {what} is still running, so this call did not run"),
                    )
                    .with_retryable(true)
                    .with_hint("wait a little and call again with the same key: you will get the first attempt's result")
                }
                Err(error) => ToolError::internal(format!(
                    "the idempotency store ({}) failed: {error}",
                    store.name()
                ))
                .with_retryable(true)
                .with_hint("the call did not run; it is safe to retry later"),
            };
            return Err(Held::Refused(refusal));
        }
    }

    /// Waits for `run`, renewing `claim`'s lease every third of it while the tool runs,
    /// so a long call keeps its key and a crashed process's key is free of it soon.
    pub(crate) async fn holding(&self, claim: &ClaimKey, run: Run<'_>) -> ToolOutcome {
        use futures_util::future::{Either, select};
        let run = match run {
            Run::Finished(outcome) => return outcome,
            Run::Running(running) => running,
        };
        let settings = &self.settings.idempotency;
        let every = (settings.lease / 3).max(std::time::Duration::from_millis(10));
        let mut run = std::pin::pin!(run);
        loop {
            let tick = std::pin::pin!(crate::timer::sleep(every));
            match select(run.as_mut(), tick).await {
                Either::Left((outcome, _)) => return outcome,
                Either::Right(((), _)) => {
                    let store = settings.store();
                    if let Err(error) = store.renew(&claim.key, &claim.digest, settings.lease).await
                    {
                        tracing::warn!(
                            store = store.name(),
                            %error,
                            "could not renew a claim's lease; if the call outlives it, the next attempt is told its outcome is unknown"
                        );
                    }
                }
            }
        }
    }

    /// Records how a claimed call ended (see [`settlement_for`]).
    pub(crate) async fn record(
        &self,
        claim: &ClaimKey,
        tool: &str,
        effect: Effect,
        outcome: &ToolOutcome,
    ) {
        self.settle(claim, settlement_for(tool, effect, outcome))
            .await;
    }

    /// A call whose key is in doubt (an earlier attempt started and never recorded how it
    /// ended), decided by its tool's reconciliation (`#[tool(reconcile = path)]`, the
    /// question `asking`) when it has one: the effect happened, so its outcome is recorded under the key and
    /// returned; it did not, so the call is refused saying a new key may run it (running
    /// it under this key could race another replica deciding the same); the world cannot
    /// say, so it stays unknown, with why. Without a reconciliation, `unknown` as it is.
    pub(crate) async fn reconcile_in_doubt(
        &self,
        claim: &ClaimKey,
        name: &str,
        asking: Option<crate::tool::ReconcileFuture<'_>>,
        effect: Effect,
        unknown: ToolError,
    ) -> ToolOutcome {
        let Some(asking) = asking else {
            return Err(unknown);
        };
        match asking.await {
            crate::tool::Reconciled::Happened(outcome) => {
                self.record(claim, name, effect, &outcome).await;
                outcome
            }
            crate::tool::Reconciled::DidNotHappen => Err(ToolError::new(
                ErrorKind::OutcomeUnknown,
                format!(
                    "an earlier attempt with this idempotency key never reported how it ended, and '{name}' checked: it did not take effect; this call did not run"
                ),
            )
            .with_retryable(true)
            .with_hint("call again with a new idempotency key: nothing happened under this one")),
            crate::tool::Reconciled::Unknown(why) => Err(ToolError {
                message: format!("{} ('{name}' could not tell either: {why})", unknown.message),
                ..unknown
            }),
        }
    }

    /// Frees the key of a call a tool paused while it ran, to ask a person (an imported
    /// MCP tool whose server asks): nothing happened yet, and the approved call claims
    /// the key again.
    pub(crate) async fn release(&self, claim: &ClaimKey) {
        self.settle(claim, Settlement::Release).await;
    }

    async fn settle(&self, claim: &ClaimKey, settlement: Settlement) {
        let settings = &self.settings.idempotency;
        let store = settings.store();
        if let Err(error) = store
            .settle(&claim.key, &claim.digest, settlement, settings.retention)
            .await
        {
            tracing::error!(
                store = store.name(),
                %error,
                "could not record how a claimed call ended; a retry with its key will be told its outcome is unknown"
            );
        }
    }
}

/// A key to claim in the idempotency store, with the digest of the call claiming it.
pub(crate) struct ClaimKey {
    pub(crate) key: String,
    pub(crate) digest: String,
}

impl ClaimKey {
    /// The key of `call` to `tool` with `arguments` (as read), scoped to its caller: the
    /// call's own key, or one derived from its origin, id and digest.
    pub(crate) fn for_call(
        tool: &str,
        call: &ToolCall,
        caller: Option<&Caller>,
        arguments: &Value,
    ) -> Self {
        let digest = digest(tool, arguments);
        let caller = caller.map(|caller| caller.id.as_str());
        let key = match &call.idempotency_key {
            Some(key) => scoped_key(&[Some("key"), caller, Some(key)]),
            None => scoped_key(&[
                Some("call"),
                caller,
                call.origin.as_deref(),
                Some(&call.id),
                Some(&digest),
            ]),
        };
        Self { key, digest }
    }
}

/// Why a claim did not make the call runnable.
pub(crate) enum Held {
    /// The key's first call finished: its outcome.
    Done(StoredOutcome),
    /// The call must not run: why.
    Refused(ToolError),
}

/// What the store keeps of a claimed call's outcome: a finished call's outcome (also a
/// deliberate error), the key freed again after a failure the tool says may be retried,
/// and "unknown" for an external call that was cut off (a timeout, a cancellation, a
/// panic), whose effect may or may not have happened. A local call that was cut off
/// frees its key.
pub(super) fn settlement_for(tool: &str, effect: Effect, outcome: &ToolOutcome) -> Settlement {
    match outcome {
        // The tool says it cannot know (a remote call cut off mid-flight).
        Err(error) if error.kind == ErrorKind::OutcomeUnknown => Settlement::Unknown,
        Err(error)
            if matches!(
                error.kind,
                ErrorKind::Timeout | ErrorKind::Cancelled | ErrorKind::Internal
            ) =>
        {
            if effect == Effect::External {
                Settlement::Unknown
            } else {
                Settlement::Release
            }
        }
        Err(error) if error.retryable => Settlement::Release,
        outcome => Settlement::Done(StoredOutcome {
            tool: tool.to_owned(),
            outcome: outcome.clone(),
        }),
    }
}
