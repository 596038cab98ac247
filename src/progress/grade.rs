//! Grading a learner's response to a quiz item, and parsing typed answers.
//!
//! `choice`, `numeric` and `order` items grade themselves; `open` items have
//! no automatic grade (the learner compares with the reference and rates).
//!
//! ```
//! use agentlab::content::Answer;
//! use agentlab::progress::grade::{grade, Response};
//! let a = Answer::Numeric { value: 0.5, tolerance: 0.01 };
//! assert_eq!(grade(&a, &Response::Numeric(0.505)), Some(true));
//! assert_eq!(grade(&a, &Response::Numeric(0.6)), Some(false));
//! ```

use crate::content::{Answer, QuizItem};

/// What the learner answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    /// Indices into `choices` the learner picked.
    Choice(Vec<usize>),
    Numeric(f64),
    /// Step indices (into the item's correct order) in the order the learner put them.
    Order(Vec<usize>),
    /// Open items: the learner thought (or typed) and then revealed the reference.
    Open,
}

/// `Some(correct)` for auto-graded kinds, `None` for open items (and for a
/// response of the wrong kind, which the callers never produce).
pub fn grade(answer: &Answer, response: &Response) -> Option<bool> {
    match (answer, response) {
        (Answer::Choice { correct, .. }, Response::Choice(picked)) => {
            let mut p = picked.clone();
            p.sort_unstable();
            p.dedup();
            Some(&p == correct)
        }
        // A tiny slack so that a tolerance of 0 still accepts the decimal the learner typed.
        (Answer::Numeric { value, tolerance }, Response::Numeric(x)) => {
            Some(x.is_finite() && (x - value).abs() <= tolerance + 1e-9 * value.abs().max(1.0))
        }
        (Answer::Order { steps }, Response::Order(seq)) => {
            Some(seq.len() == steps.len() && seq.iter().enumerate().all(|(i, &s)| s == i))
        }
        _ => None,
    }
}

/// The order in which an `order` item's steps are shown the first time
/// ([`order_shuffle_at`] showing 0): a fixed shuffle derived from the item id
/// (so a script can rely on it), never the answer.
pub fn order_shuffle(item: &QuizItem) -> Vec<usize> {
    order_shuffle_at(item, 0)
}

/// FNV-1a of the id, mixed with the showing and a variant: the seed of one shuffle.
fn seed(id: &str, showing: u64, variant: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in id.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    if showing > 0 || variant > 0 {
        h ^= showing.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ variant.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// A permutation of `0..n` by Fisher–Yates over a small LCG seeded with `h`.
fn permutation(n: usize, mut h: u64) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        h = h.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let j = ((h >> 33) % (i as u64 + 1)) as usize;
        perm.swap(i, j);
    }
    perm
}

/// The order of an `order` item's steps at its `showing`-th showing (0: the
/// first time it is asked; the learner's earlier answers count them): never
/// the answer, and never the arrangement of the showing before.
pub fn order_shuffle_at(item: &QuizItem, showing: u64) -> Vec<usize> {
    let n = match &item.answer {
        Answer::Order { steps } => steps.len(),
        _ => return Vec::new(),
    };
    let mut prev: Option<Vec<usize>> = None;
    let mut out = Vec::new();
    for k in 0..=showing.min(MAX_SHOWINGS) {
        let sorted = |p: &Vec<usize>| p.iter().enumerate().all(|(i, &x)| i == x);
        let mut perm = permutation(n, seed(&item.id, k, 0));
        for v in 1..16 {
            if !sorted(&perm) && prev.as_ref() != Some(&perm) {
                break;
            }
            perm = permutation(n, seed(&item.id, k, v));
        }
        if sorted(&perm) {
            perm.rotate_left(1);
        }
        prev = Some(perm.clone());
        out = perm;
    }
    out
}

/// Showings past this one reuse its shuffle (the cycle is long enough for a learner).
const MAX_SHOWINGS: u64 = 256;

/// Whether a choice keeps its place when the options are shuffled:
/// "all of the above"-style options, which only read right where they are
/// (last), in English and Chinese.
pub fn pinned(choice: &str) -> bool {
    let c = choice.trim().to_lowercase();
    ["of the above", "以上", "上述"].iter().any(|p| c.contains(p))
}

