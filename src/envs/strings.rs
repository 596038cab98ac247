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

use crate::ml::rng::Rng;

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
}
