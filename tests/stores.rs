//! The claim contract, as one conformance suite every idempotency store passes: memory,
//! redb, PostgreSQL and Redis (the last two against real servers that
//! `scripts/test/services up` starts on loopback; `TOOLWRIGHT_POSTGRES_URL` and
//! `TOOLWRIGHT_REDIS_URL` point at others). Without a server binary a test says how to
//! get it and skips; under `CI=true` it fails instead.

#[cfg(any(feature = "postgres", feature = "redis"))]
use crate::support;

use std::sync::Arc;
use std::time::Duration;

use toolwright::idempotency::{
    Claim, ClaimRequest, IdempotencyStore, MemoryStore, Settlement, StoredOutcome, TaskRow,
};
use toolwright::{ToolError, ToolOutput};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap()
}

/// Keys unique to this run, so a store that outlives the test (a database) starts clean.
fn key(name: &str) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!(
        "{name}-{}-{nanos}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    )
}

fn request<'a>(key: &'a str, digest: &'a str) -> ClaimRequest<'a> {
    ClaimRequest {
        key,
        digest,
        tool: "refund",
        lease: Duration::from_secs(60),
        retention: Duration::from_secs(3600),
    }
}

fn done(text: &str) -> Settlement {
    Settlement::Done(stored(Ok(ToolOutput::Text(text.into()))))
}

fn stored(outcome: Result<ToolOutput, ToolError>) -> StoredOutcome {
    StoredOutcome {
        tool: "refund".into(),
        outcome,
    }
}

const HOUR: Duration = Duration::from_secs(3600);

