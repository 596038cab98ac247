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
    let out = latex_to_unicode::latex_to_unicode(&s);
    // Display math may span lines; the terminal shows it as one.
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    // Compose A + U+0302 into Â where Unicode has the letter: terminals draw
    // precomposed letters more reliably than combining marks.
    use unicode_normalization::UnicodeNormalization;
    unwrap_single(&out).nfc().collect()
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
    use super::to_unicode;

    #[test]
    fn greek_subscripts_and_sums() {
        assert_eq!(to_unicode(r"\theta_{t+1}"), "θₜ₊₁");
        assert_eq!(to_unicode(r"\sum_{i=1}^{n} x_i"), "∑ᵢ₌₁ⁿ xᵢ");
        assert_eq!(to_unicode(r"\gamma^k r_{t+k}"), "γᵏ rₜ₊ₖ");
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
    fn left_right_and_norms() {
        assert_eq!(to_unicode(r"\left(a\right)"), "(a)");
        assert_eq!(to_unicode(r"\leftarrow"), "←");
        assert_eq!(to_unicode(r"\lVert g \rVert"), "‖ g ‖");
    }
}
