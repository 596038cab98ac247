//! The frame's rows, which the app (sizing screens before a draw) and
//! `ui` (drawing) both need: a header, the screen body, a footer.

use ratatui::layout::{Constraint, Layout, Rect};

/// The body area of a full frame (between header and footer).
pub fn body_area(area: Rect) -> Rect {
    let [_, body, _] = Layout::vertical([Constraint::Length(1), Constraint::Min(1), Constraint::Length(1)]).areas(area);
    body
}
