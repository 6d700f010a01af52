//! The fixture tools the official MCP conformance suite calls, served over Streamable
//! HTTP for `scripts/test/mcp-conformance`. Not an example to copy: the tools exist to be
//! checked, not to be useful.
//!
//! ```sh
//! cargo run --example mcp_conformance --features mcp-http -- 127.0.0.1:8765
//! ```

use std::sync::OnceLock;

use serde_json::{Value, json};
use toolwright::feedback::{self, Level};
use toolwright::mcp::McpServer;
use toolwright::task::{Cancellation, TaskSettings};
use toolwright::validate::Validator;
use toolwright::{
    Arguments, Content, Context, Effect, ErrorKind, Prepared, Registry, Tool, ToolError,
    ToolFuture, ToolOutput, ToolSpec, tool,
};

/// A 1x1 transparent PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];

/// A WAV file of eight silent 8-bit samples at 8 kHz.
fn wav() -> Vec<u8> {
    let samples = [128u8; 8];
    let mut wav = Vec::new();
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + samples.len() as u32).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&8000u32.to_le_bytes()); // sample rate
    wav.extend_from_slice(&8000u32.to_le_bytes()); // bytes per second
    wav.extend_from_slice(&1u16.to_le_bytes()); // block align
    wav.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    wav.extend_from_slice(&samples);
    wav
}

/// Returns a fixed text.
#[tool(effect = "read_only")]
fn test_simple_text() -> String {
    "This is a simple text response for testing.".to_owned()
}

/// Returns a 1x1 PNG image.
#[tool(effect = "read_only")]
fn test_image_content() -> Content {
    Content::new().image(PNG, "image/png")
}

/// Returns a short silent WAV sound.
#[tool(effect = "read_only")]
fn test_audio_content() -> Content {
    Content::new().audio(&wav(), "audio/wav")
}

/// Returns an embedded text resource.
#[tool(effect = "read_only")]
fn test_embedded_resource() -> Content {
    Content::new().resource_text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    )
}

/// Returns text, an image and an embedded resource.
#[tool(effect = "read_only")]
fn test_multiple_content_types() -> Content {
    Content::new()
        .text("Multiple content types test:")
        .image(PNG, "image/png")
        .resource_text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        )
}

/// Always fails, as a tool error the model can read.
#[tool(effect = "read_only")]
fn test_error_handling() -> Result<String, ToolError> {
    Err(ToolError::failed(
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress three times, then finishes.
#[tool(effect = "read_only")]
async fn test_tool_with_progress() -> String {
    for done in [0.0, 50.0, 100.0] {
        feedback::progress(done, Some(100.0), Some("working"));
        tokio::task::yield_now().await;
    }
    "Progress test completed".to_owned()
}

/// Logs three messages while it runs.
#[tool(effect = "read_only")]
async fn test_tool_with_logging() -> String {
    for message in [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ] {
        feedback::log(Level::Info, message);
        tokio::task::yield_now().await;
    }
    "Logging test completed".to_owned()
}

/// Logs a message (sent only to requests that ask for a log level).
#[tool(effect = "read_only")]
fn test_logging_tool() -> String {
    feedback::log(Level::Info, "a log message");
    "logged".to_owned()
}

/// Echoes a region that travels in an HTTP header as well as in the body: `region` is
/// mirrored into `Mcp-Param-Region`, which rmcp checks against the body.
#[tool(effect = "read_only")]
fn test_custom_headers(
    /// The region, like `eu-west-1`.
    #[arg(mcp_header = "Region")]
    region: String,
) -> String {
    format!("ok: {{\"region\":\"{region}\"}}")
}

/// A tool whose schema is written by hand, for what no Rust signature produces
/// (`$anchor`, `if`/`then`/`else`): the schema is passed through verbatim, and the
/// arguments are still validated against it.
struct SchemaTool {
    spec: ToolSpec,
    validator: OnceLock<Validator>,
}

impl SchemaTool {
    fn new(name: &str, description: &str, schema: Value) -> Self {
        SchemaTool {
            spec: ToolSpec::new(name, description, schema, Effect::ReadOnly),
            validator: OnceLock::new(),
        }
    }

    /// The JSON Schema 2020-12 scenario's tool.
    fn json_schema_2020_12() -> Self {
        SchemaTool::new(
            "json_schema_2020_12_tool",
            "Tool with JSON Schema 2020-12 features",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": {
                    "address": {
                        "$anchor": "addressDef",
                        "type": "object",
                        "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                    }
                },
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/address"},
                    "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                    "phone": {"type": "string"},
                    "email": {"type": "string"}
                },
                "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                "then": {"required": ["phone"]},
                "else": {"required": ["email"]},
                "additionalProperties": false
            }),
        )
    }
}

