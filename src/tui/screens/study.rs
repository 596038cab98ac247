//! A study session: a plan that fits the minutes the learner has (the due
//! review first, then the next steps of a track's path), walked one stop at
//! a time, and a summary at the end that is saved to progress.
//!
//! The screen stays under the screens it opens: `Enter` opens the current
//! stop on top of it; when the learner comes back (Esc), the app tells the
//! session ([`State::on_return`]), which checks the learner's record and
//! moves on when the step is done. The plan and the done-checks are in
//! `progress::study`; this file only walks them.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph, Wrap};
use ratatui::Frame;

use crate::content::sheet::StepKind;
use crate::content::{Level, Link};
use crate::markdown::Target;
use crate::progress::store::SessionRecord;
use crate::progress::study::{Plan, Step};
use crate::tui::action::{Action, Hint};
use crate::tui::theme::{accent, bad, dim, good, warm};

/// Where the session is.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    /// The plan is shown; `+`/`-` change the minutes, Enter starts.
    Planning,
    /// Walking the stops.
    Going,
    /// Ended: the summary (saved).
    Over(SessionRecord),
}

/// One stop of the session.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    Review(usize),
    Step(Step),
}

impl Stop {
    /// What the stop is; `with_track` adds its track (a session over several tracks).
    pub fn label(&self, with_track: bool) -> String {
        match self {
            Stop::Review(n) => crate::t!("study-review-stop", count = *n),
            Stop::Step(s) if with_track => {
                crate::t!("study-stop-with-track", label = s.label.as_str(), track = s.track.to_string())
            }
            Stop::Step(s) => s.label.clone(),
        }
    }

    pub fn minutes(&self) -> u32 {
        match self {
            Stop::Review(n) => (*n as f64 * crate::progress::study::REVIEW_MINUTES_PER_ITEM).ceil() as u32,
            Stop::Step(s) => s.minutes(),
        }
    }

    pub fn track(&self) -> Option<u8> {
        match self {
            Stop::Review(_) => None,
            Stop::Step(s) => Some(s.track),
        }
    }

    /// What `Enter` opens for this stop.
    pub fn action(&self) -> Action {
        match self {
            Stop::Review(_) => Action::OpenReview,
            Stop::Step(s) => {
                let t = s.spec.target.clone();
                match s.spec.kind {
                    StepKind::Read => Action::Follow(Target::Lab(Link::Sheet { track: s.track, section: Some(t) })),
                    StepKind::Quiz => match Level::parse(&t) {
                        Some(level) => Action::SessionQuiz { track: s.track, level },
                        None => Action::OpenQuiz { track: Some(s.track), level: None },
                    },
                    StepKind::Exercise => Action::Follow(Target::Lab(Link::Exercise(t))),
                    StepKind::Drill => Action::Follow(Target::Lab(Link::Drill(t))),
                }
            }
        }
    }
}

/// How a stop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Done,
    Skipped,
}

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub plan: Plan,
    pub stops: Vec<Stop>,
    pub marks: Vec<Option<Mark>>,
    pub current: usize,
    pub phase: Phase,
    pub started: DateTime<Utc>,
    /// The monotonic clock when it started: the session's length does not
    /// follow the wall clock when that steps back or forth (NTP, a VM restored).
    pub started_mono: Option<std::time::Instant>,
    /// When the current stop was opened (to count time per track).
    pub opened_at: Option<DateTime<Utc>>,
    pub track_secs: BTreeMap<u8, u64>,
    /// Said under the list: "not done yet", "done: …".
    pub note: Option<String>,
    /// Every stop is done or skipped and minutes are left: the next steps
    /// of the path, offered (`Enter` continues with them, `x` ends).
    pub offer: Vec<Step>,
}

pub const HINTS: &[Hint] = &[("Enter", "go"), ("n", "skip"), ("x", "end"), ("Esc", "back")];
pub const PLAN_HINTS: &[Hint] = &[("Enter", "start"), ("+ -", "minutes"), ("Esc", "back")];

pub const HELP: &[Hint] = &[
    ("Enter", "plan: start the session · going: open the current stop · summary: back to Home"),
    ("+ -", "plan: 5 minutes more / less"),
    ("n", "skip the current stop (it stays on your path)"),
    ("x", "end the session now: the summary, saved to progress"),
    ("Esc", "back (a session going is ended first, with its summary)"),
];

