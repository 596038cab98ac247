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

/// The order in which an `order` item's steps are shown: a fixed shuffle
/// derived from the item id (so a script can rely on it), never the answer.
pub fn order_shuffle(item: &QuizItem) -> Vec<usize> {
    let n = match &item.answer {
        Answer::Order { steps } => steps.len(),
        _ => return Vec::new(),
    };
    // FNV-1a of the id seeds a small LCG; Fisher–Yates with it.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in item.id.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    let mut perm: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        h = h.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let j = ((h >> 33) % (i as u64 + 1)) as usize;
        perm.swap(i, j);
    }
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        perm.rotate_left(1);
    }
    perm
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
            };
            let p = order_shuffle(&item);
            assert_eq!(p, order_shuffle(&item));
            assert_ne!(p, vec![0, 1, 2, 3]);
            let mut s = p.clone();
            s.sort_unstable();
            assert_eq!(s, vec![0, 1, 2, 3]);
        }
    }
}
