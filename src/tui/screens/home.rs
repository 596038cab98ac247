//! Home: the eight tracks and the drills, with what to do next.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, List, ListItem, ListState, Paragraph, Wrap};
use ratatui::Frame;

use crate::content::{Content, Level, Link, SheetStatus, TRACKS};
use crate::markdown::Target;
use std::collections::BTreeMap;

use crate::progress::store::{Place, Progress};
use crate::progress::study;
use crate::progress::summary::{duration_text, pct_text};
use crate::progress::Summary;
use crate::tui::action::{Action, Hint};
use crate::tui::theme::{self, accent};
use crate::tui::widgets::bar::split_bar;

/// Minutes of a study session started from Home.
pub const DEFAULT_MINUTES: u32 = 30;

/// What Home shows of the study paths, computed when Home is on top.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Info {
    /// Per track number: the next step (label, minutes), if any is left.
    pub next: BTreeMap<u8, (String, u32)>,
    /// Per track number: (steps done, steps, minutes left).
    pub path: BTreeMap<u8, (usize, usize, u32)>,
    /// Where the learner stopped, in words ("reading track 3 · Agentic RL").
    pub resume: Option<String>,
    /// Per drill id, its newest run: `true` every claim held (✓), `false` a claim failed (✗).
    pub last: BTreeMap<String, bool>,
}

