//! Quiz: pick a track and a level, then one item at a time; every rating is
//! saved at once. The result counts each pass's ratings (they add up to its
//! items) and lists the items missed on the first pass: `Enter` reopens one
//! (read-only: the answer given, the expected one, why). `a` goes over the
//! ⚠/❌ items again (a new pass holds only them); `r` opens Review, as on
//! Home and Progress.

use chrono::{DateTime, Utc};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, List, ListItem, ListState, Paragraph, Wrap};
use ratatui::Frame;

use crate::content::{Content, Level, TRACKS};
use crate::progress::session::{quiz_items, Passes};
use crate::progress::{Rating, Store};
use crate::tui::action::Action;
use crate::tui::action::Hint;
use crate::tui::theme::{accent, bad, dim, good, highlight};
use crate::tui::widgets::question::{self, pass_lines, Outcome, Question};
use crate::tui::widgets::{pad_left, pad_right};

/// Level choices on the setup page: L1, L2, L3, all.
pub const LEVELS: [Option<Level>; 4] = [Some(Level::L1), Some(Level::L2), Some(Level::L3), None];

#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    /// Choosing a track (`TRACKS` index) and a level (`LEVELS` index).
    Setup {
        track: usize,
        level: usize,
    },
    Asking,
    Done,
}

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub phase: Phase,
    pub track: u8,
    pub level: Option<Level>,
    pub passes: Passes,
    pub question: Option<Question>,
    /// Each item as first answered in this quiz (to reopen from the result).
    pub answered: Vec<Question>,
    /// The result's selected missed item.
    pub cursor: usize,
    /// A missed item reopened from the result (read-only).
    pub reopened: Option<Box<Question>>,
}

pub fn level_name(level: Option<Level>) -> String {
    match level {
        Some(l) => format!("{l} {}", level_describe(l)),
        None => crate::t!("quiz-level-all"),
    }
}

/// What a level asks, in the language in force ("concept", "implementation", "research").
pub fn level_describe(level: Level) -> String {
    match level {
        Level::L1 => crate::t!("quiz-level-l1"),
        Level::L2 => crate::t!("quiz-level-l2"),
        Level::L3 => crate::t!("quiz-level-l3"),
    }
}

impl State {
    /// The setup page with `track` preselected.
    pub fn setup(track: u8, level: Option<Level>) -> State {
        let ti = TRACKS.iter().position(|t| t.number == track).unwrap_or(0);
        let li = LEVELS.iter().position(|l| *l == level).unwrap_or(0);
        State {
            phase: Phase::Setup { track: ti, level: li },
            track,
            level,
            passes: Passes::default(),
            question: None,
            answered: Vec::new(),
            cursor: 0,
            reopened: None,
        }
    }

    /// Start right away on `track` × `level` (a `[quiz:3/L2]` link).
    pub fn start(content: &Content, store: &Store, track: u8, level: Option<Level>) -> State {
        let mut s = State::setup(track, level);
        s.begin(content, store);
        s
    }

    /// Start right away on these items of `track` × `level` (a study
    /// session's quiz stop: the items about the sections read).
    pub fn start_with(content: &Content, store: &Store, track: u8, level: Option<Level>, ids: Vec<String>) -> State {
        let mut s = State::setup(track, level);
        s.begin_with(content, store, ids);
        s
    }

    fn begin(&mut self, content: &Content, store: &Store) {
        let ids = quiz_items(content, Some(self.track), self.level, None).iter().map(|i| i.id.clone()).collect();
        self.begin_with(content, store, ids);
    }

    fn begin_with(&mut self, content: &Content, store: &Store, ids: Vec<String>) {
        self.passes = Passes::new(ids);
        self.answered.clear();
        self.cursor = 0;
        self.phase = Phase::Asking;
        self.load_current(content, store);
    }

