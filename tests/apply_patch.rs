//! `apply_patch` (examples/tools/coding/patch.rs): V4A patches applied inside the
//! workspace: added, updated, deleted and moved files; a hunk that does not fit refused
//! with the file's nearest lines and nothing written; paths that climb out refused; every
//! change undone by `undo_edit`.

use crate::tools::coding::{ApplyPatch, UndoEdit, Workspace};

use serde_json::json;
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

const LIB: &str = "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\npub fn sub(a: i32, b: i32) -> i32 {\n    a - b\n}\n";

fn fixture(name: &str) -> Fixture {
    let dir = std::env::temp_dir().join(format!("toolwright-patch-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/lib.rs"), LIB).unwrap();
    std::fs::write(dir.join("old.txt"), "bye\n").unwrap();
    let registry = Registry::builder()
        .with(ApplyPatch)
        .with(UndoEdit)
        .defaults(ToolSettings::new().policy(AllowAll))
        .build()
        .unwrap();
    let ctx = Context::new().with(Writes(Workspace::new(&dir).unwrap()));
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

    fn patch(&self, patch: &str) -> ToolResult {
        self.call("apply_patch", json!({ "patch": patch }))
    }

    fn read(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(self.dir.join(path)).ok()
    }
}

/// A patch with every kind of change: an update placed by its anchor, an added file, a
/// deleted one, and a moved and updated one.
const EVERY_KIND: &str = "*** Begin Patch
*** Update File: src/lib.rs
@@ pub fn add(a: i32, b: i32) -> i32 {
-    a - b
+    a + b
*** Add File: docs/notes.md
+# Notes
+adding works
*** Delete File: old.txt
*** Update File: README.md
*** Move to: docs/README.md
@@
 # demo
-add numbers
+add and subtract numbers
*** End Patch";

#[test]
fn a_patch_adds_updates_deletes_and_moves_and_each_change_is_undone() {
    let ws = fixture("all");
    let result = ws.patch(EVERY_KIND);
    // README.md does not exist: the whole patch is refused, nothing written.
    assert_eq!(result.error().map(|e| e.kind), Some(ErrorKind::NotFound));
    assert_eq!(ws.read("src/lib.rs").as_deref(), Some(LIB));
    assert!(ws.read("docs/notes.md").is_none() && ws.read("old.txt").is_some());

    std::fs::write(ws.dir.join("README.md"), "# demo\nadd numbers\n").unwrap();
    let result = ws.patch(EVERY_KIND);
    assert!(!result.is_error(), "{}", result.for_model());
    assert_eq!(
        result.for_model(),
        "Applied the patch: updated src/lib.rs, added docs/notes.md, deleted old.txt, moved README.md to docs/README.md."
    );
    assert_eq!(
        ws.read("src/lib.rs").unwrap(),
        LIB.replacen("a - b", "a + b", 1),
        "the anchor picked add, not sub"
    );
    assert_eq!(ws.read("docs/notes.md").unwrap(), "# Notes\nadding works\n");
    assert!(ws.read("old.txt").is_none() && ws.read("README.md").is_none());
    assert_eq!(
        ws.read("docs/README.md").unwrap(),
        "# demo\nadd and subtract numbers\n"
    );

    for path in [
        "src/lib.rs",
        "docs/notes.md",
        "old.txt",
        "README.md",
        "docs/README.md",
    ] {
        let undone = ws.call("undo_edit", json!({ "path": path }));
        assert!(!undone.is_error(), "{path}: {}", undone.for_model());
    }
    assert_eq!(ws.read("src/lib.rs").as_deref(), Some(LIB));
    assert!(
        ws.read("docs/notes.md").is_none(),
        "an added file is removed"
    );
    assert_eq!(ws.read("old.txt").as_deref(), Some("bye\n"));
    assert_eq!(
        ws.read("README.md").as_deref(),
        Some("# demo\nadd numbers\n")
    );
    assert!(ws.read("docs/README.md").is_none());
}

#[test]
fn a_hunk_that_does_not_fit_is_refused_with_the_nearest_lines() {
    let ws = fixture("mismatch");
    let result = ws.patch(
        "*** Begin Patch
*** Update File: src/lib.rs
@@ pub fn add(a: i32, b: i32) -> i32 {
-    a * b
+    a + b
*** End Patch",
    );
    let error = result.error().expect("refused");
    assert_eq!(error.kind, ErrorKind::Conflict);
    assert!(
        error.message.contains("hunk 1")
            && error.message.contains("nearest line is 2:\n     a - b")
            && error.message.contains("nothing was written"),
        "{}",
        error.message
    );
    // Without an anchor, lines found twice are ambiguous.
    let result = ws.patch(
        "*** Begin Patch
*** Update File: src/lib.rs
@@
-    a - b
+    a + b
*** End Patch",
    );
    assert!(
        result.error().unwrap().message.contains("more than once"),
        "{}",
        result.for_model()
    );
    assert_eq!(ws.read("src/lib.rs").as_deref(), Some(LIB));
}

#[test]
fn paths_that_climb_out_and_malformed_patches_are_refused() {
    let ws = fixture("escape");
    for path in ["../outside.txt", "/etc/passwd", "src/../../x"] {
        let result = ws.patch(&format!(
            "*** Begin Patch\n*** Add File: {path}\n+x\n*** End Patch"
        ));
        assert_eq!(
            result.error().map(|e| e.kind),
            Some(ErrorKind::Denied),
            "{path}: {}",
            result.for_model()
        );
    }
    let result = ws.patch("--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-a\n+b");
    let error = result.error().unwrap();
    assert_eq!(error.kind, ErrorKind::InvalidArguments);
    assert!(
        error.message.contains("*** Begin Patch"),
        "{}",
        error.message
    );
    let result = ws.patch("*** Begin Patch\n*** Add File: src/lib.rs\n+x\n*** End Patch");
    assert_eq!(result.error().map(|e| e.kind), Some(ErrorKind::Conflict));
    assert_eq!(ws.read("src/lib.rs").as_deref(), Some(LIB));
}
