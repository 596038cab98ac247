//! Progress: mastery per track (all its items, as Home shows it) and per
//! level, drills passed, exercises done, what comes due, the ratings of the
//! last two weeks, and the study sessions: per week, time per track and the
//! predictions right. Its summary is Home's, recomputed whenever the progress
//! file or the runs change (see `tui::sync`).

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph, Wrap};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::progress::summary::{duration_text, pct_text};
use crate::progress::Summary;
use crate::tui::action::Action;
use crate::tui::action::Hint;
use crate::tui::theme::{accent, dim, highlight, notice, rated_dont, rated_fuzzy, rated_know};
use crate::tui::widgets::bar::split_bar;

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
    /// Below 100 columns: the study panel is shown in place of due and ratings (Tab).
    pub study: bool,
}

/// From this width the study panel sits beside due and ratings.
pub const STUDY_BESIDE: u16 = 100;

pub const HINTS: &[Hint] = &[("r", "review"), ("z", "quiz"), ("↑↓", "scroll"), ("Esc", "back")];

pub const HELP: &[Hint] = &[
    ("r", "open Review (due items, then ⚠/❌ on request)"),
    ("z", "open a quiz"),
    ("↑↓ j k PgUp PgDn", "scroll the tracks when the terminal is short"),
    ("Tab", "below 100 columns: study sessions, time and predictions in place of due and ratings"),
    ("Esc Backspace", "back"),
];

impl State {
    pub fn on_key(&mut self, key: KeyEvent) -> Action {
        match key.code {
            KeyCode::Char('r') => Action::OpenReview,
            KeyCode::Char('z') => Action::OpenQuiz { track: None, level: None },
            KeyCode::Tab | KeyCode::BackTab => {
                self.study = !self.study;
                Action::None
            }
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
        self.scroll.unwrap_or_else(|| self.summary.tracks.iter().position(|r| r.started()).unwrap_or(0))
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
    let beside = bottom.width >= STUDY_BESIDE;
    let (due_area, hist_area, study_area) = if beside {
        let [d, h, st] =
            Layout::horizontal([Constraint::Percentage(28), Constraint::Percentage(40), Constraint::Percentage(32)])
                .areas(bottom);
        (Some(d), Some(h), Some(st))
    } else if s.study {
        (None, None, Some(bottom))
    } else {
        let [d, h] = Layout::horizontal([Constraint::Percentage(40), Constraint::Percentage(60)]).areas(bottom);
        (Some(d), Some(h), None)
    };

    // Mastery table: track, all its items (as on Home), L1, L2, L3 bars, due, drills, exercises.
    let bar_w = match table.width {
        110.. => 8,
        80.. => 4,
        _ => 2,
    };
    // After the title: "all" 5, three levels of (bar + 6), due 4, drills 7,
    // exercises 6; the borders, "N " and the space after the title 5 more.
    let title_w = (table.width as usize).saturating_sub(3 * (bar_w + 6) + 27).clamp(8, 32);
    // Level names as wide as their bars (a narrow column gets short names).
    let levels = match bar_w {
        8 => [crate::t!("progress-l1-wide"), crate::t!("progress-l2-wide"), crate::t!("progress-l3-wide")],
        4 => [crate::t!("progress-l1-mid"), crate::t!("progress-l2-mid"), crate::t!("progress-l3-mid")],
        _ => [crate::t!("progress-l1-narrow"), crate::t!("progress-l2-narrow"), crate::t!("progress-l3-narrow")],
    };
    let w = bar_w + 5;
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "{} {} {} {} {} {} {} {}",
            pad_right(&crate::t!("progress-col-track"), title_w + 2),
            pad_left(&crate::t!("progress-col-all"), 4),
            pad_right(&levels[0], w),
            pad_right(&levels[1], w),
            pad_right(&levels[2], w),
            pad_left(&crate::t!("progress-col-due"), 4),
            pad_left(&crate::t!("progress-col-drills"), 6),
            pad_left(&crate::t!("progress-col-exercises"), 5),
        ),
        dim(),
    ))];
    // Rows that fit between the borders and the header; scroll when they do not all fit.
    let fit = (table.height as usize).saturating_sub(3).max(1);
    let first = s.first_row().min(sum.tracks.len().saturating_sub(fit));
    for row in sum.tracks.iter().skip(first).take(fit) {
        let mut spans = vec![
            Span::styled(format!("{} ", row.track), highlight()),
            Span::raw(format!("{} ", cut(&row.title, title_w))),
        ];
        let all = row.mastery();
        spans.push(Span::styled(
            format!("{:>4} ", pct_text(all)),
            if all.is_some() { Style::default().add_modifier(Modifier::BOLD) } else { dim() },
        ));
        for c in &row.levels {
            match c.fraction() {
                Some(f) => spans.extend(split_bar(Some(f), c.learning_fraction(), bar_w)),
                None => spans.push(Span::styled(format!("{:<w$}", "—", w = bar_w + 5), dim())),
            }
            spans.push(Span::raw(" "));
        }
        spans.push(Span::styled(format!("{:>4}", row.due), if row.due > 0 { highlight() } else { dim() }));
        spans.push(Span::raw(format!(" {:>6}", row.drills_text())));
        spans.push(Span::raw(format!(" {:>5}", row.exercises_text())));
        lines.push(Line::from(spans));
    }
    let title = if fit < sum.tracks.len() {
        let text = crate::t!(
            "progress-mastery-scroll",
            first = sum.tracks[first].track.to_string(),
            last = sum.tracks[(first + fit).min(sum.tracks.len()) - 1].track.to_string(),
            total = sum.tracks.len()
        );
        format!(" {text} ")
    } else {
        format!(" {} ", crate::t!("progress-mastery-title"))
    };
    frame.render_widget(Paragraph::new(lines).block(panel(&title)), table);

    if let Some(area) = study_area {
        let title = if beside {
            format!(" {} ", crate::t!("progress-sessions-title"))
        } else {
            format!(" {} ", crate::t!("progress-sessions-title-tab"))
        };
        frame.render_widget(
            Paragraph::new(study_lines(
                sum,
                area.width.saturating_sub(2) as usize,
                area.height.saturating_sub(2) as usize,
            ))
            .wrap(Wrap { trim: false })
            .block(panel(&title)),
            area,
        );
    }
    if let (Some(due_area), Some(hist_area)) = (due_area, hist_area) {
        draw_due_and_history(frame, due_area, hist_area, sum, !beside);
    }
    footer(frame, foot, s);
}

