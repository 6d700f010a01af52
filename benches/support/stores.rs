//! The stores a bench runs over: memory and redb always (redb with its feature), and
//! PostgreSQL and Redis when their servers run (`scripts/test/services up`, or
//! `TOOLWRIGHT_POSTGRES_URL` / `TOOLWRIGHT_REDIS_URL`). Shared by `benches/idempotency.rs`
//! and `benches/tasks.rs`.

#![allow(dead_code)] // each user takes a part

use toolwright::idempotency::{IdempotencyStore, MemoryStore};

#[cfg(any(feature = "postgres", feature = "redis"))]
fn service_url(variable: &str) -> Option<String> {
    if let Ok(url) = std::env::var(variable) {
        return Some(url);
    }
    let output = std::process::Command::new(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/test/services"),
    )
    .arg("up")
    .output()
    .ok()?;
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| {
            line.strip_prefix(&format!("{variable}="))
                .map(str::to_owned)
        })
}

/// Each store there is, by name, made into what `make` makes of it.
#[cfg_attr(
    not(any(feature = "postgres", feature = "redis")),
    allow(unused_variables)
)]
pub fn stores<T>(
    rt: &tokio::runtime::Runtime,
    make: impl Fn(Box<dyn IdempotencyStore>) -> T,
) -> Vec<(&'static str, T)> {
    #[cfg_attr(
        not(any(feature = "redb", feature = "postgres", feature = "redis")),
        allow(unused_mut)
    )]
    let mut stores = vec![("memory", make(Box::new(MemoryStore::new())))];
    #[cfg(feature = "redb")]
    {
        let path = std::env::temp_dir().join(format!(
            "toolwright-bench-{}-{}.redb",
            std::process::id(),
            stores.len()
        ));
        let _ = std::fs::remove_file(&path);
        let store = toolwright::idempotency::RedbStore::open(&path).expect("a redb file");
        stores.push(("redb", make(Box::new(store))));
    }
    #[cfg(feature = "postgres")]
    match service_url("TOOLWRIGHT_POSTGRES_URL") {
        Some(url) => {
            let store = rt
                .block_on(toolwright::idempotency::PostgresStore::connect(&url))
                .expect("PostgreSQL");
            stores.push(("postgres", make(Box::new(store))));
        }
        None => eprintln!("postgres: no server (scripts/test/services up --install); skipped"),
    }
    #[cfg(feature = "redis")]
    match service_url("TOOLWRIGHT_REDIS_URL") {
        Some(url) => {
            let store = rt
                .block_on(toolwright::idempotency::RedisStore::connect(&url))
                .expect("Redis");
            stores.push(("redis", make(Box::new(store))));
        }
        None => eprintln!("redis: no server (scripts/test/services up --install); skipped"),
    }
    stores
}

/// The `p` quantile of sorted durations.
pub fn percentile(sorted: &[std::time::Duration], p: f64) -> std::time::Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}
