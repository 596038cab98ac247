//! Tokenizers for the drills.
//!
//! [`CharTokenizer`] maps each character to one id, with a few special tokens
//! (`<pad>`, `<bos>`, `<eos>`, `<unk>` plus any a drill adds). Character level
//! keeps the tiny models honest: nothing is hidden in a pretrained vocabulary,
//! and a learner can read every token of a trajectory. [`train_bpe`] trains a
//! byte-level BPE on a drill's corpus with the `tokenizers` crate, offline.

use std::collections::HashMap;

use anyhow::{anyhow, Result};

pub const PAD: u32 = 0;
pub const BOS: u32 = 1;
pub const EOS: u32 = 2;
pub const UNK: u32 = 3;

/// Common interface of the tokenizers the drills use.
pub trait Tokenize {
    fn encode(&self, text: &str) -> Vec<u32>;
    fn decode(&self, ids: &[u32]) -> String;
    fn vocab_size(&self) -> usize;
}

#[derive(Debug, Clone)]
pub struct CharTokenizer {
    /// id → token text; ids 0..specials.len() are the special tokens.
    tokens: Vec<String>,
    chars: HashMap<char, u32>,
    /// Special tokens other than pad/bos/eos/unk, longest first for greedy matching.
    specials: Vec<(String, u32)>,
}

/// Printable ASCII and newline: what the drills' text formats use.
pub const ASCII: &str =
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\n";

impl CharTokenizer {
    /// A tokenizer over `alphabet` with extra special tokens (e.g. `"<obs>"`).
    pub fn new(alphabet: &str, extra_specials: &[&str]) -> CharTokenizer {
        let mut tokens: Vec<String> = ["<pad>", "<bos>", "<eos>", "<unk>"].iter().map(|s| s.to_string()).collect();
        let mut specials = Vec::new();
        for s in extra_specials {
            specials.push((s.to_string(), tokens.len() as u32));
            tokens.push(s.to_string());
        }
        specials.sort_by_key(|(s, _)| std::cmp::Reverse(s.len()));
        let mut chars = HashMap::new();
        for c in alphabet.chars() {
            if let std::collections::hash_map::Entry::Vacant(e) = chars.entry(c) {
                e.insert(tokens.len() as u32);
                tokens.push(c.to_string());
            }
        }
        CharTokenizer { tokens, chars, specials }
    }

    /// Printable ASCII plus newline.
    pub fn ascii(extra_specials: &[&str]) -> CharTokenizer {
        CharTokenizer::new(ASCII, extra_specials)
    }

    pub fn id_of(&self, token: &str) -> Option<u32> {
        match token {
            "<pad>" => Some(PAD),
            "<bos>" => Some(BOS),
            "<eos>" => Some(EOS),
            "<unk>" => Some(UNK),
            _ => self.specials.iter().find(|(s, _)| s == token).map(|(_, id)| *id).or_else(|| {
                let mut it = token.chars();
                match (it.next(), it.next()) {
                    (Some(c), None) => self.chars.get(&c).copied(),
                    _ => None,
                }
            }),
        }
    }

    pub fn token(&self, id: u32) -> &str {
        self.tokens.get(id as usize).map(String::as_str).unwrap_or("<unk>")
    }
}

impl Tokenize for CharTokenizer {
    fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::with_capacity(text.len());
        let mut rest = text;
        'outer: while let Some(c) = rest.chars().next() {
            if c == '<' {
                for (s, id) in &self.specials {
                    if rest.starts_with(s.as_str()) {
                        out.push(*id);
                        rest = &rest[s.len()..];
                        continue 'outer;
                    }
                }
            }
            out.push(self.chars.get(&c).copied().unwrap_or(UNK));
            rest = &rest[c.len_utf8()..];
        }
        out
    }

    fn decode(&self, ids: &[u32]) -> String {
        ids.iter().filter(|&&i| i != PAD && i != BOS && i != EOS).map(|&i| self.token(i)).collect()
    }

    fn vocab_size(&self) -> usize {
        self.tokens.len()
    }
}

/// A byte-level BPE trained on a corpus, wrapping the `tokenizers` crate.
pub struct Bpe {
    inner: tokenizers::Tokenizer,
}

