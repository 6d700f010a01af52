//! The tool catalog of `tests/fixtures/catalog/` (506 tools and 221 labelled queries,
//! written by `scripts/catalog-fixture`) as registered tools, and the textbook BM25 the
//! registry's search is compared with. Shared by `tests/tool_search.rs` (retrieval
//! quality) and `benches/search.rs` (latency).

#![allow(dead_code)] // each user takes a part

use std::collections::HashMap;

use serde_json::{Map, Value, json};
use toolwright::{
    Arguments, Context, Effect, Prepared, Registry, Tool, ToolError, ToolFuture, ToolOutput,
    ToolSpec,
};

/// A catalog tool: its contract only; a call answers with its name.
pub struct CatalogTool(ToolSpec);

impl Tool for CatalogTool {
    fn spec(&self) -> &ToolSpec {
        &self.0
    }

    fn prepare(&self, _: Arguments<'_>) -> Result<Prepared, ToolError> {
        Ok(Prepared::new(()))
    }

    fn run<'a>(&'a self, _: &'a Context, _: Prepared) -> ToolFuture<'a> {
        ToolFuture::ready(Ok(ToolOutput::Text(self.0.name.clone())))
    }
}

pub fn fixture(name: &str) -> Value {
    // The repository: this file is compiled into the root package (benches, tests) and
    // into the examples' package, one directory down.
    let package = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = if package.join("tests/fixtures").exists() {
        package.to_path_buf()
    } else {
        package.join("..")
    };
    let path = root.join("tests/fixtures/catalog").join(name);
    serde_json::from_str(&std::fs::read_to_string(&path).expect("the fixture is in the repository"))
        .expect("the fixture is JSON")
}

/// The catalog's tools as specs.
pub fn catalog() -> Vec<ToolSpec> {
    fixture("tools.json")
        .as_array()
        .unwrap()
        .iter()
        .map(spec_of)
        .collect()
}

/// A fixture's tool (`{name, description, arguments: {name: description}}`) as a spec:
/// each argument a string with its description.
pub fn spec_of(tool: &Value) -> ToolSpec {
    let properties: Map<String, Value> = tool["arguments"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(name, text)| (name.clone(), json!({"type": "string", "description": text})))
        .collect();
    ToolSpec::new(
        tool["name"].as_str().unwrap(),
        tool["description"].as_str().unwrap(),
        json!({"type": "object", "properties": properties, "additionalProperties": false}),
        Effect::ReadOnly,
    )
}

pub fn queries() -> Vec<(String, String)> {
    fixture("queries.json")
        .as_array()
        .unwrap()
        .iter()
        .map(|query| {
            (
                query["query"].as_str().unwrap().to_owned(),
                query["tool"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Textbook BM25 (k1 = 1.2, b = 0.75) over the descriptions alone, words lowercased and
/// split at anything that is not a letter or a digit: the baseline.
pub struct PlainBm25 {
    /// Each term's documents, with the term's count in each.
    postings: HashMap<String, Vec<(usize, f64)>>,
    lengths: Vec<f64>,
    average: f64,
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

impl PlainBm25 {
    pub fn new(descriptions: &[&str]) -> Self {
        let mut postings: HashMap<String, Vec<(usize, f64)>> = HashMap::new();
        let mut lengths = Vec::new();
        for (index, description) in descriptions.iter().enumerate() {
            let terms = words(description);
            lengths.push(terms.len() as f64);
            let mut counts: HashMap<String, f64> = HashMap::new();
            for term in terms {
                *counts.entry(term).or_default() += 1.0;
            }
            for (term, count) in counts {
                postings.entry(term).or_default().push((index, count));
            }
        }
        let average = lengths.iter().sum::<f64>() / lengths.len().max(1) as f64;
        Self {
            postings,
            lengths,
            average,
        }
    }

    pub fn rank(&self, query: &str, limit: usize) -> Vec<usize> {
        let mut terms = words(query);
        terms.sort();
        terms.dedup();
        let n = self.lengths.len() as f64;
        let mut scores: HashMap<usize, f64> = HashMap::new();
        for term in &terms {
            let Some(documents) = self.postings.get(term) else {
                continue;
            };
            let df = documents.len() as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for &(index, tf) in documents {
                let norm = 1.0 - 0.75 + 0.75 * self.lengths[index] / self.average;
                *scores.entry(index).or_default() += idf * tf * 2.2 / (tf + 1.2 * norm);
            }
        }
        let mut scored: Vec<(usize, f64)> = scores
            .into_iter()
            .filter(|(_, score)| *score > 0.0)
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored
            .into_iter()
            .take(limit)
            .map(|(index, _)| index)
            .collect()
    }
}

/// A registry of `specs`, each copied `copies` times (names suffixed `_2`, `_3`, ...).
pub fn registry_of(specs: &[ToolSpec], copies: usize) -> toolwright::RegistryBuilder {
    let mut registry = Registry::builder();
    for copy in 1..=copies {
        for spec in specs {
            let mut spec = spec.clone();
            if copy > 1 {
                spec.name = format!("{}_{copy}", spec.name);
            }
            registry = registry.with(CatalogTool(spec));
        }
    }
    registry
}
