//! Calls that outlive their request (MCP Tasks): the call is answered at once with a
//! task, runs on, and the caller polls it, reads its result, answers its approval or
//! cancels it. A task's state lives in the registry's idempotency store, next to the
//! claims ([`TaskStore`]): memory, redb, PostgreSQL or
//! Redis, so with a durable store it outlives the connection, the process and the
//! machine that started it.
//!
//! | the caller | what happens |
//! | --- | --- |
//! | starts a task for a call | a task id, at once; the call runs in this process |
//! | starts one again with the same idempotency key (any replica) | the same task id; the call does not run again |
//! | the same key with another call | a conflict; nothing runs |
//! | reads a task of another caller (or an id nobody issued) | "not found" |
//! | cancels | the task is `cancelled` at once; the tool sees its [`Cancellation`] and stops at its next step |
//! | a call that needs approval | the task is `input_required` with the signed ticket; [`Tasks::decide`] runs (or declines) it once |
//!
//! **Ids.** A task's id is an HMAC, with the registry's approval secret, of the call's
//! idempotency key scoped to its caller: the same key always names the same task,
//! another caller's key never does, and nobody without the secret can make one. Give
//! replicas (and a process that restarts) the same secret
//! ([`RegistryBuilder::with_approval_secret`](crate::RegistryBuilder::with_approval_secret)):
//! with a random one, a repeated call after a restart gets a new task id (and still does
//! not run twice: the claim answers it).
//!
//! **Crashes.** The process running a task renews its lease in the store (as a claim's
//! is renewed); a task whose lease ran out lost its process, and the next read of it (on
//! any replica) decides by the tool's effect, never by hope:
//!
//! | the dead process had | the task |
//! | --- | --- |
//! | not started the call | runs it |
//! | started a `read_only` call, or one of a tool declared `idempotent = true` (for an `external` tool: it passes its idempotency key on, so the far side runs it once) | runs it again |
//! | started a call that claims its key (`external`, or `idempotent = false`) | runs it through the claim: a recorded outcome is served (the tool does not run); a claim with no outcome is "outcome unknown", and the task `failed` |
//! | started any other `write` or `destructive` call | `failed`: "outcome unknown: the call may have happened; check before you call again" |
//!
//! Finished results are in the store, so a restart loses none.

mod body;
mod cancel;
mod run;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

pub use body::TaskStatus;
pub use cancel::Cancellation;

use crate::approval::{ApprovalDecision, ApprovalTicket};
use crate::call::{ToolCall, ToolResult};
use crate::context::Context;
use crate::idempotency::{StoreError, TaskRow, TaskStore, millis, scoped_key, unix_millis};
use crate::policy::Caller;
use crate::registry::Registry;
use body::{Body, StoredCall};

/// The limits and times of a registry's tasks.
#[derive(Debug, Clone)]
pub struct TaskSettings {
    pub(crate) ttl: Duration,
    pub(crate) poll_interval: Duration,
    pub(crate) max_per_caller: usize,
    pub(crate) max_result_bytes: usize,
}

impl Default for TaskSettings {
    fn default() -> Self {
        TaskSettings {
            ttl: Duration::from_secs(24 * 3600),
            poll_interval: Duration::from_secs(1),
            max_per_caller: 100,
            max_result_bytes: 1 << 20,
        }
    }
}

impl TaskSettings {
    /// The defaults: a task is kept 24 hours from its creation, clients are asked to
    /// poll once a second, a caller may hold 100 live tasks, a result may be 1 MiB.
    pub fn new() -> Self {
        Self::default()
    }

    /// How long a task (and its result) is kept after it is created.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// How often clients are asked to poll.
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// How many live tasks one caller may hold; a call past it is refused with a
    /// message saying so.
    pub fn max_per_caller(mut self, max: usize) -> Self {
        self.max_per_caller = max;
        self
    }

    /// The largest result a task keeps, in bytes of JSON; a larger one ends the task
    /// `failed`, saying so.
    pub fn max_result_bytes(mut self, max: usize) -> Self {
        self.max_result_bytes = max;
        self
    }
}

