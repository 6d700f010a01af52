//! The README's "In your framework" section, for this crate's doctests: its examples
//! are marked `ignore` there (the main package's doctests do not have the frameworks as
//! dependencies) and compiled here, where they are.

use std::path::Path;

fn main() {
    let readme_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    println!("cargo::rerun-if-changed={}", readme_path.display());
    let readme = std::fs::read_to_string(&readme_path).expect("the README is readable");
    let start = readme
        .find("\n## In your framework\n")
        .expect("the README has a section \"In your framework\"");
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |at| at + 4);
    let section = rest[..end].replace("```rust,ignore", "```rust");
    let examples = section.matches("```rust\n").count();
    assert!(
        examples >= 4,
        "the section \"In your framework\" has one example per framework (found {examples})"
    );
    let out =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("frameworks.md");
    std::fs::write(out, section).expect("OUT_DIR is writable");
}
