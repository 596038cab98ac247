//! Review: the items FSRS says are due now; after each pass the ones rated
//! ⚠/❌ come back until every one is ✅. `m` adds every ⚠/❌ item that is
//! not yet due; `+`/`-` change the desired retention (saved).

use chrono::{DateTime, Utc};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph, Wrap};
use ratatui::Frame;

use crate::content::Content;
use crate::progress::session::{due_now, weak_not_due, Passes};
use crate::progress::Store;
use crate::tui::action::Action;
use crate::tui::action::Hint;
use crate::tui::theme::{accent, dim};
use crate::tui::widgets::question::{self, pass_lines, Outcome, Question};

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub passes: Passes,
    pub question: Option<Question>,
    /// Items due when the review opened.
    pub due_at_start: usize,
    /// ⚠/❌ items not yet due that `m` would add.
    pub more: usize,
    /// Where `m` appended items: (pass, index in that pass's queue).
    pub more_from: Option<(usize, usize)>,
}

impl State {
    pub fn new(content: &Content, store: &Store, now: DateTime<Utc>) -> State {
        let due = due_now(&store.progress, content, now);
        let mut s =
            State { due_at_start: due.len(), passes: Passes::new(due), question: None, more: 0, more_from: None };
        s.advance(content, store, now);
        s
    }

    /// Load the current item, starting the next pass when this one is over.
    fn advance(&mut self, content: &Content, store: &Store, now: DateTime<Utc>) {
        if self.passes.pass_over() {
            self.passes.next_pass();
        }
        self.question = self.passes.current().and_then(|id| Question::of(content, store, id));
        self.more = self.more_ids(content, store, now).len();
    }

    fn more_ids(&self, content: &Content, store: &Store, now: DateTime<Utc>) -> Vec<String> {
        let queued = &self.passes.queue[self.passes.pos.min(self.passes.queue.len())..];
        weak_not_due(&store.progress, content, now)
            .into_iter()
            .filter(|id| !queued.contains(id) && !self.passes.again.contains(id))
            .collect()
    }

    pub fn is_typing(&self) -> bool {
        self.question.as_ref().is_some_and(Question::is_typing)
    }

    pub fn hints(&self) -> Vec<Hint> {
        let mut h = match &self.question {
            Some(q) => q.hints(),
            None => Vec::new(),
        };
        if !self.is_typing() && self.question.as_ref().is_none_or(|q| !q.graded()) {
            if self.more > 0 {
                h.push(("m", "more ⚠/❌"));
            }
            h.push(("+ -", "retention"));
        }
        h.push(("Esc", "back"));
        h
    }

    pub fn on_key(&mut self, key: KeyEvent, content: &Content, store: &mut Store, now: DateTime<Utc>) -> Action {
        let answering = self.question.as_ref().is_some_and(|q| !q.graded());
        if !self.is_typing() && (answering || self.question.is_none()) {
            match key.code {
                KeyCode::Char('m') => {
                    let ids = self.more_ids(content, store, now);
                    if ids.is_empty() {
                        return Action::Flash(crate::t!("review-nothing-more"));
                    }
                    let n = ids.len();
                    self.more_from = Some((self.passes.pass, self.passes.queue.len()));
                    self.passes.extend(ids);
                    self.advance(content, store, now);
                    return Action::Flash(crate::t!("review-more-added", n = n));
                }
                KeyCode::Char(c @ ('+' | '-')) => {
                    let r = store.progress.settings.desired_retention + if c == '+' { 0.01 } else { -0.01 };
                    return match store.set_retention(r) {
                        Ok(()) => Action::Flash(crate::t!(
                            "review-retention-set",
                            retention = format!("{:.2}", store.progress.settings.desired_retention)
                        )),
                        Err(e) => Action::Flash(format!("{e:#}")),
                    };
                }
                _ => {}
            }
        }
        let Some(q) = self.question.as_mut() else {
            return match key.code {
                KeyCode::Esc | KeyCode::Backspace | KeyCode::Enter => Action::Back,
                KeyCode::Char('p') => Action::OpenProgress,
                _ => Action::None,
            };
        };
        match q.on_key(key) {
            Outcome::None => Action::None,
            Outcome::Back => Action::Back,
            Outcome::Flash(m) => Action::Flash(m),
            Outcome::Follow(t) => Action::Follow(t),
            Outcome::Rated { correct, rating } => {
                let item = q.item.clone();
                let saved = store.record(&item.id, item.track, item.level, correct, rating, now);
                self.passes.rate(correct, rating);
                self.advance(content, store, now);
                match saved {
                    Ok(()) => Action::None,
                    Err(e) => Action::Flash(crate::t!(
                        "review-not-saved",
                        error = format!("{e:#}"),
                        n = store.unsaved_ratings()
                    )),
                }
            }
        }
    }
}

