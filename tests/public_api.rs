//! The public API, as one reviewed snapshot: every `pub` item of toolwright-core (outside
//! the doc-hidden `__private` kit that generated code calls) and every re-export of the
//! facade, one line each, with its signature. Any change to the surface, added, removed
//! or changed, shows up in review as a snapshot diff.
//!
//! Read from the source with `syn` (stable Rust has no `cargo public-api`): items are
//! listed by the module file that defines them, `pub` in a private module included (a
//! re-export can expose it), `#[cfg(feature = ...)]` shown beside the item.

use std::path::{Path, PathBuf};

use syn::{Attribute, ImplItem, Item, TraitItem, Visibility};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn is_pub(vis: &Visibility) -> bool {
    matches!(vis, Visibility::Public(_))
}

fn hidden(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("doc")
            && attr
                .meta
                .require_list()
                .is_ok_and(|list| list.tokens.to_string() == "hidden")
    }) || attrs
        .iter()
        .any(|attr| attr.path().is_ident("cfg") && quote_attr(attr) == "test")
}

/// The tokens inside an attribute's parentheses.
fn quote_attr(attr: &Attribute) -> String {
    attr.meta
        .require_list()
        .map(|list| list.tokens.to_string())
        .unwrap_or_default()
}

/// The feature gate of an item, if any: ` [cfg(feature = "mcp")]`.
fn gate(attrs: &[Attribute]) -> String {
    attrs
        .iter()
        .filter(|attr| attr.path().is_ident("cfg"))
        .map(|attr| format!(" [cfg({})]", quote_attr(attr)))
        .collect()
}

/// `item` printed on one line, without doc comments, attributes or bodies.
fn one_line(item: Item) -> String {
    let file = syn::File {
        shebang: None,
        attrs: vec![],
        items: vec![item],
    };
    let text = prettyplease::unparse(&file);
    let mut line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for (from, to) in [
        ("( ", "("),
        (" )", ")"),
        ("< ", "<"),
        (" >", ">"),
        (" ,", ","),
        ("{ }", "{}"),
    ] {
        line = line.replace(from, to);
    }
    line
}

/// Keeps only `#[derive(...)]` and `#[non_exhaustive]`: what a type implements and
/// whether it may grow are API; docs and serde's wire details are reviewed elsewhere
/// (the schema snapshots).
fn strip(attrs: &mut Vec<Attribute>) {
    attrs.retain(|attr| attr.path().is_ident("derive") || attr.path().is_ident("non_exhaustive"));
}

/// Whether a type of this name is declared `pub` anywhere in toolwright-core (outside
/// `__private` and `pub(crate)` modules).
fn public_type(name: &str) -> bool {
    static TYPES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    TYPES
        .get_or_init(|| {
            let mut lines = Vec::new();
            list_module_types(&Path::new(ROOT).join("tool-core/src/lib.rs"), &mut lines);
            lines
        })
        .iter()
        .any(|known| known == name)
}

fn list_module_types(file: &Path, out: &mut Vec<String>) {
    let source = std::fs::read_to_string(file).unwrap();
    let parsed = syn::parse_file(&source).unwrap();
    let dir: PathBuf = if file.ends_with("mod.rs") || file.ends_with("lib.rs") {
        file.parent().unwrap().to_path_buf()
    } else {
        file.with_extension("")
    };
    let mut items = parsed.items;
    while let Some(at) = items.iter().position(|item| cfg_macro(item).is_some()) {
        let (inner, _) = cfg_macro(&items[at]).expect("a cfg macro");
        items.splice(at..=at, inner);
    }
    for item in items {
        match item {
            Item::Mod(module)
                if module.content.is_none()
                    && !hidden(&module.attrs)
                    && !matches!(module.vis, Visibility::Restricted(_)) =>
            {
                let name = module.ident.to_string();
                let flat = dir.join(format!("{name}.rs"));
                let nested = dir.join(&name).join("mod.rs");
                list_module_types(if flat.exists() { &flat } else { &nested }, out);
            }
            Item::Struct(s) if is_pub(&s.vis) => out.push(s.ident.to_string()),
            Item::Enum(e) if is_pub(&e.vis) => out.push(e.ident.to_string()),
            Item::Trait(t) if is_pub(&t.vis) => out.push(t.ident.to_string()),
            Item::Type(t) if is_pub(&t.vis) => out.push(t.ident.to_string()),
            _ => {}
        }
    }
}

fn list_module(path: &str, file: &Path, out: &mut Vec<String>) {
    let source =
        std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let parsed = syn::parse_file(&source).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let dir: PathBuf = if file.ends_with("mod.rs") || file.ends_with("lib.rs") {
        file.parent().unwrap().to_path_buf()
    } else {
        file.with_extension("")
    };
    list_items(path, &dir, parsed.items, out);
}

