//! A throwaway Restate server on loopback, for the tests and the bench: started on
//! ports of its own with its data in a temporary directory, registered with a service
//! endpoint, and requests to its ingress and admin API.

#![allow(dead_code)] // the bench uses a part of this

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

/// A Restate server on loopback ports of its own, with its data in a temporary
/// directory; killed and removed when dropped.
pub struct RestateServer {
    child: Child,
    dir: PathBuf,
    /// The ingress, `http://127.0.0.1:<port>`.
    pub ingress: String,
    /// The admin API.
    pub admin: String,
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl RestateServer {
    pub fn start(binary: &Path) -> Self {
        Self::start_with(binary, &[])
    }

    pub fn start_with(binary: &Path, env: &[(&str, &str)]) -> Self {
        let dir = std::env::temp_dir().join(format!("toolwright-restate-{}", free_port()));
        let (ingress, admin, node) = (free_port(), free_port(), free_port());
        let child = Command::new(binary)
            .envs(env.iter().copied())
            .args([
                "--base-dir",
                dir.to_str().unwrap(),
                "--node-name",
                "test",
                "--no-logo",
            ])
            .env(
                "RESTATE_INGRESS__BIND_ADDRESS",
                format!("127.0.0.1:{ingress}"),
            )
            .env("RESTATE_ADMIN__BIND_ADDRESS", format!("127.0.0.1:{admin}"))
            .env("RESTATE_BIND_ADDRESS", format!("127.0.0.1:{node}"))
            .env(
                "RESTATE_ADVERTISED_ADDRESS",
                format!("http://127.0.0.1:{node}"),
            )
            .env("RESTATE_DISABLE_TELEMETRY", "true")
            // Small: two partitions and 256 MiB for RocksDB start in a fifth of a second
            // with 4 MiB of data (the defaults: 24 and 2 GiB, 220 MiB on disk).
            .env("RESTATE_DEFAULT_NUM_PARTITIONS", "2")
            .env("RESTATE_ROCKSDB_TOTAL_MEMORY_SIZE", "256MiB")
            .env("RESTATE_LISTEN_MODE", "tcp")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the Restate server starts");
        let server = RestateServer {
            child,
            dir,
            ingress: format!("http://127.0.0.1:{ingress}"),
            admin: format!("http://127.0.0.1:{admin}"),
        };
        let started = Instant::now();
        while get(&format!("{}/health", server.admin)).is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the Restate server answers its health check within a minute"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }

    /// Registers the service endpoint at `endpoint` (the server discovers its services).
    pub fn register(&self, endpoint: SocketAddr) {
        let (status, body) = post(
            &format!("{}/deployments", self.admin),
            &json!({"uri": format!("http://{endpoint}")}).to_string(),
        );
        assert!(
            (200..300).contains(&status),
            "registration: {status} {body}"
        );
    }
}

impl RestateServer {
    /// The rows `sql` selects from the server's introspection tables (`sys_journal`,
    /// `sys_invocation`, ...), as JSON objects.
    pub fn query(&self, sql: &str) -> Vec<serde_json::Value> {
        let mut response = agent()
            .post(&format!("{}/query", self.admin))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .send(json!({"query": sql}).to_string())
            .unwrap_or_else(|error| panic!("the admin query {sql}: {error}"));
        let body = response.body_mut().read_to_string().unwrap_or_default();
        let answer: serde_json::Value = serde_json::from_str(&body)
            .unwrap_or_else(|error| panic!("the admin query {sql}: {error}: {body}"));
        answer["rows"].as_array().cloned().unwrap_or_default()
    }
}

impl Drop for RestateServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .new_agent()
}

pub fn get(url: &str) -> Option<(u16, String)> {
    let mut response = agent().get(url).call().ok()?;
    let status = response.status().as_u16();
    Some((
        status,
        response.body_mut().read_to_string().unwrap_or_default(),
    ))
}

pub fn post(url: &str, body: &str) -> (u16, String) {
    let mut response = agent()
        .post(url)
        .header("Content-Type", "application/json")
        .send(body)
        .unwrap_or_else(|error| panic!("POST {url}: {error}"));
    let status = response.status().as_u16();
    (
        status,
        response.body_mut().read_to_string().unwrap_or_default(),
    )
}
