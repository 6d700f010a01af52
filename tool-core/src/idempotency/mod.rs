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

mod memory;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "redb")]
mod redb;
#[cfg(feature = "redis")]
mod redis;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

use crate::{ToolError, ToolOutput};

pub use memory::MemoryStore;
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
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
}

impl<S: IdempotencyStore + ?Sized> IdempotencyStore for Arc<S> {
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

    fn renew<'a>(&'a self, key: &'a str, digest: &'a str, lease: Duration) -> StoreFuture<'a, ()> {
        (**self).renew(key, digest, lease)
    }
}

impl<S: IdempotencyStore + ?Sized> IdempotencyStore for Box<S> {
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

    fn renew<'a>(&'a self, key: &'a str, digest: &'a str, lease: Duration) -> StoreFuture<'a, ()> {
        (**self).renew(key, digest, lease)
    }
}

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

/// The store key for `parts`: SHA-256 (hex) of the parts, each preceded by its length
/// (or a marker for an absent part), so a key is always 64 bytes whatever a client sent,
/// and no two different lists of parts share one.
pub(crate) fn scoped_key(parts: &[Option<&str>]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        match part {
            Some(part) => {
                hasher.update((part.len() as u64).to_le_bytes());
                hasher.update(part.as_bytes());
            }
            None => hasher.update(u64::MAX.to_le_bytes()),
        }
    }
    hex(&hasher.finalize())
}

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        text.push(DIGITS[usize::from(byte >> 4)] as char);
        text.push(DIGITS[usize::from(byte & 15)] as char);
    }
    text
}

/// Writes `value` into `sink` in a canonical form: objects with their keys sorted, no
/// whitespace, strings and numbers as serde_json writes them, so equal JSON values always
/// give the same bytes. Nothing is allocated but the list of an object's keys.
pub(crate) fn write_canonical(value: &Value, sink: &mut impl FnMut(&[u8])) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
            sink(b"{");
            for (index, (key, value)) in entries.into_iter().enumerate() {
                if index > 0 {
                    sink(b",");
                }
                write_json_string(key, sink);
                sink(b":");
                write_canonical(value, sink);
            }
            sink(b"}");
        }
        Value::Array(items) => {
            sink(b"[");
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    sink(b",");
                }
                write_canonical(item, sink);
            }
            sink(b"]");
        }
        Value::String(text) => write_json_string(text, sink),
        scalar => {
            // Numbers, booleans and null, written by serde_json into the sink directly.
            let _ = serde_json::to_writer(Forward(sink), scalar);
        }
    }
}

/// Writes `text` as a JSON string: as is between quotes when nothing needs escaping (the
/// common case), through serde_json's escaping otherwise.
pub(crate) fn write_json_string(text: &str, sink: &mut impl FnMut(&[u8])) {
    if text.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        sink(b"\"");
        sink(text.as_bytes());
        sink(b"\"");
    } else {
        let _ = serde_json::to_writer(Forward(sink), text);
    }
}

/// An `io::Write` that hands every chunk to a sink.
struct Forward<'s, F: FnMut(&[u8])>(&'s mut F);

impl<F: FnMut(&[u8])> std::io::Write for Forward<'_, F> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        (self.0)(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
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

/// A record as the embedded stores keep it (memory keeps the same fields in place).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Record {
    pub digest: String,
    pub tool: String,
    pub state: RecordState,
    /// When the record may be dropped, in Unix milliseconds.
    pub expires_at: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub(crate) enum RecordState {
    Running {
        lease_until: u64,
    },
    Done {
        outcome: Result<ToolOutput, ToolError>,
    },
    Unknown,
}

impl Record {
    /// What a claim of `request` finds in this record at `now`; `None` when the record
    /// has expired and the key is free.
    pub fn claim_outcome(&self, request: &ClaimRequest<'_>, now: u64) -> Option<Claim> {
        if self.expires_at <= now {
            return None;
        }
        if self.digest != request.digest {
            return Some(Claim::Mismatch {
                tool: self.tool.clone(),
            });
        }
        Some(match &self.state {
            RecordState::Done { outcome } => Claim::Done(StoredOutcome {
                tool: self.tool.clone(),
                outcome: outcome.clone(),
            }),
            RecordState::Running { lease_until } if *lease_until > now => Claim::InFlight,
            RecordState::Running { .. } | RecordState::Unknown => Claim::Unknown,
        })
    }

    /// A new claim for `request` at `now`.
    pub fn claimed(request: &ClaimRequest<'_>, now: u64) -> Self {
        Record {
            digest: request.digest.to_owned(),
            tool: request.tool.to_owned(),
            state: RecordState::Running {
                lease_until: now.saturating_add(millis(request.lease)),
            },
            expires_at: now.saturating_add(millis(request.retention.max(request.lease))),
        }
    }

    /// Extends a running claim's lease to `lease` from `now`.
    pub fn renew(&mut self, lease: Duration, now: u64) {
        if let RecordState::Running { lease_until } = &mut self.state {
            *lease_until = now.saturating_add(millis(lease));
        }
    }

    /// Applies `settlement`; `false` when the key is released (the record goes).
    pub fn settle(&mut self, settlement: Settlement, retention: Duration, now: u64) -> bool {
        match settlement {
            Settlement::Release => return false,
            Settlement::Done(stored) => {
                self.state = RecordState::Done {
                    outcome: stored.outcome,
                };
                self.expires_at = now.saturating_add(millis(retention));
            }
            Settlement::Unknown => self.state = RecordState::Unknown,
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{scoped_key, write_canonical};

    fn canonical(value: &serde_json::Value) -> String {
        let mut bytes = Vec::new();
        write_canonical(value, &mut |chunk| bytes.extend_from_slice(chunk));
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn canonical_json_sorts_keys_at_every_depth_and_escapes_strings() {
        assert_eq!(
            canonical(&json!({"b": [{"z": 1, "a": "\"x\""}], "a": null})),
            r#"{"a":null,"b":[{"a":"\"x\"","z":1}]}"#
        );
    }

    #[test]
    fn strings_and_numbers_are_written_as_serde_json_writes_them() {
        for value in [
            json!("plain"),
            json!("tab\tquote\"back\\slash\u{1}é"),
            json!(1.5e300),
            json!(-0.0),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(true),
            json!(null),
        ] {
            assert_eq!(canonical(&value), value.to_string());
        }
    }

    #[test]
    fn scoped_keys_are_fixed_length_and_do_not_run_parts_together() {
        let a = scoped_key(&[Some("ab"), Some("c")]);
        assert_eq!(a.len(), 64);
        assert_ne!(a, scoped_key(&[Some("a"), Some("bc")]));
        assert_ne!(a, scoped_key(&[Some("ab"), Some("c"), None]));
        assert_eq!(scoped_key(&[Some(&"k".repeat(1 << 20))]).len(), 64);
    }
}
