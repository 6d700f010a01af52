//! Idempotency as a claim: before a call with side effects that must not happen twice
//! runs (every `external` call, and `write`/`destructive` calls of tools declared
//! `idempotent = false`), it claims its key in a store, atomically, together with a digest
//! of the tool and its arguments. The same store consumes approval tickets, so a ticket is
//! decided once.
//!
//! | the store finds | the call |
//! | --- | --- |
//! | nothing under the key (or an expired entry) | claims it and runs |
//! | the first call's outcome, same tool and arguments | gets that outcome, marked duplicate; the tool does not run |
//! | the first attempt still running (its lease alive) | waits for it within its own time limit, then gets its outcome, or a retryable `conflict` saying it is still running |
//! | a claim whose lease expired without an outcome, or an attempt that was cut off | a `conflict`: the first attempt's outcome is unknown (not retryable: check the outside world first) |
//! | the key used with another tool or other arguments | a `conflict` naming the key's misuse, never the first call's result |
//! | a store that cannot answer | an `internal` error naming the store; the tool does not run |
//!
//! Stores: [`MemoryStore`] (one process), [`RedbStore`] (feature `redb`: one machine,
//! survives restarts), [`PostgresStore`] (feature `postgres`) and [`RedisStore`] (feature
//! `redis`) for several replicas sharing keys and tickets.

mod canonical;
mod memory;
#[cfg(feature = "postgres")]
mod postgres;
mod record;
#[cfg(feature = "redb")]
mod redb;
#[cfg(feature = "redis")]
mod redis;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::tool::ToolOutput;

pub use crate::store::{StoreError, StoreFuture, TaskRow, TaskStore};
pub(crate) use canonical::{hex, scoped_key, write_canonical, write_json_string};
pub use memory::MemoryStore;

/// The key in an MCP `tools/call` request's `_meta` that carries the caller's
/// idempotency key: a toolwright server reads it, a toolwright client sends it.
#[cfg_attr(not(any(feature = "mcp", feature = "mcp-client")), allow(dead_code))]
pub(crate) const IDEMPOTENCY_KEY_META: &str = "dev.toolwright/idempotency-key";
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
pub(crate) use record::Record;
#[cfg(feature = "redb")]
pub use redb::RedbStore;
#[cfg(feature = "redis")]
pub use redis::RedisStore;

/// What a call with an idempotency key ended with, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredOutcome {
    /// The tool this key was used with.
    pub tool: String,
    /// What the tool returned.
    pub outcome: Result<ToolOutput, ToolError>,
}

/// A claim on a key: made before the tool runs.
#[derive(Debug, Clone, Copy)]
pub struct ClaimRequest<'a> {
    /// The key (already scoped to its caller, and hashed: at most 64 bytes).
    pub key: &'a str,
    /// The digest of the tool and its arguments ([`crate::approval::digest`]): a key
    /// reused for another call is a mismatch.
    pub digest: &'a str,
    /// The tool, for the record.
    pub tool: &'a str,
    /// How long the claim holds without an outcome; after that the attempt counts as
    /// lost and its outcome as unknown.
    pub lease: Duration,
    /// How long the key is kept.
    pub retention: Duration,
}

/// What a claim found.
#[derive(Debug, Clone, PartialEq)]
pub enum Claim {
    /// The key is this call's now: run it, then [`settle`](IdempotencyStore::settle).
    Claimed,
    /// A call with this key and digest finished: its outcome.
    Done(StoredOutcome),
    /// A call with this key and digest holds a live lease: it is still running.
    InFlight,
    /// A call with this key and digest started and never recorded an outcome (its lease
    /// expired, or it was cut off): whether it took effect is unknown.
    Unknown,
    /// The key was claimed for another call (another tool or other arguments).
    Mismatch {
        /// The tool the key was first used with.
        tool: String,
    },
}

/// How a claimed call ended, for the store.
#[derive(Debug, Clone, PartialEq)]
pub enum Settlement {
    /// It finished: later calls with the key get this outcome.
    Done(StoredOutcome),
    /// Nothing happened that must not happen twice (a retryable failure the tool
    /// reported): the key is free again.
    Release,
    /// It was cut off (timeout, cancellation, panic): whether it took effect is unknown,
    /// and later calls with the key are told so.
    Unknown,
}

/// Where idempotency keys, their claims and their outcomes are kept. Both operations
/// must be atomic for every process sharing the store: two claims of one key at the same
/// moment, from any replicas, yield exactly one [`Claim::Claimed`].
///
/// The shared conformance suite (`tests/stores.rs`) states the contract as tests; run it
/// against a store of your own.
pub trait IdempotencyStore: Send + Sync {
    /// The store's name in errors and logs (`memory`, `redb`, `postgres`, `redis`).
    fn name(&self) -> &str;