impl Info {
    pub fn new(content: &Content, progress: &Progress, passed: &BTreeMap<String, bool>) -> Info {
        let mut info = Info::default();
        for t in TRACKS.iter() {
            let steps = study::path(content, progress, passed, t.number);
            if steps.is_empty() {
                continue;
            }
            info.path.insert(t.number, study::path_progress(&steps));
            if let Some(s) = steps.into_iter().find(|s| !s.done) {
                info.next.insert(t.number, (s.label.clone(), s.minutes()));
            }
        }
        info.resume = progress.resume.as_ref().map(|r| match &r.place {
            Place::Sheet { track, .. } => {
                let title = content.sheet(*track).map_or(String::new(), |s| format!(" · {}", s.meta.title));
                crate::t!("home-resume-reading", track = track.to_string(), title = title)
            }
            Place::Drill { id } => crate::t!("home-resume-drill", id = id.as_str()),
            Place::Quiz { track, level } => {
                let level = level.map_or(crate::t!("home-all-levels"), |l| l.to_string());
                crate::t!("home-resume-quiz", track = track.to_string(), level = level)
            }
        });
        info
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Focus {
    #[default]
    Tracks,
    Drills,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct State {
    pub focus: Focus,
    pub track: usize,
    pub drill: usize,
}

// Tab (tracks ↔ drills) and c (continue) are in the help overlay and on
// screen: the footer must fit 80 columns.
pub const HINTS: &[Hint] = &[
    ("n", "next step"),
    ("S", "study"),
    ("Enter", "open"),
    ("z", "quiz"),
    ("r", "review"),
    ("p", "progress"),
    ("e", "exercises"),
];

pub const HELP: &[Hint] = &[
    ("n", "the selected track's next step on its study path"),
    ("S", "a study session on the selected track: due review, then the next steps that fit 30 minutes"),
    ("c", "continue where you stopped (the sheet, the drill, the quiz left half-way)"),
    ("↑↓ j k", "move in the list"),
    ("Tab", "switch between the tracks and the selected track's drills"),
    ("Enter l", "open the track's cheatsheet / the drill"),
    ("g G", "first / last"),
    ("z", "quiz on the selected track (choose the level)"),
    ("r", "review: due items, then ⚠/❌ on request"),
    ("p", "progress: mastery, drills passed, due, history"),
    ("e", "exercises: write the algorithm yourself, check it, train a drill with it"),
];

impl State {
    pub fn on_key(&mut self, key: KeyEvent, content: &Content) -> Action {
        let (cursor, len) = match self.focus {
            Focus::Tracks => (&mut self.track, TRACKS.len()),
            Focus::Drills => (&mut self.drill, content.drills.len()),
        };
        match key.code {
            KeyCode::Down | KeyCode::Char('j') if *cursor + 1 < len => *cursor += 1,
            KeyCode::Up | KeyCode::Char('k') => *cursor = cursor.saturating_sub(1),
            KeyCode::Char('g') | KeyCode::Home => *cursor = 0,
            KeyCode::Char('G') | KeyCode::End => *cursor = len.saturating_sub(1),
            KeyCode::Tab | KeyCode::BackTab => match self.focus {
                Focus::Tracks if !content.drills.is_empty() => {
                    // To the selected track's first drill (the list is sorted by track).
                    let track = TRACKS[self.track].number;
                    if let Some(i) = content.drills.iter().position(|d| d.track >= track) {
                        self.drill = i;
                    }
                    self.focus = Focus::Drills;
                }
                _ => {
                    if let Some(i) =
                        content.drills.get(self.drill).and_then(|d| TRACKS.iter().position(|t| t.number == d.track))
                    {
                        self.track = i;
                    }
                    self.focus = Focus::Tracks;
                }
            },
            KeyCode::Enter | KeyCode::Char('l') | KeyCode::Right => return self.open(content),
            KeyCode::Char('z') => {
                let track = match self.focus {
                    Focus::Tracks => TRACKS[self.track].number,
                    Focus::Drills => content.drills.get(self.drill).map_or(0, |d| d.track),
                };
                return Action::OpenQuiz { track: Some(track), level: None };
            }
            KeyCode::Char('r') => return Action::OpenReview,
            KeyCode::Char('n') => return Action::NextStep(self.selected_track(content)),
            KeyCode::Char('S') => {
                return Action::OpenStudy { track: Some(self.selected_track(content)), minutes: DEFAULT_MINUTES }
            }
            KeyCode::Char('c') => return Action::Continue,
            KeyCode::Char('p') => return Action::OpenProgress,
            KeyCode::Char('e') => return Action::OpenExercises,
            _ => {}
        }
        Action::None
    }

    /// The track selected, or the selected drill's track.
    fn selected_track(&self, content: &Content) -> u8 {
        match self.focus {
            Focus::Tracks => TRACKS[self.track].number,
            Focus::Drills => content.drills.get(self.drill).map_or(0, |d| d.track),
        }
    }

    fn open(&self, content: &Content) -> Action {
        match self.focus {
            Focus::Tracks => {
                let track = TRACKS[self.track].number;
                Action::Follow(Target::Lab(Link::Sheet { track, section: None }))
            }
            Focus::Drills => match content.drills.get(self.drill) {
                Some(d) => Action::Follow(Target::Lab(Link::Drill(d.id.clone()))),
                None => Action::None,
            },
        }
    }
}

pub fn draw(frame: &mut Frame, area: Rect, state: &State, content: &Content, summary: &Summary, info: &Info) {
    // A fresh data directory: where to start, across the screen's top.
    let area = if info.resume.is_none() && summary.tracks.iter().all(|r| !r.started()) {
        let [top, rest] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(area);
        let text =
            crate::tui::widgets::ellipsize(&crate::t!("home-start-here"), (top.width as usize).saturating_sub(1));
        frame.render_widget(Paragraph::new(Line::from(Span::styled(format!(" {text}"), accent()))), top);
        rest
    } else {
        area
    };
    let [left, right] = Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    // Continue: one line above the lists, when there is somewhere to go back to.
    let left = match &info.resume {
        Some(place) => {
            let [top, rest] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(left);
            let line = Line::from(crate::tui::widgets::fit_spans(
                vec![
                    Span::styled(" c ", crate::tui::theme::key_style()),
                    Span::styled(format!(" {}", crate::t!("home-continue", place = place.as_str())), accent()),
                ],
                top.width as usize,
            ));
            frame.render_widget(Paragraph::new(line), top);
            rest
        }
        None => left,
    };
    let drills_h = (content.drills.len() as u16 + 2).clamp(3, left.height / 2);
    let [tracks_area, drills_area] = Layout::vertical([Constraint::Min(10), Constraint::Length(drills_h)]).areas(left);

    let bar_w = 8usize;
    // Room for " N due" only when something is due.
    let due_w = if summary.due_now > 0 { 7 } else { 0 };
    let title_w = (tracks_area.width as usize).saturating_sub(bar_w + 14 + due_w).max(10);
    let items: Vec<ListItem> = TRACKS
        .iter()
        .map(|t| {
            let title = crate::tui::widgets::ellipsize(&content.track_title(t.number), title_w);
            let mut spans = vec![
                Span::styled(format!("{} ", t.number), theme::highlight()),
                Span::raw(format!("{} ", crate::tui::widgets::pad_right(&title, title_w))),
            ];
            let row = summary.tracks.iter().find(|r| r.track == t.number);
            // The track's mastery of all its items: the "all" column of Progress.
            spans.extend(split_bar(
                row.and_then(|r| r.mastery()),
                row.map_or(0.0, |r| r.total.learning_fraction()),
                bar_w,
            ));
            match row.map_or(0, |r| r.due) {
                0 => {}
                n => spans.push(Span::styled(format!(" {}", crate::t!("home-due", n = n)), theme::highlight())),
            }
            ListItem::new(Line::from(spans))
        })
        .collect();
    // One selection on screen at a time: the focused list's.
    let mut ls = ListState::default().with_selected((state.focus == Focus::Tracks).then_some(state.track));
    let tracks_title = match summary.due_now {
        0 => format!(" {} ", crate::t!("home-tracks-title")),
        n => format!(" {} ", crate::t!("home-tracks-title-due", n = n)),
    };
    let focused = |f: Focus| theme::border(state.focus == f);
    let list = List::new(items)
        .block(panel(&tracks_title, focused(Focus::Tracks)))
        .highlight_style(Style::default().add_modifier(Modifier::REVERSED))
        .highlight_symbol("▶ ");
    frame.render_stateful_widget(list, tracks_area, &mut ls);

    let drill_items: Vec<ListItem> = content
        .drills
        .iter()
        .map(|d| {
            let mut spans = vec![Span::styled(format!("{} ", d.track), theme::highlight()), Span::raw(d.id.clone())];
            match info.last.get(&d.id) {
                Some(true) => spans.push(Span::styled(" ✓", theme::claim_pass())),
                Some(false) => spans.push(Span::styled(" ✗", theme::claim_fail())),
                None => {}
            }
            ListItem::new(Line::from(spans))
        })
        .collect();
    let mut ds = ListState::default().with_selected((state.focus == Focus::Drills).then_some(state.drill));
    let drills = List::new(drill_items)
        .block(panel(&format!(" {} ", crate::t!("home-drills")), focused(Focus::Drills)))
        .highlight_style(Style::default().add_modifier(Modifier::REVERSED))
        .highlight_symbol("▶ ");
    frame.render_stateful_widget(drills, drills_area, &mut ds);

    let detail = match state.focus {
        Focus::Tracks => track_detail(content, summary, info, TRACKS[state.track].number),
        Focus::Drills => content.drills.get(state.drill).map(|d| drill_detail(content, &d.id)).unwrap_or_default(),
    };
    let detail = crate::tui::widgets::wrap_lines(detail, right.width.saturating_sub(2) as usize);
    frame.render_widget(
        Paragraph::new(detail)
            .wrap(Wrap { trim: false })
            .block(panel(&format!(" {} ", crate::t!("home-details")), theme::dim())),
        right,
    );
}

fn panel(title: &str, border: Style) -> Block<'static> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_style(border)
        .title(title.to_string())
}

/// A label and the space before its value ("Next step (n): "); none after a
/// full-width colon, which has its own room ("下一步（n）：").
fn after_label(mut label: String) -> String {
    if !label.ends_with('：') {
        label.push(' ');
    }
    label
}

fn heading(text: String) -> Line<'static> {
    Line::from(Span::styled(text, accent().add_modifier(Modifier::BOLD)))
}

fn dim(text: String) -> Line<'static> {
    Line::from(Span::styled(text, theme::dim()))
}