/// Whether `use_item` re-exports from this crate: its path starts at `crate`, `self`,
/// `super` or one of the file's own modules (`own`).
fn reexports_own(use_item: &syn::ItemUse, own: &[String]) -> bool {
    let first = match &use_item.tree {
        syn::UseTree::Path(path) => path.ident.to_string(),
        syn::UseTree::Name(name) => name.ident.to_string(),
        syn::UseTree::Rename(rename) => rename.ident.to_string(),
        syn::UseTree::Glob(_) | syn::UseTree::Group(_) => return false,
    };
    matches!(first.as_str(), "crate" | "self" | "super") || own.contains(&first)
}

/// The items of a feature-combination macro (`cfg_frameworks! { ... }`, tool-core's
/// `cfg.rs`) and the gate it stands for, shown beside each: ` [cfg_frameworks!]`.
fn cfg_macro(item: &Item) -> Option<(Vec<Item>, String)> {
    let Item::Macro(invocation) = item else {
        return None;
    };
    let name = invocation.mac.path.segments.last()?.ident.to_string();
    if !name.starts_with("cfg_") {
        return None;
    }
    let file: syn::File = syn::parse2(invocation.mac.tokens.clone()).ok()?;
    Some((file.items, format!(" [{name}!]")))
}

fn list_items(path: &str, dir: &Path, items: Vec<Item>, out: &mut Vec<String>) {
    let own: Vec<String> = items
        .iter()
        .filter_map(|item| match item {
            Item::Mod(module) => Some(module.ident.to_string()),
            _ => None,
        })
        .collect();
    for item in items {
        if let Some((items, gate)) = cfg_macro(&item) {
            let mut gated = Vec::new();
            list_items(path, dir, items, &mut gated);
            out.extend(gated.into_iter().map(|line| line + &gate));
            continue;
        }
        match item {
            // A settings struct's builder methods, one per field (`setters!` in lib.rs).
            Item::Macro(invocation) if invocation.mac.path.is_ident("setters") => {
                let tokens = invocation.mac.tokens.to_string();
                let tokens = tokens.split_whitespace().collect::<Vec<_>>().join(" ");
                out.push(format!("{path}: setters!({tokens})"));
            }
            Item::Mod(module) => {
                // `pub(crate)` modules are internal; private ones may be re-exported.
                if hidden(&module.attrs) || matches!(module.vis, Visibility::Restricted(_)) {
                    continue;
                }
                let name = module.ident.to_string();
                let child = format!("{path}::{name}");
                match module.content {
                    Some((_, items)) => list_items(&child, &dir.join(&name), items, out),
                    None => {
                        let flat = dir.join(format!("{name}.rs"));
                        let nested = dir.join(&name).join("mod.rs");
                        let file = if flat.exists() { flat } else { nested };
                        list_module(&child, &file, out);
                    }
                }
            }
            Item::Impl(mut block) => {
                let self_type = match &*block.self_ty {
                    syn::Type::Path(path) => path.path.segments.last().map(|s| s.ident.to_string()),
                    _ => None,
                };
                // Impls of types that are not public (an adapter, a helper) are not API.
                if hidden(&block.attrs) || self_type.is_none_or(|name| !public_type(&name)) {
                    continue;
                }
                let impl_gate = gate(&block.attrs);
                let trait_impl = block.trait_.is_some();
                block.items.retain(|item| match item {
                    ImplItem::Fn(f) => trait_impl || (is_pub(&f.vis) && !hidden(&f.attrs)),
                    ImplItem::Const(c) => trait_impl || is_pub(&c.vis),
                    ImplItem::Type(_) => trait_impl,
                    _ => false,
                });
                if !trait_impl && block.items.is_empty() {
                    continue;
                }
                strip(&mut block.attrs);
                let header = {
                    let mut head = block.clone();
                    head.items.clear();
                    one_line(Item::Impl(head))
                };
                if trait_impl {
                    out.push(format!("{path}: {header}{impl_gate}"));
                    continue;
                }
                for inner in block.items {
                    if let ImplItem::Fn(mut f) = inner {
                        let fn_gate = gate(&f.attrs);
                        strip(&mut f.attrs);
                        let signature = signature(&f.vis, &f.sig);
                        out.push(format!(
                            "{path}: {header} :: {signature}{impl_gate}{fn_gate}"
                        ));
                    }
                }
            }
            // A re-export of this crate's own item is plumbing: the item is listed where
            // it is defined, and the facade's lines say what users reach. A re-export of
            // another crate is surface, and listed.
            Item::Use(use_item) if is_pub(&use_item.vis) && reexports_own(&use_item, &own) => {}
            Item::Use(mut use_item) if is_pub(&use_item.vis) => {
                let gate = gate(&use_item.attrs);
                strip(&mut use_item.attrs);
                out.push(format!("{path}: {}{gate}", one_line(Item::Use(use_item))));
            }
            other => {
                let (vis, attrs) = match &other {
                    Item::Fn(f) => (&f.vis, &f.attrs),
                    Item::Struct(s) => (&s.vis, &s.attrs),
                    Item::Enum(e) => (&e.vis, &e.attrs),
                    Item::Trait(t) => (&t.vis, &t.attrs),
                    Item::Type(t) => (&t.vis, &t.attrs),
                    Item::Const(c) => (&c.vis, &c.attrs),
                    Item::Static(s) => (&s.vis, &s.attrs),
                    _ => continue,
                };
                if !is_pub(vis) || hidden(attrs) {
                    continue;
                }
                let gate = gate(attrs);
                let line = match other {
                    Item::Fn(f) => signature(&f.vis, &f.sig),
                    Item::Struct(mut s) => {
                        strip(&mut s.attrs);
                        if let syn::Fields::Named(fields) = &mut s.fields {
                            let private = fields.named.iter().filter(|f| !is_pub(&f.vis)).count();
                            fields.named = fields
                                .named
                                .iter()
                                .filter(|f| is_pub(&f.vis))
                                .cloned()
                                .map(|mut f| {
                                    strip(&mut f.attrs);
                                    f
                                })
                                .collect();
                            let line = one_line(Item::Struct(s));
                            if private > 0 {
                                format!("{line} (+{private} private)")
                            } else {
                                line
                            }
                        } else if let syn::Fields::Unnamed(fields) = &s.fields
                            && fields.unnamed.iter().any(|f| !is_pub(&f.vis))
                        {
                            let private = fields.unnamed.len();
                            s.fields = syn::Fields::Unit;
                            let line = one_line(Item::Struct(s));
                            format!(
                                "{} (tuple of {private}, private)",
                                line.trim_end_matches(';')
                            )
                        } else {
                            one_line(Item::Struct(s))
                        }
                    }
                    Item::Enum(mut e) => {
                        strip(&mut e.attrs);
                        for variant in &mut e.variants {
                            strip(&mut variant.attrs);
                            for field in variant.fields.iter_mut() {
                                strip(&mut field.attrs);
                            }
                        }
                        one_line(Item::Enum(e))
                    }
                    Item::Trait(mut t) => {
                        strip(&mut t.attrs);
                        t.attrs.clear();
                        for inner in &mut t.items {
                            if let TraitItem::Fn(f) = inner {
                                strip(&mut f.attrs);
                                f.default = None;
                                f.semi_token = Some(Default::default());
                            }
                        }
                        one_line(Item::Trait(t))
                    }
                    Item::Const(mut c) => {
                        strip(&mut c.attrs);
                        one_line(Item::Const(c))
                    }
                    Item::Type(mut t) => {
                        strip(&mut t.attrs);
                        one_line(Item::Type(t))
                    }
                    Item::Static(mut s) => {
                        strip(&mut s.attrs);
                        one_line(Item::Static(s))
                    }
                    _ => continue,
                };
                out.push(format!("{path}: {line}{gate}"));
            }
        }
    }
}