    fn load_current(&mut self, content: &Content, store: &Store) {
        self.question = self.passes.current().and_then(|id| Question::of(content, store, id));
        if self.question.is_none() {
            self.phase = Phase::Done;
        }
    }

    pub fn title(&self) -> String {
        match self.phase {
            Phase::Setup { .. } => crate::t!("quiz-title"),
            _ => crate::t!(
                "quiz-title-running",
                track = self.track,
                level = self.level.map_or(crate::t!("quiz-level-all-short"), |l| l.to_string())
            ),
        }
    }

    pub fn is_typing(&self) -> bool {
        self.phase == Phase::Asking && self.question.as_ref().is_some_and(Question::is_typing)
    }

    /// The items missed on the first pass (first rated ⚠/❌), each with the
    /// question as answered then and its last rating in this quiz.
    pub fn missed(&self) -> Vec<(&Question, Rating)> {
        self.passes
            .missed()
            .into_iter()
            .filter_map(|(id, last)| self.answered.iter().find(|q| q.item.id == id).map(|q| (q, last)))
            .collect()
    }

    pub fn hints(&self) -> Vec<Hint> {
        match &self.phase {
            Phase::Setup { .. } => vec![("↑↓", "track"), ("←→", "level"), ("Enter", "start"), ("Esc", "back")],
            Phase::Asking => {
                let mut h = self.question.as_ref().map(Question::hints).unwrap_or_default();
                h.push(("Esc", "leave"));
                h
            }
            Phase::Done if self.reopened.is_some() => self.reopened.as_ref().map(|q| q.hints()).unwrap_or_default(),
            Phase::Done => {
                let mut h = Vec::new();
                if !self.missed().is_empty() {
                    h.extend([("↑↓", "missed item"), ("Enter", "reopen")]);
                }
                if !self.passes.again.is_empty() {
                    h.push(("a", "again: ⚠/❌ items"));
                }
                h.extend([("r", "review"), ("p", "progress"), ("Esc", "back")]);
                h
            }
        }
    }

