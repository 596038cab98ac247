//! LaTeX → Unicode for `$…$` and `$$…$$`.
//!
//! The conversion itself is the `latex-to-unicode` crate (pinned: it has one
//! release, so golden tests below hold it to what the cheatsheets need). A few
//! commands it leaves raw are mapped here first.

/// Commands the crate does not know, rewritten to ones it does (or to text).
const PRE: &[(&str, &str)] = &[
    (r"\mathbb{E}", "𝔼"),
    (r"\mathbb E", "𝔼"),
    (r"\mathcal{L}", "ℒ"),
    (r"\mathcal{D}", "𝒟"),
    (r"\mathcal{N}", "𝒩"),
    (r"\mathcal{O}", "𝒪"),
    (r"\mathcal{A}", "𝒜"),
    (r"\mathcal{S}", "𝒮"),
    (r"\mathcal{T}", "𝒯"),
    (r"\mathrm{KL}", "KL"),
    (r"\top", "ᵀ"),
    (r"\lVert", "‖"),
    (r"\rVert", "‖"),
    (r"\Vert", "‖"),
    (r"\|", "‖"),
    (r"\left", ""),
    (r"\right", ""),
    (r"\big", ""),
    (r"\Big", ""),
    (r"\bigl", ""),
    (r"\bigr", ""),
    (r"\,", " "),
    (r"\;", " "),
    (r"\!", ""),
    (r"\quad", "  "),
    (r"\qquad", "    "),
    (r"\displaystyle", ""),
];

/// Convert one formula (without its `$` delimiters) to a single line of Unicode.
pub fn to_unicode(latex: &str) -> String {
    let mut s = latex.trim().to_string();
    for (from, to) in PRE {
        s = replace_command(&s, from, to);
    }
    let s = space_before_big_operators(&bracket_log_fractions(&s));
    let out = latex_to_unicode::latex_to_unicode(&s);
    // Display math may span lines; the terminal shows it as one.
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    // Compose A + U+0302 into Â where Unicode has the letter: terminals draw
    // precomposed letters more reliably than combining marks.
    use unicode_normalization::UnicodeNormalization;
    unwrap_single(&out).nfc().collect()
}

/// Text with `$…$` (or `$$…$$`) formulas in it, the formulas converted and
/// the rest kept: for the short texts that are not laid out as markdown (a
/// quiz item's choices and steps, the prompt printed by `agentlab quiz`).
/// A `$` without a partner, or `\$`, stays as written.
pub fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = unescaped_dollar(rest, 0) {
        let delim = if rest[open..].starts_with("$$") { 2 } else { 1 };
        let body_at = open + delim;
        let close = match unescaped_dollar(rest, body_at) {
            Some(c) if c > body_at && (delim == 1 || rest[c..].starts_with("$$")) => c,
            _ => break,
        };
        out.push_str(&rest[..open]);
        out.push_str(&to_unicode(&rest[body_at..close]));
        rest = &rest[close + delim..];
    }
    out.push_str(rest);
    out
}

/// The byte index of the first `$` at or after `from` that no backslash escapes.
fn unescaped_dollar(s: &str, from: usize) -> Option<usize> {
    s[from..]
        .char_indices()
        .map(|(i, c)| (i + from, c))
        .find(|&(i, c)| c == '$' && !s[..i].ends_with('\\'))
        .map(|(i, _)| i)
}

/// `\log \frac{A}{B}` → `\log[\frac{A}{B}]`: written on one line, `log (A)/(B)`
/// reads as `(log A)/B`; the bracket keeps the fraction inside the log.
fn bracket_log_fractions(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut rest = s;
    while let Some(pos) = ["\\log", "\\ln"].iter().filter_map(|f| rest.find(f).map(|p| (p, f.len()))).min() {
        let (pos, len) = pos;
        let after = &rest[pos + len..];
        out.push_str(&rest[..pos + len]);
        rest = after;
        if after.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
            continue; // a longer command (`\longrightarrow`)
        }
        let trimmed = after.trim_start();
        let Some(args) = trimmed.strip_prefix("\\frac") else { continue };
        let Some((num, tail)) = brace_group(args.trim_start()) else { continue };
        let Some((den, tail)) = brace_group(tail.trim_start()) else { continue };
        out.push_str(&format!("[\\frac{{{num}}}{{{den}}}]"));
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// `{…}` at the start of `s` (balanced): its inside and what follows it.
fn brace_group(s: &str) -> Option<(&str, &str)> {
    let mut depth = 0usize;
    if !s.starts_with('{') {
        return None;
    }
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((&s[1..i], &s[i + 1..]));
                }
            }
            _ => {}
        }
    }
    None
}

