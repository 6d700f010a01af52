//! The client the official MCP conformance suite drives (`scripts/test/mcp-conformance
//! client`): `McpSource` connecting to each scenario's server, its tools imported into a
//! registry and called through the dispatcher, as a user's agent would. Not an example
//! to copy: it does what each scenario checks for.
//!
//! The suite runs it with the server's URL as the last argument and the scenario in
//! `MCP_CONFORMANCE_SCENARIO` (the protocol in `MCP_CONFORMANCE_PROTOCOL_VERSION`, the
//! scenario's data in `MCP_CONFORMANCE_CONTEXT`).
//!
//! ```sh
//! MCP_CONFORMANCE_SCENARIO=tools_call MCP_CONFORMANCE_PROTOCOL_VERSION=2025-11-25 \
//!     cargo run --example mcp_conformance_client --features mcp_conformance_client -- http://localhost:3000/mcp
//! ```

use std::time::Duration;

use serde_json::{Map, Value, json};
use toolwright::mcp_client::rmcp::model::{
    ElicitRequestParams, ElicitResult, ElicitationAction, ProtocolVersion,
};
use toolwright::mcp_client::{McpSource, SignIn};
use toolwright::policy::AllowAll;
use toolwright::{Context, Registry, ToolCall, ToolSettings};

/// The values a form asks for, each its schema's default (or a value of its type).
fn defaults(request: &ElicitRequestParams) -> Value {
    let schema = match request {
        ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } => serde_json::to_value(requested_schema).unwrap_or_default(),
        _ => Value::Null,
    };
    let mut answer = Map::new();
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            let value = property.get("default").cloned().unwrap_or_else(|| {
                match property.get("type").and_then(Value::as_str) {
                    Some("boolean") => json!(true),
                    Some("integer" | "number") => json!(1),
                    _ => property
                        .get("enum")
                        .and_then(|values| values.get(0).cloned())
                        .unwrap_or(json!("yes")),
                }
            });
            answer.insert(name.clone(), value);
        }
    }
    Value::Object(answer)
}

/// Where the suite's authorization server sends a person who opens `page`: it signs
/// them in at once and redirects, so the redirect's `Location` is the answer.
fn signed_in(page: &str) -> Result<String, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .max_redirects(0)
        .http_status_as_error(false)
        .build()
        .into();
    let response = agent.get(page).call().map_err(|e| e.to_string())?;
    response
        .headers()
        .get("location")
        .and_then(|location| location.to_str().ok())
        .map(str::to_owned)
        .ok_or_else(|| {
            format!(
                "the authorization page answered {} without a redirect",
                response.status()
            )
        })
}

/// The tool calls a scenario wants made: `(name, arguments)`.
fn calls(scenario: &str, registry: &Registry) -> Vec<(String, Value)> {
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let one = |name: &str, arguments: Value| vec![(name.to_owned(), arguments)];
    match scenario {
        "tools_call" => one("add_numbers", json!({"a": 2, "b": 3})),
        "sse-retry" => one("test_reconnection", json!({})),
        "http-standard-headers" => vec![
            ("test_headers".into(), json!({})),
            ("my-hyphenated-tool".into(), json!({})),
        ],
        "http-custom-headers" => context["toolCalls"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|call| {
                (
                    call["name"].as_str().unwrap_or_default().to_owned(),
                    call["arguments"].clone(),
                )
            })
            .collect(),
        "http-invalid-tool-headers" => one("valid_tool", json!({"region": "test"})),
        "elicitation-sep1034-client-defaults" => one("test_client_elicitation_defaults", json!({})),
        "sep-2322-client-request-state" => vec![
            ("test_mrtr_echo_state".into(), json!({})),
            ("test_mrtr_unrelated".into(), json!({})),
            ("test_mrtr_no_state".into(), json!({})),
            ("test_mrtr_no_result_type".into(), json!({})),
        ],
        // The schema as this client read it, echoed back.
        "json-schema-2020-12-preservation" => registry
            .get("json_schema_2020_12_tool")
            .map(|tool| {
                one(
                    "json_schema_echo",
                    json!({"schema": tool.spec().input_schema}),
                )
            })
            .unwrap_or_default(),
        // An authorized call after the handshake and the list.
        auth if auth.starts_with("auth/") && registry.get("test-tool").is_some() => {
            one("test-tool", json!({}))
        }
        // initialize, request-metadata, json-schema-ref-no-deref: connecting (the
        // handshake and the tool list) is the scenario.
        _ => Vec::new(),
    }
}

async fn run(url: String, scenario: String) -> Result<(), String> {
    let mut source = McpSource::http("conformance", url)
        .connect_timeout(Duration::from_secs(20))
        .call_timeout(Duration::from_secs(20))
        .on_elicitation(|request| async move {
            ElicitResult::new(ElicitationAction::Accept).with_content(defaults(&request))
        });
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    let (id, secret) = (
        context["client_id"].as_str(),
        context["client_secret"].as_str(),
    );
    if scenario == "auth/client-credentials-basic"
        && let (Some(id), Some(secret)) = (id, secret)
    {
        source = source.client_credentials(id, secret, Vec::<String>::new());
    } else if scenario.starts_with("auth/") {
        let mut sign_in = SignIn::new(
            "http://localhost:3000/callback",
            |page: String| async move {
                tokio::task::spawn_blocking(move || signed_in(&page))
                    .await
                    .map_err(|e| e.to_string())?
            },
        )
        .client_metadata_url("https://conformance-test.local/client-metadata.json");
        if let Some(id) = id {
            sign_in = sign_in.registered_client(id, secret);
        }
        source = source.sign_in(sign_in);
    }
    if let Ok(version) = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION") {
        let version: ProtocolVersion = serde_json::from_value(json!(version))
            .map_err(|e| format!("MCP_CONFORMANCE_PROTOCOL_VERSION: {e}"))?;
        source = source.protocol_version(version);
    }
    let source = source.connect().await.map_err(|e| e.to_string())?;
    for finding in source.findings() {
        eprintln!("finding: {finding}");
    }
    let registry = Registry::builder()
        .with_toolset(source.clone())
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .map_err(|e| e.to_string())?;
    let ctx = Context::new();
    let mut failed = Vec::new();
    for (index, (name, arguments)) in calls(&scenario, &registry).into_iter().enumerate() {
        let call = ToolCall::new(format!("conformance-{index}"), name.clone(), arguments);
        let result = registry.dispatch(&ctx, call).await;
        match &result.outcome {
            Ok(output) => eprintln!("{name}: {}", output.to_text()),
            Err(error) => {
                eprintln!("{name}: {}", error.to_model_text());
                failed.push(name);
            }
        }
    }
    source.close();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("calls failed: {}", failed.join(", ")))
    }
}

fn main() {
    let url = std::env::args().next_back().unwrap_or_default();
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    // The suite waits 30 s: finish before it, whatever the server does.
    let outcome = runtime.block_on(async {
        tokio::time::timeout(Duration::from_secs(25), run(url, scenario))
            .await
            .unwrap_or_else(|_| Err("timed out".into()))
    });
    if let Err(error) = outcome {
        eprintln!("mcp_conformance_client: {error}");
        std::process::exit(1);
    }
}
