//! The rules over the tools as one set: names and verbs that agree, purposes a model can
//! tell apart, and references to tools and arguments that exist.

use std::collections::{HashMap, HashSet};

use rustc_hash::FxHashMap;

use serde_json::Value;

use super::Out;
use super::view::View;
use super::vocabulary::*;

/// How alike two tools must read to be one tool to a model.
const INDISTINCT: f64 = 0.8;
/// How alike the nearest sibling must read for the description to owe a contrast.
const NEAR: f64 = 0.5;

/// The rules over the set.
pub(super) fn check(views: &[View<'_>], out: &mut Out) {
    verbs(views, out);
    styles(views, out);
    near_duplicate_names(views, out);
    duplicate_descriptions(views, out);
    siblings(views, out);
    for view in views {
        stale_references(view, views, out);
    }
}

fn verbs(views: &[View<'_>], out: &mut Out) {
    for group in SYNONYMS {
        let mut users: HashMap<&str, Vec<&str>> = HashMap::new();
        for view in views {
            if let Some(first) = view.name_words.first()
                && let Some(verb) = group.iter().find(|verb| **verb == first.as_str())
            {
                users.entry(verb).or_default().push(view.name);
            }
        }
        if users.len() < 2 {
            continue;
        }
        let (common, _) = users
            .iter()
            .max_by(|a, b| a.1.len().cmp(&b.1.len()).then(b.0.cmp(a.0)))
            .map(|(verb, tools)| (*verb, tools.len()))
            .unwrap_or_default();
        for (verb, tools) in &users {
            if *verb == common {
                continue;
            }
            for tool in tools {
                out.push(
                    "name-verbs-inconsistent",
                    tool,
                    None,
                    format!("its siblings say '{common}_' for this act ({} tool(s)); '{verb}_' makes a model wonder how they differ", users[common].len()),
                );
            }
        }
    }
}

/// The style of a name: snake, kebab or camel; `None` for one lower-case word.
fn style(name: &str) -> Option<&'static str> {
    if name.contains('-') {
        Some("kebab-case")
    } else if name.contains('_') {
        Some("snake_case")
    } else if name.chars().any(|c| c.is_ascii_uppercase()) {
        Some("camelCase")
    } else {
        None
    }
}

fn styles(views: &[View<'_>], out: &mut Out) {
    let mut by_style: HashMap<&str, Vec<&str>> = HashMap::new();
    for view in views {
        if let Some(style) = style(view.name) {
            by_style.entry(style).or_default().push(view.name);
        }
    }
    if by_style.len() < 2 {
        return;
    }
    let common = by_style
        .iter()
        .max_by(|a, b| a.1.len().cmp(&b.1.len()).then(b.0.cmp(a.0)))
        .map(|(style, _)| *style)
        .unwrap_or_default();
    for (style, tools) in &by_style {
        if *style == common {
            continue;
        }
        for tool in tools {
            out.push(
                "name-style-mixed",
                tool,
                None,
                format!("it is {style}, most tools here are {common}: name them alike"),
            );
        }
    }
}

fn near_duplicate_names(views: &[View<'_>], out: &mut Out) {
    let mut seen: HashMap<String, &str> = HashMap::new();
    for view in views {
        let mut key: String = view
            .name
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        if key.ends_with('s') {
            key.pop();
        }
        match seen.get(&key) {
            Some(first) if *first != view.name => out.push(
                "name-near-duplicate",
                first.min(&view.name),
                Some(format!("with '{}'", first.max(&view.name))),
                "the names differ only in case, separators or a plural: a model will mix them up; rename one for what sets it apart".into(),
            ),
            _ => {
                seen.insert(key, view.name);
            }
        }
    }
}

fn duplicate_descriptions(views: &[View<'_>], out: &mut Out) {
    let mut seen: HashMap<String, &str> = HashMap::new();
    for view in views {
        let key = view.normal.text().to_owned();
        if key.split(' ').count() < 3 {
            continue;
        }
        match seen.get(&key) {
            Some(first) => out.push(
                "description-duplicate",
                first.min(&view.name),
                Some(format!("with '{}'", first.max(&view.name))),
                "two tools say the same: say what each does that the other does not".into(),
            ),
            None => {
                seen.insert(key, view.name);
            }
        }
    }
}

/// Each tool's words weighted by how rare they are among the tools (TF-IDF), unit
/// length.
fn vectors<'a>(views: &'a [View<'_>]) -> Vec<FxHashMap<&'a str, f64>> {
    let mut frequency: FxHashMap<&str, usize> = FxHashMap::default();
    for view in views {
        let distinct: HashSet<&str> = view.stems.iter().map(String::as_str).collect();
        for stem in distinct {
            *frequency.entry(stem).or_default() += 1;
        }
    }
    let count = views.len() as f64;
    views
        .iter()
        .map(|view| {
            let mut vector: FxHashMap<&str, f64> = FxHashMap::default();
            for stem in &view.stems {
                let idf = (1.0 + count / frequency[stem.as_str()] as f64).ln();
                *vector.entry(stem.as_str()).or_default() += idf;
            }
            let norm = vector
                .values()
                .map(|weight| weight * weight)
                .sum::<f64>()
                .sqrt();
            if norm > 0.0 {
                vector.values_mut().for_each(|weight| *weight /= norm);
            }
            vector
        })
        .collect()
}

/// The tools a word is in, with its weight in each.
type Postings = [(usize, f64)];

fn siblings(views: &[View<'_>], out: &mut Out) {
    if views.len() < 2 {
        return;
    }
    let vectors = vectors(views);
    // Each word's tools, for the dot products; a word many tools share tells none apart
    // and is left out of the sums (not of the lengths).
    let common = (views.len() / 50).max(8);
    let mut postings: FxHashMap<&str, Vec<(usize, f64)>> = FxHashMap::default();
    for (index, vector) in vectors.iter().enumerate() {
        for (stem, weight) in vector {
            postings.entry(stem).or_default().push((index, *weight));
        }
    }
    postings.retain(|_, list| list.len() <= common);
    // Each tool's words as their posting lists, looked up once.
    let lists: Vec<Vec<(f64, &Postings)>> = vectors
        .iter()
        .map(|vector| {
            vector
                .iter()
                .filter_map(|(stem, weight)| Some((*weight, postings.get(stem)?.as_slice())))
                .collect()
        })
        .collect();
    let mut scores = vec![0.0f64; views.len()];
    let mut touched = Vec::new();
    for (index, view) in views.iter().enumerate() {
        for (weight, list) in &lists[index] {
            for &(other, other_weight) in *list {
                if other != index {
                    if scores[other] == 0.0 {
                        touched.push(other);
                    }
                    scores[other] += weight * other_weight;
                }
            }
        }
        let best = touched
            .iter()
            .map(|&other| (other, scores[other]))
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
        for other in touched.drain(..) {
            scores[other] = 0.0;
        }
        let Some((nearest, score)) = best else {
            continue;
        };
        let other = &views[nearest];
        if score >= INDISTINCT && view.name < other.name {
            let shared: Vec<&str> = {
                let mut shared: Vec<&str> = vectors[index]
                    .keys()
                    .filter(|stem| vectors[nearest].contains_key(*stem))
                    .copied()
                    .collect();
                shared.sort_unstable();
                shared.truncate(8);
                shared
            };
            out.push(
                "siblings-indistinct",
                view.name,
                Some(format!("with '{}'", other.name)),
                format!(
                    "they read {:.0}% alike (shared: {}): say what sets each apart, or merge them",
                    score * 100.0,
                    shared.join(", ")
                ),
            );
        }
        let contrasts = view.description.contains(other.name)
            || view.normal.says(&[
                "instead",
                "unlike",
                "rather than",
                "not for",
                "differs",
                "different from",
                "as opposed to",
                "whereas",
                "only for",
                "prefer",
            ]);
        if score >= NEAR && view.english && !contrasts {
            out.push(
                "usage-sibling-contrast-missing",
                view.name,
                Some(format!("nearest '{}'", other.name)),
                format!("'{}' reads {:.0}% alike: say when to use this one instead ('Use this for X; for Y use {}')", other.name, score * 100.0, other.name),
            );
        }
    }
}

/// Every name `view`'s schema knows: property names at any depth, and enum values.
fn known_names(schema: &Value, out: &mut HashSet<String>) {
    match schema {
        Value::Object(fields) => {
            if let Some(Value::Object(properties)) = fields.get("properties") {
                out.extend(properties.keys().cloned());
            }
            if let Some(Value::Array(values)) = fields.get("enum") {
                out.extend(values.iter().filter_map(Value::as_str).map(str::to_owned));
            }
            fields.values().for_each(|value| known_names(value, out));
        }
        Value::Array(items) => items.iter().for_each(|item| known_names(item, out)),
        _ => {}
    }
}

fn stale_references(view: &View<'_>, views: &[View<'_>], out: &mut Out) {
    if !view.description.contains('`') {
        return;
    }
    let mut known = HashSet::new();
    known_names(&view.spec.input_schema, &mut known);
    if let Some(output) = &view.spec.output_schema {
        known_names(output, &mut known);
    }
    let mut parts = view.description.split('`');
    parts.next();
    while let (Some(inside), _) = (parts.next(), parts.next()) {
        let identifier = !inside.is_empty()
            && inside.len() <= 48
            && inside
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
            && inside.chars().any(|c| c.is_ascii_lowercase())
            && (inside.contains('_') || inside.chars().skip(1).any(|c| c.is_ascii_uppercase()));
        if identifier
            && !known.contains(inside)
            && inside != view.name
            && !views.iter().any(|other| other.name == inside)
        {
            out.push(
                "description-stale-reference",
                view.name,
                None,
                format!("`{inside}` is neither an argument nor a tool here: rename it to what exists, or remove it"),
            );
        }
    }
}
