//! Pull the final answer out of a completion, in order of preference:
//! the last `\boxed{…}` (nested braces allowed), the text after the last
//! "Final Answer:" on its line, else the last number in the text.

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
}