/// `text` cut to `w` characters (an ellipsis where it was cut), padded to `w`.
fn cut(text: &str, w: usize) -> String {
    let mut t: String = text.chars().take(w).collect();
    if text.chars().count() > w {
        t.pop();
        t.push('…');
    }
    pad_right(&t, w)
}

/// A label and the space before its value ("Due now: "); none after a
/// full-width colon, which has its own room ("现在到期：").
fn after_label(mut label: String) -> String {
    if !label.ends_with('：') {
        label.push(' ');
    }
    label
}

/// `text` padded with spaces to `w` columns (a Chinese character is two).
fn pad_right(text: &str, w: usize) -> String {
    let n = w.saturating_sub(UnicodeWidthStr::width(text));
    format!("{text}{}", " ".repeat(n))
}

/// `text` right-aligned in `w` columns.
fn pad_left(text: &str, w: usize) -> String {
    let n = w.saturating_sub(UnicodeWidthStr::width(text));
    format!("{}{text}", " ".repeat(n))
}

/// Sessions per week, then time and predictions right per track ("—":
/// nothing yet). A week a row when `height` rows allow, else all on one line.
fn study_lines(sum: &Summary, width: usize, height: usize) -> Vec<Line<'static>> {
    let rows: Vec<_> = sum.tracks.iter().filter(|r| r.secs > 0 || r.predictions > 0).collect();
    let week_text = |w: &crate::progress::summary::Week| match w.sessions {
        0 => "—".to_string(),
        n => crate::t!("progress-week", count = n, time = duration_text(w.secs)),
    };
    let mut lines = Vec::new();
    let tall = height >= 1 + sum.weeks.len() + 2 + rows.len().max(1);
    if sum.sessions == 0 {
        lines.push(Line::from(vec![
            Span::styled(after_label(crate::t!("progress-sessions-per-week")), accent()),
            Span::styled(crate::t!("progress-none-yet"), dim()),
        ]));
    } else if tall {
        lines.push(Line::from(Span::styled(crate::t!("progress-sessions-per-week-monday"), accent())));
        for w in &sum.weeks {
            lines.push(Line::from(vec![
                Span::styled(format!("  {} ", w.start.format("%m-%d")), dim()),
                Span::raw(week_text(w)),
            ]));
        }
    } else {
        let weeks: Vec<String> = sum
            .weeks
            .iter()
            .map(|w| match w.sessions {
                0 => format!("{} —", w.start.format("%m-%d")),
                n => format!("{} {n} ({})", w.start.format("%m-%d"), duration_text(w.secs)),
            })
            .collect();
        lines.push(Line::from(vec![
            Span::styled(after_label(crate::t!("progress-sessions-per-week")), accent()),
            Span::raw(weeks.join(", ")),
        ]));
    }
    if tall || sum.sessions == 0 {
        lines.push(Line::raw(""));
    }
    // "N title  time  right": the title takes what the figures leave.
    let title_w = width.saturating_sub(2 + 1 + 6 + 1 + 11).clamp(4, 28);
    lines.push(Line::from(Span::styled(
        format!(
            "{} {} {}",
            pad_right(&crate::t!("progress-col-track"), title_w + 2),
            pad_left(&crate::t!("progress-col-time"), 6),
            pad_left(&crate::t!("progress-col-pred-right"), 11)
        ),
        dim(),
    )));
    if rows.is_empty() {
        lines.push(Line::from(Span::styled(format!("{:<tw$} {:>6} {:>11}", "  —", "—", "—", tw = title_w + 2), dim())));
    }
    for r in rows {
        lines.push(Line::from(vec![
            Span::styled(format!("{} ", r.track), highlight()),
            Span::raw(format!("{} {:>6} {:>11}", cut(&r.title, title_w), duration_text(r.secs), r.calibration_text())),
        ]));
    }
    lines
}