/// A task as its caller sees it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TaskView {
    /// The task's id.
    pub id: String,
    /// Where it is.
    pub status: TaskStatus,
    /// What is going on, for a person (the tool's last progress message, why it failed).
    pub message: Option<String>,
    /// When it was created, in Unix milliseconds.
    pub created_at: u64,
    /// When it last changed, in Unix milliseconds.
    pub updated_at: u64,
    /// How long it is kept from its creation, in milliseconds.
    pub ttl_ms: u64,
    /// How often to poll it, in milliseconds.
    pub poll_interval_ms: u64,
    /// `completed`: the result, as the protocol writes it.
    pub result: Option<Value>,
    /// `failed`: the error, as a JSON-RPC error object (`code`, `message`).
    pub error: Option<Value>,
    /// `input_required`: the signed ticket a decision answers.
    pub ticket: Option<ApprovalTicket>,
}

/// Why a task operation was refused.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TaskError {
    /// No live task of this caller has that id.
    NotFound,
    /// The idempotency key names a task of another call.
    Conflict(String),
    /// The caller holds as many tasks as it may.
    Limit(String),
    /// The task is not in a state that allows it (cancelling a finished task, deciding
    /// one that waits for nothing).
    Invalid(String),
    /// The store could not answer.
    Store(StoreError),
}

impl std::fmt::Display for TaskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskError::NotFound => {
                f.write_str("no task with this id: it never existed for this caller, or it expired")
            }
            TaskError::Conflict(message)
            | TaskError::Limit(message)
            | TaskError::Invalid(message) => f.write_str(message),
            TaskError::Store(error) => write!(f, "the task store failed: {error}"),
        }
    }
}

impl std::error::Error for TaskError {}

impl From<StoreError> for TaskError {
    fn from(error: StoreError) -> Self {
        TaskError::Store(error)
    }
}

/// How a finished call's result is written for the protocol: `Ok` a result (MCP's
/// `CallToolResult`), `Err` a protocol error (a JSON-RPC error object), which fails the
/// task.
type Render = Arc<dyn Fn(&ToolResult) -> Result<Value, Value> + Send + Sync>;

/// A registry's tasks: started, read, listed, cancelled and decided per caller (the
/// [`Caller`] in the context). Cheap to clone.
#[derive(Clone)]
pub struct Tasks {
    inner: Arc<Inner>,
}

struct Inner {
    registry: Arc<Registry>,
    settings: TaskSettings,
    render: Render,
    /// This process, as a task's runner.
    runner: String,
    /// The tasks this process runs, by id: their cancellation.
    running: Mutex<HashMap<String, Cancellation>>,
}

impl Tasks {
    /// Tasks of `registry`, kept in its idempotency store; `render` writes a finished
    /// call's result as the protocol sends it (`Err`: a protocol error object, which
    /// fails the task). `Err` when the store keeps no tasks.
    pub fn new(
        registry: Arc<Registry>,
        settings: TaskSettings,
        render: impl Fn(&ToolResult) -> Result<Value, Value> + Send + Sync + 'static,
    ) -> Result<Self, StoreError> {
        let store = registry.settings.idempotency.store();
        if store.tasks().is_none() {
            return Err(StoreError::new(format!(
                "the idempotency store ({}) keeps no tasks: implement IdempotencyStore::tasks, or use a store of toolwright's",
                store.name()
            )));
        }
        Ok(Tasks {
            inner: Arc::new(Inner {
                registry,
                settings,
                render: Arc::new(render),
                runner: crate::approval::random_id(),
                running: Mutex::default(),
            }),
        })
    }

    /// The registry the tasks run on.
    pub fn registry(&self) -> &Registry {
        &self.inner.registry
    }

    fn store(&self) -> &dyn TaskStore {
        let store = self.inner.registry.settings.idempotency.store();
        store
            .tasks()
            .unwrap_or_else(|| unreachable!("checked when the tasks were made"))
    }

    /// The registry's claim lease: a task's runner renews its hold as often.
    fn lease(&self) -> Duration {
        self.inner.registry.settings.idempotency.lease
    }

