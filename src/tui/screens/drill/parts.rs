//! Pieces the drill screen's tabs draw alike: a pane, a table's header
//! row, a run's status cell, a line of parts that fit. `draw`, `sweep_tab`
//! and `try_tab` use them; they use none of those.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Cell, Row};

use crate::drills::RunStatus;
use crate::tui::theme::{self, accent, table_header};

/// A pane; the focused one is marked `▶` before its title, not only by colour.
pub(super) fn panel<'a>(title: impl Into<Line<'a>>, focused: bool) -> Block<'a> {
    let block =
        Block::default().borders(Borders::ALL).border_type(BorderType::Rounded).border_style(theme::border(focused));
    if focused {
        block.title(Span::styled("▶", accent())).title(title)
    } else {
        block.title(title)
    }
}

/// The bold header row of a table.
pub(super) fn header_row<'a, T: Into<Cell<'a>>>(cells: impl IntoIterator<Item = T>) -> Row<'a> {
    Row::new(cells).style(table_header())
}

/// A run's status as a table cell: a word and its colour.
pub(super) fn status_cell(status: &RunStatus) -> (String, Style) {
    match status {
        RunStatus::Passed => (crate::t!("drill-status-passed"), theme::pass()),
        RunStatus::ClaimsFailed => (crate::t!("drill-status-claim-failed"), theme::fail()),
        RunStatus::Cancelled => (crate::t!("drill-status-cancelled"), theme::dim()),
        RunStatus::Failed(_) => (crate::t!("drill-status-error"), theme::fail()),
    }
}

/// `text` padded with spaces to `width` terminal columns (a Chinese
/// character takes two).
pub(super) fn pad(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    format!("{text}{}", " ".repeat(width.saturating_sub(text.width())))
}

/// `parts` joined with " · ", leaving out the last ones that do not fit in
/// `width` (a part is never cut in the middle, unless the first alone is too
/// wide: then it ends in `…`).
pub(super) fn fit_parts(parts: &[String], width: usize) -> String {
    let mut out = String::new();
    for p in parts {
        let next = if out.is_empty() { p.clone() } else { format!("{out} · {p}") };
        if unicode_width::UnicodeWidthStr::width(next.as_str()) > width {
            break;
        }
        out = next;
    }
    if out.is_empty() {
        out = crate::tui::widgets::ellipsize(parts.first().map_or("", String::as_str), width);
    }
    out
}
