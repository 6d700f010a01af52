//! Keys in an embedded redb database: one machine, survives restarts.

use std::path::Path;
use std::time::Duration;

use redb::{Database, ReadableTable, TableDefinition};

use super::{
    Claim, ClaimRequest, IdempotencyStore, Record, Settlement, StoreError, StoreFuture, unix_millis,
};

const TABLE: TableDefinition<&str, &[u8]> = TableDefinition::new("toolwright_claims");

/// Keys in a redb database file: they survive a restart of the process, so a call
/// retried after a crash still pays once. One process opens the file at a time (redb
/// locks it); for several processes or machines use `PostgresStore` or `RedisStore`.
///
/// Each operation is one write transaction, which redb serializes: two claims of one key
/// never both succeed. Operations block the calling thread for the length of a commit
/// (an fsync).
pub struct RedbStore {
    db: Database,
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
        write.commit().map_err(|e| failed(&e))?;
        Ok(Self { db })
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
}

/// What an update does to the record under its key.
enum Change {
    Keep,
    Put(Record),
    Remove,
}
