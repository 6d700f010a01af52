//! Search by meaning: each tool's vector from an [`Embedder`], the query's vector, and
//! their cosine, fused with BM25F: a tool's score is its cosine plus the lexical weight
//! times its BM25F score.
//!
//! Chosen on the development halves of the held-out sets (`tests/heldout_search.rs`),
//! against the BM25F score over the query's best (what this was before: the best word
//! match of any query got the whole bonus, however weak its words, and the hybrid fell
//! below meaning alone on paraphrased requests), that score damped by the best's own
//! size (`s / (best + c)`, c from 2 to 40), a saturating `s / (s + c)` (which lost the
//! exact-term sets), reciprocal-rank fusion and a min-max normalisation of both scores
//! (which lost every set). The plain sum, at 0.05, came out above the better of its two
//! parts on every set's recall@1 and recall@5 (development halves: MetaTool 0.571 /
//! 0.792, Seal-Tools 0.968 / 0.892, StableToolBench 0.710 / 0.721). BM25F is already a
//! measure of how much evidence the shared words are (rare words count more, repeats
//! saturate), so a weak match adds little on its own scale.
//!
//! A tool is embedded as the model sees it: its name in words, its description, and its
//! arguments' names and descriptions (recall@5 by meaning alone on the development
//! halves: Seal-Tools 0.600 → 0.629, StableToolBench 0.571 → 0.588; MetaTool's tools
//! have no arguments).

use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rustc_hash::FxHashMap;
use serde_json::Value;

use super::embedder::{EmbedError, Embedder};
use super::index::best_first;
use super::recent::Recent;
use super::tokens::words;
use super::vectors::{TextDigest, ToolVectors, digest};
use crate::spec::ToolSpec;

/// How much a unit of BM25F counts against the cosine, by default.
const LEXICAL_WEIGHT: f32 = 0.05;

/// How many tools the ranking by meaning offers to the fusion, at least.
const DEPTH: usize = 100;

/// Tools embedded in one call to the embedder.
const BATCH: usize = 16;

/// How many queries' vectors are kept by default (a repeated query is not embedded
/// again).
const RECENT_QUERIES: usize = 1024;

/// Told how far the indexing is: tools embedded so far, and how many there are to embed.
pub(crate) type Progress = Arc<dyn Fn(usize, usize) + Send + Sync>;

/// Search by meaning beside words
/// ([`RegistryBuilder::with_semantic_search`](crate::RegistryBuilder::with_semantic_search)):
/// `Registry::search` and `search_tools` rank by the cosine of the embedder's vectors
/// plus the weighted BM25F score.
///
/// Each tool is embedded once, as its name (split into words), its description and its
/// arguments' names and descriptions,
/// by [`RegistryBuilder::build`](crate::RegistryBuilder::build) (on an async runtime,
/// build in a blocking task: a model embeds about a hundred tools a second on two
/// cores), or never again if [`SemanticSearch::vectors`] has it. An embedder that fails
/// fails the build, unless [`SemanticSearch::fall_back_to_words`] was asked for.
#[derive(Clone)]
pub struct SemanticSearch {
    embedder: Arc<dyn Embedder>,
    vectors: ToolVectors,
    lexical_weight: f32,
    fall_back: bool,
    progress: Option<Progress>,
    recent_queries: usize,
}

impl SemanticSearch {
    /// Hybrid search with `embedder` (share one between registries with an `Arc`).
    pub fn new(embedder: impl Embedder + 'static) -> Self {
        Self {
            embedder: Arc::new(embedder),
            vectors: ToolVectors::new(),
            lexical_weight: LEXICAL_WEIGHT,
            fall_back: false,
            progress: None,
            recent_queries: RECENT_QUERIES,
        }
    }

    /// How many recent queries' vectors are kept, so a query asked again is not
    /// embedded again (1,024 by default, 1.5 kB each with a 384-dimension model; 0 keeps
    /// none).
    pub fn recent_queries(mut self, queries: usize) -> Self {
        self.recent_queries = queries;
        self
    }

    /// When the embedder fails (at build, or on a query), the search ranks by words
    /// (a warning is logged) instead of failing the build: for a service that must
    /// start even when its model cannot be loaded.
    pub fn fall_back_to_words(mut self) -> Self {
        self.fall_back = true;
        self
    }

    /// Tells `progress` how far the indexing at build is, after each batch of tools
    /// embedded: `(embedded, to embed)`. For a long first start (thousands of tools
    /// with no saved vectors).
    pub fn on_progress(mut self, progress: impl Fn(usize, usize) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(progress));
        self
    }

    /// Vectors computed before ([`Registry::tool_vectors`](crate::Registry::tool_vectors),
    /// [`ToolVectors::load`]): the tools they cover are not embedded again. Vectors of
    /// another model are ignored.
    pub fn vectors(mut self, vectors: ToolVectors) -> Self {
        self.vectors = vectors;
        self
    }

    /// How much the words count against the meaning: a tool's score is its cosine plus
    /// `weight` times its BM25F score (0.05 by default; a query's best BM25F score is
    /// about 3 to 30, more for longer queries and rarer shared words). 0 ranks by
    /// meaning alone (and asks nothing of the words); a catalog whose requests use the
    /// tools' own terms may want 0.08, one whose requests are paraphrases 0.03.
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
            .field("fall_back", &self.fall_back)
            .finish_non_exhaustive()
    }
}

