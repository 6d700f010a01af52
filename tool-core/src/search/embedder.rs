//! The [`Embedder`] trait: texts in, unit vectors out, so that a search can rank tools
//! by meaning ("book a table" finds `reserve_restaurant`) as well as by shared words.
//!
//! The trait is synchronous. The local model (`BertEmbedder`, feature `embed`) is pure
//! computation, for which a future would only hide the blocking; a query is one short
//! text (milliseconds), and the tools are embedded once, before the first search or
//! ahead of time ([`Registry::tool_vectors`](crate::Registry::tool_vectors)). An
//! embedder that calls a hosted API uses a blocking HTTP client with a short timeout;
//! when it fails, the search falls back to words alone.

use std::fmt;
use std::sync::Arc;

/// A sentence-embedding model: turns texts into vectors whose dot product says how alike
/// they are in meaning.
///
/// Implement it to rank with a hosted embedding API instead of the local model:
///
/// ```
/// use toolwright::search::{EmbedError, Embedder};
///
/// /// A hosted model behind an HTTP API (here a stub: no network in a doctest).
/// struct Hosted;
///
/// impl Embedder for Hosted {
///     fn model(&self) -> &str {
///         "example-embedding-v1"
///     }
///
///     fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
///         // A real one sends `texts` in one request (blocking client, short timeout)
///         // and returns the vectors in the same order.
///         Ok(texts.iter().map(|text| vec![text.len() as f32, 1.0]).collect())
///     }
/// }
///
/// assert_eq!(Hosted.embed(&["a", "bc"]).unwrap().len(), 2);
/// ```
pub trait Embedder: Send + Sync {
    /// The model's name, and anything else that changes its vectors: vectors computed by
    /// another model are never mixed with this one's ([`ToolVectors`](super::ToolVectors)).
    fn model(&self) -> &str;

    /// One vector per text, in order, all of one length. They need not be normalised:
    /// the search normalises them.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;

    /// The vector of a search query. By default the same as a tool's; override it for
    /// models that embed queries differently (a prefix such as `query: `, or an API's
    /// `input_type = "query"`).
    fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        self.embed(&[query])?
            .pop()
            .ok_or_else(|| EmbedError::new("the embedder returned no vector for the query"))
    }
}

impl<E: Embedder + ?Sized> Embedder for Arc<E> {
    fn model(&self) -> &str {
        (**self).model()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        (**self).embed(texts)
    }

    fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        (**self).embed_query(query)
    }
}

/// Why an embedder gave no vectors (a model that would not load, an API that failed),
/// or why saved vectors could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedError {
    message: String,
}

impl EmbedError {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// What went wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for EmbedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EmbedError {}
