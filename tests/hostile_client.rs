//! The coding tools against a hostile model: every escape attempt in one table (a new
//! case is one line), each refused by the argument checks or harmless, and nothing
//! outside the workspace read, listed or written, and no secret value in any result.
//! Then the OS sandbox behind `run_command`, proven with a test that opens a file no
//! argument names.
//!
//! Every call goes through a registry that allows everything: what stops these is the
//! tools' own checks, not a policy.

use crate::tools;

use crate::setup;

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tools::coding::{Environment, Workspace};
use toolwright::capability::Writes;
use toolwright::policy::AllowAll;
use toolwright::{Context, ErrorKind, Registry, ToolCall, ToolResult, ToolSettings};

/// Secret values: none may appear in any result.
const SECRETS: &[&str] = &[
    "hunter2",
    "ghp_4Fj9KqL2mN8pR5sT1vW3xY6zA0bC7dE9fG2h",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ2VudC03In0.c2lnbmF0dXJlLXZhbHVlLTEyMzQ",
    "sk-proj-Zx81LmQ0pWr5TbN3vKc7YdH2",
    "AKIAIOSFODNN7EXAMPLE",
    "xoxb-2048-4096-ZmFrZXNsYWNr",
    "Vq3ZkP8wLm2Rt7Yx1Nc5Hb9Gf4Dj6Sa0",
    "s3cr3t-from-dotenv",
    // What /etc/passwd holds, and what the directory outside holds.
    "root:x:0:0",
    "OUTSIDE-MARKER-7d1f",
];

struct Fixture {
    workspace: PathBuf,
    outside: PathBuf,
    registry: Registry,
    ctx: Context,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.workspace);
        let _ = std::fs::remove_dir_all(&self.outside);
    }
}