/// Every rule of the contract, in order; `store` is fresh or shared with earlier runs.
async fn conformance(store: Arc<dyn IdempotencyStore>) {
    task_conformance(store.clone()).await;
    let name = store.name().to_owned();
    // Sequential: claim, in flight, done, duplicate.
    let k = key("seq");
    assert_eq!(
        store.claim(request(&k, "d1")).await.unwrap(),
        Claim::Claimed,
        "{name}"
    );
    assert_eq!(
        store.claim(request(&k, "d1")).await.unwrap(),
        Claim::InFlight,
        "{name}"
    );
    store
        .settle(&k, "d1", done("refunded"), HOUR)
        .await
        .unwrap();
    assert_eq!(
        store.claim(request(&k, "d1")).await.unwrap(),
        Claim::Done(stored(Ok(ToolOutput::Text("refunded".into())))),
        "{name}"
    );
    // An error outcome is kept as it was.
    let k = key("error");
    store.claim(request(&k, "d1")).await.unwrap();
    let refused = ToolError::failed("card declined").with_hint("use another card");
    store
        .settle(
            &k,
            "d1",
            Settlement::Done(stored(Err(refused.clone()))),
            HOUR,
        )
        .await
        .unwrap();
    assert_eq!(
        store.claim(request(&k, "d1")).await.unwrap(),
        Claim::Done(stored(Err(refused))),
        "{name}"
    );

    // Mismatch: another digest, running or done; settling with it changes nothing.
    let k = key("mismatch");
    store.claim(request(&k, "d1")).await.unwrap();
    let mismatch = Claim::Mismatch {
        tool: "refund".into(),
    };
    assert_eq!(
        store.claim(request(&k, "d2")).await.unwrap(),
        mismatch,
        "{name}"
    );
    store.settle(&k, "d2", done("wrong"), HOUR).await.unwrap();
    store
        .settle(&k, "d2", Settlement::Release, HOUR)
        .await
        .unwrap();
    assert_eq!(
        store.claim(request(&k, "d1")).await.unwrap(),
        Claim::InFlight,
        "{name}"
    );
    store.settle(&k, "d1", done("right"), HOUR).await.unwrap();
    assert_eq!(
        store.claim(request(&k, "d2")).await.unwrap(),
        mismatch,
        "{name}"
    );

    // Release frees the key; unknown is reported as such.
    let k = key("release");
    store.claim(request(&k, "d1")).await.unwrap();
    store
        .settle(&k, "d1", Settlement::Release, HOUR)
        .await
        .unwrap();
    assert_eq!(
        store.claim(request(&k, "d2")).await.unwrap(),
        Claim::Claimed,
        "{name}"
    );
    let k = key("unknown");
    store.claim(request(&k, "d1")).await.unwrap();
    store
        .settle(&k, "d1", Settlement::Unknown, HOUR)
        .await
        .unwrap();
    assert_eq!(
        store.claim(request(&k, "d1")).await.unwrap(),
        Claim::Unknown,
        "{name}"
    );
    // A late outcome still lands: the next attempt learns it.
    store.settle(&k, "d1", done("late"), HOUR).await.unwrap();
    assert!(
        matches!(
            store.claim(request(&k, "d1")).await.unwrap(),
            Claim::Done(_)
        ),
        "{name}"
    );

    // Lease loss: a claim without an outcome past its lease is unknown, never re-run.
    let k = key("lease");
    let short = ClaimRequest {
        lease: Duration::from_millis(150),
        ..request(&k, "d1")
    };
    assert_eq!(store.claim(short).await.unwrap(), Claim::Claimed, "{name}");
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        store.claim(request(&k, "d1")).await.unwrap(),
        Claim::Unknown,
        "{name}"
    );

    // Renewal: a claim whose lease is renewed stays in flight past its first lease;
    // renewing a settled or foreign claim changes nothing.
    let k = key("renew");
    let short = ClaimRequest {
        lease: Duration::from_millis(300),
        ..request(&k, "d1")
    };
    store.claim(short).await.unwrap();
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(150)).await;
        store
            .renew(&k, "d2", Duration::from_millis(1))
            .await
            .unwrap();
        store
            .renew(&k, "d1", Duration::from_millis(300))
            .await
            .unwrap();
    }
    assert_eq!(
        store.claim(request(&k, "d1")).await.unwrap(),
        Claim::InFlight,
        "{name}"
    );
    store.settle(&k, "d1", done("renewed"), HOUR).await.unwrap();
    store
        .renew(&k, "d1", Duration::from_millis(1))
        .await
        .unwrap();
    assert!(
        matches!(
            store.claim(request(&k, "d1")).await.unwrap(),
            Claim::Done(_)
        ),
        "{name}"
    );

    // Expiry: after its retention a key is free again, whatever it held.
    let k = key("expiry");
    let brief = ClaimRequest {
        lease: Duration::from_millis(100),
        retention: Duration::from_millis(300),
        ..request(&k, "d1")
    };
    store.claim(brief).await.unwrap();
    store
        .settle(&k, "d1", done("old"), Duration::from_millis(300))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        store.claim(request(&k, "d2")).await.unwrap(),
        Claim::Claimed,
        "{name}"
    );

    // Concurrent: 32 claims of one key at once, from several threads: one wins.
    for round in 0..3 {
        let k = key("race");
        let claims = (0..32).map(|_| {
            let store = store.clone();
            let k = k.clone();
            tokio::spawn(async move { store.claim(request(&k, "d1")).await.unwrap() })
        });
        let outcomes: Vec<Claim> = futures_join(claims).await;
        let won = outcomes.iter().filter(|c| **c == Claim::Claimed).count();
        assert_eq!(won, 1, "{name}, round {round}: {outcomes:?}");
        assert!(
            outcomes
                .iter()
                .all(|c| matches!(c, Claim::Claimed | Claim::InFlight))
        );
    }
}

fn row(id: &str, owner: &str, created_at: u64, expires_at: u64, body: &str) -> TaskRow {
    TaskRow {
        id: id.to_owned(),
        owner: owner.to_owned(),
        version: 1,
        created_at,
        expires_at,
        body: body.to_owned(),
    }
}

