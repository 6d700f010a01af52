//! Keys in Redis: several replicas share them. Every decision is one Lua script, which
//! Redis runs atomically, by the server's clock.

use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, Script};

use super::{
    Claim, ClaimRequest, IdempotencyStore, Settlement, StoreError, StoreFuture, StoredOutcome,
    TaskRow, TaskStore, millis,
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
    tasks: TaskScripts,
}

/// The scripts of the task operations (see [`TaskStore`]).
struct TaskScripts {
    insert: Script,
    replace: Script,
    list: Script,
}

const PREFIX: &str = "toolwright:claim:";

/// A task is a hash under `toolwright:task:<id>`, expiring with the task; an owner's
/// tasks are a sorted set under `toolwright:tasks:<owner>` (scored by creation time, so
/// the order of equal times is the ids'), its dead members dropped as they are met.
const TASK_PREFIX: &str = "toolwright:task:";
const OWNER_PREFIX: &str = "toolwright:tasks:";
const TASK_FIELDS: [&str; 6] = ["id", "owner", "version", "created_at", "expires_at", "body"];

/// KEYS[1] task, KEYS[2] owner's set; ARGV id, owner, version, created_at, expires_at,
/// body, now. Returns the live task found, or nothing when the row was kept.
const TASK_INSERT: &str = r"
local e = redis.call('HGET', KEYS[1], 'expires_at')
if e and tonumber(e) > tonumber(ARGV[7]) then
  return redis.call('HMGET', KEYS[1], 'id', 'owner', 'version', 'created_at', 'expires_at', 'body')
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'owner', ARGV[2], 'version', ARGV[3],
  'created_at', ARGV[4], 'expires_at', ARGV[5], 'body', ARGV[6])
redis.call('PEXPIREAT', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
redis.call('PEXPIREAT', KEYS[2], ARGV[5], 'GT')
redis.call('PEXPIREAT', KEYS[2], ARGV[5], 'NX')
return {}
";

/// KEYS[1] task, KEYS[2] owner's set; ARGV version, expires_at, body, now.
const TASK_REPLACE: &str = r"
local rec = redis.call('HMGET', KEYS[1], 'version', 'expires_at')
if not rec[1] or tonumber(rec[2]) <= tonumber(ARGV[4])
  or tonumber(rec[1]) + 1 ~= tonumber(ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'expires_at', ARGV[2], 'body', ARGV[3])
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
redis.call('PEXPIREAT', KEYS[2], ARGV[2], 'GT')
return 1
";

/// KEYS[1] owner's set; ARGV task prefix, after created_at, after id, limit, now,
/// whether there is an `after`, whether to count only. Returns the live tasks (or their
/// count, up to the limit).
const TASK_LIST: &str = r"
local out = {}
local count = 0
local limit = tonumber(ARGV[4])
local members = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[2], '+inf', 'WITHSCORES')
for i = 1, #members, 2 do
  local id = members[i]
  local score = tonumber(members[i + 1])
  if ARGV[6] == '0' or score > tonumber(ARGV[2]) or id > ARGV[3] then
    local rec = redis.call('HMGET', ARGV[1] .. id,
      'id', 'owner', 'version', 'created_at', 'expires_at', 'body')
    if not rec[1] then
      redis.call('ZREM', KEYS[1], id)
    elseif tonumber(rec[5]) > tonumber(ARGV[5]) then
      count = count + 1
      if ARGV[7] == '0' then table.insert(out, rec) end
      if count >= limit then break end
    end
  end
end
if ARGV[7] == '1' then return count end
return out
";

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
            tasks: TaskScripts {
                insert: Script::new(TASK_INSERT),
                replace: Script::new(TASK_REPLACE),
                list: Script::new(TASK_LIST),
            },
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

/// A task from its fields in [`TASK_FIELDS`]' order.
fn task_of(fields: &[Option<String>]) -> Result<TaskRow, StoreError> {
    let corrupted = || StoreError::new(format!("a task's fields are corrupted: {fields:?}"));
    let text = |index: usize| fields.get(index).cloned().flatten().ok_or_else(corrupted);
    let number = |index: usize| text(index)?.parse::<u64>().map_err(|_| corrupted());
    Ok(TaskRow {
        id: text(0)?,
        owner: text(1)?,
        version: number(2)?,
        created_at: number(3)?,
        expires_at: number(4)?,
        body: text(5)?,
    })
}