fn fixture(name: &str) -> Fixture {
    let base =
        std::env::temp_dir().join(format!("toolwright-hostile-{name}-{}", std::process::id()));
    let (workspace, outside) = (base.join("workspace"), base.join("outside"));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(workspace.join("src")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "OUTSIDE-MARKER-7d1f\n").unwrap();
    std::fs::write(
        workspace.join("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 { a + b }\n",
    )
    .unwrap();
    std::fs::write(workspace.join("prod.env"), "API_TOKEN=s3cr3t-from-dotenv\n").unwrap();
    std::fs::write(
        workspace.join(".env"),
        "DATABASE_URL=postgres://app:hunter2@db/prod\nAPI_TOKEN=s3cr3t-from-dotenv\nLOG_LEVEL=debug\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink("/etc", workspace.join("escape_link")).unwrap();
        symlink(&outside, workspace.join("outside_link")).unwrap();
        symlink(
            outside.join("created-through-link"),
            workspace.join("dangling"),
        )
        .unwrap();
        symlink(workspace.join("src/lib.rs"), workspace.join("swap")).unwrap();
    }
    let registry = setup::coding_registry()
        .defaults(ToolSettings::new().policy(AllowAll))
        .configure("run_command", ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    let ctx = Context::new()
        .with(Workspace::new(&workspace).unwrap())
        .with(Writes(Workspace::new(&workspace).unwrap()))
        .with(Environment::from_pairs([
            ("DATABASE_URL", "postgres://app:hunter2@db/prod"),
            ("GITHUB_TOKEN", SECRETS[1]),
            ("SESSION_HINT", SECRETS[2]),
            ("OPENAI", SECRETS[3]),
            ("AWS_ID", SECRETS[4]),
            ("SLACK", SECRETS[5]),
            ("UPLOAD_SALT", SECRETS[6]),
            ("RUST_LOG", "debug"),
        ]));
    registry.check_context(&ctx).unwrap();
    Fixture {
        workspace,
        outside,
        registry,
        ctx,
    }
}

impl Fixture {
    fn call(&self, tool: &str, arguments: Value) -> ToolResult {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(
                self.registry
                    .dispatch(&self.ctx, ToolCall::new("h", tool, arguments)),
            )
    }
}

/// What an attempt must end with.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    /// Refused by the argument checks: `denied` or `invalid_arguments`, with a hint.
    Refused,
    /// Allowed (it stays inside): whatever it returns, nothing secret or outside.
    Harmless,
}
use Expect::{Harmless, Refused};

/// Every escape attempt: (tool, arguments, expectation). `{outside}` stands for the
/// directory outside the workspace.
fn attempts() -> Vec<(&'static str, Value, Expect)> {
    let long = "a/".repeat(3000);
    vec![
        // Reading outside through the file tools.
        ("read_file", json!({"path": "../../etc/passwd"}), Refused),
        ("read_file", json!({"path": "/etc/passwd"}), Refused),
        ("read_file", json!({"path": "escape_link/passwd"}), Refused),
        (
            "read_file",
            json!({"path": "outside_link/secret.txt"}),
            Refused,
        ),
        (
            "read_file",
            json!({"path": "{outside}/secret.txt"}),
            Refused,
        ),
        (
            "read_file",
            json!({"path": "src/lib.rs\u{0}../../etc/passwd"}),
            Refused,
        ),
        ("read_file", json!({"path": long}), Refused),
        (
            "read_file",
            json!({"path": "..\\..\\etc\\passwd"}),
            Harmless,
        ),
        (
            "read_file",
            json!({"path": "\u{2025}/etc/passwd"}),
            Harmless,
        ),
        (
            "read_file",
            json!({"path": "\u{ff0e}\u{ff0e}/\u{ff0e}\u{ff0e}/etc/passwd"}),
            Harmless,
        ),
        (
            "read_file",
            json!({"path": "src/../../etc/passwd"}),
            Refused,
        ),
        ("read_file", json!({"path": ".env"}), Harmless),
        ("list_dir", json!({"path": "/etc"}), Refused),
        ("list_dir", json!({"path": "escape_link"}), Refused),
        ("list_dir", json!({"path": ".."}), Refused),
        ("list_dir", json!({"path": "outside_link"}), Refused),
        (
            "search_files",
            json!({"query": "root", "path": "/etc"}),
            Refused,
        ),
        (
            "search_files",
            json!({"query": "OUTSIDE", "path": "outside_link"}),
            Refused,
        ),
        ("search_files", json!({"query": "hunter2"}), Harmless),
        ("search_files", json!({"query": "API_TOKEN"}), Harmless),
        ("read_file", json!({"path": "prod.env"}), Harmless),
        ("run_command", json!({"command": "cat prod.env"}), Harmless),
        // Writing outside.
        (
            "write_file",
            json!({"path": "../escape.txt", "content": "x"}),
            Refused,
        ),
        (
            "write_file",
            json!({"path": "{outside}/written.txt", "content": "x"}),
            Refused,
        ),
        (
            "write_file",
            json!({"path": "outside_link/written.txt", "content": "x"}),
            Refused,
        ),
        (
            "write_file",
            json!({"path": "dangling", "content": "x"}),
            Refused,
        ),
        (
            "write_file",
            json!({"path": "escape_link/evil", "content": "x"}),
            Refused,
        ),
        (
            "edit_file",
            json!({"path": "escape_link/passwd", "old_text": "root", "new_text": "x"}),
            Refused,
        ),
        // run_command: paths, options, quoting, shell syntax.
        (
            "run_command",
            json!({"command": "cat /etc/passwd"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "cat ../../../../etc/passwd"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "cat escape_link/passwd"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "cat outside_link/secret.txt"}),
            Refused,
        ),
        ("run_command", json!({"command": "ls /etc"}), Refused),
        (
            "run_command",
            json!({"command": "ls outside_link"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "git diff --no-index /etc/passwd /dev/null"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "git diff --no-index src/lib.rs escape_link/passwd"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "git log --output={outside}/log.txt"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "git -C / status"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "git --git-dir=/ status"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "git status --work-tree=/"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "cargo --manifest-path /elsewhere/Cargo.toml check"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "cargo check --manifest-path /elsewhere/Cargo.toml"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "cargo test --target-dir /"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "cargo test --config build.target-dir=\"/\""}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "cargo test -- --logfile {outside}/log.txt"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "cat -- /etc/passwd"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "cat \"/etc/passwd\""}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "cat '/etc/passwd'"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "cat /etc/pass\"wd\""}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "cat $(echo /etc/passwd)"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "cat `echo /etc/passwd`"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "cat src/lib.rs | cat /etc/passwd"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "ls; cat /etc/passwd"}),
            Refused,
        ),
        (
            "run_command",
            json!({"command": "cat src/lib.rs > {outside}/x"}),
            Refused,
        ),
        ("run_command", json!({"command": "cat \"unclosed"}), Refused),
        (
            "run_command",
            json!({"command": "cat src/lib.rs\u{0}/etc/passwd"}),
            Refused,
        ),
        ("run_command", json!({"command": "rm -rf /"}), Refused),
        ("run_command", json!({"command": "rm -rf ."}), Refused),
        ("run_command", json!({"command": "rm -rf .."}), Refused),
        (
            "run_command",
            json!({"command": "rm outside_link/secret.txt"}),
            Refused,
        ),
        ("run_command", json!({"command": "env"}), Refused),
        (
            "run_command",
            json!({"command": "sh -c 'cat /etc/passwd'"}),
            Refused,
        ),
        ("run_command", json!({"command": "cat .env"}), Harmless),
        ("run_command", json!({"command": "ls -la"}), Harmless),
        // Environment probes.
        ("read_env", json!({"key": "DATABASE_URL"}), Harmless),
        ("read_env", json!({"key": "GITHUB_TOKEN"}), Harmless),
        ("read_env", json!({"key": "SESSION_HINT"}), Harmless),
        ("read_env", json!({"key": "OPENAI"}), Harmless),
        ("read_env", json!({"key": "AWS_ID"}), Harmless),
        ("read_env", json!({"key": "SLACK"}), Harmless),
        ("read_env", json!({"key": "UPLOAD_SALT"}), Harmless),
        ("read_env", json!({"key": "../DATABASE_URL"}), Refused),
    ]
}