/// What a tool is embedded as: its name in words, its description, and its arguments'
/// names in words with their descriptions.
pub(crate) fn embedded_text(spec: &ToolSpec) -> String {
    let in_words = |name: &str| {
        words(name)
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let name = in_words(&spec.name);
    let mut text = match &spec.title {
        Some(title) => format!("{name} ({title}): {}", spec.description),
        None => format!("{name}: {}", spec.description),
    };
    let properties = spec
        .input_schema
        .get("properties")
        .and_then(Value::as_object);
    let arguments: Vec<String> = (properties.into_iter().flatten())
        .map(
            |(name, property)| match property.get("description").and_then(Value::as_str) {
                Some(description) if !description.is_empty() => {
                    format!("{}: {description}", in_words(name))
                }
                _ => in_words(name),
            },
        )
        .collect();
    if !arguments.is_empty() {
        text.push_str(" Arguments: ");
        text.push_str(&arguments.join("; "));
    }
    text
}

/// A registry's semantic search: the embedder, and the tools' vectors once computed.
pub(crate) struct Semantic {
    embedder: Arc<dyn Embedder>,
    lexical_weight: f32,
    fall_back: bool,
    progress: Option<Progress>,
    /// The vectors given, until the index takes them.
    given: Mutex<ToolVectors>,
    index: OnceLock<Result<SemanticIndex, EmbedError>>,
    /// Recent queries' unit vectors.
    queries: Mutex<Recent>,
}

impl Semantic {
    pub(crate) fn new(search: SemanticSearch) -> Self {
        Self {
            embedder: search.embedder,
            lexical_weight: search.lexical_weight,
            fall_back: search.fall_back,
            progress: search.progress,
            given: Mutex::new(search.vectors),
            index: OnceLock::new(),
            queries: Mutex::new(Recent::new(search.recent_queries)),
        }
    }

    /// How much the words count.
    pub(crate) fn lexical_weight(&self) -> f32 {
        self.lexical_weight
    }

    /// Whether a failing embedder leaves the search to words instead of failing.
    pub(crate) fn falls_back(&self) -> bool {
        self.fall_back
    }

    /// The tools' vectors (`specs` in registration order), computed at the first call,
    /// which `build` makes; an embedder that fails leaves the search to words for the
    /// registry's life (when the build let it).
    pub(crate) fn index<'a>(
        &self,
        specs: impl Iterator<Item = &'a ToolSpec>,
    ) -> Result<&SemanticIndex, &EmbedError> {
        self.index
            .get_or_init(|| {
                let given =
                    std::mem::take(&mut *self.given.lock().unwrap_or_else(PoisonError::into_inner));
                let progress = self.progress.as_deref();
                let built = SemanticIndex::build(specs, &*self.embedder, given, progress);
                if let Err(error) = &built {
                    tracing::warn!(%error, "the embedder failed: tool search ranks by words only");
                }
                built
            })
            .as_ref()
    }

    /// `query`'s unit vector: from the recent queries, or embedded now.
    fn query_vector(&self, index: &SemanticIndex, query: &str) -> Result<Arc<[f32]>, EmbedError> {
        let recent = || self.queries.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(vector) = recent().get(query) {
            return Ok(vector);
        }
        let vector: Arc<[f32]> = index.query(self.embedder.embed_query(query)?)?.into();
        recent().insert(query, vector.clone());
        Ok(vector)
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
        let query = match self.query_vector(index, query) {
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
        progress: Option<&(dyn Fn(usize, usize) + Send + Sync)>,
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
        for (done, batch) in missing.chunks(BATCH).enumerate() {
            if let Some(progress) = progress {
                progress((done * BATCH).min(missing.len()), missing.len());
            }
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
        if let Some(progress) = progress.filter(|_| !missing.is_empty()) {
            progress(missing.len(), missing.len());
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
/// first): each tool's cosine plus `lexical_weight` times its BM25F score; a tool the
/// ranking by meaning did not offer counts the lowest cosine it offered. The `limit`
/// best.
fn fuse(
    lexical: &[(usize, f32)],
    semantic: &[(usize, f32)],
    lexical_weight: f32,
    limit: usize,
) -> Vec<(usize, f32)> {
    let mut scores: FxHashMap<usize, f32> = semantic.iter().copied().collect();
    let floor = semantic.last().map_or(0.0, |(_, cosine)| *cosine);
    if lexical_weight > 0.0 {
        for (tool, score) in lexical {
            *scores.entry(*tool).or_insert(floor) += lexical_weight * score;
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
    fn a_tool_is_embedded_with_its_arguments() {
        let schema = json!({"type": "object", "properties": {
            "address": {"type": "string", "description": "Who it goes to."},
            "ccList": {"type": "array"},
        }});
        let spec = ToolSpec::new("send_email", "Send a message.", schema, Effect::External);
        assert_eq!(
            embedded_text(&spec),
            "send email: Send a message. Arguments: address: Who it goes to.; cc list"
        );
        let bare = &specs()[1];
        assert_eq!(embedded_text(bare), "send mail: Send a mail.");
    }

    #[test]
    fn fusion_adds_the_weighted_words_score_to_the_cosine() {
        let lexical = [(0, 10.0), (1, 5.0)];
        let semantic = [(2, 0.6), (1, 0.5), (3, 0.3)];
        let fused = fuse(&lexical, &semantic, 0.05, 4);
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
        assert_eq!(tools(fuse(&lexical, &semantic, 0.025, 2)), [1, 2]);
        assert_eq!(tools(fuse(&[], &semantic, 0.05, 5)), [2, 1, 3]);
        // A weak best match adds little: the same tool, found by one common word.
        assert_eq!(tools(fuse(&[(3, 0.8)], &semantic, 0.05, 1)), [2]);
    }
}
