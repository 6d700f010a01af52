//! The documentation's lists stay true to the code: the README's feature table names every
//! cargo feature of the facade, the crate's front page links every guide and reference
//! module, and the README shows no rustdoc-hidden lines (GitHub would show them as code).

use std::path::Path;

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .unwrap_or_else(|error| panic!("{path}: {error}"))
}

/// The facade's cargo features, from its manifest.
fn features() -> Vec<String> {
    let manifest = read("Cargo.toml");
    let section = manifest
        .split("\n[features]\n")
        .nth(1)
        .expect("the facade has features");
    let section = section.split("\n[").next().unwrap_or_default();
    section
        .lines()
        .filter_map(|line| line.split_once(" = ").map(|(name, _)| name.trim()))
        .filter(|name| !name.starts_with('#') && *name != "default")
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_readme_feature_table_names_every_feature() {
    let readme = read("README.md");
    let table: Vec<&str> = readme
        .lines()
        .skip_while(|line| !line.starts_with("| feature |"))
        .take_while(|line| line.starts_with('|'))
        .collect();
    let features = features();
    assert!(
        features.len() > 20,
        "the manifest's features are read: {features:?}"
    );
    for feature in features {
        let named = format!("`{feature}`");
        assert!(
            table.iter().any(|row| row
                .split('|')
                .nth(1)
                .is_some_and(|cell| cell.contains(&named))),
            "the README's feature table does not name {named}"
        );
    }
}

#[test]
fn the_front_page_links_every_guide_and_reference_module() {
    let front = read("src/lib.md");
    for dir in ["guide", "reference"] {
        let entries =
            std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(dir))
                .expect("the docs directory exists");
        for entry in entries {
            let name = entry.unwrap().path();
            let module = name.file_stem().unwrap().to_string_lossy().into_owned();
            let link = format!("[`{dir}::{module}`]");
            assert!(front.contains(&link), "src/lib.md does not link {link}");
        }
    }
}

#[test]
fn the_readme_has_no_hidden_lines() {
    let readme = read("README.md");
    let mut in_rust = false;
    for (number, line) in readme.lines().enumerate() {
        if line.starts_with("```") {
            in_rust = !in_rust && line.starts_with("```rust");
            continue;
        }
        assert!(
            !(in_rust && (line == "#" || line.starts_with("# "))),
            "README.md line {}: a rustdoc-hidden line shows as code on GitHub: {line}",
            number + 1
        );
    }
    assert!(readme.lines().count() <= 200, "the README stays short");
}
