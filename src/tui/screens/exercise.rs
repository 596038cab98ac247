//! Exercises: the list per track (done or pending, like rustlings), and one
//! exercise — its task, your code, the check results and the hints.
//!
//! Your code is a file in the data directory (`exercises/<id>.rhai`,
//! written from the stub the first time). `e` opens it in `$EDITOR`; when
//! the editor closes, the file is checked at once. `c` checks it again (after
//! editing it elsewhere), `h` shows the next hint, `t` opens the drill that
//! trains with it (for the exercises that plug into one), `R` adds the quiz
//! items on the same idea to review after a failed check. A hint or the
//! solution just shown is scrolled into view.

use std::cell::Cell;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, List, ListItem, ListState, Paragraph, Wrap};
use ratatui::Frame;

use crate::content::links::link_label;
use crate::content::{Content, ExerciseMeta, Link};
use crate::exercises::{self, CheckReport};
use crate::markdown::{Doc, Target};
use crate::progress::Progress;
use crate::tui::action::{Action, Hint};
use crate::tui::theme::{accent, bad, dim, good};
use crate::tui::widgets::wrap_all;

// ------------------------------------------------------------------ list

#[derive(Debug, Clone, PartialEq, Default)]
pub struct ListView {
    pub cursor: usize,
}

pub const LIST_HINTS: &[Hint] = &[("↑↓", "move"), ("Enter", "open"), ("Esc", "back")];
pub const LIST_HELP: &[Hint] = &[
    ("↑↓ j k", "move"),
    ("Enter", "open the exercise: its task, your code, checks and hints"),
    ("Esc Backspace", "back"),
];

impl ListView {
    pub fn on_key(&mut self, key: KeyEvent, content: &Content) -> Action {
        let n = content.exercises.len();
        match key.code {
            KeyCode::Down | KeyCode::Char('j') if self.cursor + 1 < n => self.cursor += 1,
            KeyCode::Up | KeyCode::Char('k') => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Home | KeyCode::Char('g') => self.cursor = 0,
            KeyCode::End | KeyCode::Char('G') => self.cursor = n.saturating_sub(1),
            KeyCode::Enter | KeyCode::Char('l') | KeyCode::Right => {
                if let Some(x) = content.exercises.get(self.cursor) {
                    return Action::Follow(Target::Lab(Link::Exercise(x.id.clone())));
                }
            }
            KeyCode::Esc | KeyCode::Backspace => return Action::Back,
            _ => {}
        }
        Action::None
    }
}

fn mark(progress: &Progress, id: &str) -> (&'static str, Style) {
    match progress.exercises.get(id) {
        Some(r) if r.passed_at.is_some() => ("✓", good()),
        Some(_) => ("✗", bad()),
        None => ("·", dim()),
    }
}

pub fn draw_list(frame: &mut Frame, area: Rect, s: &ListView, content: &Content, progress: &Progress) {
    let done = content.exercises.iter().filter(|x| progress.exercise_done(&x.id)).count();
    let title = format!(" {} ", crate::t!("exercise-list-title", done = done, total = content.exercises.len()));
    let block = Block::default().borders(Borders::ALL).border_type(BorderType::Rounded).title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let plugs = content.exercises.iter().filter(|x| x.drill.is_some() && x.plug).count();
    let text = crate::t!("exercise-list-intro", plugs = plugs);
    let intro_h = wrap_all(&text, inner.width as usize).len().clamp(1, 3) as u16;
    let [intro, list] = Layout::vertical([Constraint::Length(intro_h), Constraint::Min(1)]).areas(inner);
    frame.render_widget(Paragraph::new(text).style(dim()).wrap(Wrap { trim: true }), intro);
    let id_w = content.exercises.iter().map(|x| x.id.chars().count()).max().unwrap_or(0);
    let mut items = Vec::new();
    let mut selected = 0;
    let mut track = None;
    for (i, x) in content.exercises.iter().enumerate() {
        if track != Some(x.track) {
            track = Some(x.track);
            let t = content.track_title(x.track);
            items.push(ListItem::new(Line::styled(
                crate::t!("exercise-track-head", track = x.track, title = t),
                accent(),
            )));
        }
        if i == s.cursor {
            selected = items.len();
        }
        let (m, style) = mark(progress, &x.id);
        let mut spans = vec![
            Span::styled(format!(" {m} "), style),
            Span::styled(format!("{:<id_w$}  ", x.id), accent()),
            Span::raw(x.title.clone()),
        ];
        if let (Some(d), true) = (&x.drill, x.plug) {
            spans.push(Span::styled(format!("  {}", crate::t!("exercise-trains", drill = d.as_str())), dim()));
        }
        items.push(ListItem::new(Line::from(spans)));
    }
    let mut state = ListState::default().with_selected(Some(selected));
    let list_w = List::new(items).highlight_symbol("▶").highlight_style(Style::default().add_modifier(Modifier::BOLD));
    frame.render_stateful_widget(list_w, list, &mut state);
}

