//! Drill numbers quoted in a cheatsheet must still be in the drill's README.
//!
//! A sheet that copies a measured number ("the lenient arm's reward rose by
//! a median 0.127") goes stale when the drill is re-measured and its README
//! changes. This check finds, in every paragraph of a sheet that is about a
//! drill, the decimals with two or more places that the drill's README does
//! not contain, not even rounded.
//!
//! A paragraph is about a drill when it links to it (`[drill:ID]`) or names
//! its id; a paragraph that names no drill but says "drill" ("the drill's
//! quick preset") is about the last drill named in its section. Only
//! paragraphs that say they report a measurement (seeds, a median, a
//! sweep, a preset, "measured") are read: a worked example that ends by
//! pointing at a drill quotes no drill number. Numbers in
//! code spans, math (`$…$`), links' targets and arXiv ids are not quotes
//! and are skipped, and so are worked examples in paragraphs about no drill.

/// Words that say a paragraph reports what a drill measured.
const MEASURED: &[&str] = &["seed", "median", "measured", "sweep", "preset"];

/// A number in a sheet that the README of the drill it is about lacks.
#[derive(Debug, Clone, PartialEq)]
pub struct Unsupported {
    /// 1-based line in `body`.
    pub line: usize,
    pub number: String,
    /// The drills the paragraph is about.
    pub drills: Vec<String>,
}

/// Decimals with at least `min_places` places in `text`, outside code spans,
/// math and link targets: (the text as written, its value, its places).
fn decimals(text: &str, min_places: usize) -> Vec<(String, f64, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let (mut in_code, mut in_math, mut in_target) = (false, false, false);
    while i < chars.len() {
        let c = chars[i];
        match c {
            '`' => in_code = !in_code,
            '$' if !in_code => in_math = !in_math,
            '(' if !in_code && i > 0 && chars[i - 1] == ']' => in_target = true,
            ')' if in_target => in_target = false,
            _ => {}
        }
        if !c.is_ascii_digit() || in_code || in_math || in_target {
            i += 1;
            continue;
        }
        // A run of digits and dots, not glued to a word, a path or an id.
        let start = i;
        while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
            i += 1;
        }
        let run: String = chars[start..i].iter().collect::<String>().trim_end_matches('.').to_string();
        let before = start.checked_sub(1).map(|j| chars[j]);
        let glued = before.is_some_and(|b| b.is_alphanumeric() || matches!(b, ':' | '/' | '_' | '.' | '#'));
        let after_glued = chars.get(i).is_some_and(|a| a.is_alphabetic() || *a == '_');
        let parts: Vec<&str> = run.split('.').collect();
        if glued || after_glued || parts.len() != 2 || parts[0].len() > 3 || parts[1].len() < min_places {
            continue;
        }
        if let Ok(v) = run.parse::<f64>() {
            out.push((run.clone(), v, parts[1].len()));
        }
    }
    out
}

/// Whether `readme` has `q` (with `places` places), as written or as a
/// longer number that rounds to it. Signs are ignored ("−0.437" is
/// quoted as "a fall of 0.437").
fn has(readme: &[(String, f64, usize)], q: f64, places: usize) -> bool {
    let half = 0.5 * 10f64.powi(-(places as i32)) + 1e-9;
    readme.iter().any(|&(_, x, p)| (x - q).abs() < 1e-9 || (p > places && (x - q).abs() <= half))
}

/// Paragraphs of a Markdown body with their first line (1-based), split at
/// blank lines, headings and list items; fenced code is left out. A heading
/// comes back as a paragraph of its own, marked `true`.
fn paragraphs(body: &str) -> Vec<(usize, String, bool)> {
    let mut out: Vec<(usize, String, bool)> = Vec::new();
    let mut cur: Option<(usize, String)> = None;
    let mut fence = false;
    let flush = |cur: &mut Option<(usize, String)>, out: &mut Vec<(usize, String, bool)>| {
        if let Some((l, t)) = cur.take() {
            out.push((l, t, false));
        }
    };
    for (i, line) in body.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            flush(&mut cur, &mut out);
            continue;
        }
        if fence {
            continue;
        }
        let item = t.starts_with("- ")
            || t.starts_with("* ")
            || t.split_once(". ").is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if t.is_empty() || t.starts_with('#') || item {
            flush(&mut cur, &mut out);
        }
        if t.starts_with('#') {
            out.push((i + 1, t.to_string(), true));
        } else if !t.is_empty() {
            let c = cur.get_or_insert_with(|| (i + 1, String::new()));
            c.1.push_str(line);
            c.1.push('\n');
        }
    }
    flush(&mut cur, &mut out);
    out
}

