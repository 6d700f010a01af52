//! The crate documentation's frameworks guide, for this crate's doctests: its examples
//! are marked `ignore` there (the main package's doctests do not have the frameworks as
//! dependencies) and compiled here, where they are.

use std::path::Path;

fn main() {
    let guide_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src/guide/frameworks.md");
    println!("cargo::rerun-if-changed={}", guide_path.display());
    let guide = std::fs::read_to_string(&guide_path).expect("the frameworks guide is readable");
    let guide = guide.replace("```rust,ignore", "```rust");
    let examples = guide.matches("```rust\n").count();
    assert!(
        examples >= 4,
        "the frameworks guide has one example per framework (found {examples})"
    );
    let out =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("frameworks.md");
    std::fs::write(out, guide).expect("OUT_DIR is writable");
}