    pub fn on_key(&mut self, key: KeyEvent, content: &Content, store: &mut Store, now: DateTime<Utc>) -> Action {
        match self.phase.clone() {
            Phase::Setup { track, level } => {
                let (mut t, mut l) = (track, level);
                match key.code {
                    KeyCode::Down | KeyCode::Char('j') => t = (t + 1).min(TRACKS.len() - 1),
                    KeyCode::Up | KeyCode::Char('k') => t = t.saturating_sub(1),
                    KeyCode::Right | KeyCode::Char('l') | KeyCode::Tab => l = (l + 1) % LEVELS.len(),
                    KeyCode::Left | KeyCode::Char('h') | KeyCode::BackTab => l = (l + LEVELS.len() - 1) % LEVELS.len(),
                    KeyCode::Char(c @ '0'..='7') => t = (c as u8 - b'0') as usize,
                    KeyCode::Enter => {
                        self.track = TRACKS[t].number;
                        self.level = LEVELS[l];
                        if quiz_items(content, Some(self.track), self.level, None).is_empty() {
                            return Action::Flash(crate::t!(
                                "quiz-no-items",
                                track = self.track,
                                level = level_name(self.level)
                            ));
                        }
                        self.begin(content, store);
                        return Action::None;
                    }
                    KeyCode::Esc | KeyCode::Backspace => return Action::Back,
                    _ => {}
                }
                self.track = TRACKS[t].number;
                self.level = LEVELS[l];
                self.phase = Phase::Setup { track: t, level: l };
                Action::None
            }
            Phase::Asking => {
                let Some(q) = self.question.as_mut() else { return Action::Back };
                match q.on_key(key) {
                    Outcome::None => Action::None,
                    Outcome::Back => Action::Back,
                    Outcome::Flash(m) => Action::Flash(m),
                    Outcome::Follow(t) => Action::Follow(t),
                    Outcome::Rated { correct, rating } => {
                        let item = q.item.clone();
                        if !self.answered.iter().any(|a| a.item.id == item.id) {
                            self.answered.push(q.clone());
                        }
                        let saved = store.record(&item.id, item.track, item.level, correct, rating, now);
                        self.passes.rate(correct, rating);
                        self.load_current(content, store);
                        match saved {
                            Ok(()) => Action::None,
                            Err(e) => Action::Flash(crate::t!(
                                "quiz-unsaved",
                                error = format!("{e:#}"),
                                count = store.unsaved_ratings()
                            )),
                        }
                    }
                }
            }
            Phase::Done if self.reopened.is_some() => {
                let q = self.reopened.as_mut().expect("checked");
                match q.on_key(key) {
                    Outcome::Back => {
                        self.reopened = None;
                        Action::None
                    }
                    Outcome::Flash(m) => Action::Flash(m),
                    Outcome::Follow(t) => Action::Follow(t),
                    Outcome::None | Outcome::Rated { .. } => Action::None,
                }
            }
            Phase::Done => {
                let n = self.missed().len();
                match key.code {
                    KeyCode::Char('a') if self.passes.next_pass() => {
                        self.phase = Phase::Asking;
                        self.load_current(content, store);
                        Action::None
                    }
                    KeyCode::Char('a') => Action::Flash(crate::t!("quiz-nothing-again")),
                    KeyCode::Down | KeyCode::Char('j') if self.cursor + 1 < n => {
                        self.cursor += 1;
                        Action::None
                    }
                    KeyCode::Up | KeyCode::Char('k') => {
                        self.cursor = self.cursor.saturating_sub(1);
                        Action::None
                    }
                    KeyCode::Enter if n > 0 => {
                        let missed = self.missed();
                        let (q, last) = missed[self.cursor.min(n - 1)];
                        let first = self.passes.ratings.iter().find(|r| r.0 == q.item.id).map_or(last, |r| r.2);
                        self.reopened = Some(Box::new(q.reopened(first)));
                        Action::None
                    }
                    KeyCode::Char('r') => Action::OpenReview,
                    KeyCode::Char('v') => Action::Flash(crate::t!("quiz-review-is-r")),
                    KeyCode::Char('p') => Action::OpenProgress,
                    KeyCode::Esc | KeyCode::Backspace | KeyCode::Enter => Action::Back,
                    _ => Action::None,
                }
            }
        }
    }
}

/// Every key of the quiz screen, for the help overlay.
pub fn help() -> Vec<Hint> {
    let mut h = vec![
        ("↑↓ j k / 0-7", "setup: choose the track"),
        ("←→ h l Tab", "setup: choose the level (L1, L2, L3, all)"),
        ("Enter", "setup: start the quiz"),
    ];
    h.extend_from_slice(question::HELP);
    h.extend_from_slice(&[
        ("↑↓ Enter", "at the end: choose a missed item / reopen it (Esc back to the result)"),
        ("a", "at the end: go over the ⚠/❌ items again (a new pass)"),
        ("r p", "at the end: open Review (r, as on Home) / Progress"),
        ("Esc", "leave the quiz (every rating is already saved)"),
    ]);
    h
}

