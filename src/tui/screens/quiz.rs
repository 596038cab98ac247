//! Quiz: pick a track and a level, then one item at a time; every rating is
//! saved at once. At the end, the ⚠/❌ items can be gone over again (a new
//! pass holds only them).

use chrono::{DateTime, Utc};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, List, ListItem, ListState, Paragraph, Wrap};
use ratatui::Frame;

use crate::content::{Content, Level, TRACKS};
use crate::progress::session::{quiz_items, Passes};
use crate::progress::Store;
use crate::tui::action::Action;
use crate::tui::action::Hint;
use crate::tui::theme::accent;
use crate::tui::widgets::question::{self, Outcome, Question};

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
}

pub fn level_name(level: Option<Level>) -> String {
    match level {
        Some(l) => format!("{l} {}", l.describe()),
        None => "all levels".into(),
    }
}

impl State {
    /// The setup page with `track` preselected.
    pub fn setup(track: u8, level: Option<Level>) -> State {
        let ti = TRACKS.iter().position(|t| t.number == track).unwrap_or(0);
        let li = LEVELS.iter().position(|l| *l == level).unwrap_or(0);
        State { phase: Phase::Setup { track: ti, level: li }, track, level, passes: Passes::default(), question: None }
    }

    /// Start right away on `track` × `level` (a `[quiz:3/L2]` link).
    pub fn start(content: &Content, track: u8, level: Option<Level>) -> State {
        let mut s = State::setup(track, level);
        s.begin(content);
        s
    }

    fn begin(&mut self, content: &Content) {
        let ids = quiz_items(content, Some(self.track), self.level, None).iter().map(|i| i.id.clone()).collect();
        self.passes = Passes::new(ids);
        self.phase = Phase::Asking;
        self.load_current(content);
    }

    fn load_current(&mut self, content: &Content) {
        self.question = self.passes.current().and_then(|id| content.items().find(|i| i.id == id)).map(Question::new);
        if self.question.is_none() {
            self.phase = Phase::Done;
        }
    }

    pub fn title(&self) -> String {
        match self.phase {
            Phase::Setup { .. } => "Quiz".into(),
            _ => format!("Quiz · track {} · {}", self.track, self.level.map_or("all".into(), |l| l.to_string())),
        }
    }

    pub fn is_typing(&self) -> bool {
        self.phase == Phase::Asking && self.question.as_ref().is_some_and(Question::is_typing)
    }

    pub fn hints(&self) -> Vec<Hint> {
        match &self.phase {
            Phase::Setup { .. } => vec![("↑↓", "track"), ("←→", "level"), ("Enter", "start"), ("Esc", "back")],
            Phase::Asking => {
                let mut h = self.question.as_ref().map(Question::hints).unwrap_or_default();
                h.push(("Esc", "leave"));
                h
            }
            Phase::Done if !self.passes.again.is_empty() => {
                vec![("r", "again: ⚠/❌ items"), ("v", "review"), ("Esc", "back")]
            }
            Phase::Done => vec![("v", "review"), ("p", "progress"), ("Esc", "back")],
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
                            return Action::Flash(format!(
                                "track {} has no {} items yet",
                                self.track,
                                level_name(self.level)
                            ));
                        }
                        self.begin(content);
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
                        let saved = store.record(&item.id, item.track, item.level, correct, rating, now);
                        self.passes.rate(correct, rating);
                        self.load_current(content);
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
            Phase::Done => match key.code {
                KeyCode::Char('r') if self.passes.next_pass() => {
                    self.phase = Phase::Asking;
                    self.load_current(content);
                    Action::None
                }
                KeyCode::Char('v') => Action::OpenReview,
                KeyCode::Char('p') => Action::OpenProgress,
                KeyCode::Esc | KeyCode::Backspace | KeyCode::Enter => Action::Back,
                _ => Action::None,
            },
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
        ("r", "at the end: go over the ⚠/❌ items again"),
        ("v p", "at the end: open Review / Progress"),
        ("Esc", "leave the quiz (every rating is already saved)"),
    ]);
    h
}

