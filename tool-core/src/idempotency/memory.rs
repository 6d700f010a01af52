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
    /// Each owner's tasks, by creation time and id: the order of a listing.
    by_owner: HashMap<String, std::collections::BTreeSet<(u64, String)>>,
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

impl Entries {
    /// Forgets the tasks expired by `now`, and their places in their owners' order.
    fn sweep_tasks(&mut self, now: u64) {
        let Entries {
            tasks, by_owner, ..
        } = self;
        tasks.retain(|_, task| {
            let live = task.expires_at > now;
            if !live && let Some(order) = by_owner.get_mut(&task.owner) {
                order.remove(&(task.created_at, task.id.clone()));
                if order.is_empty() {
                    by_owner.remove(&task.owner);
                }
            }
            live
        });
    }

    /// Keeps `row`, in place of any task with its id (expired, so no longer listed).
    fn keep(&mut self, row: &TaskRow) {
        if let Some(old) = self.tasks.insert(row.id.clone(), row.clone())
            && let Some(order) = self.by_owner.get_mut(&old.owner)
        {
            order.remove(&(old.created_at, old.id));
        }
        self.by_owner
            .entry(row.owner.clone())
            .or_default()
            .insert((row.created_at, row.id.clone()));
    }

    /// The live tasks of `owner` after `after`, oldest first.
    fn owned<'e>(
        &'e self,
        owner: &str,
        after: Option<(u64, &str)>,
        now: u64,
    ) -> impl Iterator<Item = &'e TaskRow> {
        let start = after.map(|(at, id)| (at, id.to_owned()));
        (self.by_owner.get(owner).into_iter())
            .flat_map(move |order| {
                let from = match &start {
                    Some(start) => std::ops::Bound::Excluded(start.clone()),
                    None => std::ops::Bound::Unbounded,
                };
                order.range((from, std::ops::Bound::Unbounded))
            })
            .filter_map(|(_, id)| self.tasks.get(id))
            .filter(move |task| task.expires_at > now)
    }
}

impl TaskStore for MemoryStore {
    fn insert<'a>(&'a self, row: &'a TaskRow, now: u64) -> StoreFuture<'a, Option<TaskRow>> {
        let mut entries = self.entries();
        entries.tasks_since_sweep += 1;
        if entries.tasks_since_sweep >= 256 && entries.tasks_since_sweep >= entries.tasks.len() / 2
        {
            entries.sweep_tasks(now);
            entries.tasks_since_sweep = 0;
        }
        let found = match entries.tasks.get(&row.id) {
            Some(held) if held.expires_at > now => Some(held.clone()),
            _ => {
                entries.keep(row);
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
            // The owner and the creation time are the row's for life: its place in the
            // owner's order stays.
            Some(task) if task.expires_at > now && task.version + 1 == row.version => {
                *task = TaskRow {
                    owner: task.owner.clone(),
                    created_at: task.created_at,
                    ..row.clone()
                };
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
        let page = entries
            .owned(owner, after, now)
            .take(limit)
            .cloned()
            .collect();
        Box::pin(std::future::ready(Ok(page)))
    }

    fn count<'a>(&'a self, owner: &'a str, up_to: usize, now: u64) -> StoreFuture<'a, usize> {
        let count = self.entries().owned(owner, None, now).take(up_to).count();
        Box::pin(std::future::ready(Ok(count)))
    }
}