// -------------------------------------------------------------- one exercise

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub meta: ExerciseMeta,
    /// The learner's file.
    pub path: PathBuf,
    /// Its text as last read.
    pub code: String,
    pub report: Option<CheckReport>,
    /// Hints shown so far.
    pub hints_shown: usize,
    pub solution_shown: bool,
    /// Lines scrolled in the left (task) pane. A cell: drawing clamps it and
    /// scrolls a hint or the solution just shown into view (only the layout
    /// knows where they are).
    pub scroll: Cell<u16>,
    /// What to bring into view at the next draw.
    pub reveal: Cell<Option<Reveal>>,
    /// Ask the app to open the editor on `path` (taken by the event loop).
    pub edit_requested: bool,
    /// The check under way on a thread of its own, if any (a learner's
    /// function may loop for a while before the engine's operation limit
    /// stops it: the screen keeps drawing and answering keys meanwhile).
    checking: Option<Checking>,
    /// The report on screen worded again in a new language (after the
    /// learner switched): the same code checked again, on its own thread,
    /// and not recorded as another check.
    rewording: Option<Rewording>,
    /// The file's modification time and length when it was last checked (or
    /// opened): a save from another window differs, and is checked.
    stamp: Option<FileStamp>,
}

/// A file's modification time and length.
type FileStamp = (Option<std::time::SystemTime>, u64);

fn file_stamp(path: &std::path::Path) -> Option<FileStamp> {
    std::fs::metadata(path).ok().map(|m| (m.modified().ok(), m.len()))
}

/// The file read again and checked: its text and the report, or why not.
type Checked = Result<(String, CheckReport), String>;

/// A check running on its own thread; the result lands in the cell.
#[derive(Debug, Clone)]
struct Checking(Arc<OnceLock<Checked>>);

impl PartialEq for Checking {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The shown code checked again in another language; the report lands in the cell.
#[derive(Debug, Clone)]
struct Rewording(Arc<OnceLock<CheckReport>>);

impl PartialEq for Rewording {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A part of the task pane to scroll into view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reveal {
    /// Hint `k` (0-based).
    Hint(usize),
    Solution,
}

const TRAIN_HELP: Hint = ("t", "train the drill with your function");
const HELP_ROWS: &[Hint] = &[
    ("e", "edit your file in $EDITOR; it is checked when the editor closes"),
    ("c", "check your file (after editing it in another window)"),
    ("h", "show the next hint (scrolled into view)"),
    ("S", "show or hide a solution (after the last hint, or once you passed)"),
    ("R", "add the quiz items on this idea to review (after a failed check)"),
    ("o", "open the cheatsheet section that teaches it"),
    ("↑↓ PgUp PgDn", "scroll the task"),
    ("Esc Backspace", "back"),
];

impl State {
    /// Open exercise `meta`: its file is written from the stub when missing.
    pub fn open(meta: &ExerciseMeta) -> Result<State, String> {
        let path = exercises::ensure_file(&meta.id, &meta.stub).map_err(|e| format!("{e:#}"))?;
        let code = exercises::read_script(&path).map_err(|e| format!("{e:#}"))?;
        let stamp = file_stamp(&path);
        Ok(State {
            meta: meta.clone(),
            path,
            code,
            report: None,
            rewording: None,
            hints_shown: 0,
            solution_shown: false,
            scroll: Cell::new(0),
            reveal: Cell::new(None),
            edit_requested: false,
            checking: None,
            stamp,
        })
    }

