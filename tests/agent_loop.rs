//! The agent loop end to end against a local HTTP server that speaks the Chat
//! Completions shape and replays a scripted conversation: the model reads a file, fails
//! an edit with a stale `old_text`, reads again, edits, runs the tests, and answers.

#[path = "../examples/agent/chat.rs"]
mod chat;

use crate::setup;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::Value;

/// Serves the scripted responses in order on 127.0.0.1, recording each request body.
fn serve(responses: Vec<Value>) -> (String, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    let requests = Arc::new(Mutex::new(Vec::new()));
    let seen = requests.clone();
    std::thread::spawn(move || {
        for (stream, response) in listener.incoming().zip(responses) {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            seen.lock()
                .unwrap()
                .push(serde_json::from_slice(&body).unwrap_or(Value::Null));
            let text = response.to_string();
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                text.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    (format!("http://{address}/v1"), requests)
}

#[test]
fn the_scripted_conversation_fixes_the_bug_and_answers_every_call() {
    let dir = std::env::temp_dir().join(format!("toolwright-agent-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    setup::scratch_workspace(&dir).unwrap();
    let (base_url, requests) = serve(setup::script());
    let model = chat::HttpModel {
        base_url,
        api_key: Some("test-key".into()),
        api: chat::Api::OpenAiChat,
    };
    let registry = setup::coding_registry().build().unwrap();
    let ctx = setup::coding_context(&dir).unwrap();
    let transcript = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(chat::run(
            &registry,
            &ctx,
            &model,
            chat::Api::OpenAiChat,
            "scripted",
            "fix the tests",
            10,
        ))
        .unwrap();

    // The workspace's final state.
    let source = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    assert!(
        source.contains("a + b") && !source.contains("a - b"),
        "{source}"
    );
    assert_eq!(
        transcript.answer.as_deref(),
        Some("Fixed `add` in src/lib.rs: it subtracted instead of adding. The tests pass now.")
    );

    // Every tool call answered, ids matched, in order.
    let messages = &transcript.messages;
    let calls: Vec<&str> = messages
        .iter()
        .flat_map(|m| {
            m.get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .filter_map(|call| call["id"].as_str())
        .collect();
    let answers: Vec<&str> = messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["tool_call_id"].as_str())
        .collect();
    assert_eq!(calls, ["call_1", "call_2", "call_3", "call_4", "call_5"]);
    assert_eq!(answers, calls);
    let tool_output = |id: &str| -> &str {
        messages
            .iter()
            .find(|m| m["tool_call_id"] == id)
            .and_then(|m| m["content"].as_str())
            .unwrap()
    };
    assert!(
        tool_output("call_2").contains("\"error\":\"conflict\""),
        "the stale edit fails: {}",
        tool_output("call_2")
    );
    assert!(tool_output("call_4").starts_with("Edited src/lib.rs"));
    let tests: Value = serde_json::from_str(tool_output("call_5")).unwrap();
    assert_eq!(tests["exit_code"], 0, "{tests}");

    // The server saw the tool definitions and the whole history each turn.
    let requests = requests.lock().unwrap();
    assert_eq!(requests.len(), 6);
    assert_eq!(requests[0]["tools"].as_array().unwrap().len(), 8);
    assert_eq!(
        requests[5]["messages"].as_array().unwrap().len(),
        messages.len() - 1
    );
    eprintln!(
        "transcript:\n{}",
        messages
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_same_loop_speaks_anthropic_messages() {
    let dir =
        std::env::temp_dir().join(format!("toolwright-agent-anthropic-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    setup::scratch_workspace(&dir).unwrap();
    let script = vec![
        serde_json::json!({"id": "msg_1", "type": "message", "role": "assistant", "stop_reason": "tool_use", "content": [
            {"type": "text", "text": "Let me look at both files."},
            {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "src/lib.rs", "limit": 1}},
            {"type": "tool_use", "id": "toolu_2", "name": "read_file", "input": {"path": "Cargo.toml", "limit": 2}}
        ]}),
        serde_json::json!({"id": "msg_2", "type": "message", "role": "assistant", "stop_reason": "end_turn", "content": [
            {"type": "text", "text": "`add` subtracts; it should add."}
        ]}),
    ];
    let model = chat::ScriptedModel::new(script);
    let registry = setup::coding_registry().build().unwrap();
    let ctx = setup::coding_context(&dir).unwrap();
    let transcript = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(chat::run(
            &registry,
            &ctx,
            &model,
            chat::Api::Anthropic,
            "scripted",
            "what is wrong?",
            5,
        ))
        .unwrap();
    assert_eq!(
        transcript.answer.as_deref(),
        Some("`add` subtracts; it should add.")
    );
    // Both results in one user message, results first, ids matched.
    let results = &transcript.messages[2];
    assert_eq!(results["role"], "user");
    let blocks = results["content"].as_array().unwrap();
    assert_eq!(
        blocks
            .iter()
            .map(|b| b["tool_use_id"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["toolu_1", "toolu_2"]
    );
    assert_eq!(blocks[0]["content"], "pub fn add(a: i32, b: i32) -> i32 {");
    assert_eq!(blocks[1]["is_error"], false);
    let _ = std::fs::remove_dir_all(&dir);
}
