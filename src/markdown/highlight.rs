//! Syntax highlighting of fenced code blocks with syntect.
//!
//! syntect's styles are mapped onto ratatui's by hand (`syntect-tui` lags
//! ratatui's releases). Syntaxes and theme load once, on first use (~2 ms).

use std::sync::OnceLock;

use ratatui::style::{Modifier, Style};
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, Theme, ThemeSet};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

struct Highlighter {
    syntaxes: SyntaxSet,
    theme: Theme,
}

fn highlighter() -> &'static Highlighter {
    static H: OnceLock<Highlighter> = OnceLock::new();
    H.get_or_init(|| {
        let syntaxes = SyntaxSet::load_defaults_newlines();
        let mut themes = ThemeSet::load_defaults();
        let theme = themes.themes.remove("base16-eighties.dark").expect("syntect ships base16-eighties.dark");
        Highlighter { syntaxes, theme }
    })
}

/// Names a code fence may use, mapped to syntect's tokens.
fn syntax_for(lang: &str) -> Option<&'static SyntaxReference> {
    let h = highlighter();
    let token = match lang.trim().to_ascii_lowercase().as_str() {
        "" | "text" | "txt" | "plain" => return None,
        "sh" | "shell" | "console" | "zsh" => "bash".to_string(),
        "py" | "python3" => "python".to_string(),
        // Rhai (the exercises' language) reads close enough to Rust to colour as Rust.
        "rs" | "rhai" => "rust".to_string(),
        "jsonl" => "json".to_string(),
        // syntect's default set has no TOML (nor INI); Java properties share its
        // `key = value` and `# comment` shape, which is what our TOML snippets use.
        "toml" | "ini" | "cfg" => "properties".to_string(),
        other => other.to_string(),
    };
    h.syntaxes.find_syntax_by_token(&token)
}

/// Whether a fence language gets real highlighting (for tests and `doctor`).
pub fn supports(lang: &str) -> bool {
    syntax_for(lang).is_some()
}

/// Highlight `code`; each returned line is a list of styled pieces.
/// Unknown languages come back as plain lines in the code colour.
pub fn highlight(code: &str, lang: &str) -> Vec<Vec<(Style, String)>> {
    let plain = crate::tui::theme::markdown::code_plain();
    let Some(syntax) = syntax_for(lang) else {
        return code.lines().map(|l| vec![(plain, l.to_string())]).collect();
    };
    let h = highlighter();
    let mut hl = HighlightLines::new(syntax, &h.theme);
    let mut out = Vec::new();
    for line in LinesWithEndings::from(code) {
        match hl.highlight_line(line, &h.syntaxes) {
            Ok(pieces) => out.push(
                pieces
                    .into_iter()
                    .map(|(st, text)| (convert(st), text.trim_end_matches(['\n', '\r']).to_string()))
                    .filter(|(_, t)| !t.is_empty())
                    .collect(),
            ),
            Err(_) => out.push(vec![(plain, line.trim_end().to_string())]),
        }
    }
    out
}

fn convert(st: syntect::highlighting::Style) -> Style {
    let fg = st.foreground;
    let mut style = crate::tui::theme::syntax(fg.r, fg.g, fg.b);
    if st.font_style.contains(FontStyle::BOLD) {
        style = style.add_modifier(Modifier::BOLD);
    }
    if st.font_style.contains(FontStyle::ITALIC) {
        style = style.add_modifier(Modifier::ITALIC);
    }
    if st.font_style.contains(FontStyle::UNDERLINE) {
        style = style.add_modifier(Modifier::UNDERLINED);
    }
    style
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_the_sheets_use_are_highlighted() {
        for lang in ["python", "py", "rust", "bash", "sh", "json", "toml"] {
            assert!(supports(lang), "{lang} should be highlighted");
        }
        assert!(!supports("text"));
    }

    #[test]
    fn toml_keys_and_comments_are_coloured() {
        let lines = highlight("lr = 3e-4  # AdamW\nsteps = 300\n", "toml");
        let colours: std::collections::HashSet<_> =
            lines.iter().flatten().map(|(s, _)| format!("{:?}", s.fg)).collect();
        assert!(colours.len() >= 2, "{colours:?}");
    }

    #[test]
    fn rust_code_gets_more_than_one_colour() {
        let lines = highlight("fn main() {\n    let x = 1; // one\n}\n", "rust");
        assert_eq!(lines.len(), 3);
        let colours: std::collections::HashSet<_> =
            lines.iter().flatten().map(|(s, _)| format!("{:?}", s.fg)).collect();
        assert!(colours.len() >= 3, "{colours:?}");
        let text: String = lines[1].iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(text, "    let x = 1; // one");
    }
}
