//! The framework adapters driven through each framework's own loop. Every test plays
//! the same conversation: a valid call (it runs, its result reaches the model), an
//! invalid one (the model reads every problem with its path), the corrected call (it
//! runs), a call to a tool that does not exist (the model reads the closest names) and a
//! call that needs approval (nothing runs until a person decides).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use toolwright::{Context, Registry, tool};

#[cfg(test)]
mod async_openai;
#[cfg(test)]
mod genai;
#[cfg(test)]
mod rig;
#[cfg(test)]
mod swiftide;

/// How many files the destructive tool deleted: nothing may run before approval.
#[derive(Clone, Default)]
pub struct Deleted(pub Arc<AtomicUsize>);

impl Deleted {
    /// The deletions so far.
    pub fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

/// Add two integers and return the sum.
#[tool(effect = "read_only")]
pub fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// Delete a file from the workspace. Cannot be undone.
#[tool(effect = "destructive")]
pub fn delete_file(
    /// The file's path, relative to the workspace.
    path: String,
    #[ctx] deleted: &Deleted,
) -> String {
    deleted.0.fetch_add(1, Ordering::SeqCst);
    format!("deleted {path}")
}

/// The two tools, destructive calls asking a person (the default policy).
pub fn registry() -> Arc<Registry> {
    Arc::new(
        Registry::builder()
            .with(Add)
            .with(DeleteFile)
            .build()
            .expect("the tools register"),
    )
}

/// A context with a fresh deletion counter.
pub fn context() -> (Arc<Context>, Deleted) {
    let deleted = Deleted::default();
    (Arc::new(Context::new().with(deleted.clone())), deleted)
}

/// The conversation every test plays: (call id, tool, arguments as JSON text).
pub const SCRIPT: [(&str, &str, &str); 5] = [
    ("call_1", "add", r#"{"a": 2, "b": 3}"#),
    ("call_2", "add", r#"{"a": "two", "c": 3}"#),
    ("call_3", "add", r#"{"a": 2, "b": 40}"#),
    ("call_4", "ad", r#"{"a": 1, "b": 1}"#),
    ("call_5", "delete_file", r#"{"path": "notes.txt"}"#),
];

/// What the model must read for each call of [`SCRIPT`], in order: checks the texts
/// of the tool results the framework sent back.
pub fn assert_model_read(results: &[String]) {
    assert_eq!(results.len(), 5, "one answer per call: {results:#?}");
    assert_eq!(results[0], "5", "the valid call ran");
    let invalid = &results[1];
    assert!(invalid.contains("invalid_arguments"), "{invalid}");
    // Every problem at once, each with its path.
    for problem in [
        r#"{"path":"$.a","message":"expected integer, got string \"two\""}"#,
        r#"{"path":"$","message":"missing required field 'b'"}"#,
        r#"{"path":"$","message":"unexpected field 'c' (allowed: a, b)"}"#,
    ] {
        assert!(
            invalid.contains(problem),
            "{problem} is reported: {invalid}"
        );
    }
    assert_eq!(results[2], "42", "the corrected call ran");
    let unknown = &results[3];
    assert!(unknown.contains("unknown_tool"), "{unknown}");
    assert!(
        unknown.contains("add"),
        "the closest name is offered: {unknown}"
    );
    let approval = &results[4];
    assert!(approval.contains("awaiting_approval"), "{approval}");
}

/// A mock of OpenAI's HTTP API on loopback, answering `path` with `bodies`, one per
/// request, in order. Installs ring as rustls's crypto provider first: with
/// toolwright's `mcp-client` in the build (as under `--all-features`), reqwest's rustls
/// has none of its own, and a client would panic when it is built.
#[cfg(test)]
pub async fn openai_mock(path: &str, bodies: Vec<serde_json::Value>) -> wiremock::MockServer {
    let _ = rustls::crypto::ring::default_provider().install_default();
    use wiremock::matchers::{method, path as at};
    use wiremock::{Mock, ResponseTemplate};
    let server = wiremock::MockServer::start().await;
    for body in bodies {
        Mock::given(method("POST"))
            .and(at(path))
            .respond_with(ResponseTemplate::new(200).set_body_json(body))
            .up_to_n_times(1)
            .mount(&server)
            .await;
    }
    server
}

/// The bodies of the requests `server` received, in order.
#[cfg(test)]
pub async fn request_bodies(server: &wiremock::MockServer) -> Vec<serde_json::Value> {
    server
        .received_requests()
        .await
        .unwrap_or_default()
        .iter()
        .map(|request| serde_json::from_slice(&request.body).expect("a JSON body"))
        .collect()
}

/// A Chat Completions response, in OpenAI's documented shape: one assistant message
/// with `tool_calls` (each `(id, name, arguments as JSON text)`) or text.
#[cfg(test)]
pub fn chat_completion(calls: &[(&str, &str, &str)], text: Option<&str>) -> serde_json::Value {
    let tool_calls: Vec<serde_json::Value> = calls
        .iter()
        .map(|(id, name, arguments)| {
            serde_json::json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
        })
        .collect();
    let mut message = serde_json::json!({"role": "assistant", "content": text});
    if !tool_calls.is_empty() {
        message["tool_calls"] = serde_json::Value::Array(tool_calls);
    }
    serde_json::json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gpt-4o-mini",
        "choices": [{
            "index": 0,
            "message": message,
            "finish_reason": if calls.is_empty() { "stop" } else { "tool_calls" },
        }],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    })
}

/// A Chat Completions response with two calls, the output limit reached in the second
/// (`finish_reason: "length"`): its arguments parse, and it must still not run.
#[cfg(test)]
pub fn completion_cut_by_length() -> serde_json::Value {
    let mut body = chat_completion(
        &[
            ("call_1", "add", r#"{"a": 2, "b": 3}"#),
            ("call_2", "add", r#"{"a": 1, "b": 4}"#),
        ],
        None,
    );
    body["choices"][0]["finish_reason"] = serde_json::json!("length");
    body
}

/// The script as Chat Completions responses, one call each, then `done`.
#[cfg(test)]
pub fn chat_script() -> Vec<serde_json::Value> {
    let mut bodies: Vec<serde_json::Value> = SCRIPT
        .iter()
        .map(|call| chat_completion(&[*call], None))
        .collect();
    bodies.push(chat_completion(&[], Some("done")));
    bodies
}

/// The texts of the `role: tool` messages in a Chat Completions request body, in order.
#[cfg(test)]
pub fn tool_messages(body: &serde_json::Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|message| message["role"] == "tool")
        .map(|message| message["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The frameworks guide (`toolwright::guide::frameworks`), whose examples are compiled
/// here as doctests (build.rs un-ignores them).
#[cfg(doctest)]
#[doc = include_str!(concat!(env!("OUT_DIR"), "/frameworks.md"))]
pub struct FrameworksGuide;
