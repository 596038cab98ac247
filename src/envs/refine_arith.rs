//! Addition with a checkable answer and a digit-level critique: the task of
//! the self-refine-loop drill.
//!
//! A problem is `a+b=` with `a, b < 10^digits`; the answer is the sum written
//! with `digits + 1` digits, least significant first (`347+285=` → `2360`,
//! since 632 → `0632` → reversed). The verifier compares an answer with the
//! gold one position by position:
//!
//! * score = fraction of positions right (partial credit), pass = all right;
//! * critique = one mark per position: `.` right, `^` the digit is too low,
//!   `v` too high, `?` missing or not a digit.
//!
//! ```
//! use agentlab::envs::refine_arith::{critique, score, Problem};
//! let p = Problem { a: 347, b: 285, digits: 3 };
//! assert_eq!(p.prompt(), "347+285=");
//! assert_eq!(p.answer(), "2360");
//! assert_eq!(critique("2260", &p.answer()), ".^..");
//! assert_eq!(score("2260", &p.answer()), 0.75);
//! ```
//!
//! A revision is generated after `draft|critique>`, so one training sequence
//! reads `347+285=2260|.^..>2360`.

use crate::ml::rng::Rng;

/// Separates a draft from its critique.
pub const CRIT_OPEN: char = '|';
/// Separates a critique from the revision.
pub const REV_OPEN: char = '>';

/// Every character the formats use.
pub const ALPHABET: &str = "0123456789+=|>.^v?";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Problem {
    pub a: u32,
    pub b: u32,
    pub digits: usize,
}

impl Problem {
    pub fn random(digits: usize, rng: &mut Rng) -> Problem {
        let n = 10usize.pow(digits as u32);
        Problem { a: rng.below(n) as u32, b: rng.below(n) as u32, digits }
    }

    pub fn prompt(&self) -> String {
        let w = self.digits;
        format!("{:0w$}+{:0w$}=", self.a, self.b)
    }

    /// The gold answer: `digits + 1` digits, least significant first.
    pub fn answer(&self) -> String {
        let w = self.digits + 1;
        format!("{:0w$}", self.a + self.b).chars().rev().collect()
    }

    /// The answer with every carry dropped: each digit is `(a_i + b_i) mod 10`,
    /// same width and order as [`Problem::answer`] (`47+85=` → `220`, not
    /// `231`). The systematic slip the dpo-pairs drill plants in its SFT data.
    pub fn carry_dropped(&self) -> String {
        let (mut a, mut b) = (self.a, self.b);
        let mut out = String::with_capacity(self.digits + 1);
        for _ in 0..self.digits {
            out.push(char::from_digit((a % 10 + b % 10) % 10, 10).expect("digit"));
            a /= 10;
            b /= 10;
        }
        out.push('0');
        out
    }

    /// Whether the sum carries into the top digit (`a + b ≥ 10^digits`).
    pub fn carries_out(&self) -> bool {
        (self.a + self.b) as usize >= 10usize.pow(self.digits as u32)
    }

    /// The answer with only the carry into the top digit dropped: the last
    /// digit (least significant first, so the top one) reads `0` (`47+85=` →
    /// `230`, not `231`). The systematic slip of the pass-at-k-harness
    /// drill's warm-start data; the answer itself when nothing carries out.
    pub fn top_carry_dropped(&self) -> String {
        let mut s = self.answer();
        s.pop();
        s.push('0');
        s
    }

    /// Whether adding the operands carries at all (else `carry_dropped` is the answer).
    pub fn has_carry(&self) -> bool {
        self.carry_dropped() != self.answer()
    }
}

/// What follows the problem before a revision: `draft|critique>`.
pub fn revise_tail(draft: &str, critique: &str) -> String {
    format!("{draft}{CRIT_OPEN}{critique}{REV_OPEN}")
}

/// What follows the problem before a critique: `draft|`.
pub fn critic_tail(draft: &str) -> String {
    format!("{draft}{CRIT_OPEN}")
}

