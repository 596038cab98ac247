//! Widgets shared by several screens.

pub mod bar;
pub mod chart;
pub mod claims;
pub mod question;
pub mod token_mask;

/// `text` cut to `width` characters, its last one `…` when anything was cut.
pub fn ellipsize(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    if width > 0 {
        out.push('…');
    }
    out
}

/// `text` broken into lines of at most `width` columns at spaces; a word
/// longer than a line is cut with `…`.
pub fn wrap_words(text: &str, width: usize) -> Vec<String> {
    use unicode_width::UnicodeWidthStr;
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let word = if word.width() > width { ellipsize(word, width) } else { word.to_string() };
        if !line.is_empty() && line.width() + 1 + word.width() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::{ellipsize, wrap_words};

    #[test]
    fn wrap_words_breaks_at_spaces() {
        assert_eq!(
            wrap_words("held-out success of the masked model", 16),
            vec!["held-out success", "of the masked", "model"]
        );
        assert_eq!(wrap_words("abcdefghij x", 4), vec!["abc…", "x"]);
        assert_eq!(wrap_words("", 10), vec![""]);
    }

    #[test]
    fn ellipsize_cuts_only_what_does_not_fit() {
        assert_eq!(ellipsize("heldout_accuracy", 16), "heldout_accuracy");
        assert_eq!(ellipsize("heldout_accuracy", 8), "heldout…");
        assert_eq!(ellipsize("abc", 1), "…");
        assert_eq!(ellipsize("abc", 0), "");
    }
}
