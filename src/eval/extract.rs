//! Pull the final answer out of a completion, in order of preference:
//! the last `\boxed{…}` (nested braces allowed), the text after the last
//! "Final Answer:" on its line, else the last number in the text.
//!
//! [`Extractor`] names the rules a harness can score a completion with: the
//! same text can pass under one and fail under another (`580,590` for the
//! gold `580`: the first number and "any number" accept it, a strict match
//! and [`extract_answer`], which reads the comma as a thousands separator,
//! do not).

pub fn extract_answer(text: &str) -> Option<String> {
    if let Some(b) = last_boxed(text) {
        return Some(b);
    }
    if let Some(pos) = text.rfind("Final Answer:") {
        let rest = text[pos + "Final Answer:".len()..].lines().next().unwrap_or("").trim();
        if !rest.is_empty() {
            return Some(rest.trim_end_matches('.').to_string());
        }
    }
    last_number(text)
}

/// Maximal runs of ASCII digits, in order: `"580,590"` → `["580", "590"]`.
pub fn digit_runs(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_ascii_digit()).filter(|r| !r.is_empty()).collect()
}

/// How a harness decides that a completion states the gold answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extractor {
    /// The completion, trimmed, is the gold answer and nothing else.
    Strict,
    /// The first number in the text is the gold answer.
    FirstNumber,
    /// Some number in the text is the gold answer ("any number in the text").
    AnyNumber,
    /// [`extract_answer`] gives the gold answer.
    ExtractAnswer,
}

impl Extractor {
    pub const ALL: [Extractor; 4] =
        [Extractor::Strict, Extractor::FirstNumber, Extractor::AnyNumber, Extractor::ExtractAnswer];

    pub fn name(self) -> &'static str {
        match self {
            Extractor::Strict => "strict",
            Extractor::FirstNumber => "first number",
            Extractor::AnyNumber => "any number",
            Extractor::ExtractAnswer => "extract_answer",
        }
    }

    /// Whether this rule reads `gold` as the answer of `completion`.
    pub fn accepts(self, completion: &str, gold: &str) -> bool {
        match self {
            Extractor::Strict => completion.trim() == gold,
            Extractor::FirstNumber => digit_runs(completion).first() == Some(&gold),
            Extractor::AnyNumber => digit_runs(completion).contains(&gold),
            Extractor::ExtractAnswer => extract_answer(completion).as_deref() == Some(gold),
        }
    }
}

fn last_boxed(text: &str) -> Option<String> {
    let start = text.rfind("\\boxed{")? + "\\boxed{".len();
    let mut depth = 1;
    for (i, c) in text[start..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(text[start..start + i].trim().to_string());
                }
            }
            _ => {}
        }
    }
    None
}

fn last_number(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut end = chars.len();
    while end > 0 && !chars[end - 1].is_ascii_digit() {
        end -= 1;
    }
    if end == 0 {
        return None;
    }
    let mut start = end;
    while start > 0 && (chars[start - 1].is_ascii_digit() || chars[start - 1] == '.' || chars[start - 1] == ',') {
        start -= 1;
    }
    if start > 0 && chars[start - 1] == '-' {
        start -= 1;
    }
    let s: String = chars[start..end].iter().filter(|c| **c != ',').collect();
    Some(s.trim_start_matches('.').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxed_wins_and_nests() {
        assert_eq!(extract_answer("so \\boxed{\\frac{1}{2}} and 7").as_deref(), Some("\\frac{1}{2}"));
        assert_eq!(extract_answer("\\boxed{3} then \\boxed{4}").as_deref(), Some("4"));
    }

    #[test]
    fn final_answer_line_then_last_number() {
        assert_eq!(extract_answer("Thought: x\nFinal Answer: Paris.\n").as_deref(), Some("Paris"));
        assert_eq!(extract_answer("costs 1,250 or -3.5 units").as_deref(), Some("-3.5"));
        assert_eq!(extract_answer("total 1,250").as_deref(), Some("1250"));
        assert_eq!(extract_answer("no digits here"), None);
    }

    #[test]
    fn digit_runs_split_on_everything_else() {
        assert_eq!(digit_runs("580,590"), ["580", "590"]);
        assert_eq!(digit_runs("x12 y 3,"), ["12", "3"]);
        assert_eq!(digit_runs("0085"), ["0085"]);
        assert!(digit_runs(",,").is_empty() && digit_runs("").is_empty());
    }

    #[test]
    fn each_extractor_on_hedges_by_hand() {
        use Extractor::*;
        let gold = "580";
        // completion → strict, first number, any number, extract_answer
        for (text, want) in [
            ("580", [true, true, true, true]),
            (" 580\n", [true, true, true, true]),
            ("580,590", [false, true, true, false]), // extract_answer reads 580590
            ("590,580", [false, false, true, false]),
            ("590,580,570", [false, false, true, false]),
            ("5801", [false, false, false, false]),
            ("58,0", [false, false, false, true]), // and reads 58,0 as 580
            ("590", [false, false, false, false]),
            ("", [false, false, false, false]),
        ] {
            let got = [Strict, FirstNumber, AnyNumber, ExtractAnswer].map(|e| e.accepts(text, gold));
            assert_eq!(got, want, "{text:?}");
        }
        // A strict pass passes every rule; "any number" accepts whatever "first number" does.
        for text in ["580", "580,590", "590,580", "x", "580580"] {
            for e in Extractor::ALL {
                if Strict.accepts(text, gold) {
                    assert!(e.accepts(text, gold));
                }
            }
            assert!(!FirstNumber.accepts(text, gold) || AnyNumber.accepts(text, gold));
        }
    }
}
