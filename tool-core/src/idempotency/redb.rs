//! Keys in an embedded redb database: one machine, survives restarts.

use std::path::Path;
use std::time::Duration;

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};

use super::{
    Claim, ClaimRequest, IdempotencyStore, Record, Settlement, StoreError, StoreFuture, TaskRow,
    TaskStore, unix_millis,
};

const TABLE: TableDefinition<&str, &[u8]> = TableDefinition::new("toolwright_claims");
/// Tasks by id, each row as JSON.
const TASKS: TableDefinition<&str, &[u8]> = TableDefinition::new("toolwright_tasks");
/// Each task under `owner / created_at / id`, for listing an owner's tasks in order.
const TASK_ORDER: TableDefinition<&str, ()> = TableDefinition::new("toolwright_task_order");

/// Keys in a redb database file: they survive a restart of the process, so a call
/// retried after a crash still pays once. One process opens the file at a time (redb
/// locks it); for several processes or machines use `PostgresStore` or `RedisStore`.
///
/// Each operation is one write transaction, which redb serializes: two claims of one key
/// never both succeed. Operations block the calling thread for the length of a commit
/// (an fsync).
pub struct RedbStore {
    db: Database,
    /// Tasks inserted: every 64th sweeps the expired ones.
    inserts: std::sync::atomic::AtomicUsize,
}

impl RedbStore {
    /// Opens (or creates) the database at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref();
        let failed =
            |e: &dyn std::fmt::Display| StoreError::new(format!("opening {}: {e}", path.display()));
        let db = Database::create(path).map_err(|e| failed(&e))?;
        let write = db.begin_write().map_err(|e| failed(&e))?;
        write.open_table(TABLE).map_err(|e| failed(&e))?;
        write.open_table(TASKS).map_err(|e| failed(&e))?;
        write.open_table(TASK_ORDER).map_err(|e| failed(&e))?;
        write.commit().map_err(|e| failed(&e))?;
        Ok(Self {
            db,
            inserts: std::sync::atomic::AtomicUsize::new(0),
        })
    }

    /// Runs `change` on the record under `key` in one write transaction: it returns the
    /// answer and what becomes of the record.
    fn update<T>(
        &self,
        key: &str,
        change: impl FnOnce(Option<Record>) -> Result<(T, Change), StoreError>,
    ) -> Result<T, StoreError> {
        let write = self.db.begin_write().map_err(StoreError::new)?;
        let answer = {
            let mut table = write.open_table(TABLE).map_err(StoreError::new)?;
            let current = match table.get(key).map_err(StoreError::new)? {
                Some(bytes) => Some(serde_json::from_slice::<Record>(bytes.value()).map_err(
                    |e| StoreError::new(format!("the record under key {key} is corrupted: {e}")),
                )?),
                None => None,
            };
            let (answer, next) = change(current)?;
            match next {
                Change::Keep => {}
                Change::Put(record) => {
                    let bytes = serde_json::to_vec(&record).map_err(StoreError::new)?;
                    table
                        .insert(key, bytes.as_slice())
                        .map_err(StoreError::new)?;
                }
                Change::Remove => {
                    table.remove(key).map_err(StoreError::new)?;
                }
            }
            answer
        };
        write.commit().map_err(StoreError::new)?;
        Ok(answer)
    }
}

impl IdempotencyStore for RedbStore {
    fn name(&self) -> &str {
        "redb"
    }

    fn claim<'a>(&'a self, request: ClaimRequest<'a>) -> StoreFuture<'a, Claim> {
        let claimed = self.update(request.key, |current| {
            let now = unix_millis();
            match current
                .as_ref()
                .and_then(|record| record.claim_outcome(&request, now))
            {
                Some(found) => Ok((found, Change::Keep)),
                None => Ok((Claim::Claimed, Change::Put(Record::claimed(&request, now)))),
            }
        });
        Box::pin(std::future::ready(claimed))
    }

    fn settle<'a>(
        &'a self,
        key: &'a str,
        digest: &'a str,
        settlement: Settlement,
        retention: Duration,
    ) -> StoreFuture<'a, ()> {
        let settled = self.update(key, |current| match current {
            Some(mut record) if record.digest == digest => {
                if record.settle(settlement, retention, unix_millis()) {
                    Ok(((), Change::Put(record)))
                } else {
                    Ok(((), Change::Remove))
                }
            }
            _ => Ok(((), Change::Keep)),
        });
        Box::pin(std::future::ready(settled))
    }

    fn renew<'a>(&'a self, key: &'a str, digest: &'a str, lease: Duration) -> StoreFuture<'a, ()> {
        let renewed = self.update(key, |current| match current {
            Some(mut record) if record.digest == digest => {
                record.renew(lease, unix_millis());
                Ok(((), Change::Put(record)))
            }
            _ => Ok(((), Change::Keep)),
        });
        Box::pin(std::future::ready(renewed))
    }

    fn tasks(&self) -> Option<&dyn TaskStore> {
        Some(self)
    }
}

impl RedbStore {
    /// Runs `change` on the task under `id` in one write transaction; the row it
    /// returns (if any) is written, and the owner's order kept with it.
    fn update_task<T>(
        &self,
        id: &str,
        now: u64,
        change: impl FnOnce(Option<TaskRow>) -> (T, Option<TaskRow>),
    ) -> Result<T, StoreError> {
        let write = self.db.begin_write().map_err(StoreError::new)?;
        let answer = {
            let mut tasks = write.open_table(TASKS).map_err(StoreError::new)?;
            let mut order = write.open_table(TASK_ORDER).map_err(StoreError::new)?;
            let current = match tasks.get(id).map_err(StoreError::new)? {
                Some(bytes) => Some(task_of(id, bytes.value())?),
                None => None,
            };
            let live = current.clone().filter(|task| task.expires_at > now);
            let (answer, next) = change(live);
            if let Some(row) = next {
                if let Some(old) = &current {
                    order
                        .remove(order_key(old).as_str())
                        .map_err(StoreError::new)?;
                }
                let bytes = serde_json::to_vec(&row).map_err(StoreError::new)?;
                tasks
                    .insert(id, bytes.as_slice())
                    .map_err(StoreError::new)?;
                order
                    .insert(order_key(&row).as_str(), ())
                    .map_err(StoreError::new)?;
            }
            answer
        };
        write.commit().map_err(StoreError::new)?;
        Ok(answer)
    }

