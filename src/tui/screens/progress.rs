//! Progress: mastery per track × level, drills passed, what comes due, and
//! the ratings of the last two weeks. A snapshot taken when the screen opens.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph, Wrap};
use ratatui::Frame;

use crate::progress::Summary;
use crate::tui::action::Action;
use crate::tui::action::Hint;
use crate::tui::theme::{accent, dim};
use crate::tui::widgets::bar::mastery_bar;

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub summary: Summary,
    /// Where the state file lives.
    pub path: String,
    /// A problem with the state file, told to the learner.
    pub notice: Option<String>,
    /// First track row shown when the table does not fit; `None`: start at
    /// the first track with answers, so the data is never hidden below.
    pub scroll: Option<usize>,
}

pub const HINTS: &[Hint] = &[("r", "review"), ("z", "quiz"), ("↑↓", "scroll"), ("Esc", "back")];

pub const HELP: &[Hint] = &[
    ("r", "open Review (due items, then ⚠/❌ on request)"),
    ("z", "open a quiz"),
    ("↑↓ j k PgUp PgDn", "scroll the tracks when the terminal is short"),
    ("Esc Backspace", "back"),
];

impl State {
    pub fn on_key(&mut self, key: KeyEvent) -> Action {
        match key.code {
            KeyCode::Char('r') => Action::OpenReview,
            KeyCode::Char('z') => Action::OpenQuiz { track: None, level: None },
            KeyCode::Down | KeyCode::Char('j') => self.scroll_by(1),
            KeyCode::Up | KeyCode::Char('k') => self.scroll_by(-1),
            KeyCode::PageDown => self.scroll_by(4),
            KeyCode::PageUp => self.scroll_by(-4),
            KeyCode::Home | KeyCode::Char('g') => {
                self.scroll = Some(0);
                Action::None
            }
            KeyCode::Esc | KeyCode::Backspace => Action::Back,
            _ => Action::None,
        }
    }
}

impl State {
    /// The first track row shown now (drawing clamps it to what fits).
    fn first_row(&self) -> usize {
        self.scroll.unwrap_or_else(|| {
            self.summary.tracks.iter().position(|r| r.levels.iter().any(|c| c.fraction().is_some())).unwrap_or(0)
        })
    }

    fn scroll_by(&mut self, d: isize) -> Action {
        let max = self.summary.tracks.len().saturating_sub(1);
        self.scroll = Some(self.first_row().saturating_add_signed(d).min(max));
        Action::None
    }
}