/// Every key of the review screen, for the help overlay.
pub fn help() -> Vec<Hint> {
    let mut h = question::HELP.to_vec();
    h.extend_from_slice(&[
        ("m", "add every ⚠/❌ item not yet due"),
        ("+ -", "desired retention ± 0.01 (0.70–0.99, saved)"),
        ("p", "when done: open Progress"),
        ("Esc", "leave (every rating is already saved)"),
    ]);
    h
}

pub fn draw(frame: &mut Frame, area: Rect, s: &State, store: &Store, content: &Content) {
    let retention = store.progress.settings.desired_retention;
    match &s.question {
        Some(q) => {
            let t = content.track_title(q.item.track);
            let t = t.as_str();
            let from_more = s.more_from.is_some_and(|(pass, at)| pass == s.passes.pass && s.passes.pos >= at);
            let what = if from_more {
                crate::t!("review-from-more")
            } else if s.passes.pass > 1 {
                crate::t!("review-pass", pass = s.passes.pass)
            } else {
                crate::t!("review-due-now")
            };
            let status = Line::from(vec![
                Span::styled(
                    format!(" {} ", crate::t!("review-badge", pos = s.passes.pos + 1, total = s.passes.queue.len())),
                    crate::tui::theme::badge(crate::tui::theme::WARM),
                ),
                Span::raw(format!(
                    "  {}",
                    crate::t!(
                        "review-status",
                        what = what,
                        track = q.item.track.to_string(),
                        title = t,
                        level = q.item.level.to_string(),
                        retention = format!("{retention:.2}")
                    )
                )),
            ]);
            question::draw(frame, area, q, status, content);
        }
        None => {
            let mut lines = vec![
                Line::from(Span::styled(crate::t!("review-heading"), accent().add_modifier(Modifier::BOLD))),
                Line::raw(""),
            ];
            if s.passes.ratings.is_empty() {
                lines.push(Line::raw(crate::t!("review-nothing-due")));
            } else {
                let (items, ratings) = (s.passes.items_rated(), s.passes.ratings.len());
                lines.push(Line::raw(crate::t!("review-done", items = items, ratings = ratings)));
                lines.extend(pass_lines(&s.passes).into_iter().map(Line::raw));
                if ratings > items {
                    lines.push(Line::from(Span::styled(crate::t!("review-again-note"), dim())));
                }
            }
            lines.push(Line::raw(""));
            if s.more > 0 {
                lines.push(Line::raw(crate::t!("review-more-waiting", count = s.more)));
            } else {
                lines.push(Line::raw(crate::t!("review-none-waiting")));
            }
            lines.push(Line::raw(""));
            lines.push(Line::from(Span::styled(
                crate::t!("review-retention-note", retention = format!("{retention:.2}")),
                dim(),
            )));
            frame.render_widget(
                Paragraph::new(lines).wrap(Wrap { trim: false }).block(
                    Block::default().borders(Borders::ALL).border_type(BorderType::Rounded).border_style(accent()),
                ),
                area,
            );
        }
    }
}
