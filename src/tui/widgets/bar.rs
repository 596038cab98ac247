//! A one-line mastery bar: `████░░░░ 42%`.

use ratatui::style::Style;
use ratatui::text::Span;

/// Spans for a bar of `width` cells filled to `fraction` (None: not started).
pub fn mastery_bar(fraction: Option<f64>, width: usize) -> Vec<Span<'static>> {
    split_bar(fraction, 0.0, width)
}

/// [`mastery_bar`] with the items still being learnt shown apart: `█` mastered
/// (`fraction`), `▒` learning (`learning`), `░` not seen; the percentage is the mastered share.
pub fn split_bar(fraction: Option<f64>, learning: f64, width: usize) -> Vec<Span<'static>> {
    match fraction {
        None => {
            use unicode_width::UnicodeWidthStr;
            let text = crate::t!("drill-not-started");
            let fill = " ".repeat((width + 5).saturating_sub(text.width()));
            vec![Span::styled(format!("{text}{fill}"), crate::tui::theme::dim())]
        }
        Some(f) => {
            let f = f.clamp(0.0, 1.0);
            let full = (f * width as f64).round() as usize;
            // At least one ▒ cell for any item being learnt, never past the bar.
            let learn = match learning.clamp(0.0, 1.0) {
                l if l > 0.0 => ((l * width as f64).round() as usize).max(1),
                _ => 0,
            }
            .min(width - full);
            let colour = crate::tui::theme::mastery(f);
            vec![
                Span::styled("█".repeat(full), Style::default().fg(colour)),
                Span::styled("▒".repeat(learn), Style::default().fg(crate::tui::theme::mastery(0.5))),
                Span::styled("░".repeat(width - full - learn), crate::tui::theme::dim()),
                Span::raw(format!(" {:>3.0}%", f * 100.0)),
            ]
        }
    }
}