impl State {
    pub fn new(plan: Plan, now: DateTime<Utc>) -> State {
        let mut stops = Vec::new();
        if !plan.review.is_empty() {
            stops.push(Stop::Review(plan.review.len()));
        }
        stops.extend(plan.steps.iter().cloned().map(Stop::Step));
        State {
            marks: vec![None; stops.len()],
            stops,
            plan,
            current: 0,
            phase: Phase::Planning,
            started: now,
            started_mono: None,
            opened_at: None,
            track_secs: BTreeMap::new(),
            note: None,
            offer: Vec::new(),
        }
    }

    pub fn title(&self) -> String {
        match &self.phase {
            Phase::Planning => crate::t!("study-title-plan"),
            Phase::Going => {
                crate::t!("study-title-going", k = (self.current + 1).min(self.stops.len()), n = self.stops.len())
            }
            Phase::Over(_) => crate::t!("study-title-summary"),
        }
    }

    pub fn hints(&self) -> Vec<Hint> {
        match self.phase {
            Phase::Planning => PLAN_HINTS.to_vec(),
            Phase::Going => HINTS.to_vec(),
            Phase::Over(_) => vec![("Enter", "Home"), ("p", "progress")],
        }
    }

    /// When the session ends if it ends now: its start plus the time the
    /// monotonic clock measured since, so that its length does not follow a
    /// wall clock stepped back or forth meanwhile; `now` (never before the
    /// start) for a session not started by a key.
    pub fn ended_at(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        self.started_mono
            .and_then(|m| chrono::Duration::from_std(m.elapsed()).ok())
            .and_then(|d| self.started.checked_add_signed(d))
            .unwrap_or(now)
            .max(self.started)
    }

    /// Minutes since the session started.
    pub fn minutes_used(&self, now: DateTime<Utc>) -> u32 {
        ((now - self.started).num_seconds().max(0) / 60) as u32
    }

    /// The session bar: "session · step 2 of 5 · 12 of 30 min", or
    /// "step 2/5 · 12/30 min" where the header is narrow.
    pub fn bar(&self, now: DateTime<Utc>, narrow: bool) -> Option<String> {
        let (k, n) = ((self.current + 1).min(self.stops.len()), self.stops.len());
        let (used, of) = (self.minutes_used(now), self.plan.minutes);
        (self.phase == Phase::Going).then(|| match narrow {
            false => crate::t!("study-bar", k = k, n = n, used = used, of = of),
            true => crate::t!("study-bar-narrow", k = k, n = n, used = used, of = of),
        })
    }

    pub fn going(&self) -> bool {
        self.phase == Phase::Going
    }

    /// Counts of (done, skipped).
    pub fn counts(&self) -> (u32, u32) {
        let n = |m: Mark| self.marks.iter().filter(|x| **x == Some(m)).count() as u32;
        (n(Mark::Done), n(Mark::Skipped))
    }

    /// Keys. Ending (tally and save) is the app's work: `Action::EndSession`.
    pub fn on_key(&mut self, key: KeyEvent, now: DateTime<Utc>) -> Action {
        match (&self.phase, key.code) {
            (Phase::Planning, KeyCode::Enter) => {
                if self.stops.is_empty() {
                    return Action::Flash(crate::t!("study-nothing-to-plan"));
                }
                self.phase = Phase::Going;
                self.started = now;
                self.started_mono = Some(std::time::Instant::now());
                self.open(now)
            }
            (Phase::Planning, KeyCode::Char('+') | KeyCode::Char('=')) => Action::Replan(self.plan.minutes + 5),
            (Phase::Planning, KeyCode::Char('-')) if self.plan.minutes > 5 => Action::Replan(self.plan.minutes - 5),
            (Phase::Planning, KeyCode::Esc | KeyCode::Backspace) => Action::Back,
            (Phase::Going, KeyCode::Enter) if !self.has_current() && !self.offer.is_empty() => {
                self.take_offer();
                self.open(now)
            }
            (Phase::Going, KeyCode::Enter) => self.open(now),
            (Phase::Going, KeyCode::Char('n')) if self.has_current() => {
                self.marks[self.current] = Some(Mark::Skipped);
                self.note =
                    Some(crate::t!("study-skipped", label = self.stops[self.current].label(self.plan.track.is_none())));
                self.advance();
                if self.has_current() {
                    Action::None
                } else {
                    Action::StopsDone
                }
            }
            (Phase::Going, KeyCode::Char('x') | KeyCode::Esc | KeyCode::Backspace) => Action::EndSession,
            (Phase::Over(_), KeyCode::Enter | KeyCode::Esc | KeyCode::Backspace) => Action::Back,
            (Phase::Over(_), KeyCode::Char('p')) => Action::OpenProgress,
            _ => Action::None,
        }
    }

