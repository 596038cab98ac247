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
use crate::tui::widgets::question::{self, count, pass_lines, Outcome, Question};

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
        self.question = self.passes.current().and_then(|id| content.items().find(|i| i.id == id)).map(Question::new);
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
                        return Action::Flash("no ⚠/❌ item is waiting: nothing more to review".into());
                    }
                    let n = ids.len();
                    self.more_from = Some((self.passes.pass, self.passes.queue.len()));
                    self.passes.extend(ids);
                    self.advance(content, store, now);
                    return Action::Flash(format!("{n} ⚠/❌ item(s) not yet due added"));
                }
                KeyCode::Char(c @ ('+' | '-')) => {
                    let r = store.progress.settings.desired_retention + if c == '+' { 0.01 } else { -0.01 };
                    return match store.set_retention(r) {
                        Ok(()) => Action::Flash(format!(
                            "desired retention {:.2}: applies to the next ratings",
                            store.progress.settings.desired_retention
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
                    Err(e) => Action::Flash(format!(
                        "{e:#}: {} rating(s) not saved yet (each later rating tries again)",
                        store.unsaved_ratings()
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
            let t = crate::content::tracks::track(q.item.track).map_or("", |t| t.title);
            let from_more = s.more_from.is_some_and(|(pass, at)| pass == s.passes.pass && s.passes.pos >= at);
            let what = if from_more {
                "not yet due (⚠/❌)".to_string()
            } else if s.passes.pass > 1 {
                format!("pass {} (⚠/❌ come back)", s.passes.pass)
            } else {
                "due now".to_string()
            };
            let status = Line::from(vec![
                Span::styled(
                    format!(" review {}/{} ", s.passes.pos + 1, s.passes.queue.len()),
                    crate::tui::theme::badge(crate::tui::theme::WARM),
                ),
                Span::raw(format!(
                    "  {what} · track {} {t} · {} · retention {retention:.2}",
                    q.item.track, q.item.level
                )),
            ]);
            question::draw(frame, area, q, status, content);
        }
        None => {
            let mut lines =
                vec![Line::from(Span::styled("Review", accent().add_modifier(Modifier::BOLD))), Line::raw("")];
            if s.passes.ratings.is_empty() {
                lines.push(Line::raw("Nothing is due now."));
            } else {
                let (items, ratings) = (s.passes.items_rated(), s.passes.ratings.len());
                lines.push(Line::raw(format!(
                    "Done: {} reviewed, {}; every item of the last pass is ✅.",
                    count(items, "item", "items"),
                    count(ratings, "rating", "ratings")
                )));
                lines.extend(pass_lines(&s.passes).into_iter().map(Line::raw));
                if ratings > items {
                    lines.push(Line::from(Span::styled(
                        "A ⚠/❌ item is rated again in each pass until it is ✅.",
                        dim(),
                    )));
                }
            }
            lines.push(Line::raw(""));
            if s.more > 0 {
                lines.push(Line::raw(format!(
                    "{} rated ⚠/❌ {} not due yet. Next: m reviews them now.",
                    count(s.more, "item", "items"),
                    if s.more == 1 { "is" } else { "are" }
                )));
            } else {
                lines.push(Line::raw("No ⚠/❌ item is waiting. Next: Esc goes back; take a quiz from Home (z)."));
            }
            lines.push(Line::raw(""));
            lines.push(Line::from(Span::styled(
                format!(
                    "Desired retention {retention:.2} (+/- to change): FSRS schedules each item for when your \
                     chance of recalling it falls to this level."
                ),
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