/// `\frac{1}{N}\sum` → `\frac{1}{N} \sum`: without the space the line reads
/// `1/N∑ᵢ`, as if N were summed.
fn space_before_big_operators(s: &str) -> String {
    ["\\sum", "\\prod", "\\int"]
        .iter()
        .fold(s.to_string(), |acc, op| acc.replace(&format!("}}{op}"), &format!("}} {op}")))
}

/// `∇_(θ)` → `∇_θ`: the crate brackets every script it cannot turn into
/// Unicode sub/superscripts; for one character the brackets only add noise.
fn unwrap_single(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if (c == '_' || c == '^') && i + 3 < chars.len() && chars[i + 1] == '(' && chars[i + 3] == ')' {
            out.push(c);
            out.push(chars[i + 2]);
            i += 4;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Replace a command only where it is not the prefix of a longer command
/// (`\left` must not eat `\leftarrow`).
fn replace_command(s: &str, from: &str, to: &str) -> String {
    let ends_alpha = from.chars().last().is_some_and(|c| c.is_ascii_alphabetic());
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find(from) {
        let after = &rest[pos + from.len()..];
        let continues = ends_alpha && after.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
        out.push_str(&rest[..pos]);
        if continues {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::{inline, to_unicode};

    #[test]
    fn greek_subscripts_and_sums() {
        assert_eq!(to_unicode(r"\theta_{t+1}"), "θₜ₊₁");
        assert_eq!(to_unicode(r"\sum_{i=1}^{n} x_i"), "∑ᵢ₌₁ⁿ xᵢ");
        assert_eq!(to_unicode(r"\gamma^k r_{t+k}"), "γᵏ rₜ₊ₖ");
    }

    #[test]
    fn inline_formulas_in_plain_text() {
        let f = r"\sigma(r_c - r_r)";
        assert_eq!(inline(&format!("${f}$, the logistic")), format!("{}, the logistic", to_unicode(f)));
        assert!(!inline(&format!("${f}$")).contains('\\'));
        assert_eq!(inline("no formula"), "no formula");
        assert_eq!(inline("a lone $ stays"), "a lone $ stays");
        assert_eq!(inline(r"costs \$5 and $x$"), r"costs \$5 and x");
        assert_eq!(inline(r"$$\alpha$$ then $\beta$"), "α then β");
    }

    #[test]
    fn fractions_and_hats() {
        assert_eq!(to_unicode(r"\frac{a}{b}"), "a/b");
        assert_eq!(to_unicode(r"\hat{A}_i = \frac{r_i - \mu}{\sigma}"), "Âᵢ = (rᵢ - μ)/σ");
        // Letters without a precomposed form keep the combining mark.
        assert_eq!(to_unicode(r"\hat{y}"), "ŷ");
        assert_eq!(to_unicode(r"\hat{V}"), "V\u{302}");
    }

    #[test]
    fn blackboard_nabla_and_expectation() {
        assert_eq!(to_unicode(r"\nabla_\theta J"), "∇_θ J");
        assert_eq!(to_unicode(r"x \in \mathbb{R}^d"), "x ∈ ℝᵈ");
        assert!(to_unicode(r"\mathbb{E}_{\pi}[R]").starts_with("𝔼"));
    }

    #[test]
    fn a_fraction_stays_inside_its_log() {
        assert_eq!(
            to_unicode(r"\beta \log \frac{\pi_\theta(y|x)}{\pi_{\text{ref}}(y|x)}"),
            "β log[(π_θ(y|x))/(π_(ref)(y|x))]"
        );
        assert_eq!(to_unicode(r"-\log\frac{a}{b} + \log Z"), "-log[a/b] + log Z");
        assert_eq!(to_unicode(r"\ln \frac{p}{q}"), "ln[p/q]");
        // Unbalanced input is left alone, never dropped.
        assert_eq!(to_unicode(r"\log \frac{a"), to_unicode(r"\log \frac{a"));
        assert!(to_unicode(r"\log \frac{a").contains('a'));
    }

    #[test]
    fn a_sum_after_a_fraction_is_spaced() {
        assert_eq!(to_unicode(r"\frac{1}{N}\sum_{i=1}^{N} \theta_i"), "1/N ∑ᵢ₌₁ᴺ θᵢ");
    }

    #[test]
    fn left_right_and_norms() {
        assert_eq!(to_unicode(r"\left(a\right)"), "(a)");
        assert_eq!(to_unicode(r"\leftarrow"), "←");
        assert_eq!(to_unicode(r"\lVert g \rVert"), "‖ g ‖");
    }
}
