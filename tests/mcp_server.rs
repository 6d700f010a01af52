//! The example MCP server (`examples/mcp_server.rs`) against code nobody here wrote, and
//! against bad input on the wire.
//!
//! - The official Python SDK's client, in both protocol eras, over stdio
//!   (`tests/mcp/client.py`, in a virtualenv `scripts/test/python-env` creates).
//! - Raw JSON-RPC lines and HTTP bodies a client should never send: each gets its error,
//!   and the next request is still answered.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support;

use crate::support::{HttpServer, MANIFEST_DIR, server_binary, stateless};

#[test]
fn python_sdk_client_in_both_protocol_eras() {
    let python = support::python();
    for mode in ["legacy", "2026-07-28"] {
        let output = Command::new(&python)
            .arg(Path::new(MANIFEST_DIR).join("tests/mcp/client.py"))
            .arg(mode)
            .arg(server_binary())
            .output()
            .expect("python runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "the Python client ({mode}) failed:\n{stdout}\n{stderr}"
        );
        assert!(stdout.contains("answered as expected"), "{stdout}");
    }
}

/// The server on stdio, with its replies read on a thread, each waited for with a limit.
struct StdioServer {
    child: Child,
    stdin: ChildStdin,
    replies: Receiver<Value>,
}

impl StdioServer {
    fn start() -> Self {
        let mut child = Command::new(server_binary())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        let (send, replies) = channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let line = line.expect("the server writes UTF-8");
                let reply = serde_json::from_str(&line).unwrap_or_else(|e| {
                    panic!("the server wrote a line that is not JSON ({e}): {line}")
                });
                if send.send(reply).is_err() {
                    return;
                }
            }
        });
        StdioServer {
            child,
            stdin,
            replies,
        }
    }

    fn send(&mut self, line: &str) {
        self.stdin
            .write_all(line.as_bytes())
            .expect("the server reads");
        self.stdin.write_all(b"\n").expect("the server reads");
        self.stdin.flush().expect("the server reads");
    }

    fn reply(&self, id: &Value) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let reply = self
                .replies
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no reply with id {id} within 30 s"));
            if &reply["id"] == id {
                return reply;
            }
        }
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&request.to_string());
        self.reply(&json!(id))
    }

    fn initialize(&mut self) {
        let init = self.request(
            0,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "wire-test", "version": "1"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "toolwright-example");
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn convert(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "convert_temperature", "arguments": {"value": 100, "from": "celsius", "to": "fahrenheit"}}})
}

/// The result for arguments over the registry's limit: an `invalid_arguments` error
/// the model can read, not a protocol error.
fn assert_arguments_too_large(reply: &Value) {
    let shown: String = reply.to_string().chars().take(300).collect();
    assert_eq!(reply["result"]["isError"], true, "{shown}");
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .expect("a text block");
    let error: Value = serde_json::from_str(text).expect("the error as JSON");
    assert_eq!(error["error"], "invalid_arguments", "{error}");
    assert!(
        error["message"].as_str().unwrap().contains("too large"),
        "{error}"
    );
}

fn assert_still_serving(server: &mut StdioServer, id: u64) {
    server.send(&convert(id).to_string());
    let reply = server.reply(&json!(id));
    assert_eq!(reply["result"]["content"][0]["text"], "212.0", "{reply}");
}

#[test]
fn bad_input_on_stdio_gets_its_error_and_the_server_keeps_serving() {
    let mut server = StdioServer::start();
    server.initialize();

    // Not JSON: a parse error, id null (there is no id to read).
    server.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list""#);
    let reply = server.reply(&Value::Null);
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    assert_still_serving(&mut server, 2);

    // A method that does not exist.
    let reply = server.request(3, "tools/run", json!({}));
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    assert_still_serving(&mut server, 4);

    // Arguments that are not an object: invalid params, with the request's id.
    for (id, arguments) in [
        (5, json!("{\"value\": 1}")),
        (6, json!([1, 2])),
        (7, json!(true)),
    ] {
        let reply = server.request(
            id,
            "tools/call",
            json!({"name": "convert_temperature", "arguments": arguments}),
        );
        assert_eq!(reply["error"]["code"], -32602, "{reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .unwrap()
                .contains("must be a JSON object"),
            "{reply}"
        );
    }
    assert_still_serving(&mut server, 8);

    // A 10 MB argument string: within the transport's message limit, over the
    // registry's argument limit, so the model gets a result it can act on.
    let huge = "x".repeat(10 << 20);
    let reply = server.request(
        9,
        "tools/call",
        json!({"name": "search_notes", "arguments": {"query": huge}}),
    );
    assert_arguments_too_large(&reply);
    assert_still_serving(&mut server, 10);

    // A line over the transport's limit (16 MiB): an invalid request, and on we go.
    let oversized = format!(
        r#"{{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{{"name":"search_notes","arguments":{{"query":"{}"}}}}}}"#,
        "x".repeat(17 << 20)
    );
    server.send(&oversized);
    let reply = server.reply(&Value::Null);
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert_still_serving(&mut server, 12);

    // An unknown tool: the protocol error the spec asks for, naming the closest tool.
    let reply = server.request(
        13,
        "tools/call",
        json!({"name": "convert_temp", "arguments": {}}),
    );
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(reply["error"]["data"]["error"], "unknown_tool", "{reply}");
    assert_still_serving(&mut server, 14);

    // A message over the registry's argument limit whose arguments are within it (2 MiB
    // of `_meta`): the limit is on the arguments, so the call runs.
    let reply = server.request(
        15,
        "tools/call",
        json!({
            "name": "convert_temperature",
            "arguments": {"value": 100, "from": "celsius", "to": "fahrenheit"},
            "_meta": {"padding": "x".repeat(2 << 20)},
        }),
    );
    assert_eq!(reply["result"]["content"][0]["text"], "212.0", "{reply}");
}

