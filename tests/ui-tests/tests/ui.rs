//! Compile-fail and compile-pass cases for `#[tool]`, `#[toolset]` and `#[derive(ToolSchema)]`
//! (trybuild). Each fail case has its `.stderr` beside it: the message a user reads.
//!
//! Compiler messages change between releases, so the `.stderr` files hold for one
//! compiler only. Re-bless with `TRYBUILD=overwrite cargo test -p toolwright-ui-tests` and review the
//! diff as a user would read it.

/// The compiler the committed `.stderr` files were made with.
const BLESSED_RUSTC: &str = "rustc 1.95.0";

fn check_compiler() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let output = std::process::Command::new(&rustc)
        .arg("--version")
        .output()
        .unwrap_or_else(|error| panic!("cannot run `{rustc} --version`: {error}"));
    let version = String::from_utf8_lossy(&output.stdout);
    assert!(
        version.starts_with(&format!("{BLESSED_RUSTC} ")),
        "the ui tests' .stderr files were made with {BLESSED_RUSTC}, and this compiler is {}. \
         Run them with {BLESSED_RUSTC}, or re-bless them with \
         `TRYBUILD=overwrite cargo test -p toolwright-ui-tests` and review every changed message.",
        version.trim()
    );
}

#[test]
fn ui() {
    check_compiler();
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/tool/fail/*.rs");
    cases.compile_fail("tests/ui/toolset/fail/*.rs");
    cases.compile_fail("tests/ui/derive/fail/*.rs");
    cases.pass("tests/ui/tool/pass/*.rs");
}