fn with_outside(arguments: &Value, outside: &Path) -> Value {
    let text = arguments
        .to_string()
        .replace("{outside}", &outside.display().to_string());
    serde_json::from_str(&text).unwrap()
}

fn shown(result: &ToolResult) -> String {
    format!("{} {:?}", result.for_model(), result.outcome)
}

#[test]
fn every_escape_attempt_is_refused_or_harmless_and_nothing_leaks() {
    let ws = fixture("table");
    for (tool, arguments, expect) in attempts() {
        let arguments = with_outside(&arguments, &ws.outside);
        let result = ws.call(tool, arguments.clone());
        let text = shown(&result);
        for secret in SECRETS {
            assert!(
                !text.contains(secret),
                "{tool} {arguments} leaked {secret:?}: {text}"
            );
        }
        if expect == Refused {
            let error = result
                .error()
                .unwrap_or_else(|| panic!("{tool} {arguments} was not refused: {text}"));
            assert!(
                matches!(error.kind, ErrorKind::Denied | ErrorKind::InvalidArguments),
                "{tool} {arguments}: {text}"
            );
            assert!(
                error.hint.as_deref().is_some_and(|hint| !hint.is_empty())
                    || !error.problems.is_empty(),
                "{tool} {arguments}: a refusal says what to do instead: {text}"
            );
        }
    }
    // Nothing was written outside, and the link that dangled still dangles.
    let outside: Vec<_> = std::fs::read_dir(&ws.outside)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(outside, ["secret.txt"], "nothing written outside");
    assert!(!ws.workspace.parent().unwrap().join("escape.txt").exists());
}

