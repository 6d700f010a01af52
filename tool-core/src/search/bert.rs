//! [`BertEmbedder`]: a sentence-transformers BERT model (all-MiniLM-L6-v2 and its kin)
//! run on the CPU in pure Rust: candle for the network, Hugging Face's tokenizers for
//! the word pieces. Nothing is downloaded: the model is a directory the user gives.

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use sha2::{Digest, Sha256};
use tokenizers::{PaddingStrategy, Tokenizer, TruncationParams};

use super::embedder::{EmbedError, Embedder};
use crate::idempotency::hex;

/// sentence-transformers' `max_seq_length` when the model directory does not say.
const MAX_TOKENS: usize = 256;

/// How a sentence's token vectors become one vector (sentence-transformers' pooling).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Pooling {
    /// The mean of the tokens' vectors (all-MiniLM-L6-v2 and most sentence models).
    Mean,
    /// The vector of the `[CLS]` token.
    Cls,
}

/// A sentence-transformers BERT model loaded from a directory holding `config.json`,
/// `model.safetensors` and `tokenizer.json` (and, if the model has them,
/// `sentence_bert_config.json` for its maximum length and `1_Pooling/config.json` for
/// its pooling). Sentences are cut at the model's maximum length (256 word pieces
/// unless it says otherwise), pooled as the model says (the mean of the tokens, or
/// `[CLS]`) and normalised, as sentence-transformers does.
///
/// ```no_run
/// use toolwright::search::{BertEmbedder, Embedder, SemanticSearch};
///
/// let embedder = BertEmbedder::load("models/all-MiniLM-L6-v2")?;
/// let vectors = embedder.embed(&["book a table for two"])?;
/// assert_eq!(vectors[0].len(), 384);
/// let search = SemanticSearch::new(embedder);
/// # Ok::<(), toolwright::search::EmbedError>(())
/// ```
pub struct BertEmbedder {
    model: BertModel,
    tokenizer: Tokenizer,
    pooling: Pooling,
    name: String,
}

impl BertEmbedder {
    /// Loads the model in `directory`. A missing or malformed file is an error that
    /// names it.
    pub fn load(directory: impl AsRef<Path>) -> Result<Self, EmbedError> {
        let directory = directory.as_ref();
        let read = |file: &str| {
            std::fs::read(directory.join(file)).map_err(|error| {
                EmbedError::new(format!(
                    "cannot read {}: {error}",
                    directory.join(file).display()
                ))
            })
        };
        let config: Config = json(&read("config.json")?, "config.json")?;
        let weights = read("model.safetensors")?;
        let name = format!(
            "{} sha256:{}",
            directory
                .file_name()
                .map_or_else(|| "bert".into(), |name| name.to_string_lossy()),
            hex(&Sha256::digest(&weights)[..8])
        );
        let max_tokens = match read("sentence_bert_config.json") {
            Ok(bytes) => json::<serde_json::Value>(&bytes, "sentence_bert_config.json")?
                .get("max_seq_length")
                .and_then(serde_json::Value::as_u64)
                .map_or(MAX_TOKENS, |max| max as usize),
            Err(_) => MAX_TOKENS,
        }
        .min(config.max_position_embeddings);
        let pooling = match read("1_Pooling/config.json") {
            Ok(bytes) => pooling(&json(&bytes, "1_Pooling/config.json")?)?,
            Err(_) => Pooling::Mean,
        };
        let mut tokenizer = Tokenizer::from_bytes(read("tokenizer.json")?)
            .map_err(|error| EmbedError::new(format!("tokenizer.json: {error}")))?;
        // A batch is padded to its longest sentence, not to the length the file may fix.
        let mut padding = tokenizer.get_padding().cloned().unwrap_or_default();
        padding.strategy = PaddingStrategy::BatchLongest;
        tokenizer.with_padding(Some(padding));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_tokens,
                ..TruncationParams::default()
            }))
            .map_err(|error| EmbedError::new(format!("tokenizer.json: {error}")))?;
        let variables = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
            .map_err(|error| EmbedError::new(format!("model.safetensors: {error}")))?;
        let model = BertModel::load(variables, &config).map_err(|error| {
            EmbedError::new(format!(
                "model.safetensors does not fit config.json: {error}"
            ))
        })?;
        Ok(Self {
            model,
            tokenizer,
            pooling,
            name,
        })
    }

    fn forward(&self, texts: &[&str]) -> candle_core::Result<Vec<Vec<f32>>> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(candle_core::Error::msg)?;
        let (batch, length) = (encodings.len(), encodings[0].get_ids().len());
        let tensor = |part: fn(&tokenizers::Encoding) -> &[u32]| {
            let values: Vec<u32> = encodings
                .iter()
                .flat_map(|e| part(e).iter().copied())
                .collect();
            Tensor::from_vec(values, (batch, length), &Device::Cpu)
        };
        let ids = tensor(tokenizers::Encoding::get_ids)?;
        let types = tensor(tokenizers::Encoding::get_type_ids)?;
        let mask = tensor(tokenizers::Encoding::get_attention_mask)?;
        // (batch, length, hidden)
        let hidden = self.model.forward(&ids, &types, Some(&mask))?;
        let pooled = match self.pooling {
            Pooling::Cls => hidden.narrow(1, 0, 1)?.squeeze(1)?,
            Pooling::Mean => {
                let mask = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
                let counts = mask.sum(1)?.clamp(1e-9_f32, f32::MAX)?;
                hidden
                    .broadcast_mul(&mask)?
                    .sum(1)?
                    .broadcast_div(&counts)?
            }
        };
        let norms = pooled
            .sqr()?
            .sum_keepdim(1)?
            .sqrt()?
            .clamp(1e-12_f32, f32::MAX)?;
        pooled.broadcast_div(&norms)?.to_vec2::<f32>()
    }
}

impl Embedder for BertEmbedder {
    /// The model directory's name and the start of its weights' SHA-256.
    fn model(&self) -> &str {
        &self.name
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        self.forward(texts)
            .map_err(|error| EmbedError::new(format!("the BERT model failed: {error}")))
    }
}

impl std::fmt::Debug for BertEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BertEmbedder")
            .field("model", &self.name)
            .field("pooling", &self.pooling)
            .finish_non_exhaustive()
    }
}

fn json<T: serde::de::DeserializeOwned>(bytes: &[u8], file: &str) -> Result<T, EmbedError> {
    serde_json::from_slice(bytes).map_err(|error| EmbedError::new(format!("{file}: {error}")))
}

/// The pooling `1_Pooling/config.json` asks for, if this embedder does it.
fn pooling(config: &serde_json::Value) -> Result<Pooling, EmbedError> {
    let on = |key: &str| config.get(key).and_then(serde_json::Value::as_bool) == Some(true);
    let others = [
        "pooling_mode_max_tokens",
        "pooling_mode_mean_sqrt_len_tokens",
        "pooling_mode_weightedmean_tokens",
        "pooling_mode_lasttoken",
    ];
    match (on("pooling_mode_mean_tokens"), on("pooling_mode_cls_token")) {
        _ if others.iter().any(|key| on(key)) => Err(EmbedError::new(
            "1_Pooling/config.json asks for a pooling other than the mean or [CLS]: not supported",
        )),
        (true, false) => Ok(Pooling::Mean),
        (false, true) => Ok(Pooling::Cls),
        _ => Err(EmbedError::new(
            "1_Pooling/config.json must ask for one pooling, the mean or [CLS]",
        )),
    }
}
