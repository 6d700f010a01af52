//! Search by meaning: each tool's vector from an [`Embedder`], the query's vector, and
//! their cosine, fused with BM25F: a tool's score is its cosine plus the lexical weight
//! times its BM25F score over the query's best BM25F score.
//!
//! Chosen on the development halves of the held-out sets (`tests/heldout_search.rs`),
//! against reciprocal-rank fusion (`1 / (K + rank)` summed over the two rankings, K 10
//! to 60, the words weighted 1 to 4) and a min-max normalisation of both scores. Rank
//! fusion lost on every set: it throws away how sure each ranker is, and the two differ
//! most where one is much surer (a request that names a tool's rare words). The weight,
//! 0.5, is the one that came within 0.022 of the better component on every set; 0.2
//! favours paraphrases (MetaTool), 1 and more the exact terms (Seal-Tools).

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rustc_hash::FxHashMap;

use super::embedder::{EmbedError, Embedder};
use super::index::best_first;
use super::tokens::words;
use super::vectors::{TextDigest, ToolVectors, digest};
use crate::spec::ToolSpec;

/// How much the words count against the meaning by default.
const LEXICAL_WEIGHT: f32 = 0.5;

/// How many tools the ranking by meaning offers to the fusion, at least.
const DEPTH: usize = 100;

/// Tools embedded in one call to the embedder.
const BATCH: usize = 16;

/// Search by meaning beside words
/// ([`RegistryBuilder::with_semantic_search`](crate::RegistryBuilder::with_semantic_search)):
/// `Registry::search` and `search_tools` rank by the cosine of the embedder's vectors
/// plus the weighted BM25F score (relative to the query's best).
///
/// Each tool is embedded once, as its name (split into words) and its description,
/// before the first search, or never again if [`SemanticSearch::vectors`] has it.
#[derive(Clone)]
pub struct SemanticSearch {
    embedder: Arc<dyn Embedder>,
    vectors: ToolVectors,
    lexical_weight: f32,
}

impl SemanticSearch {
    /// Hybrid search with `embedder` (share one between registries with an `Arc`).
    pub fn new(embedder: impl Embedder + 'static) -> Self {
        Self {
            embedder: Arc::new(embedder),
            vectors: ToolVectors::new(),
            lexical_weight: LEXICAL_WEIGHT,
        }
    }

    /// Vectors computed before ([`Registry::tool_vectors`](crate::Registry::tool_vectors),
    /// [`ToolVectors::load`]): the tools they cover are not embedded again. Vectors of
    /// another model are ignored.
    pub fn vectors(mut self, vectors: ToolVectors) -> Self {
        self.vectors = vectors;
        self
    }

    /// How much the words count against the meaning: a tool's score is its cosine plus
    /// `weight` times its BM25F score over the query's best (0.5 by default). 0 ranks by
    /// meaning alone; a catalog whose requests use the tools' own terms may want 1 or more,
    /// one whose requests are paraphrases 0.2.
    pub fn lexical_weight(mut self, weight: f32) -> Self {
        self.lexical_weight = if weight.is_finite() {
            weight.max(0.0)
        } else {
            LEXICAL_WEIGHT
        };
        self
    }
}

impl fmt::Debug for SemanticSearch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SemanticSearch")
            .field("model", &self.embedder.model())
            .field("vectors", &self.vectors)
            .field("lexical_weight", &self.lexical_weight)
            .finish()
    }
}

/// What a tool is embedded as: its name in words, and its description.
pub(crate) fn embedded_text(spec: &ToolSpec) -> String {
    let name = words(&spec.name)
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ");
    match &spec.title {
        Some(title) => format!("{name} ({title}): {}", spec.description),
        None => format!("{name}: {}", spec.description),
    }
}

/// A registry's semantic search: the embedder, and the tools' vectors once computed.
pub(crate) struct Semantic {
    embedder: Arc<dyn Embedder>,
    lexical_weight: f32,
    /// The vectors given, until the index takes them.
    given: Mutex<ToolVectors>,
    index: OnceLock<Result<SemanticIndex, EmbedError>>,
}

impl Semantic {
    pub(crate) fn new(search: SemanticSearch) -> Self {
        Self {
            embedder: search.embedder,
            lexical_weight: search.lexical_weight,
            given: Mutex::new(search.vectors),
            index: OnceLock::new(),
        }
    }