pub fn draw(frame: &mut Frame, area: Rect, s: &State) {
    let sum = &s.summary;
    let table_h = sum.tracks.len() as u16 + 3;
    let [table, bottom, foot] =
        Layout::vertical([Constraint::Length(table_h), Constraint::Min(6), Constraint::Length(2)]).areas(area);
    let [due_area, hist_area] =
        Layout::horizontal([Constraint::Percentage(40), Constraint::Percentage(60)]).areas(bottom);

    // Mastery table: track, L1, L2, L3 bars, due, drills.
    let bar_w = if table.width >= 110 { 8 } else { 4 };
    // The columns after the title take 3 × (bar + 6) + 18; borders and "N " 4 more.
    let title_w = (table.width as usize).saturating_sub(3 * (bar_w + 6) + 22).clamp(8, 32);
    // Level names as wide as their bars (a narrow column gets short names).
    let levels =
        if bar_w >= 8 { ["L1 concept", "L2 impl.", "L3 research"] } else { ["L1 conc.", "L2 impl.", "L3 res."] };
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "{:<tw$} {:<w$} {:<w$} {:<w$} {:>4} {:>6} {:>5}",
            "track",
            levels[0],
            levels[1],
            levels[2],
            "due",
            "drills",
            "exer.",
            tw = title_w + 2,
            w = bar_w + 5
        ),
        dim(),
    ))];
    // Rows that fit between the borders and the header; scroll when they do not all fit.
    let fit = (table.height as usize).saturating_sub(3).max(1);
    let first = s.first_row().min(sum.tracks.len().saturating_sub(fit));
    for row in sum.tracks.iter().skip(first).take(fit) {
        let mut title: String = row.title.chars().take(title_w).collect();
        if row.title.chars().count() > title_w {
            title.pop();
            title.push('…');
        }
        let mut spans = vec![
            Span::styled(format!("{} ", row.track), Style::default().fg(Color::Yellow)),
            Span::raw(format!("{title:<title_w$} ")),
        ];
        for c in &row.levels {
            match c.fraction() {
                Some(f) => spans.extend(mastery_bar(Some(f), bar_w)),
                None => spans.push(Span::styled(format!("{:<w$}", "—", w = bar_w + 5), dim())),
            }
            spans.push(Span::raw(" "));
        }
        spans.push(Span::styled(
            format!("{:>4}", row.due),
            if row.due > 0 { Style::default().fg(Color::Yellow) } else { dim() },
        ));
        let drills = if row.drills == 0 { "—".to_string() } else { format!("{}/{}", row.drills_passed, row.drills) };
        spans.push(Span::raw(format!(" {drills:>6}")));
        let ex =
            if row.exercises == 0 { "—".to_string() } else { format!("{}/{}", row.exercises_done, row.exercises) };
        spans.push(Span::raw(format!(" {ex:>5}")));
        lines.push(Line::from(spans));
    }
    let title = if fit < sum.tracks.len() {
        format!(
            " Mastery · tracks {}–{} of {} (↑↓ scroll) ",
            sum.tracks[first].track,
            sum.tracks[(first + fit).min(sum.tracks.len()) - 1].track,
            sum.tracks.len()
        )
    } else {
        " Mastery (✅ and not due) · drills passed · exercises done ".to_string()
    };
    frame.render_widget(Paragraph::new(lines).block(panel(&title)), table);

    // Due now and over the next 7 days.
    let mut due = vec![
        Line::from(vec![
            Span::raw("Due now: "),
            Span::styled(sum.due_now.to_string(), Style::default().fg(Color::Yellow).add_modifier(Modifier::BOLD)),
        ]),
        Line::raw(format!("Next 7 days: {}", sum.due_week())),
    ];
    let max = sum.due_next.iter().copied().max().unwrap_or(0).max(1);
    for (k, n) in sum.due_next.iter().enumerate() {
        let w = (n * 12).div_ceil(max);
        due.push(Line::from(vec![
            Span::styled(format!("  +{}d ", k + 1), dim()),
            Span::styled("▇".repeat(w), accent()),
            Span::raw(format!(" {n}")),
        ]));
    }
    frame.render_widget(Paragraph::new(due).block(panel(" Due ")), due_area);

    // Ratings per day: one stacked bar a day.
    let max = sum.history.iter().map(|d| d.know + d.fuzzy + d.dont).max().unwrap_or(0).max(1);
    let avail = (hist_area.width as usize).saturating_sub(20).max(4);
    let rows = (hist_area.height as usize).saturating_sub(2);
    let mut hist = Vec::new();
    for d in sum.history.iter().skip(sum.history.len().saturating_sub(rows)) {
        let total = d.know + d.fuzzy + d.dont;
        let scale = |n: usize| (n * avail).div_ceil(max);
        hist.push(Line::from(vec![
            Span::styled(d.date.format("%m-%d ").to_string(), dim()),
            Span::styled("█".repeat(scale(d.know)), Style::default().fg(Color::Green)),
            Span::styled("█".repeat(scale(d.fuzzy)), Style::default().fg(Color::Yellow)),
            Span::styled("█".repeat(scale(d.dont)), Style::default().fg(Color::Red)),
            Span::raw(if total > 0 { format!(" {}/{}/{}", d.know, d.fuzzy, d.dont) } else { String::new() }),
        ]));
    }
    frame.render_widget(Paragraph::new(hist).block(panel(" Ratings per day (✅/⚠/❌) ")), hist_area);

    let mut f = vec![Line::from(Span::styled(
        format!("Desired retention {:.2} · state file {}", sum.desired_retention, s.path),
        dim(),
    ))];
    if let Some(n) = &s.notice {
        f.push(Line::from(Span::styled(n.clone(), Style::default().fg(Color::Yellow))));
    }
    frame.render_widget(Paragraph::new(f).wrap(Wrap { trim: true }), foot);
}

fn panel(title: &str) -> Block<'_> {
    Block::default().borders(Borders::ALL).border_type(BorderType::Rounded).border_style(dim()).title(title)
}
