//! A one-line mastery bar: `████░░░░ 42%`.

use ratatui::style::Style;
use ratatui::text::Span;

/// Spans for a bar of `width` cells filled to `fraction` (None: not started).
pub fn mastery_bar(fraction: Option<f64>, width: usize) -> Vec<Span<'static>> {
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
            let colour = crate::tui::theme::mastery(f);
            vec![
                Span::styled("█".repeat(full), Style::default().fg(colour)),
                Span::styled("░".repeat(width - full), crate::tui::theme::dim()),
                Span::raw(format!(" {:>3.0}%", f * 100.0)),
            ]
        }
    }
}