/// The task contract: insert once per id, replace by version, list per owner in order
/// of creation, forget what expired, and one winner among racing writers.
async fn task_conformance(store: Arc<dyn IdempotencyStore>) {
    let name = store.name().to_owned();
    let tasks = store
        .tasks()
        .expect("every store of toolwright keeps tasks");
    // The stores' own clocks may expire rows too (Redis does): times are real ones.
    let now = u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();
    let (owner, other) = (key("owner"), key("other"));
    let (a, b, c) = (key("task-a"), key("task-b"), key("task-c"));

    // Inserted once: a second insert of the id finds the first, unchanged.
    let first = row(&a, &owner, now, now + 10_000, r#"{"n":1}"#);
    assert_eq!(tasks.insert(&first, now).await.unwrap(), None, "{name}");
    let again = row(&a, &owner, now + 1, now + 10_000, r#"{"n":2}"#);
    assert_eq!(
        tasks.insert(&again, now).await.unwrap(),
        Some(first.clone()),
        "{name}"
    );
    assert_eq!(tasks.get(&a, now).await.unwrap(), Some(first.clone()));
    assert_eq!(tasks.get(&key("absent"), now).await.unwrap(), None);

    // Replaced by version: the next version wins, a stale one does not.
    let mut second = first.clone();
    second.version = 2;
    second.body = r#"{"n":3}"#.into();
    assert!(tasks.replace(&second, now).await.unwrap(), "{name}");
    assert!(
        !tasks.replace(&second, now).await.unwrap(),
        "{name}: same version twice"
    );
    let mut stale = first.clone();
    stale.version = 2;
    stale.body = "lost".into();
    assert!(!tasks.replace(&stale, now).await.unwrap());
    assert_eq!(tasks.get(&a, now).await.unwrap(), Some(second.clone()));

    // Listed per owner, oldest first, in pages; counted per owner.
    tasks
        .insert(&row(&c, &owner, now + 2, now + 10_000, "{}"), now)
        .await
        .unwrap();
    tasks
        .insert(&row(&b, &owner, now + 1, now + 10_000, "{}"), now)
        .await
        .unwrap();
    tasks
        .insert(&row(&key("theirs"), &other, now, now + 10_000, "{}"), now)
        .await
        .unwrap();
    let ids = |rows: Vec<TaskRow>| rows.into_iter().map(|row| row.id).collect::<Vec<_>>();
    let all = tasks.list(&owner, None, 10, now).await.unwrap();
    assert_eq!(
        ids(all.clone()),
        [a.clone(), b.clone(), c.clone()],
        "{name}"
    );
    assert_eq!(all[0], second);
    let page = tasks.list(&owner, None, 2, now).await.unwrap();
    assert_eq!(ids(page), [a.clone(), b.clone()]);
    let rest = tasks
        .list(&owner, Some((now + 1, b.as_str())), 2, now)
        .await
        .unwrap();
    assert_eq!(ids(rest), [c], "{name}");
    assert_eq!(tasks.count(&owner, 10, now).await.unwrap(), 3, "{name}");
    assert_eq!(
        tasks.count(&owner, 2, now).await.unwrap(),
        2,
        "{name}: up to"
    );
    assert_eq!(tasks.count(&other, 10, now).await.unwrap(), 1);

    // Expired: gone from get, list and count, and its id free again; not replaceable.
    let later = now + 10_000;
    assert_eq!(tasks.get(&a, later).await.unwrap(), None, "{name}");
    assert!(
        tasks
            .list(&owner, None, 10, later)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(tasks.count(&owner, 10, later).await.unwrap(), 0);
    let mut late = second.clone();
    late.version = 3;
    assert!(!tasks.replace(&late, later).await.unwrap(), "{name}");
    let reborn = row(&a, &owner, later, later + 10_000, "{}");
    assert_eq!(tasks.insert(&reborn, later).await.unwrap(), None, "{name}");
    assert_eq!(tasks.get(&a, later).await.unwrap(), Some(reborn.clone()));

    // Racing writers: one insert of an id, one replace of a version.
    let racing = key("race-task");
    let inserts = (0..16).map(|n| {
        let store = store.clone();
        let row = row(&racing, &owner, later, later + 10_000, &n.to_string());
        tokio::spawn(async move { store.tasks().unwrap().insert(&row, later).await.unwrap() })
    });
    let kept = futures_join(inserts).await;
    assert_eq!(
        kept.iter().filter(|found| found.is_none()).count(),
        1,
        "{name}"
    );
    let current = tasks.get(&racing, later).await.unwrap().unwrap();
    let replaces = (0..16).map(|n| {
        let store = store.clone();
        let mut row = current.clone();
        row.version += 1;
        row.body = format!("replaced by {n}");
        tokio::spawn(async move { store.tasks().unwrap().replace(&row, later).await.unwrap() })
    });
    let won = futures_join(replaces).await;
    assert_eq!(won.iter().filter(|won| **won).count(), 1, "{name}: {won:?}");
}

async fn futures_join<T>(handles: impl Iterator<Item = tokio::task::JoinHandle<T>>) -> Vec<T> {
    let mut outcomes = Vec::new();
    for handle in handles.collect::<Vec<_>>() {
        outcomes.push(handle.await.unwrap());
    }
    outcomes
}

#[test]
fn the_memory_store_keeps_the_contract() {
    runtime().block_on(conformance(Arc::new(MemoryStore::new())));
}

#[cfg(feature = "redb")]
#[test]
fn the_redb_store_keeps_the_contract_and_names_a_broken_file() {
    use toolwright::idempotency::RedbStore;
    let dir = std::env::temp_dir().join(format!("toolwright-stores-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("claims.redb");
    runtime().block_on(conformance(Arc::new(RedbStore::open(&path).unwrap())));
    // A file that is not a database is named, not opened.
    let garbage = dir.join("garbage.redb");
    std::fs::write(&garbage, vec![0x5a; 8192]).unwrap();
    let error = RedbStore::open(&garbage).err().expect("garbage is refused");
    assert!(error.to_string().contains("garbage.redb"), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A finished key whose stored outcome `corrupt` damages (through the server's own
/// client) is an error naming the key, never read as an outcome.
#[cfg(any(feature = "postgres", feature = "redis"))]
fn assert_corruption_is_named(
    rt: &tokio::runtime::Runtime,
    store: &dyn IdempotencyStore,
    corrupt: impl FnOnce(&str),
) {
    let k = key("corrupt");
    rt.block_on(async {
        store.claim(request(&k, "d1")).await.unwrap();
        store.settle(&k, "d1", done("fine"), HOUR).await.unwrap();
    });
    corrupt(&k);
    let error = rt.block_on(store.claim(request(&k, "d1"))).unwrap_err();
    assert!(
        error.to_string().contains("corrupted") && error.to_string().contains(&k),
        "{}: {error}",
        store.name()
    );
}

#[cfg(feature = "postgres")]
#[test]
fn the_postgres_store_keeps_the_contract_and_names_what_failed() {
    use support::service_url;
    use toolwright::idempotency::PostgresStore;
    let Some(url) = service_url("TOOLWRIGHT_POSTGRES_URL") else {
        return;
    };
    let rt = runtime();
    let store = Arc::new(rt.block_on(PostgresStore::connect(&url)).unwrap());
    rt.block_on(conformance(store.clone()));
    // Two stores connecting at once (two replicas starting) both come up.
    let (a, b) = rt.block_on(async {
        tokio::join!(PostgresStore::connect(&url), PostgresStore::connect(&url))
    });
    assert!(a.is_ok() && b.is_ok());

    // A corrupted row is named, not read as an outcome.
    assert_corruption_is_named(&rt, &*store, |k| {
        let psql = std::process::Command::new("psql")
            .args([&url, "-q", "-c"])
            .arg(format!(
                "UPDATE toolwright_claims SET outcome = '{{not json' WHERE key = '{k}'"
            ))
            .status()
            .expect("psql runs");
        assert!(psql.success());
    });

    // An unreachable server fails fast with what failed.
    let closed = "postgres://toolwright@127.0.0.1:9/postgres";
    let error = rt
        .block_on(PostgresStore::connect(closed))
        .err()
        .expect("refused");
    assert!(error.to_string().contains("connect"), "{error}");
}

#[cfg(feature = "redis")]
#[test]
fn the_redis_store_keeps_the_contract_and_names_what_failed() {
    use support::service_url;
    use toolwright::idempotency::RedisStore;
    let Some(url) = service_url("TOOLWRIGHT_REDIS_URL") else {
        return;
    };
    let rt = runtime();
    let store = Arc::new(rt.block_on(RedisStore::connect(&url)).unwrap());
    rt.block_on(conformance(store.clone()));

    assert_corruption_is_named(&rt, &*store, |k| {
        let cli = std::process::Command::new("redis-cli")
            .args([
                "-u",
                &url,
                "HSET",
                &format!("toolwright:claim:{k}"),
                "outcome",
                "{not json",
            ])
            .output()
            .expect("redis-cli runs");
        assert!(cli.status.success());
    });

    let error = rt
        .block_on(RedisStore::connect("redis://127.0.0.1:9/"))
        .err()
        .expect("refused");
    assert!(error.to_string().contains("connect"), "{error}");
}
