//! A task's call, run in this process: marked started, run with its cancellation in
//! its context, its lease renewed (and its last progress message written) while it
//! runs, and its end written; and a task whose process died, decided by its tool's
//! effect.

use std::sync::{Arc, Mutex, MutexGuard};

use super::body::{Body, TaskStatus};
use super::{Cancellation, TaskError, Tasks, error_object};
use crate::approval::{ApprovalDecision, ApprovalTicket};
use crate::call::{ToolCall, ToolResult};
use crate::context::Context;
use crate::dispatch::in_doubt::{self, InDoubt};
use crate::error::ErrorKind;
use crate::feedback::{self, Feedback};
use crate::idempotency::{TaskRow, millis, unix_millis};

/// What a task runs.
pub(super) enum Work {
    /// The call, through the dispatcher.
    Dispatch(Box<ToolCall>),
    /// A decided ticket, through [`Registry::resume`](crate::Registry::resume).
    Resume(Box<(ApprovalTicket, ApprovalDecision)>),
    /// A call whose outcome is unknown, decided by its tool's reconciliation: its
    /// result if it happened, the call run if it did not.
    Reconcile(Box<ToolCall>),
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Tasks {
    /// Runs `work` as the task `id`, on the runtime this is called in.
    pub(super) fn spawn(&self, ctx: Arc<Context>, id: &str, work: Work) {
        let tasks = self.clone();
        let id = id.to_owned();
        tokio::spawn(async move { tasks.drive(ctx, id, work).await });
    }

    async fn drive(self, ctx: Arc<Context>, id: String, work: Work) {
        if !self.mark_started(&id).await {
            return;
        }
        let cancellation = Cancellation::new();
        lock(&self.inner.running).insert(id.clone(), cancellation.clone());
        let run_ctx = Context::over(ctx).with(cancellation.clone());
        let progress: Arc<Mutex<Option<String>>> = Arc::default();
        let sink = {
            let progress = progress.clone();
            move |message: Feedback| {
                if let Feedback::Progress {
                    progress: done,
                    total,
                    message,
                } = message
                {
                    *lock(&progress) = Some(describe(done, total, message.as_deref()));
                }
            }
        };
        let registry = &self.inner.registry;
        let run = feedback::scope(sink, async {
            match work {
                Work::Dispatch(call) => registry.dispatch(&run_ctx, *call).await,
                Work::Resume(decided) => {
                    let (ticket, decision) = *decided;
                    registry.resume(&run_ctx, &ticket, decision).await
                }
                Work::Reconcile(call) => in_doubt::reconciled(registry, &run_ctx, *call).await,
            }
        });
        let result = {
            use futures_util::future::{Either, select};
            let every = (self.lease() / 3).max(std::time::Duration::from_millis(10));
            let mut run = std::pin::pin!(run);
            loop {
                let tick = std::pin::pin!(crate::timer::sleep(every));
                match select(run.as_mut(), tick).await {
                    Either::Left((result, _)) => break result,
                    Either::Right(((), _)) => self.renew(&id, &progress, &cancellation).await,
                }
            }
        };
        lock(&self.inner.running).remove(&id);
        self.finish(&id, &result, &cancellation).await;
    }

    /// Marks the task started, if this process still runs it and it is still working:
    /// whether the call may run.
    async fn mark_started(&self, id: &str) -> bool {
        let Ok(Some(row)) = self.store().get(id, unix_millis()).await else {
            return false;
        };
        let runner = &self.inner.runner;
        let mut mine = false;
        let written = self
            .update(row, |body| {
                mine = body.status == TaskStatus::Working
                    && body.runner.as_ref() == Some(runner)
                    && !body.started;
                body.started = true;
                mine
            })
            .await;
        if let Err(error) = &written {
            tracing::warn!(task = id, %error, "could not mark a task started; it does not run");
        }
        mine && written.is_ok()
    }

    /// Holds the task for another lease, with the tool's last progress message; a task
    /// cancelled meanwhile (by a request to any replica) cancels its call.
    async fn renew(&self, id: &str, progress: &Mutex<Option<String>>, cancellation: &Cancellation) {
        let Ok(Some(row)) = self.store().get(id, unix_millis()).await else {
            return;
        };
        let message = lock(progress).take();
        let lease = millis(self.lease());
        let mut cancelled = false;
        let written = self
            .update(row, |body| {
                if body.status != TaskStatus::Working {
                    cancelled = body.status == TaskStatus::Cancelled;
                    return false;
                }
                body.lease_until = unix_millis() + lease;
                if let Some(message) = &message {
                    body.message = Some(message.clone());
                }
                true
            })
            .await;
        if cancelled {
            cancellation.cancel();
        }
        if let Err(error) = written {
            tracing::warn!(task = id, %error, "could not renew a task's lease; if its call outlives it, another replica decides it");
        }
    }

    /// Writes how the call ended, unless the task ended first (cancelled).
    async fn finish(&self, id: &str, result: &ToolResult, cancellation: &Cancellation) {
        let rendered = (self.inner.render)(result);
        let size = rendered.as_ref().map_or(0, |value| value.to_string().len());
        let max = self.inner.settings.max_result_bytes;
        let written = match self.store().get(id, unix_millis()).await {
            Ok(Some(row)) => {
                self.update(row, |body| {
                    if body.status.is_terminal() {
                        return false;
                    }
                    body.runner = None;
                    body.decision = None;
                    end(body, result, rendered.clone(), size, max, cancellation);
                    true
                })
                .await
            }
            Ok(None) => Err(TaskError::NotFound),
            Err(error) => Err(error.into()),
        };
        if let Err(error) = written {
            tracing::error!(task = id, %error, "could not record how a task's call ended; the next read decides it by its effect");
        }
    }

    /// The task in `row`, decided if its process died while it was working (see the
    /// module's table); the row as it is then.
    pub(super) async fn recover(
        &self,
        ctx: Arc<Context>,
        row: TaskRow,
    ) -> Result<TaskRow, TaskError> {
        let body = Body::read(&row)?;
        let now = unix_millis();
        if body.status != TaskStatus::Working || body.lease_until > now {
            return Ok(row);
        }
        let verdict = self.verdict(&ctx, &body);
        let runner = self.inner.runner.clone();
        let lease = millis(self.lease());
        let mut adopted = false;
        let row = self
            .update(row, |body| {
                if body.status != TaskStatus::Working || body.lease_until > unix_millis() {
                    return false;
                }
                adopted = true;
                match &verdict {
                    InDoubt::Fail(message) => {
                        body.status = TaskStatus::Failed;
                        body.error = Some(error_object(message));
                        body.message = Some(message.clone());
                        body.runner = None;
                    }
                    InDoubt::Run | InDoubt::Reconcile => {
                        body.runner = Some(runner.clone());
                        body.lease_until = unix_millis() + lease;
                        body.started = false;
                    }
                }
                true
            })
            .await?;
        if adopted {
            let work = match (verdict, body.decision) {
                (InDoubt::Fail(_), _) => return Ok(row),
                (InDoubt::Reconcile, _) => Work::Reconcile(Box::new(body.call.to_call())),
                (InDoubt::Run, Some(decided)) => Work::Resume(Box::new(decided)),
                (InDoubt::Run, None) => Work::Dispatch(Box::new(body.call.to_call())),
            };
            self.spawn(ctx, &row.id, work);
        }
        Ok(row)
    }

    /// What becomes of the call of a task whose process died (see the module's table).
    fn verdict(&self, ctx: &Context, body: &Body) -> InDoubt {
        if !body.started {
            return InDoubt::Run;
        }
        in_doubt::verdict(
            &self.inner.registry,
            ctx,
            &body.call.to_call(),
            body.decision.is_some(),
        )
    }
}

/// Where a finished call leaves its task.
fn end(
    body: &mut Body,
    result: &ToolResult,
    rendered: Result<serde_json::Value, serde_json::Value>,
    size: usize,
    max: usize,
    cancellation: &Cancellation,
) {
    if let Some(ticket) = &result.ticket {
        body.status = TaskStatus::InputRequired;
        body.message = Some(format!("waiting for approval: {}", ticket.reason));
        body.ticket = Some((**ticket).clone());
        return;
    }
    let rendered = match rendered {
        Ok(rendered) => rendered,
        Err(error) => {
            body.status = TaskStatus::Failed;
            body.message = error["message"].as_str().map(str::to_owned);
            body.error = Some(error);
            return;
        }
    };
    match result.error() {
        Some(error) if error.kind == ErrorKind::OutcomeUnknown => {
            let message = format!("outcome unknown: {}", error.message);
            body.status = TaskStatus::Failed;
            body.error = Some(error_object(&message));
            body.message = Some(message);
        }
        Some(error) if error.kind == ErrorKind::Cancelled && cancellation.is_cancelled() => {
            body.status = TaskStatus::Cancelled;
            body.message = Some("cancelled by its caller".into());
        }
        _ if size > max => {
            let message = format!(
                "the call finished, but its result ({size} bytes) is over the {max} bytes this server keeps for a task: ask for less (a narrower query, a page)"
            );
            body.status = TaskStatus::Failed;
            body.error = Some(error_object(&message));
            body.message = Some(message);
        }
        _ => {
            body.status = TaskStatus::Completed;
            body.message = None;
            body.result = Some(rendered);
        }
    }
}

/// A progress report as a status message: "indexing (40 of 100)".
fn describe(done: f64, total: Option<f64>, message: Option<&str>) -> String {
    let amount = match total {
        Some(total) => format!("{done} of {total}"),
        None => format!("{done}"),
    };
    match message {
        Some(message) => format!("{message} ({amount})"),
        None => amount,
    }
}