/// `item` as shown at its `showing`-th showing (0: the first time it is
/// asked; the learner's earlier answers count them). A choice item's options
/// are shuffled, the key following its choice (not its letter), a
/// [pinned] option keeping its place; the right letter(s) differ from the
/// showing before (the authored order before the first) whenever the
/// options allow it. Other kinds are returned as they are (an order item's
/// steps are arranged by [`order_shuffle_at`]).
pub fn shown(item: &QuizItem, showing: u64) -> QuizItem {
    // A templated numeric item draws fresh inputs after its first showing.
    let item = &item.instance(showing);
    let Answer::Choice { choices, correct } = &item.answer else { return item.clone() };
    let free: Vec<usize> = (0..choices.len()).filter(|&i| !pinned(&choices[i])).collect();
    let arrange = |perm: &[usize]| -> Vec<usize> {
        // perm over the free positions: position free[i] shows choice free[perm[i]].
        let mut order: Vec<usize> = (0..choices.len()).collect();
        for (i, &p) in perm.iter().enumerate() {
            order[free[i]] = free[p];
        }
        order
    };
    let key_at = |order: &[usize]| -> Vec<usize> {
        let mut k: Vec<usize> = (0..order.len()).filter(|&i| correct.contains(&order[i])).collect();
        k.sort_unstable();
        k
    };
    let mut prev_key = correct.clone();
    let mut order: Vec<usize> = (0..choices.len()).collect();
    for k in 0..=showing.min(MAX_SHOWINGS) {
        for v in 0..16 {
            order = arrange(&permutation(free.len(), seed(&item.id, k, v)));
            if key_at(&order) != prev_key {
                break;
            }
        }
        prev_key = key_at(&order);
    }
    let mut out = item.clone();
    out.answer =
        Answer::Choice { choices: order.iter().map(|&i| choices[i].clone()).collect(), correct: key_at(&order) };
    out
}

/// Letter label of the `i`-th choice or step: `a`, `b`, …
pub fn letter(i: usize) -> char {
    (b'a' + i as u8) as char
}