fn draw_due_and_history(frame: &mut Frame, due_area: Rect, hist_area: Rect, sum: &Summary, narrow: bool) {
    // Due now and over the next 7 days.
    let mut due = vec![
        Line::from(vec![
            Span::raw(after_label(crate::t!("progress-due-now"))),
            Span::styled(sum.due_now.to_string(), highlight().add_modifier(Modifier::BOLD)),
        ]),
        Line::raw(crate::t!("progress-next-7-days", n = sum.due_week())),
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
    let title = if narrow { crate::t!("progress-due-title-tab") } else { crate::t!("progress-due-title") };
    frame.render_widget(Paragraph::new(due).block(panel(&format!(" {title} "))), due_area);

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
            Span::styled("█".repeat(scale(d.know)), rated_know()),
            Span::styled("█".repeat(scale(d.fuzzy)), rated_fuzzy()),
            Span::styled("█".repeat(scale(d.dont)), rated_dont()),
            Span::raw(if total > 0 { format!(" {}/{}/{}", d.know, d.fuzzy, d.dont) } else { String::new() }),
        ]));
    }
    frame.render_widget(
        Paragraph::new(hist).block(panel(&format!(" {} ", crate::t!("progress-ratings-title")))),
        hist_area,
    );
}

fn footer(frame: &mut Frame, foot: Rect, s: &State) {
    let sum = &s.summary;
    let mut f = vec![Line::from(Span::styled(
        crate::t!("progress-footer", retention = format!("{:.2}", sum.desired_retention), path = s.path.as_str()),
        dim(),
    ))];
    if let Some(n) = &s.notice {
        f.push(Line::from(Span::styled(n.clone(), notice())));
    }
    frame.render_widget(Paragraph::new(f).wrap(Wrap { trim: true }), foot);
}

fn panel(title: &str) -> Block<'static> {
    Block::default().borders(Borders::ALL).border_type(BorderType::Rounded).border_style(dim()).title(title.to_string())
}