#[test]
fn credentials_are_redacted_wherever_they_show() {
    let ws = fixture("secrets");
    let url = ws.call("read_env", json!({"key": "DATABASE_URL"}));
    assert_eq!(
        url.for_model(),
        "DATABASE_URL = postgres://app:[REDACTED]@db/prod"
    );
    assert_eq!(
        ws.call("read_env", json!({"key": "GITHUB_TOKEN"}))
            .for_model(),
        "GITHUB_TOKEN = [REDACTED - set]"
    );
    for key in ["SESSION_HINT", "OPENAI", "AWS_ID", "SLACK", "UPLOAD_SALT"] {
        let shown = ws.call("read_env", json!({"key": key}));
        assert!(
            shown.for_model().contains("[REDACTED"),
            "{key}: {}",
            shown.for_model()
        );
    }
    assert_eq!(
        ws.call("read_env", json!({"key": "RUST_LOG"})).for_model(),
        "RUST_LOG = debug"
    );
    let env_file = ws.call("read_file", json!({"path": ".env"}));
    assert_eq!(
        env_file.for_model(),
        "DATABASE_URL=postgres://app:[REDACTED]@db/prod\nAPI_TOKEN=[REDACTED - set]\nLOG_LEVEL=debug"
    );
    let cat = ws.call("run_command", json!({"command": "cat .env"}));
    let output: Value = serde_json::from_str(cat.for_model()).unwrap();
    assert!(
        output["stdout"]
            .as_str()
            .unwrap()
            .contains("postgres://app:[REDACTED]@db/prod"),
        "{output}"
    );
    // Commit ids and checksums are not secrets.
    let sha = "9fceb02d0ae598e95dc970b74767f19372d61af8";
    std::fs::write(ws.workspace.join("notes.txt"), format!("commit {sha}\n")).unwrap();
    assert!(
        ws.call("read_file", json!({"path": "notes.txt"}))
            .for_model()
            .contains(sha)
    );
}

