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
    let registry = setup::agent_registry().build().unwrap();
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
    assert_eq!(
        calls,
        ["call_1", "call_2", "call_3", "call_4", "call_5", "call_6"]
    );
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
    // The run ends with data: the final result, its claim checked against call_5.
    assert_eq!(
        transcript.result,
        Some(serde_json::json!({
            "summary": "add subtracted instead of adding; it adds now.",
            "files_changed": ["src/lib.rs"],
            "tests_passed": true
        }))
    );
    assert!(tool_output("call_6").starts_with("Accepted"));

    // The server saw the tool definitions and the whole history each turn.
    let requests = requests.lock().unwrap();
    assert_eq!(requests.len(), 6);
    // The non-GPT set (edit_file and write_file, no apply_patch) and submit_result.
    let tools: Vec<&str> = requests[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        tools,
        [
            "list_dir",
            "read_file",
            "search_files",
            "edit_file",
            "undo_edit",
            "write_file",
            "run_command",
            "read_env",
            "submit_result"
        ]
    );
    // Not forced while steps remain.
    assert!(
        requests
            .iter()
            .all(|request| request.get("tool_choice").is_none())
    );
    assert_eq!(
        requests[5]["messages"].as_array().unwrap().len(),
        // All but the last turn and its result.
        messages.len() - 2
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
        serde_json::json!({"id": "msg_3", "type": "message", "role": "assistant", "stop_reason": "tool_use", "content": [
            {"type": "tool_use", "id": "toolu_3", "name": "submit_result", "input": {
                "summary": "`add` subtracts; it should add. Not fixed: the task asked what is wrong.",
                "files_changed": [],
                "tests_passed": false
            }}
        ]}),
    ];
    let model = chat::ScriptedModel::new(script);
    let registry = setup::agent_registry().build().unwrap();
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
    // A text answer is not the end of a run with a final result: the model is reminded,
    // and its next turn is forced to submit it (Anthropic's `tool_choice`).
    assert_eq!(
        transcript.messages[3]["content"][0]["text"],
        "`add` subtracts; it should add."
    );
    let reminder = transcript.messages[4]["content"].as_str().unwrap();
    assert!(reminder.contains("call submit_result"), "{reminder}");
    let requests = model.requests.borrow();
    assert_eq!(requests.len(), 3);
    assert!(requests[1].get("tool_choice").is_none());
    assert_eq!(
        requests[2]["tool_choice"],
        serde_json::json!({"type": "tool", "name": "submit_result", "disable_parallel_tool_use": true})
    );
    assert_eq!(transcript.result.as_ref().unwrap()["tests_passed"], false);
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

/// A Chat Completions response calling `calls` (id, tool, arguments).
fn turn(calls: &[(&str, &str, Value)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, arguments)| {
            serde_json::json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments.to_string()}})
        })
        .collect();
    serde_json::json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null, "tool_calls": calls}}]})
}

fn run_script(
    dir: &std::path::Path,
    model: &chat::ScriptedModel,
    steps: usize,
) -> chat::Transcript {
    let registry = setup::agent_registry().build().unwrap();
    let ctx = setup::coding_context(dir).unwrap();
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(chat::run(
            &registry,
            &ctx,
            model,
            chat::Api::OpenAiChat,
            "scripted",
            "fix the tests",
            steps,
        ))
        .unwrap()
}

fn output<'m>(transcript: &'m chat::Transcript, id: &str) -> &'m str {
    transcript
        .messages
        .iter()
        .find(|m| m["tool_call_id"] == id)
        .and_then(|m| m["content"].as_str())
        .unwrap_or_else(|| panic!("no result for {id}"))
}