    /// Starts `call` as a task of the caller in `ctx` (or finds the task its idempotency
    /// key already started), and runs it in this process.
    pub async fn start(&self, ctx: Arc<Context>, call: ToolCall) -> Result<TaskView, TaskError> {
        let owner = owner_of(&ctx);
        let caller = ctx.get::<Caller>();
        let sent = crate::arguments::AsRead::SENT.to_value(&call);
        let key = crate::dispatch::claim::ClaimKey::for_call(&call.name, &call, caller, &sent);
        let id = self.id_for(&key.key);
        let now = unix_millis();
        let settings = &self.inner.settings;
        if let Some(found) = self.store().get(&id, now).await? {
            return self.found(&found, &key.digest);
        }
        let held = (self.store())
            .count(&owner, settings.max_per_caller, now)
            .await?;
        if held >= settings.max_per_caller {
            return Err(TaskError::Limit(format!(
                "this caller holds {held} live tasks, the most this server keeps for one: wait for some to finish or expire, or cancel some, then call again"
            )));
        }
        let body = Body {
            call: StoredCall::of(&call),
            digest: key.digest.clone(),
            status: TaskStatus::Working,
            started: false,
            message: None,
            result: None,
            error: None,
            ticket: None,
            decision: None,
            runner: Some(self.inner.runner.clone()),
            lease_until: now + millis(self.lease()),
            updated_at: now,
            ttl_ms: millis(settings.ttl),
            poll_ms: millis(settings.poll_interval),
        };
        let row = TaskRow {
            id: id.clone(),
            owner,
            version: 1,
            created_at: now,
            expires_at: now.saturating_add(millis(settings.ttl)),
            body: serde_json::to_string(&body).map_err(StoreError::new)?,
        };
        if let Some(found) = self.store().insert(&row, now).await? {
            // Another request with the same key (here or on a replica) came first.
            return self.found(&found, &key.digest);
        }
        self.spawn(ctx, &id, run::Work::Dispatch(Box::new(call)));
        Ok(view(&row, &body))
    }

    /// The task an earlier start made for this key: the same task when it is for the
    /// same call.
    fn found(&self, found: &TaskRow, digest: &str) -> Result<TaskView, TaskError> {
        let body = Body::read(found)?;
        if body.digest != digest {
            return Err(TaskError::Conflict(format!(
                "this idempotency key already started a task for another call (of '{}', or with other arguments), so this call did not run: a new call needs a new key",
                body.call.name
            )));
        }
        Ok(view(found, &body))
    }

    /// The task `id` of the caller in `ctx`. A task whose process died is decided now
    /// (see the module's table), in `ctx`.
    pub async fn get(&self, ctx: Arc<Context>, id: &str) -> Result<TaskView, TaskError> {
        let row = self.owned(&ctx, id).await?;
        let row = self.recover(ctx, row).await?;
        Ok(view(&row, &Body::read(&row)?))
    }

    /// One page of the caller's live tasks, oldest first, and the cursor of the next
    /// page when there is one. `cursor` is one this method returned.
    pub async fn list(
        &self,
        ctx: &Context,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<TaskView>, Option<String>), TaskError> {
        let after = match cursor {
            None => None,
            Some(cursor) => Some(
                cursor
                    .split_once('.')
                    .and_then(|(at, id)| Some((at.parse::<u64>().ok()?, id)))
                    .ok_or_else(|| {
                        TaskError::Invalid(
                            "this cursor is not one a listing of tasks returned: list again without it".into(),
                        )
                    })?,
            ),
        };
        let limit = limit.max(1);
        let rows = self
            .store()
            .list(&owner_of(ctx), after, limit + 1, unix_millis())
            .await?;
        let next = (rows.len() > limit).then(|| {
            let last = &rows[limit - 1];
            format!("{}.{}", last.created_at, last.id)
        });
        let views = rows
            .iter()
            .take(limit)
            .map(|row| Ok(view(row, &Body::read(row)?)))
            .collect::<Result<_, StoreError>>()?;
        Ok((views, next))
    }