impl Tool for SchemaTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn prepare(&self, args: Arguments<'_>) -> Result<Prepared, ToolError> {
        let validator = self.validator.get_or_init(|| {
            Validator::for_arguments(&self.spec.input_schema).expect("the schema compiles")
        });
        validator
            .read_arguments(&self.spec, args)
            .map(Prepared::new)
    }

    fn run<'a>(&'a self, _ctx: &'a Context, args: Prepared) -> ToolFuture<'a> {
        // Synchronous work: the outcome is ready at once.
        let outcome = args.downcast::<Value>();
        ToolFuture::ready(outcome.map(|args| ToolOutput::Text(format!("ok: {args}"))))
    }
}

// The fixtures of the tasks extension's scenarios (`tasks-*`, 2026-07-28's
// `io.modelcontextprotocol/tasks`).

/// Greets someone by name, within the request (never a task).
#[tool(effect = "read_only")]
fn greet(
    /// Whom to greet.
    name: String,
) -> String {
    format!("Hello, {name}!")
}

/// Computes for `seconds` seconds, then answers with `label`; stops when cancelled.
#[tool(effect = "read_only", task = "optional")]
async fn slow_compute(
    /// How long to compute, in seconds.
    #[arg(minimum = 0, maximum = 600)]
    seconds: f64,
    /// What to call the answer.
    label: String,
    #[ctx] cancel: &Cancellation,
) -> Result<String, ToolError> {
    tokio::select! {
        () = tokio::time::sleep(std::time::Duration::from_secs_f64(seconds)) => {
            Ok(format!("computed {label}"))
        }
        () = cancel.cancelled() => Err(ToolError::new(ErrorKind::Cancelled, format!("stopped computing {label}"))),
    }
}

/// Works for about a second, then fails with a tool error (always a task).
#[tool(effect = "read_only", task = "required")]
async fn failing_job() -> Result<String, ToolError> {
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    Err(ToolError::failed(
        "the job failed, as this fixture always does",
    ))
}

/// Works briefly, then fails with a protocol-level error (a JSON-RPC error, not a tool
/// result): the one error toolwright answers that way is an unknown tool's, so the
/// fixture returns that kind.
#[tool(effect = "read_only", task = "optional")]
async fn protocol_error_job() -> Result<String, ToolError> {
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    Err(ToolError::new(
        ErrorKind::UnknownTool,
        "protocol_error_job ends with a protocol error, as this fixture always does",
    ))
}

fn confirm_first(filename: &str) -> Option<String> {
    Some(format!("deleting {filename} cannot be undone"))
}

/// Deletes a file once a person confirms.
#[tool(effect = "destructive", task = "optional", approval = confirm_first)]
fn confirm_delete(
    /// The file to delete.
    filename: String,
) -> String {
    format!("deleted {filename}")
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let addr = std::env::args()
        .nth(1)
        .ok_or("usage: mcp_conformance 127.0.0.1:PORT")?;
    let addr = addr
        .parse()
        .map_err(|e| format!("{addr}: {e}; give an address such as 127.0.0.1:8765"))?;
    let registry = Registry::builder()
        .with(TestSimpleText)
        .with(TestImageContent)
        .with(TestAudioContent)
        .with(TestEmbeddedResource)
        .with(TestMultipleContentTypes)
        .with(TestErrorHandling)
        .with(TestToolWithProgress)
        .with(TestToolWithLogging)
        .with(TestLoggingTool)
        .with(SchemaTool::json_schema_2020_12())
        .with(TestCustomHeaders)
        .with(Greet)
        .with(SlowCompute)
        .with(FailingJob)
        .with(ProtocolErrorJob)
        .with(ConfirmDelete)
        .build()
        .unwrap();
    let server = McpServer::new(registry, Context::new())
        .map_err(|e| e.to_string())?
        .with_name("toolwright-conformance", env!("CARGO_PKG_VERSION"))
        .with_client_approval()
        .with_tasks(TaskSettings::new().poll_interval(std::time::Duration::from_millis(100)))
        .map_err(|e| e.to_string())?;
    eprintln!("mcp_conformance: Streamable HTTP on http://{addr}/mcp");
    server
        .serve_http(addr)
        .await
        .map_err(|e| format!("serving: {e}"))
}