/// Parse a choice answer: `b`, `a,c`, `a c`, `ac`, `B` or numbers `2`, `1,3`.
/// Returns indices (0-based) or a message saying what is wrong.
pub fn parse_choice(input: &str, n: usize) -> Result<Vec<usize>, String> {
    let s = input.trim().to_ascii_lowercase();
    if s.is_empty() {
        return Err(crate::t!("progress-grade-type-letter", last = letter(n - 1).to_string()));
    }
    let mut out = Vec::new();
    let tokens: Vec<&str> = s.split(|c: char| c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()).collect();
    for tok in tokens {
        if let Ok(k) = tok.parse::<usize>() {
            if k == 0 || k > n {
                return Err(crate::t!(
                    "progress-grade-not-a-choice-number",
                    k = k.to_string(),
                    last = letter(n - 1).to_string(),
                    n = n.to_string()
                ));
            }
            out.push(k - 1);
            continue;
        }
        for c in tok.chars() {
            let k = (c as u32).wrapping_sub('a' as u32) as usize;
            if !c.is_ascii_lowercase() || k >= n {
                return Err(crate::t!(
                    "progress-grade-not-a-choice-letter",
                    c = c.to_string(),
                    last = letter(n - 1).to_string()
                ));
            }
            out.push(k);
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// Parse a number (`0.5`, `-1`, `1e-3`, `50%` is refused with a hint).
pub fn parse_numeric(input: &str) -> Result<f64, String> {
    let s = input.trim().replace('\u{2212}', "-");
    let s = s.as_str();
    if s.is_empty() {
        return Err(crate::t!("progress-grade-type-number"));
    }
    let not_a_number = || crate::t!("progress-grade-not-a-number", input = s);
    let one = |t: &str| -> Result<f64, String> {
        match t.trim().parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            Ok(_) => Err(crate::t!("progress-grade-finite")),
            Err(_) if t.trim().ends_with('%') => Err(crate::t!("progress-grade-no-percent")),
            Err(_) => Err(not_a_number()),
        }
    };
    // A fraction is its value: 1/16 is 0.0625 (not "116").
    match s.split_once('/') {
        None => one(s),
        Some((a, b)) if !b.contains('/') && !a.trim().is_empty() && !b.trim().is_empty() => {
            let (a, b) = (one(a)?, one(b)?);
            if b == 0.0 {
                return Err(crate::t!("progress-grade-divides-by-zero", input = s));
            }
            Ok(a / b)
        }
        Some(_) => Err(not_a_number()),
    }
}

/// Parse an order answer given as positions of the *shown* steps: `3 1 2`,
/// `3,1,2`, `312` or letters `cab`. Returns the shown positions (0-based) in
/// the learner's order; every position must appear exactly once.
pub fn parse_order(input: &str, n: usize) -> Result<Vec<usize>, String> {
    let s = input.trim().to_ascii_lowercase();
    let hint = crate::t!(
        "progress-grade-order-hint",
        n = n.to_string(),
        digits = example_digits(n),
        letters = example_letters(n)
    );
    if s.is_empty() {
        return Err(hint);
    }
    let tokens: Vec<&str> = s.split(|c: char| c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()).collect();
    let mut out = Vec::new();
    let single_chars = tokens.len() == 1 && tokens[0].chars().count() == n;
    let pieces: Vec<String> = if single_chars {
        tokens[0].chars().map(String::from).collect()
    } else {
        tokens.iter().map(|t| t.to_string()).collect()
    };
    for p in &pieces {
        let k = if let Ok(k) = p.parse::<usize>() {
            if k == 0 || k > n {
                return Err(crate::t!(
                    "progress-grade-not-a-step-number",
                    k = k.to_string(),
                    n = n.to_string(),
                    hint = hint
                ));
            }
            k - 1
        } else {
            let mut cs = p.chars();
            match (cs.next(), cs.next()) {
                (Some(c), None) if c.is_ascii_lowercase() && ((c as u8 - b'a') as usize) < n => {
                    (c as u8 - b'a') as usize
                }
                _ => return Err(crate::t!("progress-grade-not-a-step", p = p.as_str(), hint = hint)),
            }
        };
        out.push(k);
    }
    let mut seen = vec![false; n];
    for &k in &out {
        if seen[k] {
            return Err(crate::t!("progress-grade-twice", k = (k + 1).to_string(), hint = hint));
        }
        seen[k] = true;
    }
    if out.len() != n {
        return Err(crate::t!("progress-grade-count", given = out.len().to_string(), n = n.to_string(), hint = hint));
    }
    Ok(out)
}

fn example_digits(n: usize) -> String {
    (1..=n).rev().map(|k| k.to_string()).collect::<Vec<_>>().join(" ")
}

fn example_letters(n: usize) -> String {
    (0..n).rev().map(letter).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(correct: &[usize]) -> Answer {
        Answer::Choice { choices: vec!["x".into(); 4], correct: correct.to_vec() }
    }

    #[test]
    fn choice_needs_exactly_the_correct_set() {
        assert_eq!(grade(&choice(&[1]), &Response::Choice(vec![1])), Some(true));
        assert_eq!(grade(&choice(&[1]), &Response::Choice(vec![2])), Some(false));
        assert_eq!(grade(&choice(&[0, 2]), &Response::Choice(vec![2, 0])), Some(true));
        assert_eq!(grade(&choice(&[0, 2]), &Response::Choice(vec![0])), Some(false), "a subset is wrong");
        assert_eq!(grade(&choice(&[0, 2]), &Response::Choice(vec![0, 1, 2])), Some(false), "a superset is wrong");
    }

    #[test]
    fn numeric_uses_the_tolerance() {
        let a = Answer::Numeric { value: -0.5, tolerance: 0.01 };
        assert_eq!(grade(&a, &Response::Numeric(-0.5)), Some(true));
        assert_eq!(grade(&a, &Response::Numeric(-0.509)), Some(true));
        assert_eq!(grade(&a, &Response::Numeric(-0.52)), Some(false));
        assert_eq!(grade(&a, &Response::Numeric(f64::NAN)), Some(false));
        let exact = Answer::Numeric { value: 0.1 + 0.2, tolerance: 0.0 };
        assert_eq!(grade(&exact, &Response::Numeric(0.3)), Some(true), "a zero tolerance accepts the typed decimal");
    }

    #[test]
    fn order_is_right_only_in_the_exact_order() {
        let a = Answer::Order { steps: vec!["a".into(), "b".into(), "c".into()] };
        assert_eq!(grade(&a, &Response::Order(vec![0, 1, 2])), Some(true));
        assert_eq!(grade(&a, &Response::Order(vec![1, 0, 2])), Some(false));
        assert_eq!(grade(&a, &Response::Order(vec![0, 1])), Some(false));
    }

    #[test]
    fn open_items_have_no_automatic_grade() {
        let a = Answer::Open { reference: "r".into() };
        assert_eq!(grade(&a, &Response::Open), None);
    }

    #[test]
    fn typed_answers_parse_or_explain() {
        assert_eq!(parse_choice("b", 4), Ok(vec![1]));
        assert_eq!(parse_choice(" A, c ", 4), Ok(vec![0, 2]));
        assert_eq!(parse_choice("ca", 4), Ok(vec![0, 2]));
        assert_eq!(parse_choice("1 3", 4), Ok(vec![0, 2]));
        assert!(parse_choice("e", 4).unwrap_err().contains("a–d"));
        assert!(parse_choice("", 4).is_err());
        assert_eq!(parse_numeric(" 0.25 "), Ok(0.25));
        assert_eq!(parse_numeric("1e-3"), Ok(1e-3));
        assert!(parse_numeric("25%").unwrap_err().contains("without %"));
        assert!(parse_numeric("abc").unwrap_err().contains("not a number"));
        assert!(parse_numeric("inf").is_err());
        assert_eq!(parse_numeric("1/16"), Ok(0.0625));
        assert_eq!(parse_numeric(" -3 / 4 "), Ok(-0.75));
        assert_eq!(parse_numeric("1e-3/2"), Ok(5e-4));
        assert_eq!(parse_numeric("\u{2212}0.5"), Ok(-0.5));
        assert_eq!(parse_numeric("-.5"), Ok(-0.5));
        assert!(parse_numeric("1/0").unwrap_err().contains("divides by 0"));
        for bad in ["1/", "/2", "1/2/3", "1//2", "a/2", "1 16"] {
            assert!(parse_numeric(bad).unwrap_err().contains("not a number"), "{bad}");
        }
        assert_eq!(parse_order("3 1 2", 3), Ok(vec![2, 0, 1]));
        assert_eq!(parse_order("312", 3), Ok(vec![2, 0, 1]));
        assert_eq!(parse_order("cab", 3), Ok(vec![2, 0, 1]));
        assert_eq!(parse_order("c,a,b", 3), Ok(vec![2, 0, 1]));
        assert!(parse_order("1 1 2", 3).unwrap_err().contains("twice"));
        assert!(parse_order("1 2", 3).unwrap_err().contains("2 of 3"));
        assert!(parse_order("1 2 9", 3).is_err());
    }

    #[test]
    fn the_shown_order_is_fixed_and_never_the_answer() {
        for id in ["a", "b", "arl-l2-order", "x-y-z"] {
            let item = QuizItem {
                id: id.into(),
                track: 0,
                level: crate::content::Level::L2,
                prompt: "p".into(),
                answer: Answer::Order { steps: vec!["1".into(), "2".into(), "3".into(), "4".into()] },
                explanation: "e".into(),
                sheet: None,
                drill: None,
                check: None,
                template: None,
            };
            let p = order_shuffle(&item);
            assert_eq!(p, order_shuffle(&item));
            assert_ne!(p, vec![0, 1, 2, 3]);
            let mut s = p.clone();
            s.sort_unstable();
            assert_eq!(s, vec![0, 1, 2, 3]);
        }
    }

    fn choice_item(id: &str, choices: &[&str], correct: &[usize]) -> QuizItem {
        QuizItem {
            id: id.into(),
            track: 0,
            level: crate::content::Level::L1,
            prompt: "p".into(),
            answer: Answer::Choice {
                choices: choices.iter().map(|c| c.to_string()).collect(),
                correct: correct.to_vec(),
            },
            explanation: "e".into(),
            sheet: None,
            drill: None,
            check: None,
            template: None,
        }
    }

    #[test]
    fn choices_are_shuffled_per_showing_and_the_key_follows_the_choice() {
        let item = choice_item("t-l1-x", &["alpha", "beta", "gamma", "delta"], &[1]);
        let text = |q: &QuizItem| match &q.answer {
            Answer::Choice { choices, correct } => (choices.clone(), correct.clone()),
            _ => unreachable!(),
        };
        let mut last_letter = 1;
        for showing in 0..12 {
            let q = shown(&item, showing);
            assert_eq!(q, shown(&item, showing), "seeded: the same showing, the same order");
            let (choices, correct) = text(&q);
            assert_eq!(correct.len(), 1);
            assert_eq!(choices[correct[0]], "beta", "the key follows the choice");
            assert_ne!(correct[0], last_letter, "showing {showing}: the right letter moved");
            last_letter = correct[0];
            let mut sorted = choices.clone();
            sorted.sort();
            assert_eq!(sorted, ["alpha", "beta", "delta", "gamma"]);
            // Graded on the shown order.
            assert_eq!(grade(&q.answer, &Response::Choice(correct.clone())), Some(true));
        }
        // "All of the above" keeps its place; several right answers follow theirs.
        let item = choice_item("t-l1-y", &["a1", "a2", "a3", "All of the above"], &[0, 2]);
        for showing in 0..8 {
            let (choices, correct) = text(&shown(&item, showing));
            assert_eq!(choices[3], "All of the above");
            let picked: Vec<&str> = correct.iter().map(|&i| choices[i].as_str()).collect();
            assert!(picked.contains(&"a1") && picked.contains(&"a3") && picked.len() == 2, "{picked:?}");
        }
        assert!(pinned("以上都对") && pinned("None of the above") && !pinned("above 0.5"));
    }

    #[test]
    fn order_steps_are_arranged_anew_each_showing() {
        let mut item = choice_item("o", &[], &[]);
        item.answer = Answer::Order { steps: vec!["1".into(), "2".into(), "3".into(), "4".into()] };
        let mut prev = vec![0, 1, 2, 3];
        for showing in 0..10 {
            let p = order_shuffle_at(&item, showing);
            assert_ne!(p, vec![0, 1, 2, 3]);
            assert_ne!(p, prev, "showing {showing}");
            prev = p;
        }
        assert_eq!(order_shuffle(&item), order_shuffle_at(&item, 0));
    }
}
