//! The documentation's lists stay true to the code: the README's feature table names every
//! cargo feature of the facade, the crate's front page links every guide and reference
//! module, the README shows no rustdoc-hidden lines (GitHub would show them as code), and
//! ARCHITECTURE.md names every core file and no file that is gone.

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

/// Every file of `tool-core/src` in the layout of ARCHITECTURE.md, under its top-level
/// module's entry (a file of its own or a `mod.rs` is named by its module), and every
/// `.rs` file the document names is one that exists: a moved file fails here, not in a
/// reader's search.
#[test]
fn architecture_names_every_core_file_and_only_files_that_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let core = root.join("tool-core/src");
    let document = read("ARCHITECTURE.md");
    // The layout's entries under `tool-core/src/`: an entry starts at a line indented by
    // two spaces and runs to the next; `None` keys the entries of top-level files.
    let layout = document
        .split("\ntool-core/src/")
        .nth(1)
        .and_then(|rest| rest.split("\nbenches/").next())
        .expect("ARCHITECTURE.md lays out tool-core/src/ before benches/");
    let mut entries: Vec<(Option<String>, String)> = Vec::new();
    for line in layout.lines().skip(1) {
        let starts_entry = line.starts_with("  ") && !line.starts_with("   ");
        if starts_entry {
            let first = line.split_whitespace().next().unwrap_or_default();
            let module = first.strip_suffix('/').map(str::to_owned);
            entries.push((module, String::new()));
        }
        if let Some((_, text)) = entries.last_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    let entry = |module: Option<&str>| -> String {
        entries
            .iter()
            .filter(|(name, _)| name.as_deref() == module)
            .map(|(_, text)| text.as_str())
            .collect()
    };
    let mut files = Vec::new();
    let mut stack = vec![core.clone()];
    while let Some(dir) = stack.pop() {
        for item in std::fs::read_dir(&dir).expect("tool-core/src reads") {
            let path = item.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path.strip_prefix(&core).expect("under src").to_path_buf());
            }
        }
    }
    files.sort();
    let mut unnamed = Vec::new();
    for file in &files {
        let parts: Vec<String> = file
            .iter()
            .map(|part| part.to_string_lossy().into_owned())
            .collect();
        let name = parts.last().expect("a file name").as_str();
        let named = match &parts[..] {
            [only] => [None, Some(only.trim_end_matches(".rs"))]
                .into_iter()
                .any(|module| mentions(&entry(module), only)),
            [top, .., _] => {
                let text = entry(Some(top));
                !text.is_empty() && (name == "mod.rs" || mentions(&text, name))
            }
            [] => true,
        };
        if !named {
            unnamed.push(file.display().to_string());
        }
    }
    assert!(
        unnamed.is_empty(),
        "tool-core/src files ARCHITECTURE.md does not name under their module's entry: {unnamed:?}"
    );
    // Every `.rs` the document names exists: a path from the repository, tool-core/src or
    // tool-macros/src; a bare name somewhere under the module whose entry names it.
    let mut missing = Vec::new();
    let exists_under = |dir: &Path, name: &str| -> bool {
        let mut stack = vec![dir.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let Ok(items) = std::fs::read_dir(&dir) else {
                continue;
            };
            for item in items.flatten() {
                let path = item.path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.ends_with(name) {
                    return true;
                }
            }
        }
        false
    };
    for (module, text) in &entries {
        let base = module
            .as_deref()
            .map_or(core.clone(), |module| core.join(module));
        for name in rust_files(text) {
            if !exists_under(&base, &name) {
                missing.push(format!("{name} (in the entry of {})", base.display()));
            }
        }
    }
    for name in rust_files(&document) {
        let found = [root, &core, &root.join("tool-macros/src")]
            .iter()
            .any(|base| base.join(&name).is_file())
            || (!name.contains('/') && exists_under(root, &name));
        if !found {
            missing.push(name);
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names files that do not exist: {missing:?}"
    );
}

/// Whether `text` names `file` as a word (`run.rs` is not named by `rerun.rs`).
fn mentions(text: &str, file: &str) -> bool {
    text.match_indices(file).any(|(at, _)| {
        !text[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The `.rs` file names and paths in `text`.
fn rust_files(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for word in text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '/' | '.' | '-'))) {
        let word = word.trim_end_matches('.');
        if word.ends_with(".rs") && word.len() > 3 {
            found.push(word.to_owned());
        }
    }
    found
}

/// The quickstart's `[dependencies]` (README and `guide::getting_started`) name toolwright
/// by a path to a checkout, not a URL nobody can fetch yet, and resolve: a crate made of
/// that block, its path pointed at this checkout, gets a lock file (offline, from the
/// registry index the build already fetched).
#[test]
fn the_quickstart_dependencies_resolve_against_a_checkout() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for file in ["README.md", "src/guide/getting_started.md"] {
        let text = read(file);
        let block = text
            .split("```toml\n")
            .nth(1)
            .and_then(|rest| rest.split("```").next())
            .unwrap_or_else(|| panic!("{file} shows the dependencies as a toml block"));
        let line = block
            .lines()
            .find(|line| line.starts_with("toolwright = "))
            .unwrap_or_else(|| panic!("{file}: no toolwright line in {block}"));
        assert!(
            line.contains(r#"path = "../toolwright""#) && !line.contains("git ="),
            "{file}: until it is published, toolwright is a path dependency: {line}"
        );
        let crate_dir = std::env::temp_dir().join(format!(
            "toolwright-quickstart-{}-{}",
            std::process::id(),
            file.replace(['/', '.'], "-")
        ));
        std::fs::create_dir_all(crate_dir.join("src")).unwrap();
        std::fs::write(crate_dir.join("src/main.rs"), "fn main() {}\n").unwrap();
        let block = block.replace(
            r#"path = "../toolwright""#,
            &format!("path = {:?}", root.display().to_string()),
        );
        std::fs::write(
            crate_dir.join("Cargo.toml"),
            format!(
                "[package]\nname = \"quickstart\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n{block}\n[workspace]\n"
            ),
        )
        .unwrap();
        let output = std::process::Command::new(env!("CARGO"))
            .args(["generate-lockfile", "--offline", "--manifest-path"])
            .arg(crate_dir.join("Cargo.toml"))
            .output()
            .expect("cargo runs");
        let lock = std::fs::read_to_string(crate_dir.join("Cargo.lock")).unwrap_or_default();
        let _ = std::fs::remove_dir_all(&crate_dir);
        assert!(
            output.status.success(),
            "{file}: the quickstart's dependencies do not resolve: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        // A path dependency is locked without a `source`; one from git or crates.io has one.
        let toolwright = lock
            .split("[[package]]")
            .find(|package| package.contains("name = \"toolwright\"\n"))
            .unwrap_or_else(|| panic!("{file}: toolwright is not in the lock file:\n{lock}"));
        assert!(
            !toolwright.contains("source = "),
            "{file}: toolwright comes from elsewhere than the checkout: {toolwright}"
        );
    }
}