/// Fraction of the gold answer's positions that `answer` gets right.
pub fn score(answer: &str, gold: &str) -> f64 {
    let right = gold.chars().zip(answer.chars()).filter(|(g, a)| g == a).count();
    right as f64 / gold.chars().count().max(1) as f64
}

pub fn passes(answer: &str, gold: &str) -> bool {
    answer == gold
}

/// The verifier's feedback as text: one mark per gold position.
pub fn critique(answer: &str, gold: &str) -> String {
    let a: Vec<char> = answer.chars().collect();
    gold.chars()
        .enumerate()
        .map(|(i, g)| match a.get(i).and_then(|c| c.to_digit(10)) {
            Some(d) if Some(d) == g.to_digit(10) => '.',
            Some(d) if d < g.to_digit(10).unwrap_or(0) => '^',
            Some(_) => 'v',
            None => '?',
        })
        .collect()
}

/// The score a critique implies (its share of `.` marks): what a critic that
/// is the model itself believes about the answer.
pub fn critique_score(critique: &str, width: usize) -> f64 {
    critique.chars().take(width).filter(|c| *c == '.').count() as f64 / width.max(1) as f64
}

/// A plausible wrong draft for the SFT data: one or two digits changed,
/// mostly by ±1 (the carry slips a small model makes), sometimes to any digit.
pub fn corrupt(gold: &str, rng: &mut Rng) -> String {
    let mut d: Vec<u32> = gold.chars().map(|c| c.to_digit(10).unwrap_or(0)).collect();
    let n = d.len();
    let changes = if rng.bool(0.3) { 2 } else { 1 };
    for _ in 0..changes {
        let i = rng.below(n);
        let old = d[i];
        d[i] = if rng.bool(0.6) {
            if (rng.bool(0.5) && old < 9) || old == 0 {
                old + 1
            } else {
                old - 1
            }
        } else {
            (old + 1 + rng.below(9) as u32) % 10
        };
    }
    d.into_iter().map(|x| char::from_digit(x, 10).expect("digit")).collect()
}

/// How a problem is put to a model: the format it was trained on, or one of
/// three it never saw (a harness choice that moves the score, `pass-at-k-harness`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PromptFormat {
    /// `47+38=`: the format of every warm-start example (a control).
    Trained,
    /// `47 + 38 =`: spaces around the operators; the model never read a space.
    Spaced,
    /// `047+038=`: each operand with one more leading zero.
    Padded,
    /// `7+38=`: operands without leading zeros.
    Unpadded,
}

impl PromptFormat {
    pub fn prompt(self, q: &Problem) -> String {
        let w = q.digits;
        match self {
            PromptFormat::Trained => q.prompt(),
            PromptFormat::Spaced => format!("{:0w$} + {:0w$} =", q.a, q.b),
            PromptFormat::Padded => format!("{:0w$}+{:0w$}=", q.a, q.b, w = w + 1),
            PromptFormat::Unpadded => format!("{}+{}=", q.a, q.b),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PromptFormat::Trained => "trained",
            PromptFormat::Spaced => "spaced",
            PromptFormat::Padded => "padded",
            PromptFormat::Unpadded => "unpadded",
        }
    }
}

/// Held-out problems, and fresh problems that never coincide with one.
pub struct HeldOut {
    digits: usize,
    pub test: Vec<Problem>,
    held: std::collections::HashSet<(u32, u32)>,
}

impl HeldOut {
    /// `n` random held-out problems of `digits` digits.
    pub fn new(digits: usize, n: usize, rng: &mut Rng) -> HeldOut {
        let test: Vec<Problem> = (0..n).map(|_| Problem::random(digits, rng)).collect();
        let held = test.iter().map(|q| (q.a, q.b)).collect();
        HeldOut { digits, test, held }
    }

    /// `n` distinct random held-out problems of `digits` digits.
    pub fn distinct(digits: usize, n: usize, rng: &mut Rng) -> HeldOut {
        let (mut test, mut held) = (Vec::new(), std::collections::HashSet::new());
        while test.len() < n {
            let q = Problem::random(digits, rng);
            if held.insert((q.a, q.b)) {
                test.push(q);
            }
        }
        HeldOut { digits, test, held }
    }

