//! What a store answers with, and where calls that outlive their request are kept:
//! [`StoreError`], [`StoreFuture`], [`TaskRow`] and [`TaskStore`] (all re-exported from
//! [`crate::idempotency`], whose stores implement them). Below the tool trait, so that
//! the dispatcher can hand a tool the registry's task store
//! ([`CallInfo::tasks`](crate::tool::CallInfo::tasks)).
//!
//! Tasks are kept next to the claims: calls that outlive their request (MCP Tasks) keep their
//! state in the same store as the idempotency keys, so a task survives what its key
//! survives (a restart with redb, a replica's crash with PostgreSQL or Redis).
//!
//! A store keeps each task as a row it does not read: an id, the caller that owns it,
//! a version (each write names the version it replaces, so two replicas never both win),
//! its times, and a body (JSON the task module writes). What a task means (its status,
//! its result, who may see it) is `crate::task`'s; the store keeps rows atomically,
//! lists them per owner and forgets them once expired. Times are Unix milliseconds by
//! the clock of the process that writes them (the task module's).

use std::fmt;
use std::future::Future;
use std::pin::Pin;

/// Why a store could not answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(pub String);

impl StoreError {
    /// An error saying what failed.
    pub fn new(message: impl fmt::Display) -> Self {
        Self(message.to_string())
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for StoreError {}

/// The future a store's operation returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// One task as a store keeps it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TaskRow {
    /// The task's id: unique, and what `tasks/get` names.
    pub id: String,
    /// Who owns it (a digest of the caller): [`TaskStore::list`] and
    /// [`TaskStore::count`] are per owner.
    pub owner: String,
    /// Raised by one on every write: [`TaskStore::replace`] names the version it
    /// replaces.
    pub version: u64,
    /// When the task was created, in Unix milliseconds: the order of a listing.
    pub created_at: u64,
    /// When the store may forget it, in Unix milliseconds.
    pub expires_at: u64,
    /// The task's state, as the task module writes it (JSON).
    pub body: String,
}

/// Where tasks are kept: the stores of idempotency keys that keep tasks too return
/// themselves from [`IdempotencyStore::tasks`](crate::idempotency::IdempotencyStore::tasks). Every
/// operation is atomic for every process sharing the store; a row whose `expires_at` is
/// not after `now` is as good as gone.
///
/// The shared conformance suite (`tests/stores.rs`) states the contract as tests.
pub trait TaskStore: Send + Sync {
    /// Keeps `row` unless a live task has its id: `None` when it was kept, else the
    /// task found (which is left as it is).
    fn insert<'a>(&'a self, row: &'a TaskRow, now: u64) -> StoreFuture<'a, Option<TaskRow>>;

    /// The live task with `id`, if any.
    fn get<'a>(&'a self, id: &'a str, now: u64) -> StoreFuture<'a, Option<TaskRow>>;

    /// Writes `row` over the live task with its id if that task is still at version
    /// `row.version - 1`: `false` (and nothing written) when another write came first,
    /// or the task is gone.
    fn replace<'a>(&'a self, row: &'a TaskRow, now: u64) -> StoreFuture<'a, bool>;

    /// Up to `limit` live tasks of `owner`, oldest first, starting after the task
    /// `after` (its creation time and id) when given.
    fn list<'a>(
        &'a self,
        owner: &'a str,
        after: Option<(u64, &'a str)>,
        limit: usize,
        now: u64,
    ) -> StoreFuture<'a, Vec<TaskRow>>;

    /// How many live tasks `owner` has, counted up to `up_to` (a limit is checked
    /// without reading every task of an owner past it).
    fn count<'a>(&'a self, owner: &'a str, up_to: usize, now: u64) -> StoreFuture<'a, usize>;
}
