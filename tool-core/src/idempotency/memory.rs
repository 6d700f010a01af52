//! Keys in this process's memory.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Mutex;
use std::time::Duration;

use super::{
    Claim, ClaimRequest, IdempotencyStore, Record, Settlement, StoreFuture, TaskRow, TaskStore,
    unix_millis,
};

/// Keys in memory: enough for one process (a restart forgets them). Expired entries are
/// swept as new keys arrive, so the map holds at most what the retention keeps.
#[derive(Debug, Default)]
pub struct MemoryStore {
    inner: Mutex<Entries>,
}

#[derive(Debug, Default)]
struct Entries {
    records: HashMap<String, Record>,
    /// Claims since the last sweep of expired entries.
    since_sweep: usize,
    /// Tasks by id.
    tasks: HashMap<String, TaskRow>,
    /// Tasks inserted since the last sweep of expired tasks.
    tasks_since_sweep: usize,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        // A panic while holding the lock cannot leave a record half-written (every
        // change is one insert or remove), so a poisoned lock is still consistent.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn claim_now(&self, request: &ClaimRequest<'_>) -> Claim {
        let now = unix_millis();
        let mut entries = self.entries();
        entries.since_sweep += 1;
        if entries.since_sweep >= 1024 && entries.since_sweep >= entries.records.len() / 2 {
            entries.records.retain(|_, record| record.expires_at > now);
            entries.since_sweep = 0;
        }
        match entries.records.entry(request.key.to_owned()) {
            Entry::Occupied(mut held) => match held.get().claim_outcome(request, now) {
                Some(found) => found,
                None => {
                    held.insert(Record::claimed(request, now));
                    Claim::Claimed
                }
            },
            Entry::Vacant(free) => {
                free.insert(Record::claimed(request, now));
                Claim::Claimed
            }
        }
    }

    fn settle_now(&self, key: &str, digest: &str, settlement: Settlement, retention: Duration) {
        let mut entries = self.entries();
        let Some(record) = entries.records.get_mut(key) else {
            return;
        };
        if record.digest == digest && !record.settle(settlement, retention, unix_millis()) {
            entries.records.remove(key);
        }
    }
}

impl IdempotencyStore for MemoryStore {
    fn name(&self) -> &str {
        "memory"
    }

    fn claim<'a>(&'a self, request: ClaimRequest<'a>) -> StoreFuture<'a, Claim> {
        Box::pin(std::future::ready(Ok(self.claim_now(&request))))
    }

    fn settle<'a>(
        &'a self,
        key: &'a str,
        digest: &'a str,
        settlement: Settlement,
        retention: Duration,
    ) -> StoreFuture<'a, ()> {
        self.settle_now(key, digest, settlement, retention);
        Box::pin(std::future::ready(Ok(())))
    }

    fn renew<'a>(&'a self, key: &'a str, digest: &'a str, lease: Duration) -> StoreFuture<'a, ()> {
        if let Some(record) = self.entries().records.get_mut(key)
            && record.digest == digest
        {
            record.renew(lease, unix_millis());
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn tasks(&self) -> Option<&dyn TaskStore> {
        Some(self)
    }
}

impl TaskStore for MemoryStore {
    fn insert<'a>(&'a self, row: &'a TaskRow, now: u64) -> StoreFuture<'a, Option<TaskRow>> {
        let mut entries = self.entries();
        entries.tasks_since_sweep += 1;
        if entries.tasks_since_sweep >= 256 && entries.tasks_since_sweep >= entries.tasks.len() / 2
        {
            entries.tasks.retain(|_, task| task.expires_at > now);
            entries.tasks_since_sweep = 0;
        }
        let found = match entries.tasks.entry(row.id.clone()) {
            Entry::Occupied(held) if held.get().expires_at > now => Some(held.get().clone()),
            Entry::Occupied(mut held) => {
                held.insert(row.clone());
                None
            }
            Entry::Vacant(free) => {
                free.insert(row.clone());
                None
            }
        };
        Box::pin(std::future::ready(Ok(found)))
    }

    fn get<'a>(&'a self, id: &'a str, now: u64) -> StoreFuture<'a, Option<TaskRow>> {
        let found = self
            .entries()
            .tasks
            .get(id)
            .filter(|task| task.expires_at > now)
            .cloned();
        Box::pin(std::future::ready(Ok(found)))
    }

    fn replace<'a>(&'a self, row: &'a TaskRow, now: u64) -> StoreFuture<'a, bool> {
        let mut entries = self.entries();
        let replaced = match entries.tasks.get_mut(&row.id) {
            Some(task) if task.expires_at > now && task.version + 1 == row.version => {
                *task = row.clone();
                true
            }
            _ => false,
        };
        Box::pin(std::future::ready(Ok(replaced)))
    }

    fn list<'a>(
        &'a self,
        owner: &'a str,
        after: Option<(u64, &'a str)>,
        limit: usize,
        now: u64,
    ) -> StoreFuture<'a, Vec<TaskRow>> {
        let entries = self.entries();
        let mut found: Vec<&TaskRow> = (entries.tasks.values())
            .filter(|task| task.owner == owner && task.expires_at > now)
            .filter(|task| after.is_none_or(|after| (task.created_at, task.id.as_str()) > after))
            .collect();
        found.sort_unstable_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        let page = found.into_iter().take(limit).cloned().collect();
        Box::pin(std::future::ready(Ok(page)))
    }

    fn count<'a>(&'a self, owner: &'a str, now: u64) -> StoreFuture<'a, usize> {
        let count = (self.entries().tasks.values())
            .filter(|task| task.owner == owner && task.expires_at > now)
            .count();
        Box::pin(std::future::ready(Ok(count)))
    }
}
