//! The trajectory view: a sequence token by token, coloured by who wrote it
//! (prompt, trained agent tokens, masked environment tokens) or by a value
//! such as the per-token advantage (red negative → green positive).

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::drills::{TokenCell, TokenKind};
use crate::tui::theme;

pub fn kind_style(kind: TokenKind) -> Style {
    match kind {
        TokenKind::Prompt => theme::token_prompt(),
        TokenKind::Trained => theme::token_trained(),
        TokenKind::Masked => theme::token_masked(),
        TokenKind::Injected => theme::token_injected(),
    }
}

/// Red for negative, green for positive, scaled by `|v| / max_abs`.
pub fn value_style(v: f32, max_abs: f32) -> Style {
    theme::signed_value(v, max_abs)
}

/// Wrap tokens into lines of at most `width` columns; newlines in tokens break lines.
pub fn lines(tokens: &[TokenCell], width: usize) -> Vec<Line<'static>> {
    let max_abs = tokens.iter().filter_map(|t| t.value).fold(0f32, |m, v| m.max(v.abs()));
    let mut out = Vec::new();
    let mut cur: Vec<Span<'static>> = Vec::new();
    let mut w = 0;
    for t in tokens {
        let style = match (t.value, t.kind) {
            (Some(v), TokenKind::Trained) => value_style(v, max_abs),
            _ => kind_style(t.kind),
        };
        let (text, newline) = match t.text.strip_suffix('\n') {
            Some(s) => (format!("{s}↵"), true),
            None => (t.text.replace('\n', "↵"), false),
        };
        let tw = text.width();
        if w + tw > width && w > 0 {
            out.push(Line::from(std::mem::take(&mut cur)));
            w = 0;
        }
        cur.push(Span::styled(text, style));
        w += tw;
        if newline {
            out.push(Line::from(std::mem::take(&mut cur)));
            w = 0;
        }
    }
    if !cur.is_empty() {
        out.push(Line::from(cur));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_and_breaks_on_newlines() {
        let cell = |s: &str, k| TokenCell { text: s.into(), kind: k, value: None };
        let toks = vec![
            cell("ab", TokenKind::Prompt),
            cell("c\n", TokenKind::Trained),
            cell("dddd", TokenKind::Masked),
            cell("e", TokenKind::Trained),
        ];
        let l = lines(&toks, 4);
        let text: Vec<String> = l.iter().map(|l| l.spans.iter().map(|s| s.content.to_string()).collect()).collect();
        assert_eq!(text, vec!["abc↵", "dddd", "e"]);
        assert_eq!(l[1].spans[0].style, kind_style(TokenKind::Masked));
    }
}
