//! The search index: BM25F over each tool's fields (name, title, description, the
//! arguments' names and descriptions, their examples), each field with its own weight and
//! length normalisation. Every term's score in every tool is computed once, when the
//! index is built, so a query only adds up the postings of its terms.

use rustc_hash::FxHashMap;
use serde_json::Value;

use super::tokens::Tokenizer;
use crate::spec::ToolSpec;

/// BM25's saturation: how fast repeats of a term stop adding to the score.
const K1: f32 = 1.2;

/// A field of a tool, its weight, and how much its length is normalised (BM25's `b`).
struct Field {
    weight: f32,
    b: f32,
}

/// Name, title, description, arguments, examples.
const FIELDS: [Field; 5] = [
    Field {
        weight: 3.0,
        b: 0.3,
    },
    Field {
        weight: 2.0,
        b: 0.3,
    },
    Field {
        weight: 1.0,
        b: 0.75,
    },
    Field {
        weight: 0.6,
        b: 0.75,
    },
    Field {
        weight: 0.3,
        b: 0.75,
    },
];

/// The terms of one tool, field by field.
type Document = [Vec<String>; 5];

/// Term → the tools it is in, each with the term's whole score there.
pub(crate) struct SearchIndex {
    postings: FxHashMap<String, Vec<(u32, f32)>>,
    tokenizer: Tokenizer,
}

impl SearchIndex {
    /// Indexes `specs`, numbered in order.
    pub(crate) fn build<'a>(specs: impl Iterator<Item = &'a ToolSpec>) -> Self {
        let tokenizer = Tokenizer::default();
        let documents: Vec<Document> = specs.map(|spec| document(&tokenizer, spec)).collect();
        let tools = documents.len();
        let mut average = [0.0_f32; 5];
        for document in &documents {
            for (sum, terms) in average.iter_mut().zip(document) {
                *sum += terms.len() as f32;
            }
        }
        for sum in &mut average {
            *sum = (*sum / tools.max(1) as f32).max(1.0);
        }
        // The weighted, length-normalised frequency of each term in each tool.
        let mut frequencies: FxHashMap<String, Vec<(u32, f32)>> = FxHashMap::default();
        let mut in_tool: FxHashMap<&str, f32> = FxHashMap::default();
        for (index, document) in documents.iter().enumerate() {
            in_tool.clear();
            for ((terms, field), average) in document.iter().zip(&FIELDS).zip(average) {
                let norm = 1.0 - field.b + field.b * terms.len() as f32 / average;
                for term in terms {
                    *in_tool.entry(term).or_default() += field.weight / norm;
                }
            }
            for (term, frequency) in &in_tool {
                frequencies
                    .entry((*term).to_owned())
                    .or_default()
                    .push((index as u32, *frequency));
            }
        }
        let n = tools as f32;
        let postings = frequencies
            .into_iter()
            .map(|(term, mut list)| {
                let df = list.len() as f32;
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                for (_, score) in &mut list {
                    *score = idf * *score / (K1 + *score);
                }
                (term, list)
            })
            .collect();
        Self {
            postings,
            tokenizer,
        }
    }

    /// The best `limit` tools for `query` among those `admit` lets through: `(index,
    /// score)`, best first, ties in registration order. Tools sharing no term with the
    /// query are not returned.
    pub(crate) fn search(
        &self,
        query: &str,
        limit: usize,
        admit: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        let mut terms = Vec::new();
        self.tokenizer.terms(query, &mut terms);
        terms.sort_unstable();
        terms.dedup();
        let mut scores: FxHashMap<u32, f32> = FxHashMap::default();
        for term in &terms {
            for &(tool, score) in self.postings.get(term).into_iter().flatten() {
                *scores.entry(tool).or_default() += score;
            }
        }
        let mut ranked: Vec<(usize, f32)> = scores
            .into_iter()
            .map(|(tool, score)| (tool as usize, score))
            .filter(|&(tool, _)| admit(tool))
            .collect();
        best_first(&mut ranked, limit);
        ranked
    }
}

