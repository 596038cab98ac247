//! The claims panel: each claim of the drill with its threshold, pending
//! until measured, then pass or fail with the measured value.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

use crate::content::DrillMeta;
use crate::drills::ClaimResult;

pub fn lines(meta: &DrillMeta, results: &[ClaimResult], width: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for c in &meta.claims {
        let r = results.iter().find(|r| r.id == c.id);
        let (mark, style) = match r {
            None => ("○", Style::default().fg(Color::DarkGray)),
            Some(r) if r.pass => ("✓", Style::default().fg(Color::Green).add_modifier(Modifier::BOLD)),
            Some(_) => ("✗", Style::default().fg(Color::Red).add_modifier(Modifier::BOLD)),
        };
        let mut text: String = c.text.chars().take(width.saturating_sub(2)).collect();
        if c.text.chars().count() > width.saturating_sub(2) {
            text.pop();
            text.push('…');
        }
        out.push(Line::from(vec![Span::styled(format!("{mark} "), style), Span::raw(text)]));
        let value = match r {
            Some(r) => format!("  {:.4} {} {}", r.measured, c.op.symbol(), c.threshold),
            None => format!("  pending ({} {})", c.op.symbol(), c.threshold),
        };
        out.push(Line::from(Span::styled(value, style)));
    }
    out
}
