//! A checkpoint's own `tokenizer.json` (any model the `tokenizers` crate
//! reads: byte-level BPE for Qwen2, WordPiece, Unigram…) behind our
//! [`Tokenize`] trait.

use std::path::Path;

use anyhow::{anyhow, Context, Result};

use super::tokenizer::Tokenize;

pub struct HfTokenizer {
    pub inner: tokenizers::Tokenizer,
}

impl HfTokenizer {
    pub fn load(path: &Path) -> Result<HfTokenizer> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("missing or unreadable {} (the model's tokenizer)", path.display()))?;
        Self::from_json(&text).with_context(|| format!("reading {}", path.display()))
    }

    pub fn from_json(json: &str) -> Result<HfTokenizer> {
        let inner: tokenizers::Tokenizer = json.parse().map_err(|e| anyhow!("not a tokenizer.json: {e}"))?;
        Ok(HfTokenizer { inner })
    }

    /// The id of a token such as `<|im_end|>`, if the vocabulary has it.
    pub fn token_id(&self, token: &str) -> Option<u32> {
        self.inner.token_to_id(token)
    }
}

impl Tokenize for HfTokenizer {
    fn encode(&self, text: &str) -> Vec<u32> {
        self.inner.encode(text, false).map(|e| e.get_ids().to_vec()).unwrap_or_default()
    }

    fn decode(&self, ids: &[u32]) -> String {
        self.inner.decode(ids, true).unwrap_or_default()
    }

    fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }
}