fn track_detail(content: &Content, summary: &Summary, info: &Info, track: u8) -> Vec<Line<'static>> {
    let t = &TRACKS[track as usize];
    let mut lines = vec![
        heading(crate::t!("home-track-heading", track = t.number.to_string(), title = content.track_title(t.number))),
        Line::raw(""),
    ];
    match (info.next.get(&track), info.path.get(&track)) {
        (Some((label, minutes)), Some(&(done, total, left))) => {
            lines.push(Line::from(vec![
                Span::styled(after_label(crate::t!("home-next-step")), accent().add_modifier(Modifier::BOLD)),
                Span::raw(crate::t!("home-step-minutes", label = label.as_str(), minutes = *minutes)),
            ]));
            lines.push(dim(crate::t!("home-path", done = done, total = total, left = left, session = DEFAULT_MINUTES)));
            lines.push(Line::raw(""));
        }
        (None, Some(&(_, total, _))) => {
            lines.push(Line::styled(crate::t!("home-path-done", total = total), crate::tui::theme::good()));
            lines.push(Line::raw(""));
        }
        _ => {}
    }
    match content.sheet(track) {
        Some(s) => {
            lines.push(Line::raw(s.meta.summary.clone()));
            lines.push(Line::raw(""));
            let status = match s.meta.status {
                SheetStatus::Complete => {
                    crate::t!("home-cheatsheet-sections", count = s.section_count())
                }
                SheetStatus::Stub => crate::t!("home-cheatsheet-stub"),
            };
            lines.push(Line::raw(status));
        }
        None => lines.push(dim(crate::t!("home-no-cheatsheet"))),
    }
    let row = summary.tracks.iter().find(|r| r.track == track);
    if let Some(r) = row {
        // The figures of the Progress screen, from the same summary.
        let levels: Vec<String> =
            r.levels.iter().zip(["L1", "L2", "L3"]).map(|(c, l)| format!("{l} {}", pct_text(c.fraction()))).collect();
        lines.push(Line::raw(crate::t!("home-mastery", mastery = r.mastery_text(), levels = levels.join(" · "))));
        if r.secs > 0 || r.predictions > 0 {
            lines.push(Line::raw(crate::t!(
                "home-study-time",
                time = duration_text(r.secs),
                right = r.calibration_text()
            )));
        }
    }
    let drills: Vec<_> = content.drills_of(track).collect();
    if drills.is_empty() {
        lines.push(Line::raw(crate::t!("home-drills-none")));
    } else {
        let passed = row.map_or(0, |r| r.drills_passed);
        lines.push(Line::raw(crate::t!("home-drills-passed", passed = passed, total = drills.len())));
        for d in drills {
            lines.push(Line::raw(format!("  • {} — {}", d.id, d.title)));
        }
    }
    let exercises: Vec<_> = content.exercises_of(track).collect();
    if !exercises.is_empty() {
        let done = row.map_or(0, |r| r.exercises_done);
        lines.push(Line::raw(crate::t!("home-exercises-done", done = done, total = exercises.len())));
    }
    match content.quiz(track) {
        Some(q) => lines.push(Line::raw(crate::t!(
            "home-quiz-items",
            count = q.items.len(),
            l1 = q.count(Level::L1),
            l2 = q.count(Level::L2),
            l3 = q.count(Level::L3)
        ))),
        None => lines.push(Line::raw(crate::t!("home-quiz-none"))),
    }
    lines.push(Line::raw(""));
    lines.push(dim(crate::t!("home-track-keys")));
    lines
}