pub fn draw(frame: &mut Frame, area: Rect, s: &State, content: &Content) {
    match &s.phase {
        Phase::Setup { track, level } => draw_setup(frame, area, *track, *level, content),
        Phase::Asking => {
            if let Some(q) = &s.question {
                let t = content.track_title(q.item.track);
                let t = t.as_str();
                let status = Line::from(vec![
                    Span::styled(
                        format!(
                            " {} ",
                            crate::t!("quiz-item-badge", pos = s.passes.pos + 1, total = s.passes.queue.len())
                        ),
                        crate::tui::theme::badge(crate::tui::theme::ACCENT),
                    ),
                    Span::raw(format!(
                        "  {}{}",
                        crate::t!(
                            "quiz-status",
                            track = q.item.track,
                            title = t,
                            level = q.item.level.to_string(),
                            describe = level_describe(q.item.level),
                            kind = kind_name(q)
                        ),
                        if s.passes.pass > 1 {
                            format!(" · {}", crate::t!("quiz-status-pass", pass = s.passes.pass))
                        } else {
                            String::new()
                        }
                    )),
                ]);
                question::draw(frame, area, q, status, content);
            }
        }
        Phase::Done => match &s.reopened {
            Some(q) => {
                let status = Line::from(vec![
                    Span::styled(
                        format!(" {} ", crate::t!("quiz-missed-badge")),
                        crate::tui::theme::badge(crate::tui::theme::ACCENT),
                    ),
                    Span::raw(format!(
                        "  {}",
                        crate::t!(
                            "quiz-missed-status",
                            track = q.item.track,
                            level = q.item.level.to_string(),
                            kind = kind_name(q)
                        )
                    )),
                ]);
                question::draw(frame, area, q, status, content);
            }
            None => draw_done(frame, area, s),
        },
    }
}

fn kind_name(q: &Question) -> String {
    match q.item.answer.kind() {
        crate::content::Kind::Choice => crate::t!("quiz-kind-choice"),
        crate::content::Kind::Numeric => crate::t!("quiz-kind-numeric"),
        crate::content::Kind::Order => crate::t!("quiz-kind-order"),
        crate::content::Kind::Open => crate::t!("quiz-kind-open"),
    }
}

fn draw_setup(frame: &mut Frame, area: Rect, track: usize, level: usize, content: &Content) {
    let [left, right] = Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(area);
    let items: Vec<ListItem> = TRACKS
        .iter()
        .map(|t| {
            let n = quiz_items(content, Some(t.number), LEVELS[level], None).len();
            ListItem::new(Line::from(vec![
                Span::styled(format!("{} ", t.number), highlight()),
                Span::raw(pad_right(&content.track_title(t.number), 34)),
                Span::styled(pad_left(&crate::t!("count-items", count = n), 9), dim()),
            ]))
        })
        .collect();
    let mut ls = ListState::default().with_selected(Some(track));
    let list = List::new(items)
        .block(panel(format!(" {} ", crate::t!("quiz-panel-track")), accent()))
        .highlight_style(Style::default().add_modifier(Modifier::REVERSED))
        .highlight_symbol("▶ ");
    frame.render_stateful_widget(list, left, &mut ls);

    let mut lines = Vec::new();
    for (i, l) in LEVELS.iter().enumerate() {
        let sel = i == level;
        let style = if sel { Style::default().add_modifier(Modifier::REVERSED) } else { Style::default() };
        lines.push(Line::from(vec![Span::raw(if sel { "▶ " } else { "  " }), Span::styled(level_name(*l), style)]));
    }
    let t = &TRACKS[track];
    let n = quiz_items(content, Some(t.number), LEVELS[level], None).len();
    lines.push(Line::raw(""));
    lines.push(Line::raw(crate::t!(
        "quiz-setup-summary",
        track = t.number,
        level = level_name(LEVELS[level]),
        items = crate::t!("count-items", count = n)
    )));
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled(crate::t!("quiz-setup-next"), dim())));
    let block = panel(format!(" {} ", crate::t!("quiz-panel-level")), accent());
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).block(block), right);
}

