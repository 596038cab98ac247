//! Exercises: the list per track (done or pending, like rustlings), and one
//! exercise — its task, your code, the check results and the hints.
//!
//! Your code is a file in the data directory (`exercises/<id>.rhai`,
//! written from the stub the first time). `e` opens it in `$EDITOR`; when
//! the editor closes, the file is checked at once. `c` checks it again (after
//! editing it elsewhere), `h` shows the next hint, `t` opens the drill that
//! trains with it (for the exercises that plug into one), `R` adds the quiz
//! items on the same idea to review after a failed check.

use std::collections::HashSet;
use std::path::PathBuf;

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
    let title = format!(" Exercises · {done} of {} done ", content.exercises.len());
    let block = Block::default().borders(Borders::ALL).border_type(BorderType::Rounded).title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [intro, list] = Layout::vertical([Constraint::Length(2), Constraint::Min(1)]).areas(inner);
    frame.render_widget(
        Paragraph::new("Write the algorithm in Rhai; it is checked against the lab's own code, and four of them can train a drill.")
            .style(dim())
            .wrap(Wrap { trim: true }),
        intro,
    );
    let mut items = Vec::new();
    let mut selected = 0;
    let mut track = None;
    for (i, x) in content.exercises.iter().enumerate() {
        if track != Some(x.track) {
            track = Some(x.track);
            let t = crate::content::tracks::track(x.track).map(|t| t.title).unwrap_or("?");
            items.push(ListItem::new(Line::styled(format!("track {} · {t}", x.track), accent())));
        }
        if i == s.cursor {
            selected = items.len();
        }
        let (m, style) = mark(progress, &x.id);
        let mut spans = vec![Span::styled(format!(" {m} "), style), Span::raw(x.title.clone())];
        if let (Some(d), true) = (&x.drill, x.plug) {
            spans.push(Span::styled(format!("  → trains {d}"), dim()));
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
    /// Lines scrolled in the left (task) pane.
    pub scroll: u16,
    /// Ask the app to open the editor on `path` (taken by the event loop).
    pub edit_requested: bool,
}

pub const HINTS: &[Hint] = &[("e", "edit"), ("c", "check"), ("h", "hint"), ("t", "train"), ("Esc", "back")];
pub const HELP: &[Hint] = &[
    ("e", "edit your file in $EDITOR; it is checked when the editor closes"),
    ("c", "check your file (after editing it in another window)"),
    ("h", "show the next hint"),
    ("S", "show a solution (after the last hint, or once you passed)"),
    ("t", "train the drill with your function (exercises that plug into a drill)"),
    ("R", "add the quiz items on this idea to review (after a failed check)"),
    ("o", "open the cheatsheet section that teaches it"),
    ("↑↓ PgUp PgDn", "scroll the task"),
    ("Esc Backspace", "back"),
];

impl State {
    /// Open exercise `meta`: its file is written from the stub when missing.
    pub fn open(meta: &ExerciseMeta) -> Result<State, String> {
        let path = exercises::ensure_file(meta).map_err(|e| format!("{e:#}"))?;
        let code = exercises::read_script(&path).map_err(|e| format!("{e:#}"))?;
        Ok(State {
            meta: meta.clone(),
            path,
            code,
            report: None,
            hints_shown: 0,
            solution_shown: false,
            scroll: 0,
            edit_requested: false,
        })
    }

    pub fn title(&self) -> String {
        format!("exercise {}", self.meta.id)
    }

    /// Read the file again and check it. Returns the report (the app records it).
    pub fn check(&mut self) -> Result<&CheckReport, String> {
        self.code = exercises::read_script(&self.path).map_err(|e| format!("{e:#}"))?;
        let spec = exercises::spec(&self.meta.id).ok_or("this build has no checker for this exercise")?;
        self.report = Some(exercises::check(spec, &self.code));
        Ok(self.report.as_ref().expect("just set"))
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
                    Action::None
                } else {
                    Action::Flash("that was the last hint: S shows a solution".into())
                }
            }
            KeyCode::Char('S') => {
                let passed = self.report.as_ref().is_some_and(|r| r.passed);
                if passed || self.hints_shown >= self.meta.hints.len() {
                    self.solution_shown = !self.solution_shown;
                    Action::None
                } else {
                    Action::Flash(format!(
                        "the solution opens after the last hint ({} of {} shown) or once you pass",
                        self.hints_shown,
                        self.meta.hints.len()
                    ))
                }
            }
            KeyCode::Char('t') => match (&self.meta.drill, self.meta.plug) {
                (Some(d), true) => Action::TrainWith { drill: d.clone(), exercise: self.meta.id.clone() },
                _ => Action::Flash("this exercise is checked only: no drill trains with it".into()),
            },
            KeyCode::Char('R') => match &self.report {
                Some(r) if !r.passed => Action::FlagForReview(self.meta.quiz.clone()),
                _ => Action::Flash("R adds the quiz items to review after a failed check".into()),
            },
            KeyCode::Char('o') => match Link::parse(&self.meta.sheet) {
                Some(l) => Action::Follow(Target::Lab(l)),
                None => Action::None,
            },
            KeyCode::Down | KeyCode::Char('j') => {
                self.scroll = self.scroll.saturating_add(1);
                Action::None
            }
            KeyCode::Up | KeyCode::Char('k') => {
                self.scroll = self.scroll.saturating_sub(1);
                Action::None
            }
            KeyCode::PageDown => {
                self.scroll = self.scroll.saturating_add(10);
                Action::None
            }
            KeyCode::PageUp => {
                self.scroll = self.scroll.saturating_sub(10);
                Action::None
            }
            KeyCode::Esc | KeyCode::Backspace => Action::Back,
            _ => Action::None,
        }
    }
}