impl RedisStore {
    async fn insert_task(&self, row: &TaskRow, now: u64) -> Result<Option<TaskRow>, StoreError> {
        let mut connection = self.connection.clone();
        let found: Vec<Option<String>> = self
            .tasks
            .insert
            .key(format!("{TASK_PREFIX}{}", row.id))
            .key(format!("{OWNER_PREFIX}{}", row.owner))
            .arg(&row.id)
            .arg(&row.owner)
            .arg(row.version)
            .arg(row.created_at)
            .arg(row.expires_at)
            .arg(&row.body)
            .arg(now)
            .invoke_async(&mut connection)
            .await
            .map_err(|e| StoreError::new(format!("creating a task: {e}")))?;
        if found.is_empty() {
            Ok(None)
        } else {
            task_of(&found).map(Some)
        }
    }

    async fn get_task(&self, id: &str, now: u64) -> Result<Option<TaskRow>, StoreError> {
        let mut connection = self.connection.clone();
        let fields: Vec<Option<String>> = redis::cmd("HMGET")
            .arg(format!("{TASK_PREFIX}{id}"))
            .arg(&TASK_FIELDS[..])
            .query_async(&mut connection)
            .await
            .map_err(|e| StoreError::new(format!("reading a task: {e}")))?;
        if fields.first().is_none_or(Option::is_none) {
            return Ok(None);
        }
        Ok(Some(task_of(&fields)?).filter(|task| task.expires_at > now))
    }

    async fn replace_task(&self, row: &TaskRow, now: u64) -> Result<bool, StoreError> {
        let mut connection = self.connection.clone();
        let replaced: i64 = self
            .tasks
            .replace
            .key(format!("{TASK_PREFIX}{}", row.id))
            .key(format!("{OWNER_PREFIX}{}", row.owner))
            .arg(row.version)
            .arg(row.expires_at)
            .arg(&row.body)
            .arg(now)
            .invoke_async(&mut connection)
            .await
            .map_err(|e| StoreError::new(format!("updating a task: {e}")))?;
        Ok(replaced == 1)
    }

    fn list_script(
        &self,
        owner: &str,
        after: Option<(u64, &str)>,
        limit: usize,
        now: u64,
        count_only: bool,
    ) -> redis::ScriptInvocation<'_> {
        let (created_at, id) = after.unwrap_or((0, ""));
        let mut invocation = self.tasks.list.key(format!("{OWNER_PREFIX}{owner}"));
        invocation
            .arg(TASK_PREFIX)
            .arg(created_at)
            .arg(id)
            .arg(limit)
            .arg(now)
            .arg(if after.is_some() { "1" } else { "0" })
            .arg(if count_only { "1" } else { "0" });
        invocation
    }

    async fn list_tasks(
        &self,
        owner: &str,
        after: Option<(u64, &str)>,
        limit: usize,
        now: u64,
    ) -> Result<Vec<TaskRow>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let mut connection = self.connection.clone();
        let rows: Vec<Vec<Option<String>>> = self
            .list_script(owner, after, limit, now, false)
            .invoke_async(&mut connection)
            .await
            .map_err(|e| StoreError::new(format!("listing tasks: {e}")))?;
        rows.iter().map(|fields| task_of(fields)).collect()
    }

    async fn count_tasks(&self, owner: &str, up_to: usize, now: u64) -> Result<usize, StoreError> {
        if up_to == 0 {
            return Ok(0);
        }
        let mut connection = self.connection.clone();
        let count: usize = self
            .list_script(owner, None, up_to, now, true)
            .invoke_async(&mut connection)
            .await
            .map_err(|e| StoreError::new(format!("counting tasks: {e}")))?;
        Ok(count)
    }
}

impl TaskStore for RedisStore {
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

    fn tasks(&self) -> Option<&dyn TaskStore> {
        Some(self)
    }
}
