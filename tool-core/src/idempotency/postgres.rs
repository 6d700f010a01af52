//! Keys in PostgreSQL: several replicas share them. Every decision is one statement the
//! server makes atomic (`INSERT ... ON CONFLICT`), by the server's clock.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use deadpool_postgres::{
    Config, ManagerConfig, Pool, PoolConfig, RecyclingMethod, Runtime, Timeouts,
};
use tokio_postgres::NoTls;

use super::{
    Claim, ClaimRequest, IdempotencyStore, Settlement, StoreError, StoreFuture, StoredOutcome,
    TaskRow, TaskStore, millis,
};

/// Keys and tickets in a PostgreSQL table (`toolwright_claims`, created when missing), for
/// several processes or machines sharing them: a claim is one `INSERT ... ON CONFLICT`,
/// so two replicas claiming one key at once get one `Claimed` between them. Leases and
/// retention are measured by the database server's clock, so replicas' clocks need not
/// agree.
///
/// Connections come from a pool (deadpool-postgres); an unreachable server fails an
/// operation within 5 seconds, and the call does not run. Expired rows are replaced when
/// their key is claimed again and purged every 1,024 claims (or by
/// [`PostgresStore::purge_expired`]).
pub struct PostgresStore {
    pool: Pool,
    claims: AtomicUsize,
}

const CREATE: &str = "CREATE TABLE IF NOT EXISTS toolwright_claims (
    key text PRIMARY KEY,
    digest text NOT NULL,
    tool text NOT NULL,
    state text NOT NULL CHECK (state IN ('running', 'done', 'unknown')),
    lease_until timestamptz NOT NULL,
    outcome text,
    expires_at timestamptz NOT NULL
)";

const CLAIM: &str = "INSERT INTO toolwright_claims AS c
        (key, digest, tool, state, lease_until, outcome, expires_at)
    VALUES ($1, $2, $3, 'running', now() + $4::bigint * interval '1 millisecond', NULL,
        now() + $5::bigint * interval '1 millisecond')
    ON CONFLICT (key) DO UPDATE SET digest = EXCLUDED.digest, tool = EXCLUDED.tool,
        state = 'running', lease_until = EXCLUDED.lease_until, outcome = NULL,
        expires_at = EXCLUDED.expires_at
    WHERE c.expires_at <= now()
    RETURNING 1";

const FIND: &str = "SELECT digest, tool, state, lease_until > now(), outcome
    FROM toolwright_claims WHERE key = $1 AND expires_at > now()";

const DONE: &str = "UPDATE toolwright_claims SET state = 'done', outcome = $3,
        expires_at = now() + $4::bigint * interval '1 millisecond'
    WHERE key = $1 AND digest = $2";

const UNKNOWN: &str = "UPDATE toolwright_claims SET state = 'unknown' WHERE key = $1 AND digest = $2 AND state = 'running'";

const RENEW: &str = "UPDATE toolwright_claims
    SET lease_until = now() + $3::bigint * interval '1 millisecond'
    WHERE key = $1 AND digest = $2 AND state = 'running'";

const RELEASE: &str =
    "DELETE FROM toolwright_claims WHERE key = $1 AND digest = $2 AND state = 'running'";

const PURGE: &str = "DELETE FROM toolwright_claims WHERE expires_at <= now()";

/// Tasks beside the claims: times are the writing process's Unix milliseconds (see
/// `crate::idempotency::TaskStore`).
const CREATE_TASKS: &str = "CREATE TABLE IF NOT EXISTS toolwright_tasks (
    id text PRIMARY KEY,
    owner text NOT NULL,
    version bigint NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    body text NOT NULL
);
CREATE INDEX IF NOT EXISTS toolwright_tasks_by_owner
    ON toolwright_tasks (owner, created_at, id)";

const TASK_INSERT: &str = "INSERT INTO toolwright_tasks AS t
        (id, owner, version, created_at, expires_at, body)
    VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (id) DO UPDATE SET owner = EXCLUDED.owner, version = EXCLUDED.version,
        created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, body = EXCLUDED.body
    WHERE t.expires_at <= $7
    RETURNING 1";

const TASK_GET: &str = "SELECT id, owner, version, created_at, expires_at, body
    FROM toolwright_tasks WHERE id = $1 AND expires_at > $2";