#[test]
fn invalid_and_false_final_answers_go_back_to_the_model_and_the_run_goes_on() {
    use serde_json::json;
    let dir = std::env::temp_dir().join(format!("toolwright-agent-claims-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    setup::scratch_workspace(&dir).unwrap();
    let test = json!({"command": "cargo test --offline --quiet"});
    let claim = |passed: bool| json!({"summary": "add adds now.", "files_changed": ["src/lib.rs"], "tests_passed": passed});
    let model = chat::ScriptedModel::new(vec![
        // Arguments that do not fit: every problem at once.
        turn(&[(
            "c1",
            "submit_result",
            json!({"summary": 3, "tests_passed": "yes"}),
        )]),
        // A claim with no evidence.
        turn(&[("c2", "submit_result", claim(true))]),
        // Listed before the test run, checked after it: the tests fail (the bug is there).
        turn(&[
            ("c3", "submit_result", claim(true)),
            ("c4", "run_command", test.clone()),
        ]),
        turn(&[(
            "c5",
            "edit_file",
            json!({"path": "src/lib.rs", "old_text": "a - b", "new_text": "a + b"}),
        )]),
        turn(&[("c6", "run_command", test.clone())]),
        // A change after the passing run makes it stale.
        turn(&[
            (
                "c7",
                "write_file",
                json!({"path": "NOTES.md", "content": "fixed add\n"}),
            ),
            ("c8", "submit_result", claim(true)),
        ]),
        turn(&[
            ("c9", "run_command", test),
            ("c10", "submit_result", claim(true)),
        ]),
    ]);
    let transcript = run_script(&dir, &model, 10);

    let invalid = output(&transcript, "c1");
    assert!(
        invalid.contains("\"error\":\"invalid_arguments\""),
        "{invalid}"
    );
    for problem in ["summary", "files_changed", "tests_passed"] {
        assert!(
            invalid.contains(problem),
            "{problem} missing from {invalid}"
        );
    }
    assert!(output(&transcript, "c2").contains("no `cargo test` ran in this run"));
    let tests: Value = serde_json::from_str(output(&transcript, "c4")).unwrap();
    assert_ne!(
        tests["exit_code"], 0,
        "the bug makes the tests fail: {tests}"
    );
    let refused = output(&transcript, "c3");
    assert!(
        refused.contains(&format!(
            "the last `cargo test` exited with {}",
            tests["exit_code"]
        )),
        "{refused}"
    );
    assert!(
        output(&transcript, "c8").contains("write_file changed files after the last `cargo test`")
    );
    // Accepted at last: the run ends with the report, nothing was asked after it.
    assert!(output(&transcript, "c10").starts_with("Accepted"));
    assert_eq!(transcript.result, Some(claim(true)));
    assert_eq!(model.requests.borrow().len(), 7);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_last_turn_the_budget_allows_is_forced_to_submit() {
    use serde_json::json;
    let dir = std::env::temp_dir().join(format!("toolwright-agent-forced-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    setup::scratch_workspace(&dir).unwrap();
    let model = chat::ScriptedModel::new(vec![
        turn(&[("r1", "read_file", json!({"path": "src/lib.rs"}))]),
        turn(&[("r2", "read_file", json!({"path": "Cargo.toml"}))]),
        turn(&[(
            "s1",
            "submit_result",
            json!({"summary": "Found the bug, out of steps to fix it.", "files_changed": [], "tests_passed": false}),
        )]),
    ]);
    let transcript = run_script(&dir, &model, 3);
    let requests = model.requests.borrow();
    assert!(requests[0].get("tool_choice").is_none() && requests[1].get("tool_choice").is_none());
    assert_eq!(
        requests[2]["tool_choice"],
        json!({"type": "function", "function": {"name": "submit_result"}})
    );
    assert_eq!(transcript.result.unwrap()["tests_passed"], false);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_forced_final_turn_in_every_dialect() {
    let registry = setup::agent_registry().build().unwrap();
    let forced: serde_json::Map<String, Value> = toolwright::Dialect::ALL
        .into_iter()
        .map(|dialect| {
            let choice = registry.force_final_result(dialect).unwrap_or(Value::Null);
            (dialect.slug().to_owned(), choice)
        })
        .collect();
    insta::assert_json_snapshot!(forced);
    // Without a final result there is nothing to force or remind of.
    let plain = toolwright::Registry::builder().build().unwrap();
    assert!(plain.force_final_result(toolwright::Dialect::Mcp).is_none());
    assert!(plain.final_result_reminder().is_none());
}