/// Keeps the `limit` best of `ranked` (`(tool, score)`), sorted best first, ties in
/// registration order.
pub(crate) fn best_first(ranked: &mut Vec<(usize, f32)>, limit: usize) {
    let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if ranked.len() > limit && limit > 0 {
        ranked.select_nth_unstable_by(limit - 1, order);
    }
    ranked.truncate(limit);
    ranked.sort_unstable_by(order);
}

/// A tool's terms, field by field.
fn document(tokenizer: &Tokenizer, spec: &ToolSpec) -> Document {
    let mut document: Document = Default::default();
    tokenizer.terms(&spec.name, &mut document[0]);
    if let Some(title) = &spec.title {
        tokenizer.terms(title, &mut document[1]);
    }
    tokenizer.terms(&spec.description, &mut document[2]);
    let (arguments, examples) = document.split_at_mut(4);
    schema_text(
        tokenizer,
        &spec.input_schema,
        &mut arguments[3],
        &mut examples[0],
    );
    document
}

/// The names, descriptions and enum values in a schema (its arguments), and the
/// examples it gives.
fn schema_text(
    tokenizer: &Tokenizer,
    schema: &Value,
    arguments: &mut Vec<String>,
    examples: &mut Vec<String>,
) {
    match schema {
        Value::Object(object) => {
            for (key, value) in object {
                match (key.as_str(), value) {
                    ("properties", Value::Object(properties)) => {
                        for (name, property) in properties {
                            tokenizer.terms(name, arguments);
                            schema_text(tokenizer, property, arguments, examples);
                        }
                    }
                    ("description", Value::String(text)) => tokenizer.terms(text, arguments),
                    ("enum", Value::Array(values)) | ("const", Value::Array(values)) => {
                        for value in values.iter().filter_map(Value::as_str) {
                            tokenizer.terms(value, arguments);
                        }
                    }
                    ("examples", Value::Array(values)) => {
                        for value in values {
                            strings(tokenizer, value, examples);
                        }
                    }
                    _ => schema_text(tokenizer, value, arguments, examples),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                schema_text(tokenizer, item, arguments, examples);
            }
        }
        _ => {}
    }
}

/// Every string inside an example value.
fn strings(tokenizer: &Tokenizer, value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(text) => tokenizer.terms(text, out),
        Value::Array(items) => items.iter().for_each(|item| strings(tokenizer, item, out)),
        Value::Object(object) => object
            .values()
            .for_each(|item| strings(tokenizer, item, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effect::Effect;
    use serde_json::json;

    fn spec(name: &str, description: &str, arguments: Value) -> ToolSpec {
        ToolSpec::new(
            name,
            description,
            json!({"type": "object", "properties": arguments}),
            Effect::ReadOnly,
        )
    }

    fn names(index: &SearchIndex, specs: &[ToolSpec], query: &str) -> Vec<String> {
        index
            .search(query, 3, |_| true)
            .into_iter()
            .map(|(tool, _)| specs[tool].name.clone())
            .collect()
    }

    #[test]
    fn the_name_weighs_most_and_arguments_count() {
        let specs = [
            spec(
                "create_issue",
                "Open a new ticket in the tracker.",
                json!({}),
            ),
            spec(
                "list_issues",
                "Show tickets.",
                json!({"state": {"type": "string", "enum": ["open", "closed"]}}),
            ),
            spec(
                "send_email",
                "Send a message to an address.",
                json!({"subject": {"description": "The subject line."}}),
            ),
        ];
        let index = SearchIndex::build(specs.iter());
        assert_eq!(names(&index, &specs, "create an issue")[0], "create_issue");
        assert_eq!(
            names(&index, &specs, "which issues are closed")[0],
            "list_issues"
        );
        assert_eq!(
            names(&index, &specs, "email with a subject line"),
            ["send_email"]
        );
        assert!(names(&index, &specs, "weather in Oslo").is_empty());
    }

    #[test]
    fn limits_filters_and_ties_are_respected() {
        let specs: Vec<ToolSpec> = (0..5)
            .map(|i| spec(&format!("tool_{i}"), "Same words.", json!({})))
            .collect();
        let index = SearchIndex::build(specs.iter());
        let hits = index.search("same words", 2, |tool| tool != 0);
        assert_eq!(hits.iter().map(|hit| hit.0).collect::<Vec<_>>(), [1, 2]);
        assert!(index.search("same", 0, |_| true).is_empty());
    }
}