/// `vis sig` on one line, without a body.
fn signature(vis: &Visibility, sig: &syn::Signature) -> String {
    let item = Item::Fn(syn::ItemFn {
        attrs: vec![],
        vis: vis.clone(),
        sig: sig.clone(),
        block: Box::new(syn::parse_quote!({})),
    });
    one_line(item).trim_end_matches("{}").trim_end().to_owned()
}

#[test]
fn the_public_api_is_one_reviewed_snapshot() {
    let mut lines = Vec::new();
    list_module(
        "toolwright_core",
        &Path::new(ROOT).join("tool-core/src/lib.rs"),
        &mut lines,
    );
    let facade =
        syn::parse_file(&std::fs::read_to_string(Path::new(ROOT).join("src/lib.rs")).unwrap())
            .unwrap();
    list_facade("toolwright", "", facade.items, &mut lines);
    insta::assert_snapshot!(lines.join("\n"));
}

/// The facade's re-exports, those of its modules (each lists its items) included.
fn list_facade(path: &str, outer_gate: &str, items: Vec<Item>, out: &mut Vec<String>) {
    for item in items {
        if let Some((items, gate)) = cfg_macro(&item) {
            list_facade(path, &format!("{outer_gate}{gate}"), items, out);
            continue;
        }
        match item {
            Item::Use(mut use_item) if is_pub(&use_item.vis) && !hidden(&use_item.attrs) => {
                let gate = gate(&use_item.attrs);
                strip(&mut use_item.attrs);
                out.push(format!(
                    "{path}: {}{outer_gate}{gate}",
                    one_line(Item::Use(use_item))
                ));
            }
            Item::Mod(module) if is_pub(&module.vis) && !hidden(&module.attrs) => {
                let gate = format!("{outer_gate}{}", gate(&module.attrs));
                if let Some((_, items)) = module.content {
                    list_facade(&format!("{path}::{}", module.ident), &gate, items, out);
                }
            }
            _ => {}
        }
    }
}