    /// Whether a stop is left to walk (none once every stop is marked).
    pub fn has_current(&self) -> bool {
        self.current < self.stops.len()
    }

    fn open(&mut self, now: DateTime<Utc>) -> Action {
        match self.stops.get(self.current) {
            Some(stop) => {
                self.opened_at = Some(now);
                stop.action()
            }
            None => Action::None,
        }
    }

    /// Move to the next stop not marked.
    fn advance(&mut self) {
        while self.has_current() && self.marks[self.current].is_some() {
            self.current += 1;
        }
    }

    /// The learner came back from the current stop: count its time, and
    /// mark each stop not marked yet done when `done` (one flag per stop)
    /// says so: the current one, and any later one done on the way (a
    /// section read through from an earlier stop). Returns whether every
    /// stop is marked now.
    pub fn on_return(&mut self, done: &[bool], now: DateTime<Utc>) -> bool {
        let Some(stop) = self.stops.get(self.current).cloned() else { return true };
        if let Some(at) = self.opened_at.take() {
            let secs = (now - at).num_seconds().max(0) as u64;
            if let Some(t) = stop.track().or(self.plan.track) {
                let total = self.track_secs.entry(t).or_default();
                *total = total.saturating_add(secs);
            }
        }
        let with_track = self.plan.track.is_none();
        let mut labels = Vec::new();
        for i in self.current..self.stops.len() {
            if self.marks[i].is_none() && done.get(i).copied().unwrap_or(false) {
                self.marks[i] = Some(Mark::Done);
                labels.push(self.stops[i].label(with_track));
            }
        }
        if self.marks[self.current].is_some() {
            self.note = Some(crate::t!("study-done", label = labels.join(" · ")));
            self.advance();
        } else {
            let not_done = crate::t!("study-not-done");
            self.note = Some(match labels.is_empty() {
                true => not_done,
                false => format!("{} · {not_done}", crate::t!("study-done", label = labels.join(" · "))),
            });
        }
        !self.has_current()
    }

    /// Every stop is marked and `left` minutes remain: offer `steps` (the
    /// next ones of the path). With none, the caller ends the session.
    pub fn offer(&mut self, steps: Vec<Step>, left: u32) {
        let with_track = self.plan.track.is_none();
        if let Some(first) = steps.first() {
            let first = Stop::Step(first.clone()).label(with_track);
            self.note = Some(match steps.len() {
                1 => crate::t!("study-offer-one", left = left, first = first),
                n => crate::t!("study-offer", left = left, first = first, more = n - 1),
            });
        }
        self.offer = steps;
    }

    /// The offered steps join the session, after the stops walked.
    fn take_offer(&mut self) {
        let steps = std::mem::take(&mut self.offer);
        self.current = self.stops.len();
        self.marks.extend(steps.iter().map(|_| None));
        self.stops.extend(steps.into_iter().map(Stop::Step));
    }

    /// The session ended with `record` (already tallied and saved by the app).
    pub fn finish(&mut self, record: SessionRecord) {
        self.phase = Phase::Over(record);
    }
}