    /// Cancels the task `id`: it is `cancelled` at once, and its tool (wherever it
    /// runs) sees its [`Cancellation`]. A task that already ended stays as it ended (the
    /// view says how), as the tasks extension asks: cancellation is a request, not a
    /// verdict.
    pub async fn cancel(&self, ctx: &Context, id: &str) -> Result<TaskView, TaskError> {
        let row = self.owned(ctx, id).await?;
        let row = self
            .update(row, |body| {
                if body.status.is_terminal() {
                    return false;
                }
                body.status = TaskStatus::Cancelled;
                body.message = Some("cancelled by its caller".into());
                body.ticket = None;
                true
            })
            .await?;
        if let Some(cancellation) = run::lock(&self.inner.running).get(id) {
            cancellation.cancel();
        }
        Ok(view(&row, &Body::read(&row)?))
    }

    /// Decides the ticket of the task `id`, which waits in `input_required`: the call
    /// runs (or is declined) once, as the task.
    pub async fn decide(
        &self,
        ctx: Arc<Context>,
        id: &str,
        decision: ApprovalDecision,
    ) -> Result<TaskView, TaskError> {
        let row = self.owned(&ctx, id).await?;
        let mut ticket = None;
        let now = unix_millis();
        let runner = self.inner.runner.clone();
        let lease = millis(self.lease());
        let row = self
            .update(row, |body| {
                let Some(waiting) = body
                    .ticket
                    .take()
                    .filter(|_| body.status == TaskStatus::InputRequired)
                else {
                    return false;
                };
                ticket = Some(waiting.clone());
                body.decision = Some((waiting, decision.clone()));
                body.status = TaskStatus::Working;
                body.message = None;
                body.started = false;
                body.runner = Some(runner.clone());
                body.lease_until = now + lease;
                true
            })
            .await?;
        let Some(ticket) = ticket else {
            return Err(TaskError::Invalid(
                "the task waits for no decision: read it to see where it is".into(),
            ));
        };
        self.spawn(ctx, id, run::Work::Resume(Box::new((ticket, decision))));
        Ok(view(&row, &Body::read(&row)?))
    }

    /// The live task `id` of the caller in `ctx`.
    async fn owned(&self, ctx: &Context, id: &str) -> Result<TaskRow, TaskError> {
        match self.store().get(id, unix_millis()).await? {
            Some(row) if row.owner == owner_of(ctx) => Ok(row),
            _ => Err(TaskError::NotFound),
        }
    }

    /// Applies `change` to the task in `row` and writes it, reading it again when
    /// another write came first; `change` returns `false` to write nothing. The row as
    /// it ends.
    async fn update(
        &self,
        mut row: TaskRow,
        mut change: impl FnMut(&mut Body) -> bool,
    ) -> Result<TaskRow, TaskError> {
        for _ in 0..16 {
            let mut body = Body::read(&row)?;
            if !change(&mut body) {
                return Ok(row);
            }
            body.updated_at = unix_millis();
            let next = body.written_over(&row)?;
            if self.store().replace(&next, unix_millis()).await? {
                return Ok(next);
            }
            row = self
                .store()
                .get(&row.id, unix_millis())
                .await?
                .ok_or(TaskError::NotFound)?;
        }
        Err(TaskError::Store(StoreError::new(format!(
            "the task {} changed under 16 writes in a row",
            row.id
        ))))
    }

    /// The id of the task for the claim key `key`.
    fn id_for(&self, key: &str) -> String {
        self.inner
            .registry
            .settings
            .approvals
            .tag(&["toolwright-task/1", key])
    }
}

/// Who owns the tasks `ctx`'s calls start: a digest of its caller.
fn owner_of(ctx: &Context) -> String {
    let caller = ctx.get::<Caller>().map(|caller| caller.id.as_str());
    scoped_key(&[Some("task-owner"), caller])
}

fn view(row: &TaskRow, body: &Body) -> TaskView {
    TaskView {
        id: row.id.clone(),
        status: body.status,
        message: body.message.clone(),
        created_at: row.created_at,
        updated_at: body.updated_at,
        ttl_ms: body.ttl_ms,
        poll_interval_ms: body.poll_ms,
        result: body.result.clone(),
        error: body.error.clone(),
        ticket: body.ticket.clone(),
    }
}

/// A JSON-RPC error object: why a task failed.
fn error_object(message: &str) -> Value {
    json!({ "code": -32603, "message": message })
}