    /// Whether the file was saved (another window, an editor) since it was
    /// opened or last checked; the new state counts as seen. Never while a
    /// check runs.
    pub fn saved_since(&mut self) -> bool {
        if self.checking.is_some() {
            return false;
        }
        let now = file_stamp(&self.path);
        if now == self.stamp {
            return false;
        }
        self.stamp = now;
        now.is_some()
    }

    /// Whether `t` trains a drill with this exercise's function.
    pub fn trains(&self) -> bool {
        self.meta.drill.is_some() && self.meta.plug
    }

    fn solution_open(&self) -> bool {
        self.report.as_ref().is_some_and(|r| r.passed) || self.hints_shown >= self.meta.hints.len()
    }

    /// The footer: only the keys that do something here, now.
    pub fn hints(&self) -> Vec<Hint> {
        let mut h = vec![("e", "edit"), ("c", "check")];
        if self.hints_shown < self.meta.hints.len() {
            h.push(("h", "hint"));
        }
        if self.solution_open() {
            h.push(("S", if self.solution_shown { "hide solution" } else { "solution" }));
        }
        if self.trains() {
            h.push(("t", "train"));
        }
        if self.report.as_ref().is_some_and(|r| !r.passed) && !self.meta.quiz.is_empty() {
            h.push(("R", "review its items"));
        }
        h.push(("Esc", "back"));
        h
    }

    /// Every key, for the help overlay (`t` only where a drill trains with it).
    pub fn help(&self) -> Vec<Hint> {
        let mut h = HELP_ROWS.to_vec();
        if self.trains() {
            h.insert(4, TRAIN_HELP);
        }
        h
    }

    fn scroll_by(&self, d: i32) {
        let v = (self.scroll.get() as i32 + d).clamp(0, u16::MAX as i32);
        self.scroll.set(v as u16);
    }

    pub fn title(&self) -> String {
        crate::t!("exercise-title", id = self.meta.id.as_str())
    }

    /// Read the file again and check it on a thread of its own; [`poll_check`](Self::poll_check)
    /// takes the result. Refused while a check is under way.
    pub fn start_check(&mut self) -> Result<(), String> {
        if self.checking.is_some() {
            return Err(crate::t!("exercise-check-running"));
        }
        let spec = exercises::spec(&self.meta.id).ok_or_else(|| crate::t!("exercise-no-checker"))?;
        self.stamp = file_stamp(&self.path);
        let (cell, path) = (Arc::new(OnceLock::new()), self.path.clone());
        let out = Arc::clone(&cell);
        // The report's case names and messages are written in the learner's language.
        let lang = crate::i18n::current();
        std::thread::spawn(move || {
            crate::i18n::set(lang);
            let checked = exercises::read_script(&path).map_err(|e| format!("{e:#}")).map(|code| {
                let report = exercises::check(spec, &code);
                (code, report)
            });
            let _ = out.set(checked);
        });
        self.checking = Some(Checking(cell));
        Ok(())
    }

    /// Word the report on screen in the current language: the code it was
    /// made from is checked again on a thread of its own (a check under way
    /// already speaks the new language only if it started after the switch,
    /// so it is left alone). Nothing is recorded.
    pub fn reword_report(&mut self) {
        let (Some(_), Some(spec)) = (&self.report, exercises::spec(&self.meta.id)) else { return };
        let (cell, code) = (Arc::new(OnceLock::new()), self.code.clone());
        let out = Arc::clone(&cell);
        let lang = crate::i18n::current();
        std::thread::spawn(move || {
            crate::i18n::set(lang);
            let _ = out.set(exercises::check(spec, &code));
        });
        self.rewording = Some(Rewording(cell));
    }

    /// Whether a reworded report has come in (and now replaces the one shown).
    pub fn poll_reword(&mut self) -> bool {
        let Some(report) = self.rewording.as_ref().and_then(|r| r.0.get()).cloned() else { return false };
        self.rewording = None;
        // A check that ended meanwhile is newer: it wins.
        if self.checking.is_none() {
            self.report = Some(report);
        }
        true
    }

    /// Whether the report on screen is being worded in a new language.
    pub fn rewording(&self) -> bool {
        self.rewording.is_some()
    }

    /// Whether a check is under way.
    pub fn checking(&self) -> bool {
        self.checking.is_some()
    }

