//! Widgets shared by several screens.

pub mod bar;
pub mod chart;
pub mod claims;
pub mod question;
pub mod token_mask;

/// `text` cut to `width` columns, its last one `…` when anything was cut
/// (a Chinese character takes two columns).
pub fn ellipsize(text: &str, width: usize) -> String {
    use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
    if text.width() <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in text.chars() {
        let cw = c.width().unwrap_or(0);
        if w + cw + 1 > width {
            break;
        }
        out.push(c);
        w += cw;
    }
    if width > 0 {
        out.push('…');
    }
    out
}

/// `spans` cut to `width` columns in all, the last kept one ending in `…`
/// when anything was cut (a line is never cut off mid-word without a mark).
pub fn fit_spans(spans: Vec<ratatui::text::Span<'static>>, width: usize) -> Vec<ratatui::text::Span<'static>> {
    use unicode_width::UnicodeWidthStr;
    let total: usize = spans.iter().map(|s| s.content.width()).sum();
    if total <= width {
        return spans;
    }
    let mut out = Vec::new();
    let mut used = 0;
    for s in spans {
        let w = s.content.width();
        if used + w < width {
            used += w;
            out.push(s);
            continue;
        }
        // The span that crosses the edge (or meets it, with more after it):
        // cut, ending in the mark, and stop. One character more than fits
        // makes `ellipsize` mark it.
        let cut = ellipsize(&format!("{}…", s.content), width - used);
        out.push(ratatui::text::Span::styled(cut, s.style));
        break;
    }
    out
}

/// `text` padded with spaces on the right to `width` columns (as
/// `format!("{:<w$}")`, but a Chinese character counts two columns).
pub fn pad_right(text: &str, width: usize) -> String {
    let w = unicode_width::UnicodeWidthStr::width(text);
    format!("{text}{}", " ".repeat(width.saturating_sub(w)))
}

/// `text` padded with spaces on the left to `width` columns (as `{:>w$}`).
pub fn pad_left(text: &str, width: usize) -> String {
    let w = unicode_width::UnicodeWidthStr::width(text);
    format!("{}{text}", " ".repeat(width.saturating_sub(w)))
}

/// `text` broken into lines of at most `width` columns at spaces (and
/// between Chinese characters, which need no spaces); a word longer than a
/// line is cut with `…`.
pub fn wrap_words(text: &str, width: usize) -> Vec<String> {
    wrap(text, width, false)
}

/// Like [`wrap_words`], but a word longer than a line is split over lines,
/// so that no character is lost (table cells, where the text is the data).
pub fn wrap_all(text: &str, width: usize) -> Vec<String> {
    wrap(text, width, true)
}

fn wrap(text: &str, width: usize, split_long: bool) -> Vec<String> {
    use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    // Words end where a line may break: at spaces, and where Unicode's rules
    // (UAX #14) allow it next to a Chinese character (never before "，。").
    let mut start = 0;
    let mut space = false;
    for end in crate::markdown::layout::break_points(text) {
        let chunk = &text[start..end];
        start = end;
        let word = chunk.trim();
        if word.is_empty() {
            space |= !chunk.is_empty();
            continue;
        }
        let gap = (space || chunk.starts_with(char::is_whitespace)) && !line.is_empty();
        space = chunk.ends_with(char::is_whitespace);
        let word = if word.width() <= width {
            word.to_string()
        } else if split_long {
            // A word wider than a line starts a line of its own and fills
            // whole lines; its last piece goes on like a word.
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            let mut piece = String::new();
            for c in word.chars() {
                if piece.width() + c.width().unwrap_or(0) > width {
                    lines.push(std::mem::take(&mut piece));
                }
                piece.push(c);
            }
            line = piece;
            continue;
        } else {
            ellipsize(word, width)
        };
        if !line.is_empty() && line.width() + usize::from(gap) + word.width() > width {
            lines.push(std::mem::take(&mut line));
        } else if gap {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// Lines of one style that hold Chinese, wrapped to `width` by
/// [`wrap_words`]' rules (spaces, and Chinese per UAX #14), for a `Paragraph`
/// that would otherwise cut a run of Chinese anywhere, even before a "，".
/// A leading indent is kept on every line of the wrapped text. Other lines
/// are left to the paragraph's own wrapping.
pub fn wrap_lines(lines: Vec<ratatui::text::Line<'static>>, width: usize) -> Vec<ratatui::text::Line<'static>> {
    use ratatui::text::{Line, Span};
    use unicode_width::UnicodeWidthChar;
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let [span] = line.spans.as_slice() else {
            out.push(line);
            continue;
        };
        let chinese = span.content.chars().any(|c| c.width().unwrap_or(0) > 1);
        if !chinese || line.width() <= width {
            out.push(line);
            continue;
        }
        let (style, line_style) = (span.style, line.style);
        let text = span.content.trim_start();
        let indent = &span.content[..span.content.len() - text.len()];
        let room = width.saturating_sub(unicode_width::UnicodeWidthStr::width(indent)).max(8);
        for part in wrap_all(text, room) {
            out.push(Line::from(Span::styled(format!("{indent}{part}"), style)).style(line_style));
        }
    }
    out
}

/// Widths for table columns whose contents want `natural` columns, in
/// `avail` columns with `gap` between neighbours. When everything fits, each
/// column gets what it wants; otherwise the widest columns give up room
/// first (all columns narrower than a cap keep their width, the others get
/// the cap), so a short column such as "step" is never squeezed to fit a
/// long one. Every column keeps at least 3.
pub fn column_widths(natural: &[usize], avail: usize, gap: usize) -> Vec<usize> {
    let n = natural.len();
    if n == 0 {
        return Vec::new();
    }
    let room = avail.saturating_sub(gap * (n - 1));
    let natural: Vec<usize> = natural.iter().map(|&w| w.max(3)).collect();
    if natural.iter().sum::<usize>() <= room {
        return natural;
    }
    // The largest cap c with sum(min(w, c)) <= room.
    let fits = |c: usize| natural.iter().map(|&w| w.min(c)).sum::<usize>() <= room;
    let mut cap = 3;
    while cap < room && fits(cap + 1) {
        cap += 1;
    }
    let mut widths: Vec<usize> = natural.iter().map(|&w| w.min(cap)).collect();
    // Hand the columns left over by rounding to the capped ones, left first.
    let mut spare = room.saturating_sub(widths.iter().sum());
    for (w, &want) in widths.iter_mut().zip(&natural) {
        if spare > 0 && *w < want {
            *w += 1;
            spare -= 1;
        }
    }
    widths
}

#[cfg(test)]
mod tests {
    use super::{column_widths, ellipsize, pad_left, pad_right, wrap_all, wrap_words};

    #[test]
    fn chinese_counts_two_columns() {
        assert_eq!(ellipsize("强化学习的奖励", 7), "强化学…");
        assert_eq!(pad_right("专题", 6), "专题  ");
        assert_eq!(pad_left("3 道题", 9), "   3 道题");
        let lines = wrap_words("选择 一个最合适的答案，然后按回车键", 10);
        assert!(lines.iter().all(|l| unicode_width::UnicodeWidthStr::width(l.as_str()) <= 10), "{lines:?}");
        assert_eq!(lines.concat().replace(' ', ""), "选择一个最合适的答案，然后按回车键");
        for width in [8, 9, 10, 11, 12] {
            let lines = wrap_words("带掩码的 SFT、奖励模型、PPO、DPO、GRPO、RLVR 与 LoRA。", width);
            assert!(lines.iter().all(|l| !l.starts_with(['，', '、', '。'])), "{width}: {lines:?}");
            assert!(
                lines.iter().all(|l| !l.contains("GRP") || l.contains("GRPO")),
                "a Latin word is not cut: {lines:?}"
            );
        }
        let styled = super::wrap_lines(
            vec![ratatui::text::Line::raw("后训练的核心：带掩码的 SFT、奖励模型、PPO、DPO、GRPO、RLVR 与 LoRA。")],
            28,
        );
        assert!(styled.len() > 1 && styled.iter().all(|l| l.width() <= 28), "{styled:?}");
    }

    #[test]
    fn column_widths_squeeze_the_widest_first() {
        // Everything fits: natural widths (at least 3).
        assert_eq!(column_widths(&[4, 10, 1], 40, 1), vec![4, 10, 3]);
        // 4 + 30 + 12 = 46 > 30 - 2 gaps: the short column keeps its 4.
        let w = column_widths(&[4, 30, 12], 30, 1);
        assert_eq!(w[0], 4);
        assert_eq!(w.iter().sum::<usize>() + 2, 30);
        assert!(w[1] >= w[2] && w[2] <= 12);
        assert!(column_widths(&[], 10, 1).is_empty());
    }

    #[test]
    fn wrap_all_keeps_every_character() {
        assert_eq!(wrap_all("writes Observation:", 8), vec!["writes", "Observat", "ion:"]);
        assert_eq!(wrap_all("a abcdefghij", 4), vec!["a", "abcd", "efgh", "ij"]);
        assert_eq!(wrap_all("short", 8), vec!["short"]);
    }

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

#[cfg(test)]
mod fit_tests {
    use super::*;
    use ratatui::text::Span;

    #[test]
    fn spans_cut_at_the_edge_end_in_an_ellipsis() {
        let text = |v: Vec<Span<'static>>| v.iter().map(|s| s.content.to_string()).collect::<String>();
        let spans =
            || vec![Span::raw("track 0 · "), Span::raw("quick, edited: mask_observations"), Span::raw(" · live")];
        assert_eq!(text(fit_spans(spans(), 80)), "track 0 · quick, edited: mask_observations · live");
        assert_eq!(text(fit_spans(spans(), 24)), "track 0 · quick, edited…");
        assert_eq!(text(fit_spans(spans(), 10)), "track 0 ·…");
        assert_eq!(text(fit_spans(spans(), 9)), "track 0 …");
    }
}
