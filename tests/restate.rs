//! Tool calls as journaled steps of a Restate workflow, against a real Restate server
//! (`scripts/test/restate-server` installs it from npm; each test starts a throwaway one
//! on loopback): a run's calls go through the registry once, a call that needs approval
//! suspends the run on an awakeable that a person's decision, sent to Restate's ingress
//! from elsewhere, resolves; the decided call runs once.

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use restate_sdk::prelude::*;
use serde_json::{Value, json};
use toolwright::restate::Journal;
use toolwright::{Context, Registry, ToolCall, ToolError, tool};

use crate::support;

/// A Restate server on loopback ports of its own, with its data in a temporary
/// directory; killed and removed when dropped.
struct RestateServer {
    child: Child,
    dir: PathBuf,
    ingress: String,
    admin: String,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl RestateServer {
    fn start(binary: &Path) -> Self {
        let dir = std::env::temp_dir().join(format!("toolwright-restate-{}", free_port()));
        let (ingress, admin, node) = (free_port(), free_port(), free_port());
        let child = Command::new(binary)
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
    fn register(&self, endpoint: SocketAddr) {
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

fn get(url: &str) -> Option<(u16, String)> {
    let mut response = agent().get(url).call().ok()?;
    let status = response.status().as_u16();
    Some((
        status,
        response.body_mut().read_to_string().unwrap_or_default(),
    ))
}

fn post(url: &str, body: &str) -> (u16, String) {
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

static LOOKED_UP: AtomicUsize = AtomicUsize::new(0);
static REFUNDED: AtomicUsize = AtomicUsize::new(0);

/// Look an order up. Use before acting on one.
#[tool(effect = "read_only")]
fn look_up(
    /// The order, like `A-1`.
    order: String,
) -> String {
    LOOKED_UP.fetch_add(1, Ordering::SeqCst);
    format!("order {order} is open")
}

/// Refund an order in full. Use when the customer asks for their money back.
#[tool(effect = "external")]
fn refund(
    /// The order, like `A-1`.
    order: String,
) -> Result<String, ToolError> {
    REFUNDED.fetch_add(1, Ordering::SeqCst);
    Ok(format!("refunded {order}"))
}

/// The awakeables runs wait on, with the tickets to decide.
type Waiting = Arc<Mutex<Vec<(String, Value)>>>;

/// An agent run: the scripted calls in order, each a journaled step.
struct AgentRun {
    registry: Arc<Registry>,
    waiting: Waiting,
}

#[restate_sdk::workflow]
impl AgentRun {
    #[handler]
    async fn run(
        &self,
        ctx: WorkflowContext<'_>,
        calls: Json<Vec<(String, Value)>>,
    ) -> Result<Json<Vec<String>>, HandlerError> {
        let waiting = self.waiting.clone();
        let journal = Journal::new(self.registry.clone(), Arc::new(Context::new()), ctx.key())
            .on_approval(move |awakeable, ticket| {
                let ticket = serde_json::to_value(ticket).unwrap();
                waiting.lock().unwrap().push((awakeable.to_owned(), ticket));
            });
        let mut answers = Vec::new();
        for (index, (name, arguments)) in calls.into_inner().into_iter().enumerate() {
            let call = ToolCall::new(format!("call-{index}"), name, arguments);
            let result = journal.dispatch(&ctx, call).await?;
            answers.push(result.for_model().to_owned());
        }
        Ok(Json(answers))
    }
}

/// Serves `run` on a loopback port, on a runtime of its own.
fn serve(run: AgentRun) -> SocketAddr {
    let address: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
            .block_on(
                HttpServer::new(Endpoint::builder().bind(run).build()).listen_and_serve(address),
            );
    });
    let started = Instant::now();
    while std::net::TcpStream::connect(address).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the endpoint listens"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    address
}

#[test]
fn a_run_waits_for_approval_and_runs_each_call_once() {
    let Some(binary) = support::restate_server() else {
        return;
    };
    let server = RestateServer::start(&binary);
    let registry = Registry::builder()
        .with(LookUp)
        .with(Refund)
        .with_approval_secret(*b"restate-test-secret-0123456789ab")
        .build()
        .unwrap();
    let waiting: Waiting = Arc::default();
    let endpoint = serve(AgentRun {
        registry: Arc::new(registry),
        waiting: waiting.clone(),
    });
    server.register(endpoint);

    let calls = json!([["look_up", {"order": "A-1"}], ["refund", {"order": "A-1"}]]);
    let run = {
        let url = format!("{}/AgentRun/run-1/run", server.ingress);
        std::thread::spawn(move || post(&url, &calls.to_string()))
    };
    // The refund waits for a person: its awakeable and ticket are handed out once.
    let started = Instant::now();
    let (awakeable, ticket) = loop {
        if let Some(first) = waiting.lock().unwrap().first().cloned() {
            break first;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the refund asks for approval"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(ticket["tool"], "refund");
    assert_eq!(
        REFUNDED.load(Ordering::SeqCst),
        0,
        "nothing refunded before approval"
    );

    // The person approves, from anywhere: the awakeable is resolved through the ingress.
    let decision = json!({"decision": "approve", "digest": ticket["digest"]});
    let (status, body) = post(
        &format!("{}/restate/awakeables/{awakeable}/resolve", server.ingress),
        &decision.to_string(),
    );
    assert!((200..300).contains(&status), "resolve: {status} {body}");

    let (status, body) = run.join().unwrap();
    assert_eq!(status, 200, "{body}");
    let answers: Vec<String> = serde_json::from_str(&body).unwrap();
    assert_eq!(answers, ["order A-1 is open", "refunded A-1"]);
    assert_eq!(LOOKED_UP.load(Ordering::SeqCst), 1);
    assert_eq!(REFUNDED.load(Ordering::SeqCst), 1);
    assert_eq!(waiting.lock().unwrap().len(), 1, "asked once");

    // The finished run's output is kept by Restate; asking again runs nothing.
    let (status, output) = get(&format!(
        "{}/restate/workflow/AgentRun/run-1/output",
        server.ingress
    ))
    .expect("the ingress answers");
    assert_eq!(status, 200, "{output}");
    assert_eq!(
        serde_json::from_str::<Vec<String>>(&output).unwrap(),
        answers
    );
    assert_eq!(REFUNDED.load(Ordering::SeqCst), 1);
}