/// The task, then the hints shown so far (and the solution when asked).
fn task_lines(s: &State, content: &Content, width: u16) -> Vec<Line<'static>> {
    let mut md = s.meta.task.clone();
    md.push_str(&format!("\n\nTaught in [{}].", s.meta.sheet));
    if let (Some(d), true) = (&s.meta.drill, s.meta.plug) {
        md.push_str(&format!(" Trains [drill:{d}] when you press `t`."));
    }
    for (i, h) in s.meta.hints.iter().take(s.hints_shown).enumerate() {
        md.push_str(&format!("\n\n**Hint {}/{}.** {h}", i + 1, s.meta.hints.len()));
    }
    if s.solution_shown {
        md.push_str(&format!("\n\n**A solution**\n\n```rust\n{}\n```\n", s.meta.solution.trim_end()));
    }
    let doc = Doc::parse(&md, &|l| link_label(content, l));
    let open: HashSet<usize> = (0..doc.foldables).collect();
    doc.layout(width.max(10), &open).lines
}

fn report_lines(s: &State) -> Vec<Line<'static>> {
    match &s.report {
        None => vec![Line::styled("not checked yet: c checks your file (e edits it)", dim())],
        Some(r) => r
            .lines()
            .into_iter()
            .enumerate()
            .map(|(i, l)| match i {
                0 if r.passed => Line::styled(l, good().add_modifier(Modifier::BOLD)),
                0 => Line::styled(l, bad().add_modifier(Modifier::BOLD)),
                _ => Line::raw(l),
            })
            .collect(),
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
        "✓" => "✓ done",
        "✗" => "✗ not passed yet",
        _ => "not checked yet",
    };
    let title = Line::from(vec![
        Span::raw(format!(" {} · track {} · ", s.meta.title, s.meta.track)),
        Span::styled(format!("{state} "), mstyle),
    ]);
    let block = Block::default().borders(Borders::ALL).border_type(BorderType::Rounded).title(title);
    let inner = block.inner(left);
    frame.render_widget(block, left);
    let lines = task_lines(s, content, inner.width);
    let max_scroll = (lines.len() as u16).saturating_sub(inner.height);
    frame.render_widget(Paragraph::new(lines).scroll((s.scroll.min(max_scroll), 0)), inner);

    let report = report_lines(s);
    let report_h = (report.len() as u16 + 2).clamp(3, right.height / 2);
    let [code_area, report_area] = Layout::vertical([Constraint::Min(3), Constraint::Length(report_h)]).areas(right);
    let code: Vec<Line> = s
        .code
        .lines()
        .enumerate()
        .map(|(i, l)| Line::from(vec![Span::styled(format!("{:>3} ", i + 1), dim()), Span::raw(l.to_string())]))
        .collect();
    let mut code = code;
    code.push(Line::raw(""));
    code.push(Line::styled(format!("file: {}", s.path.display()), dim()));
    let code_block =
        Block::default().borders(Borders::ALL).border_type(BorderType::Rounded).title(" your code (e edits it) ");
    frame.render_widget(Paragraph::new(code).wrap(Wrap { trim: false }).block(code_block), code_area);
    let report_block = Block::default().borders(Borders::ALL).border_type(BorderType::Rounded).title(" check ");
    frame.render_widget(Paragraph::new(report).wrap(Wrap { trim: false }).block(report_block), report_area);
}
