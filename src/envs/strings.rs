//! Reversal in three output formats: tasks that share every input and
//! conflict on every output, for continual learning.
//!
//! A prompt is a word over `a`–`h` followed by a marker; the answer is the
//! word reversed, written in the marker's format: lowercase letters (`=`),
//! uppercase letters (`!`) or digits (`#`, a = 0 … h = 7). The marker is the
//! only thing that tells the tasks apart, so one model can hold all three
//! (task-incremental learning), but training on one format alone teaches it
//! to write that format after any marker — the forgetting the ewc-replay
//! drill measures. The tasks share their hard part (reversal), so what a
//! later task must learn is small: a fair setting for a regulariser.
//!
//! ```
//! use agentlab::envs::strings::StringTask;
//! assert_eq!(StringTask::Lower.prompt("abcde"), "abcde=");
//! assert_eq!(StringTask::Lower.answer("abcde"), "edcba");
//! assert_eq!(StringTask::Upper.answer("abcde"), "EDCBA");
//! assert_eq!(StringTask::Digits.answer("abcdh"), "73210");
//! ```

use crate::ml::data::Example;
use crate::ml::rng::Rng;
use crate::ml::tokenizer::{Tokenize, BOS, EOS};

/// The letters every input word is made of.
pub const LETTERS: &str = "abcdefgh";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringTask {
    /// Reverse, lowercase: `abcde= → edcba`.
    Lower,
    /// Reverse, uppercase: `abcde! → EDCBA`.
    Upper,
    /// Reverse, as digits: `abcde# → 43210`.
    Digits,
}

impl StringTask {
    /// The tasks in the order a drill trains them.
    pub const ALL: [StringTask; 3] = [StringTask::Lower, StringTask::Upper, StringTask::Digits];

    pub fn name(self) -> &'static str {
        match self {
            StringTask::Lower => "lower",
            StringTask::Upper => "upper",
            StringTask::Digits => "digits",
        }
    }

    /// The marker that closes this task's prompts.
    pub fn marker(self) -> char {
        match self {
            StringTask::Lower => '=',
            StringTask::Upper => '!',
            StringTask::Digits => '#',
        }
    }

    /// The characters this task writes, in the order of [`LETTERS`].
    pub fn output_alphabet(self) -> &'static str {
        match self {
            StringTask::Lower => "abcdefgh",
            StringTask::Upper => "ABCDEFGH",
            StringTask::Digits => "01234567",
        }
    }

    pub fn prompt(self, word: &str) -> String {
        format!("{word}{}", self.marker())
    }

    pub fn answer(self, word: &str) -> String {
        let out = self.output_alphabet().as_bytes();
        word.chars().rev().map(|c| LETTERS.find(c).map_or('?', |i| out[i] as char)).collect()
    }
}

/// The characters a tokenizer for these tasks needs.
pub fn alphabet() -> String {
    let mut s: String = StringTask::ALL.iter().map(|t| t.output_alphabet()).collect();
    s.extend(StringTask::ALL.iter().map(|t| t.marker()));
    s
}

/// Every word of `len` letters, shuffled, split into `holdout` test words
/// and the rest for training. The same split serves every task, so a test
/// word is unseen under every marker.
pub fn split_words(len: usize, holdout: usize, rng: &mut Rng) -> (Vec<String>, Vec<String>) {
    let letters: Vec<char> = LETTERS.chars().collect();
    let n = letters.len().pow(len as u32);
    let mut words: Vec<String> = (0..n)
        .map(|mut i| {
            (0..len)
                .map(|_| {
                    let c = letters[i % letters.len()];
                    i /= letters.len();
                    c
                })
                .collect()
        })
        .collect();
    rng.shuffle(&mut words);
    let test = words.split_off(words.len() - holdout.min(n / 2));
    (test, words)
}

/// One task's prompt-answer pairs, split into held-out test pairs,
/// validation pairs (held out from training too, for choosing a
/// hyperparameter) and training pairs.
pub struct TaskPairs {
    pub name: String,
    pub test: Vec<(String, String)>,
    pub val: Vec<(String, String)>,
    pub train: Vec<(String, String)>,
}

