//! An MCP server on in-memory streams, spoken to line by line (for tests of the server
//! in-process: tests/tool_changes.rs, tests/tool_search.rs).

#![allow(dead_code)] // each user takes a part

use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use toolwright::mcp::McpServer;

/// An MCP server on in-memory streams, spoken to line by line.
pub struct Wire {
    input: DuplexStream,
    output: Lines<BufReader<DuplexStream>>,
}

impl Wire {
    pub fn serve(server: McpServer) -> Self {
        let (input, server_input) = tokio::io::duplex(1 << 16);
        let (server_output, output) = tokio::io::duplex(1 << 16);
        tokio::spawn(server.serve_streams(server_input, server_output));
        Self {
            input,
            output: BufReader::new(output).lines(),
        }
    }

    pub async fn send(&mut self, message: &str) {
        self.input.write_all(message.as_bytes()).await.unwrap();
        self.input.write_all(b"\n").await.unwrap();
    }

    /// The next message, within five seconds.
    pub async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(5), self.output.next_line())
            .await
            .expect("the server answers within 5 s")
            .unwrap()
            .expect("the stream is open");
        serde_json::from_str(&line).unwrap()
    }

    /// Whether a message arrives within `wait`.
    pub async fn quiet_for(&mut self, wait: Duration) -> bool {
        tokio::time::timeout(wait, self.output.next_line())
            .await
            .is_err()
    }

    /// A 2025-11-25 `initialize` request as `id`, and its answer (the client still has
    /// to send `notifications/initialized`).
    pub async fn initialize(&mut self, id: u64) -> Value {
        self.send(
            &serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            }})
            .to_string(),
        )
        .await;
        self.next().await
    }

    /// The tools `tools/list` returns, and the whole result.
    pub async fn list(&mut self, request: String) -> (Vec<String>, Value) {
        self.send(&request).await;
        let reply = self.next().await;
        let result = reply["result"].clone();
        let names = result["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect();
        (names, result)
    }
}
