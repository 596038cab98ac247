//! How the text of the self-refine task (`src/envs/refine_arith.rs`)
//! becomes one model's tokens, and its training examples: first drafts
//! (`347+285=2360`) and refinement traces (`347+285=2260|.^..>2360`, a
//! draft, its critique, the revision; the loss covers the critique and the
//! revision).
//!
//! The tiny GPT reads one token per character of [`ALPHABET`]. A real chat
//! model reads the problem as the user's message of its chat template
//! (`src/envs/format.rs`), and everything after it one token per character.

use anyhow::{bail, Result};

use super::format::Format;
use super::refine_arith::{corrupt, critic_tail, critique, Problem, ALPHABET, CRIT_OPEN, REV_OPEN};
use super::Role;
use crate::ml::data::Example;
use crate::ml::rng::Rng;
use crate::ml::tokenizer::{Bpe, CharTokenizer, Tokenize, EOS};

/// How the task's text becomes one model's tokens.
pub enum Codec {
    /// The tiny GPT's vocabulary: one token per character of [`ALPHABET`].
    Chars(CharTokenizer),
    /// A real model's BPE: the problem through the chat template, everything
    /// after it one token per character, so that a draft or a critique reads
    /// the same whether the model wrote it or it was put in its prompt (a BPE
    /// would merge `..` in one and not in the other).
    Chat(Box<ChatCodec>),
}

pub struct ChatCodec {
    tok: Bpe,
    fmt: Format,
    /// The single token of each character of [`ALPHABET`].
    chars: Vec<(char, u32)>,
}

impl Codec {
    pub fn chat(tok: Bpe, fmt: Format) -> Result<Codec> {
        let mut chars = Vec::new();
        for c in ALPHABET.chars() {
            match tok.encode(&c.to_string())[..] {
                [id] => chars.push((c, id)),
                _ => bail!("the model's vocabulary has no single token for {c:?}, which the critique notation needs"),
            }
        }
        Ok(Codec::Chat(Box::new(ChatCodec { tok, fmt, chars })))
    }

    /// Ids of `text` after the problem (drafts, critiques, marks).
    pub fn tail(&self, text: &str) -> Vec<u32> {
        match self {
            Codec::Chars(tok) => tok.encode(text),
            Codec::Chat(c) => text
                .chars()
                .flat_map(|ch| match c.chars.iter().find(|(k, _)| *k == ch) {
                    Some((_, id)) => vec![*id],
                    None => c.tok.encode(&ch.to_string()),
                })
                .collect(),
        }
    }

    /// Ids of the problem `p` and then `tail`: what the model continues.
    pub fn prompt(&self, p: &Problem, tail: &str) -> Vec<u32> {
        match self {
            Codec::Chars(tok) => tok.encode(&format!("{}{tail}", p.prompt())),
            Codec::Chat(c) => {
                let mut ids: Vec<u32> = c.fmt.bos.into_iter().collect();
                ids.extend(c.fmt.encode(&c.tok, Role::Prompt, &p.prompt()));
                ids.extend(self.tail(tail));
                ids
            }
        }
    }

    /// The end of a draft or a revision (the chat template's end of turn).
    pub fn eos(&self) -> u32 {
        match self {
            Codec::Chars(_) => EOS,
            Codec::Chat(c) => c.fmt.eos,
        }
    }

    /// The token that ends a critique (`>`).
    pub fn rev_stop(&self) -> u32 {
        self.tail(&REV_OPEN.to_string())[0]
    }

    /// A generated draft, critique or revision as text. A real model may
    /// write a token that carries a mark and a separator together (`.>`), so
    /// its text ends at the first separator.
    pub fn text(&self, ids: &[u32]) -> String {
        match self {
            Codec::Chars(tok) => tok.decode(ids),
            Codec::Chat(c) => c.tok.decode(ids).split([CRIT_OPEN, REV_OPEN]).next().unwrap_or_default().to_string(),
        }
    }

    /// One token as text, for the token view.
    pub fn token_text(&self, id: u32) -> String {
        if id == self.eos() {
            return "⏎".into();
        }
        match self {
            Codec::Chars(tok) => tok.token(id).to_string(),
            // Special tokens (`<|im_start|>`) shown too: they are what the model reads.
            Codec::Chat(c) => c.tok.tokenizer().decode(&[id], false).unwrap_or_default(),
        }
    }
}

/// The problem `p`, then `tail` untrained and `trained` in the loss, then the end token (in the loss).
pub fn example(c: &Codec, p: &Problem, tail: &str, trained: &str) -> Example {
    let mut tokens = c.prompt(p, tail);
    let mut train = vec![false; tokens.len()];
    let ids = c.tail(trained);
    train.extend(std::iter::repeat_n(true, ids.len() + 1));
    tokens.extend(ids);
    tokens.push(c.eos());
    Example::new(tokens, train)
}

pub fn draft_example(c: &Codec, p: &Problem, answer: &str) -> Example {
    example(c, p, "", answer)
}

/// `prompt draft|critique>revision⏎`, loss on the critique and the revision.
pub fn refine_example(c: &Codec, p: &Problem, draft: &str, crit: &str, revision: &str) -> Example {
    example(c, p, &critic_tail(draft), &format!("{crit}{REV_OPEN}{revision}"))
}

/// One SFT example: a first draft, or a refinement trace from a synthetic draft.
pub fn sft_example(c: &Codec, p: &Problem, draft_frac: f64, correct_frac: f64, rng: &mut Rng) -> Example {
    let gold = p.answer();
    if rng.bool(draft_frac) {
        return draft_example(c, p, &gold);
    }
    let draft = if rng.bool(correct_frac) { gold.clone() } else { corrupt(&gold, rng) };
    refine_example(c, p, &draft, &critique(&draft, &gold), &gold)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ml::gguf_tokenizer::ChatTemplate;

    #[test]
    fn a_refinement_trace_trains_the_critique_the_revision_and_the_end() {
        let c = Codec::Chars(CharTokenizer::new(ALPHABET, &[]));
        let p = Problem { a: 347, b: 285, digits: 3 };
        let e = refine_example(&c, &p, "2260", ".^..", "2360");
        assert_eq!(c.text(&e.tokens[..e.tokens.len() - 1]), "347+285=2260|.^..>2360");
        let n_prompt = "347+285=2260|".len();
        assert!(e.train.iter().enumerate().all(|(i, &t)| t == (i >= n_prompt)));
        assert_eq!((*e.tokens.last().unwrap(), c.rev_stop()), (EOS, c.tail(">")[0]));
        let d = draft_example(&c, &p, "2360");
        assert_eq!(d.train.iter().filter(|t| **t).count(), 5);
    }

    #[test]
    fn a_chat_codec_wraps_the_problem_and_writes_the_rest_by_character() {
        let bpe = || crate::ml::base::shipped(&candle_core::Device::Cpu).unwrap().1;
        let tok = bpe();
        let fmt = Format::new(&tok, None, EOS, Some(ChatTemplate::chatml()), "Add.");
        let c = Codec::chat(bpe(), fmt).unwrap();
        let p = Problem { a: 12, b: 34, digits: 2 };
        assert_eq!(c.tail("..^"), vec![c.tail(".")[0], c.tail(".")[0], c.tail("^")[0]]);
        let ids = c.prompt(&p, "640|");
        assert!(tok.decode(&ids).contains("12+34=") && ids.ends_with(&c.tail("640|")));
        // A generated text ends at the first separator.
        assert_eq!(c.text(&c.tail("640|..")), "640");
    }
}