    /// The live tasks of `owner` after `after`, at most `limit` (all with `usize::MAX`).
    fn owned(
        &self,
        owner: &str,
        after: Option<(u64, &str)>,
        limit: usize,
        now: u64,
    ) -> Result<Vec<TaskRow>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let read = self.db.begin_read().map_err(StoreError::new)?;
        let tasks = read.open_table(TASKS).map_err(StoreError::new)?;
        let order = read.open_table(TASK_ORDER).map_err(StoreError::new)?;
        let prefix = format!("{owner}/");
        let start = match after {
            Some((created_at, id)) => format!("{prefix}{created_at:020}/{id}"),
            None => prefix.clone(),
        };
        let mut found = Vec::new();
        for entry in order.range(start.as_str()..).map_err(StoreError::new)? {
            let (key, _) = entry.map_err(StoreError::new)?;
            let key = key.value();
            let Some(rest) = key.strip_prefix(prefix.as_str()) else {
                break;
            };
            if after.is_some() && key == start {
                continue;
            }
            let Some((_, id)) = rest.split_once('/') else {
                continue;
            };
            if let Some(bytes) = tasks.get(id).map_err(StoreError::new)? {
                let task = task_of(id, bytes.value())?;
                if task.expires_at > now {
                    found.push(task);
                    if found.len() == limit {
                        break;
                    }
                }
            }
        }
        Ok(found)
    }

    /// Forgets the tasks expired by `now` (at most 256 at a time, on inserts).
    fn sweep_tasks(&self, now: u64) -> Result<(), StoreError> {
        let write = self.db.begin_write().map_err(StoreError::new)?;
        {
            let mut tasks = write.open_table(TASKS).map_err(StoreError::new)?;
            let mut order = write.open_table(TASK_ORDER).map_err(StoreError::new)?;
            let mut expired = Vec::new();
            for entry in tasks.iter().map_err(StoreError::new)? {
                let (id, bytes) = entry.map_err(StoreError::new)?;
                let task = task_of(id.value(), bytes.value())?;
                if task.expires_at <= now {
                    expired.push(task);
                    if expired.len() == 256 {
                        break;
                    }
                }
            }
            for task in expired {
                tasks.remove(task.id.as_str()).map_err(StoreError::new)?;
                order
                    .remove(order_key(&task).as_str())
                    .map_err(StoreError::new)?;
            }
        }
        write.commit().map_err(StoreError::new)
    }
}

fn task_of(id: &str, bytes: &[u8]) -> Result<TaskRow, StoreError> {
    serde_json::from_slice(bytes)
        .map_err(|e| StoreError::new(format!("the task {id} is corrupted: {e}")))
}

/// Where a task sits in its owner's order: the creation time zero-padded, so the
/// order of keys is the order of times.
fn order_key(task: &TaskRow) -> String {
    format!("{}/{:020}/{}", task.owner, task.created_at, task.id)
}

impl TaskStore for RedbStore {
    fn insert<'a>(&'a self, row: &'a TaskRow, now: u64) -> StoreFuture<'a, Option<TaskRow>> {
        let inserted = self.update_task(&row.id, now, |live| match live {
            Some(found) => (Some(found), None),
            None => (None, Some(row.clone())),
        });
        let inserts = self
            .inserts
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if matches!(inserted, Ok(None))
            && inserts % 64 == 63
            && let Err(error) = self.sweep_tasks(now)
        {
            tracing::warn!(%error, "could not forget expired tasks");
        }
        Box::pin(std::future::ready(inserted))
    }

    fn get<'a>(&'a self, id: &'a str, now: u64) -> StoreFuture<'a, Option<TaskRow>> {
        let found = (|| {
            let read = self.db.begin_read().map_err(StoreError::new)?;
            let tasks = read.open_table(TASKS).map_err(StoreError::new)?;
            match tasks.get(id).map_err(StoreError::new)? {
                Some(bytes) => Ok(Some(task_of(id, bytes.value())?).filter(|t| t.expires_at > now)),
                None => Ok(None),
            }
        })();
        Box::pin(std::future::ready(found))
    }

    fn replace<'a>(&'a self, row: &'a TaskRow, now: u64) -> StoreFuture<'a, bool> {
        let replaced = self.update_task(&row.id, now, |live| match live {
            Some(task) if task.version + 1 == row.version => (true, Some(row.clone())),
            _ => (false, None),
        });
        Box::pin(std::future::ready(replaced))
    }

    fn list<'a>(
        &'a self,
        owner: &'a str,
        after: Option<(u64, &'a str)>,
        limit: usize,
        now: u64,
    ) -> StoreFuture<'a, Vec<TaskRow>> {
        Box::pin(std::future::ready(self.owned(owner, after, limit, now)))
    }

    fn count<'a>(&'a self, owner: &'a str, up_to: usize, now: u64) -> StoreFuture<'a, usize> {
        let count = self.owned(owner, None, up_to, now).map(|tasks| tasks.len());
        Box::pin(std::future::ready(count))
    }
}

/// What an update does to the record under its key.
enum Change {
    Keep,
    Put(Record),
    Remove,
}