    /// The tools' vectors, computed at the first call (`specs` in registration order);
    /// an embedder that fails leaves the search to words for the registry's life.
    pub(crate) fn index<'a>(
        &self,
        specs: impl Iterator<Item = &'a ToolSpec>,
    ) -> Result<&SemanticIndex, &EmbedError> {
        self.index
            .get_or_init(|| {
                let given =
                    std::mem::take(&mut *self.given.lock().unwrap_or_else(PoisonError::into_inner));
                let built = SemanticIndex::build(specs, &*self.embedder, given);
                if let Err(error) = &built {
                    tracing::warn!(%error, "the embedder failed: tool search ranks by words only");
                }
                built
            })
            .as_ref()
    }

    /// `lexical` fused with the ranking by meaning, best first, `limit` at most; `None`
    /// when there is no ranking by meaning (the embedder failed).
    pub(crate) fn fuse<'a>(
        &self,
        specs: impl Iterator<Item = &'a ToolSpec>,
        query: &str,
        lexical: &[(usize, f32)],
        limit: usize,
        admit: impl Fn(usize) -> bool,
    ) -> Option<Vec<(usize, f32)>> {
        let index = self.index(specs).ok()?;
        let query = match self
            .embedder
            .embed_query(query)
            .and_then(|vector| index.query(vector))
        {
            Ok(query) => query,
            Err(error) => {
                tracing::warn!(%error, "the embedder failed on a query: it is ranked by words only");
                return None;
            }
        };
        let semantic = index.rank(&query, limit.max(DEPTH), admit);
        Some(fuse(lexical, &semantic, self.lexical_weight, limit))
    }
}

/// The tools' unit vectors, one row per tool in registration order.
pub(crate) struct SemanticIndex {
    dimensions: usize,
    rows: Vec<f32>,
    /// The model, and each row's text digest: what `Registry::tool_vectors` keeps them
    /// under.
    model: String,
    digests: Vec<TextDigest>,
}

impl SemanticIndex {
    /// Embeds the tools `given` has no vector for, in batches of similar length (a batch
    /// is padded to its longest text).
    fn build<'a>(
        specs: impl Iterator<Item = &'a ToolSpec>,
        embedder: &dyn Embedder,
        given: ToolVectors,
    ) -> Result<Self, EmbedError> {
        let texts: Vec<String> = specs.map(embedded_text).collect();
        let digests: Vec<_> = texts.iter().map(|text| digest(text)).collect();
        let model = embedder.model();
        let given = if given.model() == model {
            given
        } else {
            ToolVectors::for_model(model)
        };
        let mut vectors = ToolVectors::for_model(model);
        let mut missing: FxHashMap<_, &str> = FxHashMap::default();
        for (digest, text) in digests.iter().zip(&texts) {
            match given.get(digest) {
                Some(vector) => vectors.insert(*digest, vector.into()),
                None => {
                    missing.insert(*digest, text);
                }
            }
        }
        let mut missing: Vec<_> = missing.into_iter().collect();
        missing.sort_unstable_by_key(|(digest, text)| (text.len(), *digest));
        for batch in missing.chunks(BATCH) {
            let texts: Vec<&str> = batch.iter().map(|(_, text)| *text).collect();
            let embedded = embedder.embed(&texts)?;
            if embedded.len() != texts.len() {
                return Err(EmbedError::new(format!(
                    "the embedder returned {} vectors for {} texts",
                    embedded.len(),
                    texts.len()
                )));
            }
            for ((digest, _), vector) in batch.iter().zip(embedded) {
                let expected = if vectors.is_empty() {
                    vector.len()
                } else {
                    vectors.dimensions()
                };
                vectors.insert(*digest, unit(vector, expected)?);
            }
        }
        let dimensions = vectors.dimensions();
        let rows = digests
            .iter()
            .flat_map(|digest| vectors.get(digest).expect("every tool is embedded"))
            .copied()
            .collect();
        Ok(Self {
            dimensions,
            rows,
            model: model.to_owned(),
            digests,
        })
    }

    /// The tools' vectors, under their texts' digests.
    pub(crate) fn vectors(&self) -> ToolVectors {
        let mut vectors = ToolVectors::for_model(&self.model);
        if self.dimensions > 0 {
            for (digest, row) in self
                .digests
                .iter()
                .zip(self.rows.chunks_exact(self.dimensions))
            {
                vectors.insert(*digest, row.into());
            }
        }
        vectors
    }

    /// A query's vector, checked and normalised.
    fn query(&self, vector: Vec<f32>) -> Result<Box<[f32]>, EmbedError> {
        unit(vector, self.dimensions)
    }

    /// The `limit` tools `admit` lets through closest to `query`, by cosine, best first.
    fn rank(
        &self,
        query: &[f32],
        limit: usize,
        admit: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        if self.dimensions == 0 {
            return Vec::new();
        }
        let mut ranked: Vec<(usize, f32)> = self
            .rows
            .chunks_exact(self.dimensions)
            .enumerate()
            .filter(|(tool, _)| admit(*tool))
            .map(|(tool, row)| (tool, dot(row, query)))
            .collect();
        best_first(&mut ranked, limit);
        ranked
    }
}