fn drill_detail(content: &Content, id: &str) -> Vec<Line<'static>> {
    let Some(d) = content.drill(id) else { return Vec::new() };
    let mut lines = vec![heading(d.title.clone()), Line::raw(""), Line::raw(d.objective.clone()), Line::raw("")];
    let observed = d.claims.iter().filter(|c| c.observation).count();
    let mut counts = crate::t!("home-claims", count = d.claims.len() - observed);
    if observed > 0 {
        counts += &crate::t!("view-list-sep");
        counts += &crate::t!("home-observations", count = observed);
    }
    lines.push(Line::raw(crate::t!(
        "home-drill-line",
        track = d.track.to_string(),
        counts = counts,
        params = d.params.len()
    )));
    // An observation is measured and shown, never passed or failed; a claim
    // of some presets only is not checked on the others.
    for c in &d.claims {
        let mut text =
            format!("  {} {} {} {}", if c.observation { "○" } else { "•" }, c.text, c.op.symbol(), c.threshold);
        if c.observation {
            text.push_str(&format!(" · {}", crate::t!("home-observation")));
        }
        if !c.presets.is_empty() {
            text.push_str(&format!(
                " · {}",
                crate::t!("home-presets", presets = c.presets.join(", "), count = c.presets.len())
            ));
        }
        lines.push(Line::raw(text));
    }
    lines.push(Line::raw(""));
    lines.push(dim(crate::t!("home-drill-next")));
    lines
}