    /// The check's outcome once it has ended: whether it passed (the report
    /// is shown), or why the file could not be checked. `None` while it runs
    /// or when none was started.
    pub fn poll_check(&mut self) -> Option<Result<bool, String>> {
        let checked = self.checking.as_ref()?.0.get()?.clone();
        self.checking = None;
        Some(match checked {
            Ok((code, report)) => {
                self.rewording = None;
                self.code = code;
                let passed = report.passed;
                self.report = Some(report);
                Ok(passed)
            }
            Err(e) => Err(e),
        })
    }

    pub fn on_key(&mut self, key: KeyEvent) -> Action {
        match key.code {
            KeyCode::Char('e') => {
                self.edit_requested = true;
                Action::None
            }
            KeyCode::Char('c') => Action::CheckExercise,
            KeyCode::Char('h') => {
                if self.hints_shown < self.meta.hints.len() {
                    self.hints_shown += 1;
                    self.reveal.set(Some(Reveal::Hint(self.hints_shown - 1)));
                    Action::None
                } else {
                    Action::Flash(crate::t!("exercise-last-hint"))
                }
            }
            KeyCode::Char('S') => {
                if self.solution_open() {
                    self.solution_shown = !self.solution_shown;
                    self.reveal.set(self.solution_shown.then_some(Reveal::Solution));
                    Action::None
                } else {
                    Action::Flash(crate::t!(
                        "exercise-solution-locked",
                        shown = self.hints_shown,
                        total = self.meta.hints.len()
                    ))
                }
            }
            KeyCode::Char('t') => match (&self.meta.drill, self.meta.plug) {
                (Some(d), true) => Action::TrainWith { drill: d.clone(), exercise: self.meta.id.clone() },
                _ => Action::Flash(crate::t!("exercise-no-drill")),
            },
            KeyCode::Char('R') => match &self.report {
                Some(r) if !r.passed => Action::FlagForReview(self.meta.quiz.clone()),
                _ => Action::Flash(crate::t!("exercise-r-after-fail")),
            },
            KeyCode::Char('o') => match Link::parse(&self.meta.sheet) {
                Some(l) => Action::Follow(Target::Lab(l)),
                None => Action::None,
            },
            KeyCode::Down | KeyCode::Char('j') => {
                self.scroll_by(1);
                Action::None
            }
            KeyCode::Up | KeyCode::Char('k') => {
                self.scroll_by(-1);
                Action::None
            }
            KeyCode::PageDown => {
                self.scroll_by(10);
                Action::None
            }
            KeyCode::PageUp => {
                self.scroll_by(-10);
                Action::None
            }
            KeyCode::Esc | KeyCode::Backspace => Action::Back,
            _ => Action::None,
        }
    }
}

/// The task pane laid out, and where each revealable part is in it.
struct TaskLines {
    lines: Vec<Line<'static>>,
    /// Line ranges of the hints shown, in order.
    hints: Vec<std::ops::Range<usize>>,
    solution: Option<std::ops::Range<usize>>,
}

/// The task, then the hints shown so far (and the solution when asked).
fn task_lines(s: &State, content: &Content, width: u16) -> TaskLines {
    let render = |md: &str| {
        let doc = Doc::parse(md, &|l| link_label(content, l));
        let open: HashSet<usize> = (0..doc.foldables).collect();
        doc.layout(width.max(10), &open).lines
    };
    let mut md = s.meta.task.clone();
    md.push_str(&format!("\n\n{}", crate::t!("exercise-taught-in", sheet = s.meta.sheet.as_str())));
    if let (Some(d), true) = (&s.meta.drill, s.meta.plug) {
        md.push_str(&format!(" {}", crate::t!("exercise-trains-drill", drill = d.as_str())));
    }
    let mut out = TaskLines { lines: render(&md), hints: Vec::new(), solution: None };
    let part = |out: &mut TaskLines, lines: Vec<Line<'static>>| {
        out.lines.push(Line::raw(""));
        let start = out.lines.len();
        out.lines.extend(lines);
        start..out.lines.len()
    };
    for (i, h) in s.meta.hints.iter().take(s.hints_shown).enumerate() {
        let r = part(
            &mut out,
            render(&format!("**{}** {h}", crate::t!("exercise-hint-head", n = i + 1, total = s.meta.hints.len()))),
        );
        out.hints.push(r);
    }
    if s.solution_shown {
        // Rhai, highlighted as Rust (its syntax is Rust-like; syntect has no Rhai), labelled rhai.
        let mut lines = render(&format!(
            "**{}**\n\n```rust\n{}\n```\n",
            crate::t!("exercise-solution"),
            s.meta.solution.trim_end()
        ));
        for l in &mut lines {
            for span in &mut l.spans {
                if span.content == " rust " {
                    span.content = " rhai ".into();
                }
            }
        }
        out.solution = Some(part(&mut out, lines));
    }
    out
}

/// The scroll that shows `part` whole (or its start, when it is taller than
/// the pane), moving as little as possible from `scroll`.
fn scroll_to(scroll: usize, part: &std::ops::Range<usize>, height: usize) -> usize {
    if part.start < scroll {
        part.start
    } else if part.end > scroll + height {
        part.start.min(part.end.saturating_sub(height))
    } else {
        scroll
    }
}

/// The check's report wrapped to `width` (nothing is cut: a continued line
/// is indented under its text).
fn report_lines(s: &State, width: usize) -> Vec<Line<'static>> {
    let raw: Vec<(String, Style)> = match &s.report {
        _ if s.checking() => vec![(crate::t!("exercise-checking"), dim())],
        None => vec![(crate::t!("exercise-not-checked-hint"), dim())],
        Some(r) => r
            .lines()
            .into_iter()
            .enumerate()
            .map(|(i, l)| match i {
                0 if r.passed => (l, good().add_modifier(Modifier::BOLD)),
                0 => (l, bad().add_modifier(Modifier::BOLD)),
                _ => (l, Style::default()),
            })
            .collect(),
    };
    let mut out = Vec::new();
    for (text, style) in raw {
        let lead = text.chars().take_while(|c| *c == ' ').count();
        let indent = lead + 2;
        for (i, piece) in
            wrap_keeping_spaces(&text, width.max(8), width.saturating_sub(indent).max(8)).into_iter().enumerate()
        {
            let pad = if i == 0 { String::new() } else { " ".repeat(indent) };
            out.push(Line::styled(format!("{pad}{piece}"), style));
        }
    }
    out
}