const TASK_REPLACE: &str = "UPDATE toolwright_tasks SET version = $2, expires_at = $3, body = $4
    WHERE id = $1 AND version = $6 AND expires_at > $5";

const TASK_LIST: &str = "SELECT id, owner, version, created_at, expires_at, body
    FROM toolwright_tasks WHERE owner = $1 AND expires_at > $2 AND (created_at, id) > ($3, $4)
    ORDER BY created_at, id LIMIT $5";

const TASK_COUNT: &str = "SELECT count(*) FROM (SELECT 1 FROM toolwright_tasks
    WHERE owner = $1 AND expires_at > $2 LIMIT $3) AS live";

const TASK_PURGE: &str = "DELETE FROM toolwright_tasks WHERE expires_at <= $1";

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user:password@host:port/db`) and
    /// creates the table when missing. Needs a tokio runtime.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let mut config = Config::new();
        config.url = Some(url.to_owned());
        config.connect_timeout = Some(Duration::from_secs(5));
        config.manager = Some(ManagerConfig {
            recycling_method: RecyclingMethod::Fast,
        });
        let limit = Some(Duration::from_secs(5));
        config.pool = Some(PoolConfig {
            timeouts: Timeouts {
                wait: limit,
                create: limit,
                recycle: limit,
            },
            ..PoolConfig::default()
        });
        let pool = config
            .create_pool(Some(Runtime::Tokio1), NoTls)
            .map_err(|e| StoreError::new(format!("configuring the connection: {e}")))?;
        let store = Self {
            pool,
            claims: AtomicUsize::new(0),
        };
        // Two replicas starting together can race on CREATE TABLE (a unique violation
        // in the catalog); the loser finds the table on its second try.
        let mut attempt = 0;
        loop {
            attempt += 1;
            let client = store.client().await?;
            let created = match client.batch_execute(CREATE).await {
                Ok(()) => client.batch_execute(CREATE_TASKS).await,
                Err(e) => Err(e),
            };
            match created {
                Ok(()) => break,
                Err(_) if attempt < 3 => continue,
                Err(e) => return Err(StoreError::new(format!("creating the table: {e}"))),
            }
        }
        Ok(store)
    }

    /// Deletes every expired key.
    pub async fn purge_expired(&self) -> Result<u64, StoreError> {
        self.client()
            .await?
            .execute(PURGE, &[])
            .await
            .map_err(|e| StoreError::new(format!("purging expired keys: {e}")))
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.pool
            .get()
            .await
            .map_err(|e| StoreError::new(format!("connecting: {e}")))
    }

    async fn claim_key(&self, request: ClaimRequest<'_>) -> Result<Claim, StoreError> {
        let client = self.client().await?;
        let lease = i64::try_from(millis(request.lease)).unwrap_or(i64::MAX);
        let retention =
            i64::try_from(millis(request.retention.max(request.lease))).unwrap_or(i64::MAX);
        if self.claims.fetch_add(1, Ordering::Relaxed) % 1024 == 1023
            && let Err(error) = client.execute(PURGE, &[]).await
        {
            tracing::warn!(%error, "could not purge expired idempotency keys");
        }
        let failed = |e: tokio_postgres::Error| StoreError::new(format!("claiming a key: {e}"));
        // A row that disappears between the two statements (released, or expired) is
        // claimed on the next turn.
        for _ in 0..3 {
            let claim = client.prepare_cached(CLAIM).await.map_err(failed)?;
            let params: [&(dyn tokio_postgres::types::ToSql + Sync); 5] = [
                &request.key,
                &request.digest,
                &request.tool,
                &lease,
                &retention,
            ];
            if client
                .query_opt(&claim, &params)
                .await
                .map_err(failed)?
                .is_some()
            {
                return Ok(Claim::Claimed);
            }
            let find = client.prepare_cached(FIND).await.map_err(failed)?;
            let Some(row) = client
                .query_opt(&find, &[&request.key])
                .await
                .map_err(failed)?
            else {
                continue;
            };
            let digest: String = row.try_get(0).map_err(failed)?;
            let tool: String = row.try_get(1).map_err(failed)?;
            let state: String = row.try_get(2).map_err(failed)?;
            let live: bool = row.try_get(3).map_err(failed)?;
            let outcome: Option<String> = row.try_get(4).map_err(failed)?;
            if digest != request.digest {
                return Ok(Claim::Mismatch { tool });
            }
            return match (state.as_str(), outcome) {
                ("done", Some(outcome)) => serde_json::from_str(&outcome)
                    .map(|outcome| Claim::Done(StoredOutcome { tool, outcome }))
                    .map_err(|e| {
                        StoreError::new(format!(
                            "the outcome stored under key {} is corrupted: {e}",
                            request.key
                        ))
                    }),
                ("running", _) if live => Ok(Claim::InFlight),
                ("running" | "unknown", _) => Ok(Claim::Unknown),
                (state, _) => Err(StoreError::new(format!(
                    "the row under key {} is corrupted: state '{state}'",
                    request.key
                ))),
            };
        }
        Err(StoreError::new(format!(
            "key {} changed under three claims in a row",
            request.key
        )))
    }

    async fn settle_key(
        &self,
        key: &str,
        digest: &str,
        settlement: Settlement,
        retention: Duration,
    ) -> Result<(), StoreError> {
        let client = self.client().await?;
        let failed =
            |e: tokio_postgres::Error| StoreError::new(format!("recording an outcome: {e}"));
        match settlement {
            Settlement::Done(stored) => {
                let outcome = serde_json::to_string(&stored.outcome).map_err(StoreError::new)?;
                let retention = i64::try_from(millis(retention)).unwrap_or(i64::MAX);
                client
                    .execute(DONE, &[&key, &digest, &outcome, &retention])
                    .await
                    .map_err(failed)?;
            }
            Settlement::Unknown => {
                client
                    .execute(UNKNOWN, &[&key, &digest])
                    .await
                    .map_err(failed)?;
            }
            Settlement::Release => {
                client
                    .execute(RELEASE, &[&key, &digest])
                    .await
                    .map_err(failed)?;
            }
        }
        Ok(())
    }
}

/// A number of milliseconds as PostgreSQL's `bigint`.
fn big(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn task_of(row: &tokio_postgres::Row) -> Result<TaskRow, tokio_postgres::Error> {
    let number = |index: usize| -> Result<u64, tokio_postgres::Error> {
        Ok(u64::try_from(row.try_get::<_, i64>(index)?).unwrap_or(0))
    };
    Ok(TaskRow {
        id: row.try_get(0)?,
        owner: row.try_get(1)?,
        version: number(2)?,
        created_at: number(3)?,
        expires_at: number(4)?,
        body: row.try_get(5)?,
    })
}

/// The live task `id`, read on `client` (one connection: an insert that finds a row
/// reads it on the connection it holds, so racing inserts cannot exhaust the pool).
async fn find_task(
    client: &deadpool_postgres::Object,
    id: &str,
    now: u64,
) -> Result<Option<TaskRow>, StoreError> {
    let failed = |e: tokio_postgres::Error| StoreError::new(format!("reading a task: {e}"));
    let get = client.prepare_cached(TASK_GET).await.map_err(failed)?;
    match client
        .query_opt(&get, &[&id, &big(now)])
        .await
        .map_err(failed)?
    {
        Some(row) => task_of(&row).map(Some).map_err(failed),
        None => Ok(None),
    }
}

impl PostgresStore {
    async fn insert_task(&self, row: &TaskRow, now: u64) -> Result<Option<TaskRow>, StoreError> {
        let failed = |e: tokio_postgres::Error| StoreError::new(format!("creating a task: {e}"));
        let client = self.client().await?;
        if self.claims.fetch_add(1, Ordering::Relaxed) % 1024 == 1023
            && let Err(error) = client.execute(TASK_PURGE, &[&big(now)]).await
        {
            tracing::warn!(%error, "could not purge expired tasks");
        }
        // A row that expires between the two statements is replaced on the next turn.
        for _ in 0..3 {
            let insert = client.prepare_cached(TASK_INSERT).await.map_err(failed)?;
            let params: [&(dyn tokio_postgres::types::ToSql + Sync); 7] = [
                &row.id,
                &row.owner,
                &big(row.version),
                &big(row.created_at),
                &big(row.expires_at),
                &row.body,
                &big(now),
            ];
            if client
                .query_opt(&insert, &params)
                .await
                .map_err(failed)?
                .is_some()
            {
                return Ok(None);
            }
            if let Some(found) = find_task(&client, &row.id, now).await? {
                return Ok(Some(found));
            }
        }
        Err(StoreError::new(format!(
            "task {} changed under three inserts in a row",
            row.id
        )))
    }

    async fn get_task(&self, id: &str, now: u64) -> Result<Option<TaskRow>, StoreError> {
        find_task(&self.client().await?, id, now).await
    }

    async fn replace_task(&self, row: &TaskRow, now: u64) -> Result<bool, StoreError> {
        let failed = |e: tokio_postgres::Error| StoreError::new(format!("updating a task: {e}"));
        let client = self.client().await?;
        let replace = client.prepare_cached(TASK_REPLACE).await.map_err(failed)?;
        let params: [&(dyn tokio_postgres::types::ToSql + Sync); 6] = [
            &row.id,
            &big(row.version),
            &big(row.expires_at),
            &row.body,
            &big(now),
            &big(row.version.saturating_sub(1)),
        ];
        Ok(client.execute(&replace, &params).await.map_err(failed)? == 1)
    }

    async fn list_tasks(
        &self,
        owner: &str,
        after: Option<(u64, &str)>,
        limit: usize,
        now: u64,
    ) -> Result<Vec<TaskRow>, StoreError> {
        let failed = |e: tokio_postgres::Error| StoreError::new(format!("listing tasks: {e}"));
        let client = self.client().await?;
        let list = client.prepare_cached(TASK_LIST).await.map_err(failed)?;
        let (created_at, id) = after.map_or((-1, ""), |(created_at, id)| (big(created_at), id));
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = client
            .query(&list, &[&owner, &big(now), &created_at, &id, &limit])
            .await
            .map_err(failed)?;
        rows.iter()
            .map(|row| task_of(row).map_err(failed))
            .collect()
    }

    async fn count_tasks(&self, owner: &str, up_to: usize, now: u64) -> Result<usize, StoreError> {
        let failed = |e: tokio_postgres::Error| StoreError::new(format!("counting tasks: {e}"));
        let client = self.client().await?;
        let row = client
            .query_one(
                TASK_COUNT,
                &[&owner, &big(now), &i64::try_from(up_to).unwrap_or(i64::MAX)],
            )
            .await
            .map_err(failed)?;
        let count: i64 = row.try_get(0).map_err(failed)?;
        Ok(usize::try_from(count).unwrap_or(usize::MAX))
    }
}

impl TaskStore for PostgresStore {
    fn insert<'a>(&'a self, row: &'a TaskRow, now: u64) -> StoreFuture<'a, Option<TaskRow>> {
        Box::pin(self.insert_task(row, now))
    }

    fn get<'a>(&'a self, id: &'a str, now: u64) -> StoreFuture<'a, Option<TaskRow>> {
        Box::pin(self.get_task(id, now))
    }

    fn replace<'a>(&'a self, row: &'a TaskRow, now: u64) -> StoreFuture<'a, bool> {
        Box::pin(self.replace_task(row, now))
    }

    fn list<'a>(
        &'a self,
        owner: &'a str,
        after: Option<(u64, &'a str)>,
        limit: usize,
        now: u64,
    ) -> StoreFuture<'a, Vec<TaskRow>> {
        Box::pin(self.list_tasks(owner, after, limit, now))
    }

    fn count<'a>(&'a self, owner: &'a str, up_to: usize, now: u64) -> StoreFuture<'a, usize> {
        Box::pin(self.count_tasks(owner, up_to, now))
    }
}

impl IdempotencyStore for PostgresStore {
    fn name(&self) -> &str {
        "postgres"
    }

    fn claim<'a>(&'a self, request: ClaimRequest<'a>) -> StoreFuture<'a, Claim> {
        Box::pin(self.claim_key(request))
    }

    fn settle<'a>(
        &'a self,
        key: &'a str,
        digest: &'a str,
        settlement: Settlement,
        retention: Duration,
    ) -> StoreFuture<'a, ()> {
        Box::pin(self.settle_key(key, digest, settlement, retention))
    }

    fn renew<'a>(&'a self, key: &'a str, digest: &'a str, lease: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let lease = i64::try_from(millis(lease)).unwrap_or(i64::MAX);
            self.client()
                .await?
                .execute(RENEW, &[&key, &digest, &lease])
                .await
                .map(drop)
                .map_err(|e| StoreError::new(format!("renewing a lease: {e}")))
        })
    }

    fn tasks(&self) -> Option<&dyn TaskStore> {
        Some(self)
    }
}