#[test]
fn stdio_server_exits_when_its_input_closes() {
    let mut server = StdioServer::start();
    server.initialize();
    let StdioServer { child, stdin, .. } = &mut server;
    drop(std::mem::replace(stdin, {
        // Replace the handle with one to a process that is already gone, closing ours.
        let mut sink = Command::new("true").stdin(Stdio::piped()).spawn().unwrap();
        let handle = sink.stdin.take().unwrap();
        sink.wait().unwrap();
        handle
    }));
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "the server exited with {status}");
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("the server was still running 10 s after its input closed");
}

#[test]
fn bad_input_over_http_gets_its_error_and_the_server_keeps_serving() {
    let server = HttpServer::start();
    let call = |id| {
        stateless(
            id,
            "tools/call",
            json!({"name": "convert_temperature", "arguments": {"value": 100, "from": "celsius", "to": "fahrenheit"}}),
        )
    };
    let (status, reply) = server.post(&call(1));
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "212.0", "{reply}");

    let (status, reply) = server.post(r#"{"jsonrpc":"2.0","id":2,"#);
    assert_eq!(
        (status, &reply["error"]["code"]),
        (400, &json!(-32700)),
        "{reply}"
    );

    let (_, reply) = server.post(&stateless(
        3,
        "tools/call",
        json!({"name": "convert_temperature", "arguments": 7}),
    ));
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(reply["id"], 3, "{reply}");

    let (_, reply) = server.post(&stateless(
        4,
        "tools/call",
        json!({"name": "convert_temp", "arguments": {}}),
    ));
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did you mean 'convert_temperature'"),
        "{reply}"
    );

    let huge = "x".repeat(10 << 20);
    let (_, reply) = server.post(&stateless(
        5,
        "tools/call",
        json!({"name": "search_notes", "arguments": {"query": huge}}),
    ));
    assert_arguments_too_large(&reply);

    let (status, reply) = server.post(&call(6));
    assert_eq!(status, 200, "{reply}");
    assert_eq!(reply["result"]["content"][0]["text"], "212.0", "{reply}");
}

/// A stateless call that sends nothing before its result is answered with a plain JSON
/// body, not an SSE stream (one less framing layer per call).
#[test]
fn a_call_without_feedback_gets_a_json_body() {
    let server = HttpServer::start();
    let call = stateless(
        1,
        "tools/call",
        json!({"name": "convert_temperature", "arguments": {"value": 0, "from": "celsius", "to": "fahrenheit"}}),
    );
    let reply = server.post_with(&call, &[("MCP-Protocol-Version", "2026-07-28")]);
    assert_eq!(reply.status, 200, "{}", reply.message);
    assert_eq!(reply.content_type.as_deref(), Some("application/json"));
    assert_eq!(
        reply.message["result"]["content"][0]["text"], "32.0",
        "{}",
        reply.message
    );
}

/// A plain stateless `tools/call` is answered by toolwright's own path (no rmcp task per
/// request); anything more goes to rmcp. The two must answer alike: each call here is
/// sent plain, then with one more `_meta` entry (which rmcp ignores and which sends the
/// request to rmcp), and the replies must be the same bytes of JSON.
#[test]
fn a_plain_stateless_call_is_answered_as_rmcp_answers_it() {
    let server = HttpServer::start();
    let calls = [
        json!({"name": "convert_temperature", "arguments": {"value": 100, "from": "celsius", "to": "fahrenheit"}}),
        json!({"name": "convert_temperature", "arguments": {"value": "hot", "from": "kelvin", "extra": 1}}),
        json!({"name": "convert_temperature"}),
        json!({"name": "convert_temperature", "arguments": null}),
        json!({"name": "search_notes", "arguments": {"query": "deploy"}}),
        json!({"name": "search_notes", "arguments": {"query": "", "max_results": 99}}),
    ];
    for (n, params) in calls.into_iter().enumerate() {
        let id = n as u64 + 1;
        let meta = json!({"dev.toolwright/idempotency-key": format!("parity-{id}")});
        let direct = server.post_with(
            &support::stateless_with_meta(id, "tools/call", params.clone(), meta.clone()),
            &[("MCP-Protocol-Version", "2026-07-28")],
        );
        let mut through_rmcp = meta;
        through_rmcp["dev.toolwright.test/path"] = json!("rmcp");
        let key = format!("parity-rmcp-{id}");
        through_rmcp["dev.toolwright/idempotency-key"] = json!(key);
        let rmcp = server.post_with(
            &support::stateless_with_meta(id, "tools/call", params.clone(), through_rmcp),
            &[("MCP-Protocol-Version", "2026-07-28")],
        );
        assert_eq!(direct.status, rmcp.status, "{params}");
        assert_eq!(direct.content_type, rmcp.content_type, "{params}");
        assert_eq!(direct.message, rmcp.message, "{params}");
        assert_eq!(direct.message["id"], id, "{}", direct.message);
    }
}
