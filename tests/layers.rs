//! The layers of toolwright-core point down. Read from the source with `syn`: every
//! `crate::...` and `super::...` path a file names (in `use` lines and in code, tests
//! and doc comments aside) is an edge from the file's module to the module it names.
//!
//! Two rules, each failing with the edges that break it:
//! - a top-level module names only modules of lower layers ([`LAYERS`], the one place
//!   the allowed directions are written);
//! - no files form a cycle (a module's `mod.rs` is its namespace: its children may name
//!   it, and it them).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::{Item, UseTree};

/// The top-level modules of toolwright-core, bottom first. A module may name modules of
/// the layers below its own, and no other.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "vocabulary",
        &[
            "capability",
            "cfg",
            "context",
            "effect",
            "error",
            "event",
            "model",
            "similarity",
            "timer",
        ],
    ),
    (
        "values",
        &["content", "feedback", "output", "spec", "store", "validate"],
    ),
    ("the schema model and the tool trait", &["schema", "tool"]),
    (
        "what surrounds a tool",
        &[
            "dialect",
            "idempotency",
            "observation",
            "otel",
            "policy",
            "stubs",
        ],
    ),
    ("approval tickets", &["approval"]),
    ("the wire: calls and results", &["call"]),
    (
        "reading and writing the wire",
        &["arguments", "history", "provider", "telemetry"],
    ),
    ("what generated code calls", &["private"]),
    ("judging what a model reads", &["lint"]),
    ("search", &["search"]),
    ("the registry: tools and settings", &["registry"]),
    (
        "what plugs into the registry: its search and deferred loading, the final result",
        &["final_result", "tool_search"],
    ),
    ("the call pipeline", &["dispatch"]),
    ("calls read while they are written", &["partial"]),
    ("measuring which tool a request picks", &["eval"]),
    ("calls that outlive their request", &["task"]),
    ("runs on a durable engine", &["restate"]),
    (
        "what runs calls itself: programs, servers, other servers' tools",
        &["code", "mcp", "mcp_client"],
    ),
    ("inside other agent frameworks", &["frameworks"]),
];

fn source_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tool-core/src")
}

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The module a file defines: `dispatch/gate.rs` is `["dispatch", "gate"]`, a `mod.rs`
/// its directory's, `lib.rs` the root (`[]`).
fn module_of(root: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(root).unwrap().with_extension("");
    let mut path: Vec<String> = relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(path.last().map(String::as_str), Some("mod" | "lib")) {
        path.pop();
    }
    path
}

/// Whether an item is compiled only for tests.
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .meta
                .require_list()
                .is_ok_and(|list| list.tokens.to_string() == "test")
    })
}

/// The paths a `use` tree names, each as its segments (`crate::{a, b::c}` gives
/// `crate::a` and `crate::b::c`).
fn use_paths(tree: &UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            use_paths(&path.tree, prefix, out);
            prefix.pop();
        }
        UseTree::Name(name) => {
            let mut path = prefix.clone();
            path.push(name.ident.to_string());
            out.push(path);
        }
        UseTree::Rename(rename) => {
            let mut path = prefix.clone();
            path.push(rename.ident.to_string());
            out.push(path);
        }
        UseTree::Glob(_) => out.push(prefix.clone()),
        UseTree::Group(group) => group
            .items
            .iter()
            .for_each(|tree| use_paths(tree, prefix, out)),
    }
}

/// The `crate::a::b` and `super::a` paths written in code: a run of identifiers joined
/// by `::`, starting at `crate` or `super`. Doc comments are literals, never scanned.
fn code_paths(tokens: TokenStream, out: &mut Vec<Vec<String>>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut index = 0;
    while index < tokens.len() {
        match &tokens[index] {
            TokenTree::Group(group) => code_paths(group.stream(), out),
            TokenTree::Ident(ident) if ident == "crate" || ident == "super" => {
                let mut path = vec![ident.to_string()];
                let mut next = index + 1;
                while let (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) =
                    (tokens.get(next), tokens.get(next + 1))
                {
                    if a.as_char() != ':' || b.as_char() != ':' {
                        break;
                    }
                    match tokens.get(next + 2) {
                        Some(TokenTree::Ident(segment)) => {
                            path.push(segment.to_string());
                            next += 3;
                        }
                        _ => break,
                    }
                }
                out.push(path);
                index = next;
                continue;
            }
            _ => {}
        }
        index += 1;
    }
}