    /// Claims `request.key` for a call, or says why it cannot be claimed.
    fn claim<'a>(&'a self, request: ClaimRequest<'a>) -> StoreFuture<'a, Claim>;

    /// Records how the call holding the claim on `key` (with `digest`) ended. A key
    /// claimed for another digest is left alone.
    fn settle<'a>(
        &'a self,
        key: &'a str,
        digest: &'a str,
        settlement: Settlement,
        retention: Duration,
    ) -> StoreFuture<'a, ()>;

    /// Extends the lease of the claim on `key`, held by a running call with `digest`, to
    /// `lease` from now: the dispatcher renews it while the tool runs, so a lease can be
    /// short (a crashed process is noticed soon) and a long call still holds its key. A
    /// key settled, released or claimed for another digest is left alone.
    fn renew<'a>(&'a self, key: &'a str, digest: &'a str, lease: Duration) -> StoreFuture<'a, ()>;

    /// Where this store keeps tasks, the calls that outlive their request
    /// ([`TaskStore`]), when it keeps them. Every store of this crate does; the default
    /// is `None`, and a registry whose store keeps no tasks runs every call within its
    /// request.
    fn tasks(&self) -> Option<&dyn TaskStore> {
        None
    }
}

/// A shared or boxed store is a store.
macro_rules! forward_store {
    ($($pointer:ident),*) => {$(
        impl<S: IdempotencyStore + ?Sized> IdempotencyStore for $pointer<S> {
            fn name(&self) -> &str {
                (**self).name()
            }

            fn claim<'a>(&'a self, request: ClaimRequest<'a>) -> StoreFuture<'a, Claim> {
                (**self).claim(request)
            }

            fn settle<'a>(
                &'a self,
                key: &'a str,
                digest: &'a str,
                settlement: Settlement,
                retention: Duration,
            ) -> StoreFuture<'a, ()> {
                (**self).settle(key, digest, settlement, retention)
            }

            fn renew<'a>(
                &'a self,
                key: &'a str,
                digest: &'a str,
                lease: Duration,
            ) -> StoreFuture<'a, ()> {
                (**self).renew(key, digest, lease)
            }

            fn tasks(&self) -> Option<&dyn TaskStore> {
                (**self).tasks()
            }
        }
    )*};
}

forward_store!(Arc, Box);

/// How keys are kept: the store, and the times that bound a claim.
#[derive(Clone)]
pub struct Idempotency {
    pub(crate) store: Arc<dyn IdempotencyStore>,
    pub(crate) lease: Duration,
    pub(crate) retention: Duration,
    pub(crate) wait: Duration,
}

impl Idempotency {
    /// Keys in `store`, with the default times: a 60-second lease (renewed while the
    /// call runs), 24 hours of retention, and up to 30 seconds of waiting for an attempt
    /// in flight.
    pub fn new(store: impl IdempotencyStore + 'static) -> Self {
        Self {
            store: Arc::new(store),
            lease: Duration::from_secs(60),
            retention: Duration::from_secs(24 * 3600),
            wait: Duration::from_secs(30),
        }
    }

    /// How long a claim holds without word from the call holding it. The dispatcher
    /// renews the lease while the tool runs (every third of it), so this is how soon a crashed process's claims count as lost: the next
    /// attempt is then told the first one's outcome is unknown.
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease;
        self
    }

    /// How long a key and its outcome are kept (at least the lease).
    pub fn retention(mut self, retention: Duration) -> Self {
        self.retention = retention;
        self
    }

    /// The longest a call waits for an attempt in flight with the same key (a call with
    /// a time limit waits at most that limit).
    pub fn wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }

    /// The store.
    pub fn store(&self) -> &dyn IdempotencyStore {
        &*self.store
    }

    pub(crate) fn retention_for_store(&self) -> Duration {
        self.retention.max(self.lease)
    }
}

impl Default for Idempotency {
    fn default() -> Self {
        Self::new(MemoryStore::new())
    }
}

impl fmt::Debug for Idempotency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Idempotency")
            .field("store", &self.store.name())
            .field("lease", &self.lease)
            .field("retention", &self.retention)
            .field("wait", &self.wait)
            .finish()
    }
}

/// Milliseconds since the Unix epoch, by this machine's clock.
pub(crate) fn unix_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}

/// A duration in whole milliseconds, saturating.
pub(crate) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