/// `text` broken at spaces (inside a word only when it is wider than a line)
/// into a first line of `first` columns and more of `rest` columns. Unlike
/// [`wrap_all`] the spaces within a line are kept ("got:      0.5" stays aligned).
fn wrap_keeping_spaces(text: &str, first: usize, rest: usize) -> Vec<String> {
    use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
    let mut out = Vec::new();
    let mut left = text.trim_end();
    loop {
        let width = if out.is_empty() { first } else { rest };
        if left.width() <= width {
            out.push(left.to_string());
            return out;
        }
        let (mut w, mut cut, mut space) = (0, left.len(), None);
        for (i, c) in left.char_indices() {
            let cw = c.width().unwrap_or(0);
            if w + cw > width {
                cut = i;
                break;
            }
            if c == ' ' && !left[..i].trim().is_empty() {
                space = Some(i);
            }
            w += cw;
        }
        let at = space.unwrap_or(cut).max(left.chars().next().map_or(1, char::len_utf8));
        out.push(left[..at].trim_end().to_string());
        left = left[at..].trim_start();
        if left.is_empty() {
            return out;
        }
    }
}

pub fn draw(frame: &mut Frame, area: Rect, s: &State, content: &Content, progress: &Progress) {
    let wide = area.width >= 100;
    let (left, right) = if wide {
        let [l, r] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
        (l, r)
    } else {
        let [l, r] = Layout::vertical([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(area);
        (l, r)
    };
    let (m, mstyle) = mark(progress, &s.meta.id);
    let state = match m {
        "✓" => crate::t!("exercise-state-done"),
        "✗" => crate::t!("exercise-state-failed"),
        _ => crate::t!("exercise-state-unchecked"),
    };
    // Shortened when the pane is narrow: the mark, then the title.
    let head = crate::t!("exercise-pane-title", title = s.meta.title.as_str(), track = s.meta.track);
    let full = format!(" {head} · {state} ");
    let title = if unicode_width::UnicodeWidthStr::width(full.as_str()) + 2 <= left.width as usize {
        Line::from(vec![Span::raw(format!(" {head} · ")), Span::styled(format!("{state} "), mstyle)])
    } else {
        Line::from(vec![Span::styled(format!(" {m} "), mstyle), Span::raw(format!("{} ", s.meta.title))])
    };
    let block = Block::default().borders(Borders::ALL).border_type(BorderType::Rounded).title(title);
    let inner = block.inner(left);
    frame.render_widget(block, left);
    let task = task_lines(s, content, inner.width);
    let height = inner.height as usize;
    let max_scroll = task.lines.len().saturating_sub(height);
    let mut scroll = (s.scroll.get() as usize).min(max_scroll);
    let part = match s.reveal.take() {
        Some(Reveal::Hint(k)) => task.hints.get(k).cloned(),
        Some(Reveal::Solution) => task.solution.clone(),
        None => None,
    };
    if let Some(p) = part {
        scroll = scroll_to(scroll, &p, height).min(max_scroll);
    }
    s.scroll.set(scroll as u16);
    let below = task.lines.len().saturating_sub(scroll + height);
    frame.render_widget(Paragraph::new(task.lines).scroll((scroll as u16, 0)), inner);
    if below > 0 {
        let more = format!(" {} ", crate::t!("exercise-more-lines", count = below));
        let w = (unicode_width::UnicodeWidthStr::width(more.as_str()) as u16).min(left.width.saturating_sub(2));
        let at =
            Rect { x: left.x + left.width.saturating_sub(w + 2), y: left.y + left.height - 1, width: w, height: 1 };
        frame.render_widget(Paragraph::new(more).style(dim()), at);
    }

    let report = report_lines(s, right.width.saturating_sub(2) as usize);
    // The report is whole when it can be (the code, which the editor shows
    // anyway, keeps one line); when it cannot, the pane says where it is whole.
    let report_h = (report.len() as u16 + 2).clamp(3, right.height.saturating_sub(3).max(3));
    let cut = report.len() + 2 > report_h as usize;
    let [code_area, report_area] = Layout::vertical([Constraint::Min(3), Constraint::Length(report_h)]).areas(right);
    let code: Vec<Line> = s
        .code
        .lines()
        .enumerate()
        .map(|(i, l)| Line::from(vec![Span::styled(format!("{:>3} ", i + 1), dim()), Span::raw(l.to_string())]))
        .collect();
    let mut code = code;
    code.push(Line::raw(""));
    code.push(Line::styled(crate::t!("exercise-file", path = s.path.display().to_string()), dim()));
    let code_block = Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .title(format!(" {} ", crate::t!("exercise-your-code")));
    frame.render_widget(Paragraph::new(code).wrap(Wrap { trim: false }).block(code_block), code_area);
    let mut report_block = Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .title(format!(" {} ", crate::t!("exercise-check")));
    if cut {
        report_block = report_block.title_bottom(
            Line::styled(format!(" {} ", crate::t!("exercise-more", id = s.meta.id.as_str())), dim()).right_aligned(),
        );
    }
    frame.render_widget(Paragraph::new(report).wrap(Wrap { trim: false }).block(report_block), report_area);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_lines_wrap_whole_and_keep_their_spaces() {
        let got = "  got:      error: discounted_returns returned an array of 0; it must have 4";
        let lines = wrap_keeping_spaces(got, 40, 36);
        assert_eq!(lines[0], "  got:      error: discounted_returns");
        assert_eq!(lines[1..].join(" "), "returned an array of 0; it must have 4");
        assert!(lines.iter().skip(1).all(|l| l.chars().count() <= 36), "{lines:?}");
        // A word wider than a line is split, nothing is lost.
        assert_eq!(wrap_keeping_spaces("abcdefghij", 4, 4).concat(), "abcdefghij");
        assert_eq!(wrap_keeping_spaces("FAIL  x: 0 of 4", 40, 36), vec!["FAIL  x: 0 of 4"]);
    }

    #[test]
    fn scroll_to_moves_as_little_as_it_can() {
        // Already in view: stays.
        assert_eq!(scroll_to(0, &(3..6), 10), 0);
        // Below: its end at the pane's bottom.
        assert_eq!(scroll_to(0, &(30..34), 10), 24);
        // Taller than the pane: its start at the top.
        assert_eq!(scroll_to(0, &(30..50), 10), 30);
        // Above: its start at the top.
        assert_eq!(scroll_to(40, &(30..34), 10), 30);
    }
}
