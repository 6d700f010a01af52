//! Idempotency: an external call (a refund) runs with a key; a second call with the same
//! key gets the first result back, marked duplicate, and the tool does not run again.

use std::collections::HashMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::{ToolError, ToolOutput};

/// What a call with an idempotency key ended with, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredOutcome {
    /// The tool this key was used with.
    pub tool: String,
    /// What the tool returned.
    pub outcome: Result<ToolOutput, ToolError>,
}

/// Where idempotency keys and their first results are kept.
pub trait IdempotencyStore: Send + Sync {
    /// The outcome stored under `key`, if any.
    fn get(&self, key: &str) -> Result<Option<StoredOutcome>, String>;
    /// Stores `outcome` under `key` (the first outcome wins).
    fn put(&self, key: &str, outcome: &StoredOutcome) -> Result<(), String>;
}

/// Keys in memory: enough for one process.
#[derive(Debug, Default)]
pub struct MemoryStore {
    entries: Mutex<HashMap<String, StoredOutcome>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl IdempotencyStore for MemoryStore {
    fn get(&self, key: &str) -> Result<Option<StoredOutcome>, String> {
        let entries = self
            .entries
            .lock()
            .map_err(|_| "the idempotency store is poisoned".to_owned())?;
        Ok(entries.get(key).cloned())
    }

    fn put(&self, key: &str, outcome: &StoredOutcome) -> Result<(), String> {
        let mut entries = self
            .entries
            .lock()
            .map_err(|_| "the idempotency store is poisoned".to_owned())?;
        entries
            .entry(key.to_owned())
            .or_insert_with(|| outcome.clone());
        Ok(())
    }
}

#[cfg(feature = "redb")]
pub use persistent::RedbStore;

#[cfg(feature = "redb")]
mod persistent {
    use std::path::Path;

    use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};

    use super::{IdempotencyStore, StoredOutcome};

    const TABLE: TableDefinition<&str, &[u8]> = TableDefinition::new("idempotency");

    /// Keys in a redb database file: they survive a restart of the process, so a call
    /// retried after a crash still pays once.
    pub struct RedbStore {
        db: Database,
    }

    impl RedbStore {
        /// Opens (or creates) the database at `path`.
        pub fn open(path: impl AsRef<Path>) -> Result<Self, String> {
            let db = Database::create(path).map_err(|e| e.to_string())?;
            let write = db.begin_write().map_err(|e| e.to_string())?;
            write.open_table(TABLE).map_err(|e| e.to_string())?;
            write.commit().map_err(|e| e.to_string())?;
            Ok(Self { db })
        }
    }

    impl IdempotencyStore for RedbStore {
        fn get(&self, key: &str) -> Result<Option<StoredOutcome>, String> {
            let read = self.db.begin_read().map_err(|e| e.to_string())?;
            let table = read.open_table(TABLE).map_err(|e| e.to_string())?;
            match table.get(key).map_err(|e| e.to_string())? {
                Some(bytes) => serde_json::from_slice(bytes.value())
                    .map(Some)
                    .map_err(|e| e.to_string()),
                None => Ok(None),
            }
        }

        fn put(&self, key: &str, outcome: &StoredOutcome) -> Result<(), String> {
            let bytes = serde_json::to_vec(outcome).map_err(|e| e.to_string())?;
            let write = self.db.begin_write().map_err(|e| e.to_string())?;
            {
                let mut table = write.open_table(TABLE).map_err(|e| e.to_string())?;
                let present = table.get(key).map_err(|e| e.to_string())?.is_some();
                if !present {
                    table
                        .insert(key, bytes.as_slice())
                        .map_err(|e| e.to_string())?;
                }
            }
            write.commit().map_err(|e| e.to_string())
        }
    }
}
