//! Keys in Redis: several replicas share them. Every decision is one Lua script, which
//! Redis runs atomically, by the server's clock.

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, Script};

use super::{
    Claim, ClaimRequest, IdempotencyStore, Settlement, StoreError, StoreFuture, StoredOutcome,
    millis,
};

/// Keys and tickets in Redis, for several processes or machines sharing them: a claim is
/// one Lua script (read the key's hash, create it when free), which Redis runs without
/// interleaving, so two replicas claiming one key at once get one `Claimed` between them.
/// Leases are measured by the Redis server's clock (`TIME`); retention is the key's own
/// expiry (`PEXPIRE`), so nothing needs purging.
///
/// Keys are hashes under `toolwright:claim:<key>`. The connection is redis-rs's
/// connection manager (reconnects by itself); an unreachable server fails an operation
/// within 5 seconds, and the call does not run.
pub struct RedisStore {
    connection: ConnectionManager,
    claim: Script,
    settle: Script,
    renew: Script,
}

const PREFIX: &str = "toolwright:claim:";

/// KEYS[1] key; ARGV digest, tool, lease ms, retention ms.
const CLAIM: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rec = redis.call('HMGET', KEYS[1], 'digest', 'tool', 'state', 'lease_until', 'outcome')
if not rec[1] then
  redis.call('HSET', KEYS[1], 'digest', ARGV[1], 'tool', ARGV[2], 'state', 'running',
    'lease_until', tostring(now + tonumber(ARGV[3])))
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return {'claimed'}
end
if rec[1] ~= ARGV[1] then return {'mismatch', rec[2] or ''} end
if rec[3] == 'done' then return {'done', rec[2] or '', rec[5] or ''} end
if rec[3] == 'running' and tonumber(rec[4] or '0') > now then return {'running'} end
if rec[3] == 'running' or rec[3] == 'unknown' then return {'unknown'} end
return {'corrupted', tostring(rec[3])}
";

/// KEYS[1] key; ARGV digest, action (done | unknown | release), outcome, retention ms.
const SETTLE: &str = r"
local rec = redis.call('HMGET', KEYS[1], 'digest', 'state')
if rec[1] ~= ARGV[1] then return 0 end
if ARGV[2] == 'done' then
  redis.call('HSET', KEYS[1], 'state', 'done', 'outcome', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
elseif rec[2] == 'running' then
  if ARGV[2] == 'release' then
    redis.call('DEL', KEYS[1])
  else
    redis.call('HSET', KEYS[1], 'state', 'unknown')
  end
end
return 1
";

/// KEYS[1] key; ARGV digest, lease ms.
const RENEW: &str = r"
local rec = redis.call('HMGET', KEYS[1], 'digest', 'state')
if rec[1] ~= ARGV[1] or rec[2] ~= 'running' then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], 'lease_until', tostring(now + tonumber(ARGV[2])))
return 1
";

impl RedisStore {
    /// Connects to the server at `url` (`redis://[:password@]host:port[/db]`). Needs a
    /// tokio runtime.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let client =
            Client::open(url).map_err(|e| StoreError::new(format!("reading the URL: {e}")))?;
        let limit = Some(Duration::from_secs(5));
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(limit)
            .set_response_timeout(limit)
            .set_number_of_retries(2);
        let connection = client
            .get_connection_manager_with_config(config)
            .await
            .map_err(|e| StoreError::new(format!("connecting: {e}")))?;
        Ok(Self {
            connection,
            claim: Script::new(CLAIM),
            settle: Script::new(SETTLE),
            renew: Script::new(RENEW),
        })
    }

    async fn claim_key(&self, request: ClaimRequest<'_>) -> Result<Claim, StoreError> {
        let mut connection = self.connection.clone();
        let reply: Vec<String> = self
            .claim
            .key(format!("{PREFIX}{}", request.key))
            .arg(request.digest)
            .arg(request.tool)
            .arg(millis(request.lease).max(1))
            .arg(millis(request.retention.max(request.lease)).max(1))
            .invoke_async(&mut connection)
            .await
            .map_err(|e| StoreError::new(format!("claiming a key: {e}")))?;
        let corrupted = |what: &dyn std::fmt::Display| {
            StoreError::new(format!(
                "the entry under key {} is corrupted: {what}",
                request.key
            ))
        };
        match reply.as_slice() {
            [state] if state == "claimed" => Ok(Claim::Claimed),
            [state] if state == "running" => Ok(Claim::InFlight),
            [state] if state == "unknown" => Ok(Claim::Unknown),
            [state, tool] if state == "mismatch" => Ok(Claim::Mismatch { tool: tool.clone() }),
            [state, tool, outcome] if state == "done" => serde_json::from_str(outcome)
                .map(|outcome| {
                    Claim::Done(StoredOutcome {
                        tool: tool.clone(),
                        outcome,
                    })
                })
                .map_err(|e| corrupted(&e)),
            [_, state] => Err(corrupted(&format!("state '{state}'"))),
            other => Err(corrupted(&format!("unexpected reply {other:?}"))),
        }
    }

    async fn settle_key(
        &self,
        key: &str,
        digest: &str,
        settlement: Settlement,
        retention: Duration,
    ) -> Result<(), StoreError> {
        let (action, outcome) = match settlement {
            Settlement::Done(stored) => (
                "done",
                serde_json::to_string(&stored.outcome).map_err(StoreError::new)?,
            ),
            Settlement::Unknown => ("unknown", String::new()),
            Settlement::Release => ("release", String::new()),
        };
        let mut connection = self.connection.clone();
        let _: i64 = self
            .settle
            .key(format!("{PREFIX}{key}"))
            .arg(digest)
            .arg(action)
            .arg(outcome)
            .arg(millis(retention).max(1))
            .invoke_async(&mut connection)
            .await
            .map_err(|e| StoreError::new(format!("recording an outcome: {e}")))?;
        Ok(())
    }
}

impl IdempotencyStore for RedisStore {
    fn name(&self) -> &str {
        "redis"
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
            let mut connection = self.connection.clone();
            let _: i64 = self
                .renew
                .key(format!("{PREFIX}{key}"))
                .arg(digest)
                .arg(millis(lease).max(1))
                .invoke_async(&mut connection)
                .await
                .map_err(|e| StoreError::new(format!("renewing a lease: {e}")))?;
            Ok(())
        })
    }
}
