//! The coding agent's tools, each with its happy path and its refusals: path escape,
//! stale edit, secret key, unknown command.

use crate::tools;

use crate::setup;

use std::path::Path;

use serde_json::json;
use tools::coding::{Environment, RunCommand, Workspace};
use toolwright::capability::Writes;
use toolwright::policy::AllowAll;
use toolwright::{Context, ErrorKind, Registry, ToolCall, ToolResult, ToolSettings};

struct Fixture {
    dir: std::path::PathBuf,
    registry: Registry,
    ctx: Context,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn fixture(name: &str) -> Fixture {
    let dir = std::env::temp_dir().join(format!("toolwright-ws-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(
        dir.join("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
    )
    .unwrap();
    std::fs::write(dir.join("README.md"), "# demo\nadd numbers\n").unwrap();
    let registry = setup::coding_registry()
        .defaults(ToolSettings::new().policy(AllowAll))
        .configure("run_command", ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    // Readers get the plain handle, writers the write-capable one.
    let ctx = Context::new()
        .with(Workspace::new(&dir).unwrap())
        .with(Writes(Workspace::new(&dir).unwrap()))
        .with(Environment::from_pairs([
            ("RUST_LOG", "debug"),
            ("OPENAI_API_KEY", "sk-live-1234"),
            ("db_password", "hunter2"),
        ]));
    registry.check_context(&ctx).unwrap();
    Fixture { dir, registry, ctx }
}

impl Fixture {
    fn call(&self, name: &str, arguments: serde_json::Value) -> ToolResult {
        let call = ToolCall::new("c", name, arguments);
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(self.registry.dispatch(&self.ctx, call))
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.dir.join(path)).unwrap()
    }
}

fn kind(result: &ToolResult) -> Option<ErrorKind> {
    result.error().map(|e| e.kind)
}

#[test]
fn list_and_read_inside_the_workspace() {
    let ws = fixture("read");
    let listed = ws.call("list_dir", json!({"path": "."}));
    assert_eq!(
        listed.for_model(),
        r#"[{"name":"README.md","kind":"file","size":19},{"name":"src","kind":"dir","size":null}]"#
    );
    let lines = ws.call(
        "read_file",
        json!({"path": "src/lib.rs", "offset": 2, "limit": 1}),
    );
    assert_eq!(lines.for_model(), "    a - b");
    let missing = ws.call("read_file", json!({"path": "src/lib.r"}));
    assert_eq!(kind(&missing), Some(ErrorKind::NotFound));
    assert!(
        missing
            .error()
            .unwrap()
            .message
            .starts_with("No such file: src/lib.r. Similar: src/lib.rs"),
        "{}",
        missing.for_model()
    );
}

#[test]
fn paths_that_leave_the_workspace_are_refused_saying_why() {
    let ws = fixture("escape");
    for (path, why) in [
        ("../secrets.txt", "`..`"),
        ("/etc/passwd", "absolute"),
        ("src/../../x", "`..`"),
    ] {
        let result = ws.call("read_file", json!({"path": path}));
        assert_eq!(kind(&result), Some(ErrorKind::Denied), "{path}");
        assert!(
            result.error().unwrap().message.contains(why),
            "{path}: {}",
            result.for_model()
        );
        assert!(
            result
                .error()
                .unwrap()
                .hint
                .as_deref()
                .unwrap()
                .contains("relative to the workspace root")
        );
    }
    #[cfg(unix)]
    {
        let outside =
            std::env::temp_dir().join(format!("toolwright-outside-{}", std::process::id()));
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("key.pem"), "secret").unwrap();
        std::os::unix::fs::symlink(&outside, ws.dir.join("link")).unwrap();
        let result = ws.call("read_file", json!({"path": "link/key.pem"}));
        assert_eq!(kind(&result), Some(ErrorKind::Denied));
        assert!(result.error().unwrap().message.contains("symbolic link"));
        let written = ws.call(
            "write_file",
            json!({"path": "link/new.txt", "content": "x"}),
        );
        assert_eq!(kind(&written), Some(ErrorKind::Denied));
        assert!(!Path::new(&outside.join("new.txt")).exists());
        let _ = std::fs::remove_dir_all(outside);
    }
}

#[test]
fn search_is_literal_and_bounded() {
    let ws = fixture("search");
    for i in 0..5 {
        std::fs::write(
            ws.dir.join(format!("src/m{i}.rs")),
            "let x = a.b(c);\nlet y = a.b(c);\n",
        )
        .unwrap();
    }
    let result = ws.call(
        "search_files",
        json!({"query": "a.b(c)", "path": "src", "max_results": 3}),
    );
    let value: serde_json::Value = serde_json::from_str(result.for_model()).unwrap();
    assert_eq!(value["hits"].as_array().unwrap().len(), 3);
    assert_eq!(value["left_out"], 7, "ten matches, three returned");
    let regex_like = ws.call("search_files", json!({"query": "a.b"}));
    assert!(
        regex_like.for_model().contains("m0.rs"),
        "`.` matches only a dot: literal search"
    );
}

#[test]
fn edits_are_compare_and_swap_and_can_be_undone() {
    let ws = fixture("edit");
    let stale = ws.call(
        "edit_file",
        json!({"path": "src/lib.rs", "old_text": "a + b", "new_text": "a * b"}),
    );
    assert_eq!(kind(&stale), Some(ErrorKind::Conflict));
    assert!(stale.error().unwrap().message.contains("not found"));
    let ambiguous = ws.call(
        "edit_file",
        json!({"path": "src/lib.rs", "old_text": "i32", "new_text": "i64"}),
    );
    assert!(
        ambiguous
            .error()
            .unwrap()
            .message
            .contains("occurs 3 times")
    );
    assert_eq!(
        ws.read("src/lib.rs"),
        "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
        "refused edits change nothing"
    );
    let fixed = ws.call(
        "edit_file",
        json!({"path": "src/lib.rs", "old_text": "a - b", "new_text": "a + b"}),
    );
    assert!(!fixed.is_error(), "{}", fixed.for_model());
    assert!(ws.read("src/lib.rs").contains("a + b"));
    let undone = ws.call("undo_edit", json!({"path": "src/lib.rs"}));
    assert!(!undone.is_error());
    assert!(ws.read("src/lib.rs").contains("a - b"));
    let written = ws.call(
        "write_file",
        json!({"path": "docs/guide.md", "content": "hello"}),
    );
    assert!(!written.is_error());
    assert_eq!(ws.read("docs/guide.md"), "hello");
}

#[test]
fn commands_come_from_an_allow_list_and_are_classified_per_call() {
    let ws = fixture("commands");
    let ls = ws.call("run_command", json!({"command": "ls src"}));
    assert_eq!(ls.effect, Some(toolwright::Effect::ReadOnly));
    let output: serde_json::Value = serde_json::from_str(ls.for_model()).unwrap();
    assert_eq!(output["exit_code"], 0);
    assert!(output["stdout"].as_str().unwrap().contains("lib.rs"));
    assert!(
        std::fs::read_to_string(output["log"].as_str().unwrap())
            .unwrap()
            .contains("lib.rs"),
        "the full log is kept"
    );
    let unknown = ws.call("run_command", json!({"command": "curl http://example.org"}));
    assert_eq!(
        unknown.effect,
        Some(toolwright::Effect::External),
        "unknown commands are the riskiest class"
    );
    assert_eq!(kind(&unknown), Some(ErrorKind::Denied));
    assert!(
        unknown
            .error()
            .unwrap()
            .message
            .contains("not on the allow-list")
    );
    // Under the default policy, the riskiest class waits for a person before anything runs.
    let guarded = Registry::builder().with(RunCommand).build().unwrap();
    let call = ToolCall::new(
        "g",
        "run_command",
        json!({"command": "curl http://example.org"}),
    );
    let result = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(guarded.dispatch(&ws.ctx, call));
    assert_eq!(kind(&result), Some(ErrorKind::AwaitingApproval));
}

#[test]
fn secrets_in_the_environment_are_redacted_by_code() {
    let ws = fixture("env");
    assert_eq!(
        ws.call("read_env", json!({"key": "RUST_LOG"})).for_model(),
        "RUST_LOG = debug"
    );
    let key = ws.call("read_env", json!({"key": "OPENAI_API_KEY"}));
    assert_eq!(key.for_model(), "OPENAI_API_KEY = [REDACTED - set]");
    assert!(
        !format!("{:?}", key.outcome).contains("sk-live"),
        "the value never leaves the tool"
    );
    assert_eq!(
        ws.call("read_env", json!({"key": "db_password"}))
            .for_model(),
        "db_password = [REDACTED - set]"
    );
    assert_eq!(
        ws.call("read_env", json!({"key": "HOME_DIR"})).for_model(),
        "HOME_DIR is not set"
    );
    let bad = ws.call("read_env", json!({"key": "$(rm -rf /)"}));
    assert_eq!(kind(&bad), Some(ErrorKind::InvalidArguments));
}

#[test]
fn gpt_models_edit_with_apply_patch_and_the_others_with_edit_and_write() {
    let fixture = fixture("families");
    let names = |model: &str| -> Vec<String> {
        let ctx = Context::new().with(toolwright::Model::new(model));
        (fixture.registry)
            .definitions(&ctx, toolwright::Dialect::OpenAiResponses { strict: true })
            .unwrap()
            .iter()
            .map(|definition| definition["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let gpt = names("gpt-5.1-codex");
    let claude = names("claude-sonnet-4-5");
    assert!(gpt.contains(&"apply_patch".to_owned()), "{gpt:?}");
    assert!(!gpt.contains(&"edit_file".to_owned()) && !gpt.contains(&"write_file".to_owned()));
    assert!(claude.contains(&"edit_file".to_owned()) && claude.contains(&"write_file".to_owned()));
    assert!(!claude.contains(&"apply_patch".to_owned()), "{claude:?}");
    // Both keep the rest: reading, searching, undoing, running.
    for shared in ["read_file", "search_files", "undo_edit", "run_command"] {
        assert!(gpt.contains(&shared.to_owned()) && claude.contains(&shared.to_owned()));
    }

    // A GPT model's patch lands, and is undone like an edit.
    let gpt_ctx = Context::new()
        .with(toolwright::Model::new("gpt-5.1"))
        .with(Writes(Workspace::new(&fixture.dir).unwrap()));
    let run = |ctx: &Context, name: &str, arguments: serde_json::Value| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(
                fixture
                    .registry
                    .dispatch(ctx, ToolCall::new("c", name, arguments)),
            )
    };
    let patch = "*** Begin Patch\n*** Update File: src/lib.rs\n@@\n pub fn add(a: i32, b: i32) -> i32 {\n-    a - b\n+    a + b\n }\n*** End Patch";
    let patched = run(&gpt_ctx, "apply_patch", json!({ "patch": patch }));
    assert!(!patched.is_error(), "{}", patched.for_model());
    let lib = std::fs::read_to_string(fixture.dir.join("src/lib.rs")).unwrap();
    assert!(lib.contains("a + b"), "{lib}");
    // The same model may not use the other family's tools.
    let refused = run(
        &gpt_ctx,
        "write_file",
        json!({"path": "x.rs", "content": "fn main() {}"}),
    );
    assert_eq!(kind(&refused), Some(ErrorKind::UnknownTool));
    assert!(!fixture.dir.join("x.rs").exists());
    let undone = run(&gpt_ctx, "undo_edit", json!({"path": "src/lib.rs"}));
    assert!(!undone.is_error(), "{}", undone.for_model());
    let lib = std::fs::read_to_string(fixture.dir.join("src/lib.rs")).unwrap();
    assert!(lib.contains("a - b"), "{lib}");
}