pub fn draw(frame: &mut Frame, area: Rect, s: &State, now: DateTime<Utc>) {
    let mut lines: Vec<Line> = Vec::new();
    match &s.phase {
        Phase::Over(r) => summary_lines(&mut lines, r),
        phase => {
            let p = &s.plan;
            let on = p.track.map_or(crate::t!("study-all-tracks"), |t| crate::t!("study-track", track = t.to_string()));
            lines.push(Line::from(Span::styled(
                crate::t!("study-plan-head", minutes = p.minutes, on = on, planned = p.planned_minutes()),
                accent().add_modifier(Modifier::BOLD),
            )));
            // What just happened (and the offer to go on) under the head, where a short terminal still shows it.
            if let Some(n) = &s.note {
                lines.push(Line::styled(n.clone(), warm()));
            }
            if let (Some(t), false) = (p.track, p.untouched_before.is_empty()) {
                let list: Vec<String> = p.untouched_before.iter().map(u8::to_string).collect();
                lines.push(Line::styled(
                    crate::t!("study-untouched-before", track = t.to_string(), tracks = list.join(", ")),
                    warm(),
                ));
            }
            if p.review_left_out > 0 {
                lines.push(Line::styled(
                    crate::t!(
                        "study-left-out",
                        count = p.review_left_out,
                        share = format!("{:.0}", crate::progress::study::REVIEW_SHARE * 100.0)
                    ),
                    dim(),
                ));
            }
            lines.push(Line::raw(""));
            if s.stops.is_empty() {
                lines.push(Line::raw(crate::t!("study-nothing-to-do")));
            }
            for (i, stop) in s.stops.iter().enumerate() {
                let (mark, style) = match s.marks[i] {
                    Some(Mark::Done) => ("✓", good()),
                    Some(Mark::Skipped) => ("↷", dim()),
                    None if i == s.current && *phase == Phase::Going => ("▶", accent()),
                    None => ("·", ratatui::style::Style::default()),
                };
                lines.push(Line::from(vec![
                    Span::styled(format!(" {mark} "), style),
                    Span::styled(format!("{:>3} {}  ", stop.minutes(), crate::t!("study-min")), dim()),
                    Span::styled(stop.label(p.track.is_none()), style),
                ]));
            }
            lines.push(Line::raw(""));
            let hint = match phase {
                Phase::Planning => crate::t!("study-plan-keys"),
                _ => crate::t!("study-going-keys"),
            };
            lines.push(Line::styled(hint, dim()));
            if *phase == Phase::Going {
                lines.push(Line::styled(crate::t!("study-minutes-used", n = s.minutes_used(now)), dim()));
            }
        }
    }
    let block = Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_style(dim())
        .title(format!(" {} ", s.title()));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }).block(block), area);
}

/// The end-of-session summary, as the screen shows it.
pub fn summary_lines(lines: &mut Vec<Line<'static>>, r: &SessionRecord) {
    let took = crate::progress::summary::duration_text((r.ended - r.started).num_seconds().max(0) as u64);
    lines.push(Line::from(Span::styled(
        crate::t!("study-over", took = took, planned = r.planned_minutes),
        accent().add_modifier(Modifier::BOLD),
    )));
    lines.push(Line::raw(""));
    lines.push(Line::raw(crate::t!("study-steps", done = r.steps_done, skipped = r.steps_skipped)));
    lines.push(Line::raw(crate::t!("study-rated", count = r.items_rated)));
    lines.push(Line::raw(crate::t!("study-exercises-passed", n = r.exercises_passed)));
    if r.drills.is_empty() {
        lines.push(Line::raw(crate::t!("study-drills-none")));
    } else {
        lines.push(Line::raw(crate::t!("study-drills-run")));
        for d in &r.drills {
            let style = if d.claims_held == d.claims { good() } else { bad() };
            let text = crate::t!("study-drill-held", id = d.id.as_str(), held = d.claims_held, total = d.claims);
            lines.push(Line::styled(format!("  {text}"), style));
        }
    }
    lines.push(Line::raw(match r.predictions {
        0 => crate::t!("study-predictions-none"),
        n => crate::t!("study-predictions", right = r.predictions_right, n = n),
    }));
    if !r.track_secs.is_empty() {
        let per: Vec<String> = r
            .track_secs
            .iter()
            .map(|(t, s)| {
                crate::t!("study-track-time", track = t.to_string(), time = crate::progress::summary::duration_text(*s))
            })
            .collect();
        lines.push(Line::raw(crate::t!("study-time", list = per.join(" · "))));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(crate::t!("study-saved"), dim()));
}