    /// A random problem that is not held out.
    pub fn fresh(&self, rng: &mut Rng) -> Problem {
        loop {
            let p = Problem::random(self.digits, rng);
            if !self.held.contains(&(p.a, p.b)) {
                return p;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gold_answers_and_critiques() {
        let p = Problem { a: 99, b: 1, digits: 2 };
        assert_eq!(p.prompt(), "99+01=");
        assert_eq!(p.answer(), "001");
        assert_eq!(critique("001", "001"), "...");
        assert_eq!(critique("10", "001"), "v.?");
        assert_eq!(critique("0x1", "001"), ".?.");
        assert_eq!(score("10", "001"), 1.0 / 3.0);
        assert!(passes("001", "001") && !passes("0010", "001"));
        assert_eq!(format!("{}{}", p.prompt(), revise_tail("101", "v..")), "99+01=101|v..>");
        assert_eq!(format!("{}{}", p.prompt(), critic_tail("101")), "99+01=101|");
        assert_eq!(critique_score(".v.", 3), 2.0 / 3.0);
    }

    #[test]
    fn dropping_the_carries() {
        let p = Problem { a: 47, b: 85, digits: 2 };
        assert_eq!((p.answer().as_str(), p.carry_dropped().as_str()), ("231", "220"));
        assert!(p.has_carry());
        let q = Problem { a: 123, b: 405, digits: 3 };
        assert_eq!(q.carry_dropped(), q.answer());
        assert!(!q.has_carry());
        assert_eq!(Problem { a: 99, b: 1, digits: 2 }.carry_dropped(), "090");
    }

    #[test]
    fn dropping_the_top_carry() {
        let p = Problem { a: 47, b: 85, digits: 2 };
        assert!(p.carries_out());
        assert_eq!((p.answer().as_str(), p.top_carry_dropped().as_str()), ("231", "230"));
        let q = Problem { a: 47, b: 52, digits: 2 };
        assert!(!q.carries_out());
        assert_eq!(q.top_carry_dropped(), q.answer());
        let r = Problem { a: 50, b: 50, digits: 2 };
        assert!(r.carries_out());
        assert_eq!((r.answer().as_str(), r.top_carry_dropped().as_str()), ("001", "000"));
        assert!(!Problem { a: 999, b: 0, digits: 3 }.carries_out());
    }

    #[test]
    fn corruptions_are_wrong_and_well_formed() {
        let mut rng = Rng::new(5);
        for _ in 0..500 {
            let p = Problem::random(3, &mut rng);
            let gold = p.answer();
            let bad = corrupt(&gold, &mut rng);
            assert_eq!(bad.len(), gold.len());
            assert!(bad.chars().all(|c| c.is_ascii_digit()));
            // Two changes can cancel out; one never does.
            if bad == gold {
                continue;
            }
            assert!(critique(&bad, &gold).chars().any(|c| c != '.'));
        }
    }

    #[test]
    fn prompt_formats() {
        let q = Problem { a: 7, b: 38, digits: 2 };
        let f = [PromptFormat::Trained, PromptFormat::Spaced, PromptFormat::Padded, PromptFormat::Unpadded];
        assert_eq!(f.map(|f| f.prompt(&q)), ["07+38=", "07 + 38 =", "007+038=", "7+38="].map(String::from));
    }

    #[test]
    fn fresh_problems_are_never_held_out() {
        let mut rng = Rng::new(2);
        let h = HeldOut::new(1, 60, &mut rng);
        assert_eq!(h.test.len(), 60);
        let d = HeldOut::distinct(1, 60, &mut rng);
        assert_eq!(d.held.len(), 60, "60 different problems");
        for _ in 0..200 {
            let p = h.fresh(&mut rng);
            assert!(!h.test.iter().any(|q| (q.a, q.b) == (p.a, p.b)));
        }
    }
}
