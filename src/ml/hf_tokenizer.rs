//! A checkpoint's own `tokenizer.json` (any model the `tokenizers` crate
//! reads: byte-level BPE for Qwen2, WordPiece, Unigram…) behind our
//! [`Tokenize`](super::tokenizer::Tokenize) trait. It is the same wrapper as
//! the lab's own BPE: [`Bpe::load`] reads the file, [`Bpe::token_id`] finds
//! special tokens.

pub use super::tokenizer::Bpe as HfTokenizer;