fn draw_done(frame: &mut Frame, area: Rect, s: &State) {
    let (right, graded) = s.passes.score();
    let items = s.passes.items_rated();
    let ratings = s.passes.ratings.len();
    let mut lines = vec![
        Line::from(Span::styled(
            crate::t!("quiz-done-title", track = s.track, level = level_name(s.level)),
            accent().add_modifier(Modifier::BOLD),
        )),
        Line::raw(""),
    ];
    let open = s.passes.ratings.iter().take(items).filter(|r| r.1.is_none()).count();
    let graded_line = if open > 0 {
        crate::t!(
            "quiz-auto-graded-open",
            right = right,
            graded = graded,
            open = crate::t!("quiz-open-items", count = open)
        )
    } else {
        crate::t!("quiz-auto-graded", right = right, graded = graded)
    };
    lines.push(Line::raw(graded_line));
    lines.extend(pass_lines(&s.passes).into_iter().map(Line::raw));
    if ratings > items {
        lines.push(Line::from(Span::styled(
            crate::t!(
                "quiz-ratings-all",
                items = crate::t!("count-items", count = items),
                ratings = crate::t!("quiz-ratings", count = ratings)
            ),
            dim(),
        )));
    } else {
        lines.push(Line::from(Span::styled(
            crate::t!("quiz-saved", ratings = crate::t!("quiz-ratings", count = ratings)),
            dim(),
        )));
    }
    lines.push(Line::raw(""));
    let mut tail = vec![Line::raw("")];
    if s.passes.again.is_empty() {
        tail.push(Line::raw(crate::t!("quiz-next-review")));
    } else {
        tail.push(Line::raw(crate::t!(
            "quiz-next-again",
            items = crate::t!("count-items", count = s.passes.again.len()),
            pass = s.passes.pass + 1
        )));
    }
    // Rows a line takes once wrapped to the panel.
    let inner_w = (area.width as usize).saturating_sub(2).max(1);
    let rows = |ls: &[Line]| -> usize { ls.iter().map(|l| l.width().div_ceil(inner_w).max(1)).sum() };
    let missed = s.missed();
    if missed.is_empty() {
        lines.push(Line::raw(crate::t!("quiz-none-missed")));
    } else {
        lines.push(Line::from(Span::styled(crate::t!("quiz-missed-head", count = missed.len()), accent())));
        let sel = s.cursor.min(missed.len() - 1);
        // Room for the list (one row each): what is around it keeps its rows.
        // + 1: words wrap a little later than a row's last column.
        let around = rows(&lines) + rows(&tail) + 3;
        let room_all = (area.height as usize).saturating_sub(around).max(1);
        // The "… k of N shown" line, where there is a row for it.
        let more_line = missed.len() > room_all && room_all >= 3;
        let room = if more_line { room_all - 1 } else { room_all };
        let first = sel.saturating_sub(room - 1).min(missed.len().saturating_sub(room));
        let text_w = inner_w.saturating_sub(14).max(10);
        for (i, (q, last)) in missed.iter().enumerate().skip(first).take(room) {
            let first_rating = s.passes.ratings.iter().find(|r| r.0 == q.item.id).map(|r| r.2);
            let wrong = matches!(q.phase, question::Phase::Graded { correct: Some(false), .. });
            let mut spans = vec![
                Span::raw(if i == sel { "▶ " } else { "  " }),
                if wrong { Span::styled("✗ ", bad()) } else { Span::raw("  ") },
                Span::raw(format!("{} ", first_rating.map_or("", |r| r.emoji()))),
            ];
            let prompt = q.item.prompt.lines().next().unwrap_or("");
            let style = if i == sel { Style::default().add_modifier(Modifier::REVERSED) } else { Style::default() };
            spans.push(Span::styled(crate::tui::widgets::ellipsize(prompt, text_w), style));
            if first_rating != Some(*last) {
                spans.push(Span::styled(format!("  {}", crate::t!("quiz-now", rating = last.emoji())), good()));
            }
            lines.push(Line::from(spans));
        }
        if more_line {
            lines.push(Line::from(Span::styled(
                format!("  {}", crate::t!("quiz-shown", shown = room, total = missed.len())),
                dim(),
            )));
        }
    }
    lines.extend(tail);
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(panel(format!(" {} ", crate::t!("quiz-result")), accent())),
        area,
    );
}

fn panel(title: String, border: Style) -> Block<'static> {
    Block::default().borders(Borders::ALL).border_type(BorderType::Rounded).border_style(border).title(title)
}
