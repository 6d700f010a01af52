//! [`ToolVectors`]: tools' embeddings kept between processes, each under the SHA-256 of
//! the text that was embedded, so a tool whose description changed is embedded again
//! and an unchanged one never is.
//!
//! The file format is this crate's own, small and checked on reading: the line
//! `toolwright-vectors/1`, the model's name (u32 length, UTF-8), the dimensions (u32),
//! the count (u64), then each vector as its 32-byte digest and its floats
//! (little-endian f32), in digest order, so the same vectors give the same bytes.

use std::fmt;
use std::path::Path;

use rustc_hash::FxHashMap;
use sha2::{Digest, Sha256};

use super::embedder::EmbedError;

const MAGIC: &[u8] = b"toolwright-vectors/1\n";

/// The SHA-256 of an embedded text.
pub(crate) type TextDigest = [u8; 32];

/// The digest a text's vector is kept under.
pub(crate) fn digest(text: &str) -> TextDigest {
    Sha256::digest(text.as_bytes()).into()
}

/// Tools' vectors from one embedding model, kept under the digest of what was embedded.
///
/// Compute them once (at deploy time, say) and give them to the next process so that it
/// does not embed its tools again:
///
/// ```no_run
/// # fn demo(registry: &toolwright::Registry) -> Result<(), Box<dyn std::error::Error>> {
/// use toolwright::search::ToolVectors;
///
/// registry.tool_vectors()?.save("tool-vectors.bin")?;
/// // In the next process:
/// let vectors = ToolVectors::load("tool-vectors.bin")?;
/// # Ok(()) }
/// ```
///
/// and then `SemanticSearch::new(embedder).vectors(vectors)`. Vectors of another model,
/// or of texts the tools no longer have, are ignored.
#[derive(Clone, Default, PartialEq)]
pub struct ToolVectors {
    model: String,
    dimensions: usize,
    vectors: FxHashMap<TextDigest, Box<[f32]>>,
}

impl ToolVectors {
    /// No vectors.
    pub fn new() -> Self {
        Self::default()
    }

    /// The model the vectors come from ([`Embedder::model`](super::Embedder::model)).
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The length of each vector (0 when there are none).
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// How many vectors there are.
    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    /// Empty vectors for `model`.
    pub(crate) fn for_model(model: &str) -> Self {
        Self {
            model: model.to_owned(),
            ..Self::default()
        }
    }

    /// The vector kept for `digest`.
    pub(crate) fn get(&self, digest: &TextDigest) -> Option<&[f32]> {
        self.vectors.get(digest).map(|vector| &**vector)
    }

    /// Keeps `vector` under `digest`; the first vector fixes the dimensions.
    pub(crate) fn insert(&mut self, digest: TextDigest, vector: Box<[f32]>) {
        if self.vectors.is_empty() {
            self.dimensions = vector.len();
        }
        debug_assert_eq!(vector.len(), self.dimensions);
        self.vectors.insert(digest, vector);
    }