pub fn draw(frame: &mut Frame, area: Rect, s: &State, content: &Content) {
    match &s.phase {
        Phase::Setup { track, level } => draw_setup(frame, area, *track, *level, content),
        Phase::Asking => {
            if let Some(q) = &s.question {
                let t = crate::content::tracks::track(q.item.track).map_or("", |t| t.title);
                let status = Line::from(vec![
                    Span::styled(
                        format!(" item {}/{} ", s.passes.pos + 1, s.passes.queue.len()),
                        crate::tui::theme::badge(crate::tui::theme::ACCENT),
                    ),
                    Span::raw(format!(
                        "  track {} {t} · {} {} · {}{}",
                        q.item.track,
                        q.item.level,
                        q.item.level.describe(),
                        kind_name(q),
                        if s.passes.pass > 1 {
                            format!(" · pass {} (⚠/❌ items)", s.passes.pass)
                        } else {
                            String::new()
                        }
                    )),
                ]);
                question::draw(frame, area, q, status, content);
            }
        }
        Phase::Done => draw_done(frame, area, s),
    }
}

fn kind_name(q: &Question) -> &'static str {
    match q.item.answer.kind() {
        crate::content::Kind::Choice => "choice",
        crate::content::Kind::Numeric => "numeric",
        crate::content::Kind::Order => "order",
        crate::content::Kind::Open => "open",
    }
}

fn draw_setup(frame: &mut Frame, area: Rect, track: usize, level: usize, content: &Content) {
    let [left, right] = Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(area);
    let items: Vec<ListItem> = TRACKS
        .iter()
        .map(|t| {
            let n = quiz_items(content, Some(t.number), LEVELS[level], None).len();
            ListItem::new(Line::from(vec![
                Span::styled(format!("{} ", t.number), Style::default().fg(Color::Yellow)),
                Span::raw(format!("{:<34}", t.title)),
                Span::styled(format!("{n:>3} items"), Style::default().fg(Color::DarkGray)),
            ]))
        })
        .collect();
    let mut ls = ListState::default().with_selected(Some(track));
    let list = List::new(items)
        .block(panel(" 1. Track ", accent()))
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
    lines.push(Line::raw(format!("Track {} · {} · {n} items.", t.number, level_name(LEVELS[level]))));
    lines.push(Line::raw(""));
    lines.push(Line::from(Span::styled("Next: Enter starts the quiz.", Style::default().fg(Color::DarkGray))));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).block(panel(" 2. Level ", accent())), right);
}

fn draw_done(frame: &mut Frame, area: Rect, s: &State) {
    let (right, graded) = s.passes.score();
    let [k, f, d] = s.passes.tally();
    let mut lines = vec![
        Line::from(Span::styled(
            format!("Quiz done · track {} · {}", s.track, level_name(s.level)),
            accent().add_modifier(Modifier::BOLD),
        )),
        Line::raw(""),
        Line::raw(format!("Auto-graded: {right}/{graded} correct on the first pass.")),
        Line::raw(format!("Your ratings: ✅ {k} know · ⚠ {f} fuzzy · ❌ {d} don't (saved).")),
        Line::raw(""),
    ];
    if s.passes.again.is_empty() {
        lines.push(Line::raw("Every item of this pass is ✅. Review brings items back when they are due."));
        lines.push(Line::raw("Next: v opens Review, p shows Progress, Esc goes back."));
    } else {
        lines.push(Line::raw(format!(
            "{} item(s) rated ⚠/❌ in this pass. Next: r goes over them again (pass {}).",
            s.passes.again.len(),
            s.passes.pass + 1
        )));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).block(panel(" Result ", accent())), area);
}

fn panel(title: &str, border: Style) -> Block<'_> {
    Block::default().borders(Borders::ALL).border_type(BorderType::Rounded).border_style(border).title(title)
}
