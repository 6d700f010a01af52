//! The integration tests, one module per area, linked once (cargo's `tests/testsuite`
//! pattern): a module that needs a feature is compiled with it. Apart, in binaries of
//! their own: tests/observability.rs (it installs the global tracing subscriber) and
//! tests/lint_clean.rs (compiled under `#![deny(warnings)]`, pedantic clippy included).

#[path = "../examples/tools/mod.rs"]
mod tools;

#[path = "../examples/agent/setup.rs"]
mod setup;

mod stubs;
mod support;

/// The search tests' catalogs and textbook BM25, shared with the search benchmark.
#[cfg(feature = "search")]
#[path = "../benches/support/catalog.rs"]
mod catalog;

mod agent_loop;
mod agreement;
mod apply_patch;
mod call_examples;
#[cfg(feature = "code")]
mod code_mode;
#[cfg(feature = "code")]
mod code_mode_accounting;
#[cfg(feature = "code")]
mod code_mode_callers;
#[cfg(feature = "code")]
mod code_mode_mistakes;
#[cfg(all(feature = "code", target_os = "linux"))]
mod code_workers;
mod coding_agent;
mod content_and_feedback;
mod derive_schemas;
mod dialects;
mod dispatch;
mod dispatch_fuzz;
mod docs;
mod effects;
#[cfg(feature = "embed")]
mod embedding;
mod eval;
#[cfg(all(
    feature = "chrono04",
    feature = "uuid1",
    feature = "url2",
    feature = "jiff02",
    feature = "rust_decimal1",
    feature = "semver1",
    feature = "indexmap2",
    feature = "smallvec1",
    feature = "arrayvec07",
    feature = "ordered-float5",
    feature = "schemars1"
))]
mod foreign_types;
#[cfg(feature = "search")]
mod heldout_search;
mod hostile_client;
mod idempotency;
mod json_schema_suite;
mod layers;
mod lint;
#[cfg(feature = "mcp")]
mod mcp_approval;
#[cfg(all(feature = "mcp-http", feature = "oauth"))]
mod mcp_auth;
#[cfg(all(feature = "mcp-http", feature = "mcp-client"))]
mod mcp_client;
#[cfg(feature = "mcp-client")]
mod mcp_client_hostile;
#[cfg(feature = "mcp-http")]
mod mcp_clients;
#[cfg(feature = "mcp")]
mod mcp_conformance;
mod mcp_http_limits;
#[cfg(feature = "mcp-http")]
mod mcp_server;
#[cfg(feature = "mcp")]
mod mcp_tasks;
#[cfg(feature = "mcp")]
mod mcp_tasks_2025;
mod payments;
mod providers;
mod public_api;
#[cfg(all(feature = "mcp-http", feature = "postgres", feature = "redis"))]
mod replicas;
#[cfg(feature = "restate")]
mod restate;
mod stores;
mod streamed_turns;
mod streaming_input;
#[cfg(feature = "mcp-http")]
mod task_crashes;
#[cfg(feature = "mcp")]
mod tool_changes;
#[cfg(feature = "search")]
mod tool_search;
mod tool_specs;
mod toolsets;
mod visibility;