    /// The vectors in the file format above.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut entries: Vec<_> = self.vectors.iter().collect();
        entries.sort_unstable_by_key(|(digest, _)| **digest);
        let mut bytes = Vec::with_capacity(
            MAGIC.len() + 16 + self.model.len() + entries.len() * (32 + 4 * self.dimensions),
        );
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&(self.model.len() as u32).to_le_bytes());
        bytes.extend_from_slice(self.model.as_bytes());
        bytes.extend_from_slice(&(self.dimensions as u32).to_le_bytes());
        bytes.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        for (digest, vector) in entries {
            bytes.extend_from_slice(digest);
            for value in vector.iter() {
                bytes.extend_from_slice(&value.to_le_bytes());
            }
        }
        bytes
    }

    /// Reads what [`ToolVectors::to_bytes`] wrote; anything else (another format, a cut
    /// or padded file, a float that is not finite) is an error, never a panic.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, EmbedError> {
        let mut reader = Reader(bytes);
        if reader.take(MAGIC.len())? != MAGIC {
            return Err(EmbedError::new(
                "not a toolwright vectors file (it does not start with `toolwright-vectors/1`)",
            ));
        }
        let model_len = reader.u32()? as usize;
        let model = std::str::from_utf8(reader.take(model_len)?)
            .map_err(|_| EmbedError::new("the model name in the vectors file is not UTF-8"))?
            .to_owned();
        let dimensions = reader.u32()? as usize;
        let count = reader.u64()?;
        let entry = 32 + 4 * dimensions as u64;
        if count.checked_mul(entry) != Some(reader.0.len() as u64) {
            return Err(EmbedError::new(format!(
                "the vectors file says {count} vectors of {dimensions} dimensions, but holds {} bytes of them",
                reader.0.len()
            )));
        }
        let mut vectors = FxHashMap::default();
        for _ in 0..count {
            let digest: TextDigest = reader.take(32)?.try_into().expect("32 bytes");
            let vector = reader
                .take(4 * dimensions)?
                .chunks_exact(4)
                .map(|chunk| f32::from_le_bytes(chunk.try_into().expect("4 bytes")))
                .collect::<Box<[f32]>>();
            if vector.iter().any(|value| !value.is_finite()) {
                return Err(EmbedError::new(
                    "the vectors file holds a value that is not finite",
                ));
            }
            if vectors.insert(digest, vector).is_some() {
                return Err(EmbedError::new("the vectors file holds one text twice"));
            }
        }
        Ok(Self {
            model,
            dimensions: if count == 0 { 0 } else { dimensions },
            vectors,
        })
    }

    /// Writes the vectors to `path`, whole or not at all (a temporary file, renamed).
    pub fn save(&self, path: impl AsRef<Path>) -> std::io::Result<()> {
        let path = path.as_ref();
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(".tmp");
        std::fs::write(&temporary, self.to_bytes())?;
        std::fs::rename(&temporary, path)
    }

    /// Reads vectors [`ToolVectors::save`] wrote; a file in another format is an
    /// [`InvalidData`](std::io::ErrorKind::InvalidData) error.
    pub fn load(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let bytes = std::fs::read(path)?;
        Self::from_bytes(&bytes)
            .map_err(|error| std::io::Error::new(std::io::ErrorKind::InvalidData, error))
    }
}

impl fmt::Debug for ToolVectors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolVectors")
            .field("model", &self.model)
            .field("dimensions", &self.dimensions)
            .field("len", &self.vectors.len())
            .finish()
    }
}

/// The bytes of a vectors file not read yet.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], EmbedError> {
        if self.0.len() < n {
            return Err(EmbedError::new("the vectors file is cut short"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn u32(&mut self) -> Result<u32, EmbedError> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    fn u64(&mut self) -> Result<u64, EmbedError> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> ToolVectors {
        let mut vectors = ToolVectors::for_model("test-model");
        vectors.insert(digest("send an email"), vec![0.6, 0.8].into());
        vectors.insert(digest("create an issue"), vec![1.0, 0.0].into());
        vectors
    }

    #[test]
    fn bytes_round_trip_and_are_deterministic() {
        let vectors = sample();
        let bytes = vectors.to_bytes();
        let read = ToolVectors::from_bytes(&bytes).unwrap();
        assert_eq!(read, vectors);
        assert_eq!(read.to_bytes(), bytes);
        assert_eq!(read.get(&digest("send an email")), Some(&[0.6, 0.8][..]));
        assert_eq!(
            (read.model(), read.dimensions(), read.len()),
            ("test-model", 2, 2)
        );
        let empty = ToolVectors::from_bytes(&ToolVectors::new().to_bytes()).unwrap();
        assert!(empty.is_empty());
    }

    #[test]
    fn every_damaged_file_is_an_error() {
        let bytes = sample().to_bytes();
        // Every truncation, and one byte too many.
        for cut in 0..bytes.len() {
            assert!(
                ToolVectors::from_bytes(&bytes[..cut]).is_err(),
                "cut at {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(ToolVectors::from_bytes(&longer).is_err());
        // A count that would need more memory than there is.
        let mut huge = bytes.clone();
        let count_at = MAGIC.len() + 4 + "test-model".len() + 4;
        huge[count_at..count_at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(
            ToolVectors::from_bytes(&huge)
                .unwrap_err()
                .message()
                .contains("says")
        );
        // A NaN.
        let mut nan = bytes.clone();
        let last = nan.len() - 4;
        nan[last..].copy_from_slice(&f32::NAN.to_le_bytes());
        assert!(ToolVectors::from_bytes(&nan).is_err());
        assert!(ToolVectors::from_bytes(b"{\"vectors\": []}").is_err());
    }

    #[test]
    fn save_and_load() {
        let path =
            std::env::temp_dir().join(format!("toolwright-vectors-{}.bin", std::process::id()));
        sample().save(&path).unwrap();
        assert_eq!(ToolVectors::load(&path).unwrap(), sample());
        std::fs::write(&path, b"garbage").unwrap();
        let error = ToolVectors::load(&path).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::InvalidData);
        std::fs::remove_file(&path).unwrap();
    }
}