/// `vector` scaled to length 1, if it has `dimensions` finite values and is not zero.
fn unit(mut vector: Vec<f32>, dimensions: usize) -> Result<Box<[f32]>, EmbedError> {
    if vector.len() != dimensions || dimensions == 0 {
        return Err(EmbedError::new(format!(
            "the embedder returned a vector of {} dimensions where {dimensions} were expected",
            vector.len()
        )));
    }
    let norm = dot(&vector, &vector).sqrt();
    if !norm.is_finite() || norm == 0.0 {
        return Err(EmbedError::new(
            "the embedder returned a zero or non-finite vector",
        ));
    }
    vector.iter_mut().for_each(|value| *value /= norm);
    Ok(vector.into())
}

/// The dot product, in eight lanes the compiler can keep in vector registers (a plain
/// sum of products is added in order, one at a time).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0.0_f32; 8];
    let (a_chunks, b_chunks) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for lane in 0..8 {
            lanes[lane] += x[lane] * y[lane];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

/// The fusion of the ranking by words (BM25F, best first) and by meaning (cosine, best
/// first): each tool's cosine plus `lexical_weight` times its BM25F score over the best;
/// a tool the ranking by meaning did not offer counts the lowest cosine it offered. The
/// `limit` best.
fn fuse(
    lexical: &[(usize, f32)],
    semantic: &[(usize, f32)],
    lexical_weight: f32,
    limit: usize,
) -> Vec<(usize, f32)> {
    let mut scores: FxHashMap<usize, f32> = semantic.iter().copied().collect();
    let floor = semantic.last().map_or(0.0, |(_, cosine)| *cosine);
    let best = lexical
        .first()
        .map_or(1.0, |(_, score)| score.max(f32::MIN_POSITIVE));
    if lexical_weight > 0.0 {
        for (tool, score) in lexical {
            *scores.entry(*tool).or_insert(floor) += lexical_weight * score / best;
        }
    }
    let mut fused: Vec<(usize, f32)> = scores.into_iter().collect();
    best_first(&mut fused, limit);
    fused
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effect::Effect;
    use serde_json::json;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Vectors from a fixed list of concepts: a text's vector counts the concepts its
    /// words belong to, so synonyms meet without sharing a word.
    struct Concepts {
        calls: AtomicUsize,
        texts: AtomicUsize,
    }

    const CONCEPTS: [&[&str]; 3] = [
        &["reserve", "book", "table", "restaurant", "dinner"],
        &["email", "mail", "message", "send"],
        &["weather", "forecast", "rain"],
    ];

    impl Embedder for Concepts {
        fn model(&self) -> &str {
            "concepts"
        }

        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            self.calls.fetch_add(1, Ordering::Relaxed);
            self.texts.fetch_add(texts.len(), Ordering::Relaxed);
            Ok(texts
                .iter()
                .map(|text| {
                    let mut vector: Vec<f32> = CONCEPTS
                        .iter()
                        .map(|words| {
                            text.to_lowercase()
                                .split(|c: char| !c.is_alphanumeric())
                                .filter(|word| words.contains(word))
                                .count() as f32
                        })
                        .collect();
                    vector.push(0.1);
                    vector
                })
                .collect())
        }
    }

    fn concepts() -> Concepts {
        Concepts {
            calls: AtomicUsize::new(0),
            texts: AtomicUsize::new(0),
        }
    }

    fn specs() -> Vec<ToolSpec> {
        [
            ("reserve_restaurant", "Reserve a restaurant."),
            ("send_mail", "Send a mail."),
            ("get_forecast", "The forecast."),
        ]
        .into_iter()
        .map(|(name, description)| {
            ToolSpec::new(
                name,
                description,
                json!({"type": "object"}),
                Effect::ReadOnly,
            )
        })
        .collect()
    }

    #[test]
    fn meaning_finds_what_shares_no_word() {
        let specs = specs();
        let semantic = Semantic::new(SemanticSearch::new(concepts()));
        let hits = semantic
            .fuse(specs.iter(), "book a table for dinner", &[], 3, |_| true)
            .unwrap();
        assert_eq!(hits[0].0, 0);
        let hits = semantic
            .fuse(specs.iter(), "will it rain", &[], 1, |tool| tool != 2)
            .unwrap();
        assert_ne!(hits[0].0, 2, "admit filters the ranking by meaning too");
    }

    #[test]
    fn given_vectors_are_not_embedded_again_and_changed_texts_are() {
        let specs = specs();
        let first = Semantic::new(SemanticSearch::new(concepts()));
        let saved = first.index(specs.iter()).unwrap().vectors();
        assert_eq!(saved.len(), 3);
        let embedder = Arc::new(concepts());
        let second =
            Semantic::new(SemanticSearch::new(Arc::clone(&embedder)).vectors(saved.clone()));
        second.index(specs.iter()).unwrap();
        assert_eq!(embedder.texts.load(Ordering::Relaxed), 0);
        let mut changed = specs.clone();
        changed[1].description = "Send an email message.".into();
        let embedder = Arc::new(concepts());
        let third = Semantic::new(SemanticSearch::new(Arc::clone(&embedder)).vectors(saved));
        assert_eq!(third.index(changed.iter()).unwrap().vectors().len(), 3);
        assert_eq!(
            embedder.texts.load(Ordering::Relaxed),
            1,
            "only the changed tool"
        );
    }

    struct Broken(usize);

    impl Embedder for Broken {
        fn model(&self) -> &str {
            "broken"
        }

        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
            match self.0 {
                0 => Err(EmbedError::new("the API is down")),
                1 => Ok(vec![vec![1.0, 0.0]]),
                2 => Ok((0..texts.len()).map(|i| vec![1.0; 2 + i.min(1)]).collect()),
                _ => Ok(texts.iter().map(|_| vec![f32::NAN, 1.0]).collect()),
            }
        }
    }

    #[test]
    fn an_embedder_that_fails_or_lies_leaves_the_words() {
        let specs = specs();
        for case in 0..4 {
            let semantic = Semantic::new(SemanticSearch::new(Broken(case)));
            assert!(semantic.index(specs.iter()).is_err(), "case {case}");
            assert!(
                semantic
                    .fuse(specs.iter(), "mail", &[(1, 2.0)], 3, |_| true)
                    .is_none()
            );
        }
    }

    #[test]
    fn fusion_adds_the_relative_words_score_to_the_cosine() {
        let lexical = [(0, 10.0), (1, 5.0)];
        let semantic = [(2, 0.6), (1, 0.5), (3, 0.3)];
        let fused = fuse(&lexical, &semantic, 0.5, 4);
        // 0: the lowest cosine offered (0.3) + 0.5; 1: 0.5 + 0.25; 2: 0.6; 3: 0.3.
        let expected = [(0, 0.8), (1, 0.75), (2, 0.6), (3, 0.3)];
        for ((tool, score), (want_tool, want)) in fused.iter().zip(expected) {
            assert_eq!(*tool, want_tool);
            assert!((score - want).abs() < 1e-6, "{fused:?}");
        }
        let tools =
            |fused: Vec<(usize, f32)>| fused.into_iter().map(|(tool, _)| tool).collect::<Vec<_>>();
        assert_eq!(
            tools(fuse(&lexical, &semantic, 0.0, 3)),
            [2, 1, 3],
            "meaning alone"
        );
        assert_eq!(tools(fuse(&lexical, &semantic, 0.25, 2)), [1, 2]);
        assert_eq!(tools(fuse(&[], &semantic, 0.5, 5)), [2, 1, 3]);
    }
}