/// What the items of one file name, tests aside.
fn named_paths(items: &[Item], out: &mut Vec<Vec<String>>) {
    for item in items {
        match item {
            Item::Use(item) => use_paths(&item.tree, &mut Vec::new(), out),
            Item::Mod(item) if test_only(&item.attrs) => {}
            Item::Fn(item) if test_only(&item.attrs) => {}
            Item::Impl(item) if test_only(&item.attrs) => {}
            Item::Mod(item) => {
                if let Some((_, items)) = &item.content {
                    named_paths(items, out);
                }
            }
            other => code_paths(other.to_token_stream(), out),
        }
    }
}

/// The import graph: each file's module, and the modules (files) it names.
fn graph() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let root = source_root();
    let mut paths = Vec::new();
    files(&root, &mut paths);
    let modules: BTreeSet<Vec<String>> = paths.iter().map(|file| module_of(&root, file)).collect();
    let mut edges = BTreeMap::new();
    for file in &paths {
        let module = module_of(&root, file);
        let text = std::fs::read_to_string(file).unwrap();
        let parsed = syn::parse_file(&text).unwrap_or_else(|error| {
            panic!("{} does not parse: {error}", file.display());
        });
        let mut named = Vec::new();
        named_paths(&parsed.items, &mut named);
        let mut targets = BTreeSet::new();
        for path in named {
            let mut absolute = match path[0].as_str() {
                "crate" => Vec::new(),
                _ => module.clone(),
            };
            for segment in &path {
                match segment.as_str() {
                    "crate" => {}
                    "super" => {
                        absolute.pop();
                    }
                    other => absolute.push(other.to_owned()),
                }
            }
            // The longest prefix that is a file: the module the path reaches into.
            while !absolute.is_empty() && !modules.contains(&absolute) {
                absolute.pop();
            }
            // The crate root and the module's own ancestors (its namespaces) are not
            // edges.
            if !absolute.is_empty() && !module.starts_with(&absolute) {
                targets.insert(absolute);
            }
        }
        edges.insert(module, targets);
    }
    edges
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&module))
}

#[test]
fn every_module_names_only_lower_layers() {
    let graph = graph();
    let mut unplaced = BTreeSet::new();
    let mut upward = Vec::new();
    for (from, targets) in &graph {
        let Some(top) = from.first() else { continue };
        let Some(own) = layer_of(top) else {
            unplaced.insert(top.clone());
            continue;
        };
        for to in targets {
            let other = &to[0];
            if other == top {
                continue;
            }
            match layer_of(other) {
                None => {
                    unplaced.insert(other.clone());
                }
                Some(layer) if layer >= own => upward.push(format!(
                    "{} ({}) names {} ({})",
                    from.join("::"),
                    LAYERS[own].0,
                    to.join("::"),
                    LAYERS[layer].0
                )),
                Some(_) => {}
            }
        }
    }
    assert!(
        unplaced.is_empty(),
        "modules in no layer: {unplaced:?}; add each to LAYERS in tests/layers.rs, above what it names"
    );
    assert!(
        upward.is_empty(),
        "a module names one of its own layer or a higher one; move the shared item down, or hand the lower module what it needs:\n  {}",
        upward.join("\n  ")
    );
}

#[test]
fn no_files_form_a_cycle() {
    let graph = graph();
    // Tarjan's strongly connected components.
    struct Walk<'g> {
        graph: &'g BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        index: BTreeMap<&'g [String], usize>,
        low: BTreeMap<&'g [String], usize>,
        stack: Vec<&'g [String]>,
        cycles: Vec<Vec<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, node: &'g [String]) {
            let number = self.index.len();
            self.index.insert(node, number);
            self.low.insert(node, number);
            self.stack.push(node);
            for next in self.graph.get(node).into_iter().flatten() {
                let next = next.as_slice();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.stack.contains(&next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut component = Vec::new();
                while let Some(member) = self.stack.pop() {
                    component.push(member.join("::"));
                    if member == node {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.cycles.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph: &graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        cycles: Vec::new(),
    };
    for node in graph.keys() {
        if !walk.index.contains_key(node.as_slice()) {
            walk.visit(node);
        }
    }
    assert!(
        graph.len() > 50,
        "the walk found only {} files",
        graph.len()
    );
    assert!(
        walk.cycles.is_empty(),
        "files that import each other, around a cycle: {:?}",
        walk.cycles
    );
}
