//! The official MCP conformance suite against `examples/mcp_conformance.rs`, through
//! `scripts/test/mcp-conformance` (which installs the pinned suite and the Node.js it needs
//! from the npm registry). Both frozen requirement sets run; only the out-of-scope
//! scenarios in `tests/mcp/conformance/expected-failures-*.yml` may fail.

use std::path::Path;
use std::process::Command;

#[test]
fn official_conformance_suite_passes_every_tool_scenario() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut script = Command::new(root.join("scripts/test/mcp-conformance"));
    // Build the server with this test's features, so nothing is rebuilt.
    if cfg!(feature = "redb") {
        script.env("TOOLWRIGHT_FEATURES", "redb");
    }
    let output = script.output().expect("scripts/test/mcp-conformance runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the conformance suite found unexpected failures (or a listed one now passes: remove it \
         from tests/mcp/conformance/expected-failures-*.yml):\n{stdout}\n{stderr}"
    );
    // Both revisions ran, and the tool scenarios were among what passed.
    for revision in ["2025-11-25", "2026-07-28"] {
        assert!(
            stderr.contains(&format!("requirements {revision}")),
            "{stderr}"
        );
    }
    for scenario in [
        "tools-list",
        "tools-call-simple-text",
        "tools-call-image",
        "tools-call-audio",
        "tools-call-embedded-resource",
        "tools-call-mixed-content",
        "tools-call-error",
        "tools-call-with-progress",
    ] {
        let passed = stdout
            .lines()
            .filter(|line| line.starts_with('✓') && line.contains(&format!(" {scenario}:")))
            .count();
        assert_eq!(
            passed, 2,
            "{scenario} should pass in both revisions:\n{stdout}"
        );
    }
    // 2026-07-28 only: `Mcp-Param-Region` checked against the body, for a `#[tool]`
    // function whose parameter says `#[arg(mcp_header = "Region")]`.
    let passed = stdout
        .lines()
        .filter(|line| {
            line.starts_with('✓') && line.contains(" http-custom-header-server-validation:")
        })
        .count();
    assert_eq!(
        passed, 1,
        "the custom header scenario should pass:\n{stdout}"
    );
    // The tasks extension's scenarios: a task created, read, cancelled and approved in
    // the extension's form (the fixtures are examples/mcp_conformance.rs's).
    for check in [
        "tasks-extension-advertised",
        "sep-2663-result-type-task-on-create",
        "sep-2663-tasks-get-status-completed",
        "sep-2663-tool-error-uses-completed-status",
        "sep-2663-tasks-get-status-failed",
        "tasks-cancel-terminal-idempotent-ack",
        "tasks-wire-field-renames",
        "sep-2663-durable-create-strong-consistency",
        "sep-2663-server-returns-missing-capability-when-required",
        "sep-2663-tasks-get-status-input-required",
        "tasks-mrtr-tasks-update-resumes",
    ] {
        assert!(
            stdout.lines().any(|line| {
                // `[check-id   ] SUCCESS`: the id padded to the scenario's longest.
                let named = line
                    .split_once(&format!("[{check}"))
                    .is_some_and(|(_, rest)| rest.starts_with([' ', ']']));
                named && line.contains("SUCCESS")
            }),
            "the tasks check {check} should pass:\n{stdout}"
        );
    }
}

/// The suite's client scenarios against `examples/mcp_conformance_client.rs` (McpSource),
/// both requirement sets: every scenario about tools, lists, headers, schemas,
/// elicitation and input-required results passes, and OAuth client credentials; the
/// authorization-code ones and one check are listed with their reasons in
/// `tests/mcp/conformance/expected-failures-*.yml`.
#[cfg(feature = "mcp-client")]
#[test]
fn official_conformance_client_scenarios_pass() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(root.join("scripts/test/mcp-conformance"))
        .arg("client")
        .output()
        .expect("scripts/test/mcp-conformance runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "unexpected client failures (or a listed one now passes: remove it from \
         tests/mcp/conformance/expected-failures-*.yml):\n{stdout}\n{stderr}"
    );
    let passed = |scenario: &str| {
        stdout
            .lines()
            .chain(stderr.lines())
            .filter(|line| line.starts_with('✓') && line.contains(&format!(" {scenario}:")))
            .count()
    };
    for (scenario, revisions) in [
        ("tools_call", 2),
        ("initialize", 1),
        ("elicitation-sep1034-client-defaults", 1),
        ("sse-retry", 1),
        ("request-metadata", 1),
        ("sep-2322-client-request-state", 1),
        ("http-standard-headers", 1),
        ("http-invalid-tool-headers", 1),
        ("json-schema-ref-no-deref", 1),
        ("json-schema-2020-12-preservation", 2),
        ("auth/client-credentials-basic", 2),
        // A person's sign-in (McpSource::sign_in), in both requirement sets ...
        ("auth/metadata-default", 2),
        ("auth/metadata-var1", 2),
        ("auth/metadata-var2", 2),
        ("auth/metadata-var3", 2),
        ("auth/basic-cimd", 2),
        ("auth/scope-from-www-authenticate", 2),
        ("auth/scope-from-scopes-supported", 2),
        ("auth/scope-omitted-when-undefined", 2),
        ("auth/scope-step-up", 2),
        ("auth/scope-retry-limit", 2),
        ("auth/token-endpoint-auth-basic", 2),
        ("auth/token-endpoint-auth-post", 2),
        ("auth/token-endpoint-auth-none", 2),
        ("auth/pre-registration", 2),
        // ... and in 2026-07-28's alone.
        ("auth/resource-mismatch", 1),
        ("auth/offline-access-scope", 1),
        ("auth/offline-access-not-supported", 1),
        ("auth/authorization-server-migration", 1),
        ("auth/iss-supported", 1),
        ("auth/iss-not-advertised", 1),
        ("auth/iss-supported-missing", 1),
        ("auth/iss-wrong-issuer", 1),
        ("auth/iss-unexpected", 1),
        ("auth/iss-normalized", 1),
        ("auth/metadata-issuer-mismatch", 1),
    ] {
        assert_eq!(
            passed(scenario),
            revisions,
            "{scenario} should pass:\n{stdout}\n{stderr}"
        );
    }
}