/// The drills of `ids` that `text` links to or names.
fn named<'a>(text: &str, ids: &[&'a str]) -> Vec<&'a str> {
    ids.iter()
        .copied()
        .filter(|id| {
            text.match_indices(id).any(|(at, _)| {
                let before = text[..at].chars().next_back();
                let after = text[at + id.len()..].chars().next();
                let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_');
                !part(before) && !part(after)
            })
        })
        .collect()
}

/// Every number a sheet quotes about a drill that the drill's README does
/// not have. `drills` is (id, README text) for every drill.
pub fn unsupported_numbers(body: &str, drills: &[(&str, &str)]) -> Vec<Unsupported> {
    let ids: Vec<&str> = drills.iter().map(|(id, _)| *id).collect();
    let readme_numbers: Vec<Vec<(String, f64, usize)>> = drills.iter().map(|(_, r)| decimals(r, 1)).collect();
    let mut out = Vec::new();
    let mut last: Option<&str> = None;
    for (line, text, heading) in paragraphs(body) {
        if heading {
            last = None;
            continue;
        }
        let mut about = named(&text, &ids);
        if about.is_empty() && text.to_lowercase().contains("drill") {
            about.extend(last);
        }
        if let Some(d) = about.last() {
            last = Some(d);
        }
        // A worked example that ends by pointing at a drill is not a measurement.
        let lower = text.to_lowercase();
        if about.is_empty() || !MEASURED.iter().any(|w| lower.contains(w)) {
            continue;
        }
        for (number, q, places) in decimals(&text, 2) {
            let ok = about.iter().any(|d| {
                let k = ids.iter().position(|x| x == d).expect("a known drill");
                has(&readme_numbers[k], q, places)
            });
            if !ok {
                out.push(Unsupported { line, number, drills: about.iter().map(|d| d.to_string()).collect() });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const README: &str = "| claim | median |\n|---|---|\n| `proxy_reward_gain` | 0.133 |\n| `proxy_true_change` | −0.437 |\n\nhedged 0.905, lenient reward 0.611.\n";

    fn check(sheet: &str) -> Vec<String> {
        unsupported_numbers(sheet, &[("grpo-rlvr", README), ("sft-basics", "loss 2.30")])
            .into_iter()
            .map(|u| u.number)
            .collect()
    }

    #[test]
    fn a_stale_number_next_to_a_drill_is_found() {
        // The text the check was written for: a later paragraph says "the drill's".
        let old = "## Hacking\n\n[drill:grpo-rlvr] trains two policies.\n\nOver seeds 1–20 of the drill's quick preset, the lenient arm's reward rose\nby a median 0.127 while its exact accuracy fell by 0.414 and 90% of its\nanswers hedged.\n";
        assert_eq!(check(old), vec!["0.127", "0.414"]);
        let new = "## Hacking\n\n[drill:grpo-rlvr] trains two policies.\n\nOver seeds 1–20 the drill's reward rose by a median 0.133 while its exact\naccuracy fell by 0.437 (lenient reward from 0.611; hedged 0.91).\n";
        assert!(check(new).is_empty(), "{:?}", check(new));
    }

    #[test]
    fn numbers_about_no_drill_are_not_quotes() {
        // A worked example, a formula, an arXiv id and a code span.
        let sheet = "## GRPO\n\nRewards [1.2, 1.1, 1.0, 0.2] give mean 0.875 and std 0.39607.\n\n[drill:grpo-rlvr] on seed 1 uses $\\hat{A} = 0.8206$, `lr = 0.0025` and arXiv:2402.03300.\n\n## Next\n\nThe drill is not named here: 0.999.\n";
        assert!(check(sheet).is_empty(), "{:?}", check(sheet));
    }

    #[test]
    fn a_number_is_looked_up_in_the_drill_it_is_about() {
        let sheet = "- In `sft-basics` seed 1's loss reads 2.30, and 0.133 is not its.\n- In [drill:grpo-rlvr]'s sweep, 0.13 is 0.133 rounded and 0.44 is −0.437 rounded.\n";
        assert_eq!(check(sheet), vec!["0.133"]);
    }
}
