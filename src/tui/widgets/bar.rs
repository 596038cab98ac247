//! A one-line mastery bar: `████░░░░ 42%`.

use ratatui::style::{Color, Style};
use ratatui::text::Span;

/// Spans for a bar of `width` cells filled to `fraction` (None: not started).
pub fn mastery_bar(fraction: Option<f64>, width: usize) -> Vec<Span<'static>> {
    match fraction {
        None => {
            vec![Span::styled(format!("{:<w$}", "not started", w = width + 5), Style::default().fg(Color::DarkGray))]
        }
        Some(f) => {
            let f = f.clamp(0.0, 1.0);
            let full = (f * width as f64).round() as usize;
            let colour = if f >= 0.8 {
                Color::Green
            } else if f >= 0.4 {
                Color::Yellow
            } else {
                Color::Rgb(0xff, 0x87, 0x5f)
            };
            vec![
                Span::styled("█".repeat(full), Style::default().fg(colour)),
                Span::styled("░".repeat(width - full), Style::default().fg(Color::DarkGray)),
                Span::raw(format!(" {:>3.0}%", f * 100.0)),
            ]
        }
    }
}