impl StringTask {
    /// This task over the words of `len` letters ([`split_words`]): `holdout`
    /// test words, `val` validation words (at most half of the rest), the rest
    /// for training. With `shift` the prompts write the words with `i`–`p`
    /// instead of `a`–`h` (the answer is unchanged: `ijklm#` is read as `abcde#`).
    pub fn pairs(self, len: usize, holdout: usize, val: usize, shift: bool, rng: &mut Rng) -> TaskPairs {
        let (test, mut train) = split_words(len, holdout, rng);
        let val = train.split_off(train.len() - val.min(train.len() / 2));
        let shifted =
            |w: &str| -> String { w.chars().map(|c| if shift { (c as u8 + 8) as char } else { c }).collect() };
        let pairs = |ws: &[String]| ws.iter().map(|w| (self.prompt(&shifted(w)), self.answer(w))).collect();
        let name = if shift { format!("{} (i–p)", self.name()) } else { self.name().to_string() };
        TaskPairs { name, test: pairs(&test), val: pairs(&val), train: pairs(&train) }
    }
}

/// Each character as its own token of `tok` (a BPE's byte tokens), so that
/// the digits and letters the tasks move around are never glued together.
pub fn char_ids(tok: &impl Tokenize, text: &str) -> Vec<u32> {
    text.chars().flat_map(|c| tok.encode(&c.to_string())).collect()
}

/// What a model reads: BOS and the prompt, one token per character.
pub fn prompt_ids(tok: &impl Tokenize, prompt: &str) -> Vec<u32> {
    [BOS].into_iter().chain(char_ids(tok, prompt)).collect()
}

/// What a model should write: the answer, one token per character, and EOS.
pub fn answer_ids(tok: &impl Tokenize, answer: &str) -> Vec<u32> {
    char_ids(tok, answer).into_iter().chain([EOS]).collect()
}

/// A prompt-answer pair as a training example: the loss covers the answer and EOS.
pub fn char_example(tok: &impl Tokenize, prompt: &str, answer: &str) -> Example {
    Example::prompt_answer(&prompt_ids(tok, prompt), &answer_ids(tok, answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_is_disjoint_and_formats_never_agree() {
        let (test, train) = split_words(5, 100, &mut Rng::new(3));
        assert_eq!(test.len(), 100);
        assert_eq!(train.len(), 8usize.pow(5) - 100);
        assert!(test.iter().all(|w| !train.contains(w)));
        for w in train.iter().take(200) {
            let outs: Vec<String> = StringTask::ALL.iter().map(|t| t.answer(w)).collect();
            assert!(outs[0] != outs[1] && outs[1] != outs[2] && outs[0] != outs[2]);
        }
    }

    #[test]
    fn alphabet_covers_prompts_and_answers() {
        let a = alphabet();
        for t in StringTask::ALL {
            assert!(t.prompt("abh").chars().chain(t.answer("abh").chars()).all(|c| a.contains(c)));
        }
        assert_eq!(StringTask::Digits.answer("hga"), "067");
    }

    #[test]
    fn pairs_split_three_ways_and_shift_the_prompt_only() {
        let t = StringTask::Digits.pairs(3, 20, 10, true, &mut Rng::new(1));
        assert_eq!((t.test.len(), t.val.len(), t.train.len()), (20, 10, 8usize.pow(3) - 30));
        assert_eq!(t.name, "digits (i–p)");
        let (q, a) = &t.test[0];
        let word: String = q[..3].chars().map(|c| (c as u8 - 8) as char).collect();
        assert_eq!((q.ends_with('#'), a.as_str()), (true, StringTask::Digits.answer(&word).as_str()));
    }

    #[test]
    fn a_char_example_trains_the_answer_one_token_per_character() {
        let (_, tok) = crate::ml::base::shipped(&candle_core::Device::Cpu).unwrap();
        let e = char_example(&tok, "ab#", "10");
        assert_eq!(e.tokens.len(), 1 + 3 + 2 + 1);
        assert_eq!((e.tokens[0], e.tokens[6]), (BOS, EOS));
        assert_eq!(tok.decode(&e.tokens[1..4]), "ab#");
        assert_eq!(e.train, vec![false, false, false, false, true, true, true]);
    }
}
