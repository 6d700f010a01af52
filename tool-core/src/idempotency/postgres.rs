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
    millis,
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
            match store.client().await?.batch_execute(CREATE).await {
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
}
