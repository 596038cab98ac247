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

#[cfg(test)]
mod tests {
    use super::ellipsize;

    #[test]
    fn ellipsize_cuts_only_what_does_not_fit() {
        assert_eq!(ellipsize("heldout_accuracy", 16), "heldout_accuracy");
        assert_eq!(ellipsize("heldout_accuracy", 8), "heldout…");
        assert_eq!(ellipsize("abc", 1), "…");
        assert_eq!(ellipsize("abc", 0), "");
    }
}