#[test]
fn a_symlink_swapped_between_calls_is_checked_again() {
    let ws = fixture("swap");
    let before = ws.call("read_file", json!({"path": "swap"}));
    assert!(
        before.for_model().contains("pub fn add"),
        "{}",
        before.for_model()
    );
    std::fs::remove_file(ws.workspace.join("swap")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc/passwd", ws.workspace.join("swap")).unwrap();
    for (tool, arguments) in [
        ("read_file", json!({"path": "swap"})),
        ("run_command", json!({"command": "cat swap"})),
        ("write_file", json!({"path": "swap", "content": "x"})),
    ] {
        let after = ws.call(tool, arguments);
        assert_eq!(
            after.error().map(|e| e.kind),
            Some(ErrorKind::Denied),
            "{tool}: {}",
            shown(&after)
        );
        assert!(!shown(&after).contains("root:x:0:0"));
    }
}

#[test]
fn commands_are_classified_by_what_they_do() {
    use tools::coding::classify_command;
    use toolwright::Effect;
    assert_eq!(classify_command("git log --oneline -5"), Effect::ReadOnly);
    assert_eq!(classify_command("cat -n src/lib.rs"), Effect::ReadOnly);
    assert_eq!(
        classify_command("cargo test -p core -- --nocapture"),
        Effect::External,
        "tests are arbitrary code"
    );
    assert_eq!(
        classify_command("cargo check --workspace"),
        Effect::External
    );
    assert_eq!(classify_command("rm -r build"), Effect::Destructive);
    assert_eq!(
        classify_command("git log --output=/tmp/x"),
        Effect::RISKIEST,
        "an unlisted option"
    );
    assert_eq!(classify_command("curl example.org"), Effect::RISKIEST);
    // An unknown option is refused with the list of allowed ones.
    let ws = fixture("options");
    let refused = ws.call("run_command", json!({"command": "ls --color=always"}));
    let error = refused.error().unwrap();
    assert!(error.message.contains("'--color'"), "{}", error.message);
    assert!(
        error.hint.as_deref().unwrap().contains("'ls' takes: -a"),
        "{error:?}"
    );
}

/// A command the argument checks allow (`cargo test`) runs a test the checks cannot see
/// into: it opens `/etc/passwd` and a file outside the workspace. Under Landlock the
/// kernel refuses both; the test says which case this machine ran.
#[test]
fn the_os_sandbox_stops_what_the_argument_checks_cannot_see() {
    let ws = fixture("sandbox");
    std::fs::write(
        ws.workspace.join("Cargo.toml"),
        "[package]\nname = \"probe\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(
        ws.workspace.join("src/lib.rs"),
        format!(
            r#"#[test]
fn reads_outside() {{
    for path in ["/etc/passwd", "{outside}"] {{
        match std::fs::read_to_string(path) {{
            Ok(text) => println!("READ {{path}}: {{text}}"),
            Err(error) => println!("REFUSED {{path}}: {{:?}}", error.kind()),
        }}
    }}
    match std::fs::write("{outside_dir}/from-test.txt", "x") {{
        Ok(()) => println!("WROTE outside"),
        Err(error) => println!("REFUSED write: {{:?}}", error.kind()),
    }}
}}
"#,
            outside = ws.outside.join("secret.txt").display(),
            outside_dir = ws.outside.display(),
        ),
    )
    .unwrap();
    let result = ws.call(
        "run_command",
        json!({"command": "cargo test --offline --quiet -- --nocapture"}),
    );
    let output: Value = serde_json::from_str(result.for_model())
        .unwrap_or_else(|_| panic!("a command output: {}", result.for_model()));
    let stdout = output["stdout"].as_str().unwrap();
    let sandbox = output["sandbox"].as_str().unwrap();
    let enforced = sandbox.starts_with("landlock");
    let mut stderr = std::io::stderr();
    // Written past the test harness's capture, so `.ci/run`'s log shows which case ran.
    let _ = writeln!(
        stderr,
        "sandbox test: {} ({sandbox})",
        if enforced {
            "Landlock enforced on this machine"
        } else {
            "Landlock NOT available on this machine; argument checks only"
        }
    );
    assert_eq!(output["exit_code"], 0, "{output}");
    if enforced {
        assert!(
            stdout.contains("REFUSED /etc/passwd: PermissionDenied"),
            "{stdout}"
        );
        assert!(stdout.contains("secret.txt: PermissionDenied"), "{stdout}");
        assert!(
            stdout.contains("REFUSED write: PermissionDenied"),
            "{stdout}"
        );
        assert!(!ws.outside.join("from-test.txt").exists());
        for secret in SECRETS {
            assert!(!stdout.contains(secret), "{secret}: {stdout}");
        }
    } else {
        assert!(
            sandbox.contains("only the argument checks"),
            "it says so: {sandbox}"
        );
    }
}

#[test]
fn each_credential_shape_is_redacted_by_value_whatever_the_name() {
    use tools::coding::secrets::{redact, redact_output};
    let redacted = [
        (
            "postgres://app:hunter2@db:5432/prod",
            "postgres://app:[REDACTED]@db:5432/prod",
        ),
        (
            "https://user:p%40ss@example.com/x",
            "https://user:[REDACTED]@example.com/x",
        ),
        (
            "key sk-proj-Zx81LmQ0pWr5TbN3vKc7YdH2 end",
            "key [REDACTED] end",
        ),
        ("sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv", "[REDACTED]"),
        ("ghp_4Fj9KqL2mN8pR5sT1vW3xY6zA0bC7dE9fG2h", "[REDACTED]"),
        (
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
            "[REDACTED]",
        ),
        ("xoxb-2048-4096-ZmFrZXNsYWNr", "[REDACTED]"),
        ("AKIAIOSFODNN7EXAMPLE", "[REDACTED]"),
        (
            "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhZ2VudC03In0.c2lnbmF0dXJlLXZhbHVlLTEyMzQ",
            "Bearer [REDACTED]",
        ),
        ("salt=Vq3ZkP8wLm2Rt7Yx1Nc5Hb9Gf4Dj6Sa0", "salt=[REDACTED]"),
    ];
    for (value, expected) in redacted {
        assert_eq!(redact(value), expected, "{value}");
    }
    let kept = [
        "9fceb02d0ae598e95dc970b74767f19372d61af8", // a commit id
        "550e8400-e29b-41d4-a716-446655440000",     // a UUID
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", // a SHA-256
        "src/dispatch/mod.rs:412: the_quick_brown_fox_jumps_over_the_lazy_dog",
        "https://example.com/path?query=1",
        "running 3 tests",
    ];
    for value in kept {
        assert_eq!(redact(value), value, "{value} is not a secret");
    }
    assert_eq!(
        redact_output("export AWS_SECRET_ACCESS_KEY=abc\nHOME=/root\n  DB_PASSWORD = x y\n"),
        "export AWS_SECRET_ACCESS_KEY=[REDACTED - set]\nHOME=/root\n  DB_PASSWORD = [REDACTED - set]\n"
    );
}