/// Train a byte-level BPE with `vocab_size` entries on `corpus`, offline.
pub fn train_bpe(corpus: &[String], vocab_size: usize) -> Result<Bpe> {
    use tokenizers::models::bpe::{BpeTrainerBuilder, BPE};
    use tokenizers::normalizers::NormalizerWrapper;
    use tokenizers::pre_tokenizers::byte_level::ByteLevel;
    use tokenizers::processors::PostProcessorWrapper;
    use tokenizers::{AddedToken, TokenizerBuilder};

    let mut trainer = BpeTrainerBuilder::new()
        .vocab_size(vocab_size)
        .min_frequency(2)
        .show_progress(false) // otherwise it draws a progress bar into our terminal
        .initial_alphabet(ByteLevel::alphabet().into_iter().collect())
        .special_tokens(vec![
            AddedToken::from("<pad>", true),
            AddedToken::from("<bos>", true),
            AddedToken::from("<eos>", true),
            AddedToken::from("<unk>", true),
        ])
        .build();
    let mut tok = TokenizerBuilder::<BPE, NormalizerWrapper, ByteLevel, PostProcessorWrapper, ByteLevel>::new()
        .with_model(BPE::default())
        .with_pre_tokenizer(Some(ByteLevel::default().add_prefix_space(false)))
        .with_decoder(Some(ByteLevel::default()))
        .build()
        .map_err(|e| anyhow!("building the BPE tokenizer: {e}"))?;
    tok.train(&mut trainer, corpus.iter().map(|s| s.as_str())).map_err(|e| anyhow!("training BPE: {e}"))?;
    Ok(Bpe { inner: tok.into() })
}

impl Bpe {
    /// The tokenizer as JSON (the `tokenizer.json` format of the `tokenizers` crate).
    pub fn to_json(&self) -> Result<String> {
        self.inner.to_string(false).map_err(|e| anyhow!("saving the tokenizer: {e}"))
    }

    pub fn from_json(json: &str) -> Result<Bpe> {
        let inner: tokenizers::Tokenizer = json.parse().map_err(|e| anyhow!("not a tokenizer.json: {e}"))?;
        Ok(Bpe { inner })
    }

    /// A `tokenizer.json` on disk (ours, or a checkpoint's own).
    pub fn load(path: &std::path::Path) -> Result<Bpe> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow!("missing or unreadable {} (the model's tokenizer): {e}", path.display()))?;
        Self::from_json(&text).map_err(|e| anyhow!("reading {}: {e}", path.display()))
    }

    /// Wrap a tokenizer built elsewhere (e.g. from a GGUF's metadata, see
    /// [`crate::ml::gguf_tokenizer`]).
    pub fn from_tokenizer(inner: tokenizers::Tokenizer) -> Bpe {
        Bpe { inner }
    }

    /// The wrapped `tokenizers` tokenizer, for what [`Tokenize`] does not cover
    /// (token strings, offsets, encoding with special tokens kept on decode).
    pub fn tokenizer(&self) -> &tokenizers::Tokenizer {
        &self.inner
    }

    /// The id of a token such as `<|im_end|>`, if the vocabulary has it.
    pub fn token_id(&self, token: &str) -> Option<u32> {
        self.inner.token_to_id(token)
    }
}

impl Tokenize for Bpe {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn char_round_trip_with_specials() {
        let t = CharTokenizer::ascii(&["<obs>", "</obs>"]);
        let text = "Action: calc<obs>42</obs>\n";
        let ids = t.encode(text);
        assert_eq!(t.decode(&ids), text);
        assert_eq!(ids[12], t.id_of("<obs>").unwrap());
        assert_eq!(ids.len(), "Action: calc".len() + 1 + 2 + 1 + 1);
        assert_eq!(t.encode("é"), vec![UNK]);
    }

    #[test]
    fn bpe_trains_offline_and_round_trips() {
        let corpus: Vec<String> =
            (0..200).map(|i| format!("search[capital of land {i}] answer[city {}]", i % 7)).collect();
        let bpe = train_bpe(&corpus, 300).unwrap();
        let text = "search[capital of land 12] answer[city 5]";
        let ids = bpe.encode(text);
        assert!(ids.len() < text.len() / 2, "merges learned: {} ids", ids.len());
        assert_eq!(bpe.decode(&ids), text);
        assert!(bpe.vocab_size() <= 300);
        // The special tokens keep the ids the rest of the code uses.
        assert_eq!(bpe.decode(&[BOS, ids[0], EOS]), bpe.decode(&[ids[0]]));
        assert_eq!(bpe.inner.token_to_id("<bos>"), Some(BOS));
        assert_eq!(bpe.inner.token_to_id("<eos>"), Some(EOS));
        assert_eq!(bpe.inner.token_to_id("<pad>"), Some(PAD));
        let again = Bpe::from_json(&bpe.to_json().unwrap()).unwrap();
        assert_eq!(again.encode(text), ids);
    }
}
