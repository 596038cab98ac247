//! Application state and event → action handling. Drawing lives in `ui.rs`
//! and the screen modules; nothing here draws.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::Rect;

use std::path::PathBuf;

use chrono::{DateTime, Utc};

use super::action::Action;
use super::screens::{drill, exercise, home, progress, quiz, reader, review, study, Screen};
use crate::content::{Content, Level, Link};
use crate::i18n::Lang;
use crate::markdown::Target;
use crate::ml::device::DeviceChoice;
use crate::progress::store::Place;
use crate::progress::study::{self as path, Plan};
use crate::progress::{Store, Summary};

/// A mark per drill id (see [`App::drills_last`]).
pub type DrillMarks = std::collections::BTreeMap<String, bool>;

pub struct App {
    /// The content in the language shown ([`App::lang`]).
    pub content: Content,
    /// The content as loaded (English, with its translations), which
    /// [`App::set_lang`] localises.
    base: Content,
    /// The language of the screens and the content.
    pub lang: Lang,
    /// Where drill runs are saved (`<data dir>/runs`).
    pub runs_root: PathBuf,
    /// Where seed sweeps are saved (`<data dir>/sweeps`).
    pub sweeps_root: PathBuf,
    pub device: DeviceChoice,
    /// Screens stacked by navigation; the last one is shown. Never empty.
    pub stack: Vec<Screen>,
    pub help: bool,
    pub flash: Option<String>,
    quit: bool,
    /// `q` was pressed while a run or sweep is going: the footer asks, and
    /// the next key decides (`q` quits, any other stays).
    pub confirm_quit: Option<String>,
    pub area: Rect,
    /// The learner state (`progress.json`), saved after every rating.
    pub store: Store,
    /// Mastery and due counts for Home, refreshed after every key.
    pub summary: Summary,
    /// Drills passed, as last read from `runs_root` (see `sync_progress`).
    pub drills_passed: std::collections::BTreeMap<String, bool>,
    /// When `drills_passed` was read.
    pub(crate) runs_read: Option<std::time::Instant>,
    /// The periodic read of the run history under way on its own thread
    /// (see `sync_progress`): a slow disk never holds up a key.
    pub(crate) runs_scan: Option<std::sync::mpsc::Receiver<(DrillMarks, DrillMarks)>>,
    /// Each drill's newest run: `true` passed, `false` a claim failed (Home's ✓/✗), read with `drills_passed`.
    pub drills_last: DrillMarks,
    /// A fixed clock for tests; `None` reads the system clock.
    pub now_override: Option<DateTime<Utc>>,
    /// Home's next steps and Continue line (refreshed when Home is on top).
    pub home: home::Info,
}

/// Smallest terminal the UI draws into; below it a message asks to enlarge it.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 16;

impl App {
    pub fn new(content: Content) -> App {
        let store = Store::open_default(Utc::now()).unwrap_or_else(|e| {
            let tmp = std::env::temp_dir().join("agentlab-progress.json");
            let notice =
                crate::t!("app-progress-elsewhere", error = format!("{e:#}"), path = tmp.display().to_string());
            Store::in_memory(tmp, notice)
        });
        App::with_store(content, store)
    }

    /// An app on a given progress store (tests use a temporary one).
    pub fn with_store(content: Content, store: Store) -> App {
        let (runs_root, mut flash) = match crate::paths::runs_dir() {
            Ok(p) => (p, None),
            Err(e) => (
                std::env::temp_dir().join("agentlab-runs"),
                Some(crate::t!("app-runs-temporary", error = format!("{e:#}"))),
            ),
        };
        // Next to the runs: the same data dir, or the same temporary fallback.
        let sweeps_root = crate::paths::sweeps_dir().unwrap_or_else(|_| std::env::temp_dir().join("agentlab-sweeps"));
        // A progress file moved aside is told on the status line.
        if let Some(n) = &store.notice {
            flash = Some(n.clone());
        }
        let home = Screen::Home(home::State::default());
        let drills_passed = crate::progress::summary::drills_passed(&content, &runs_root);
        let summary = crate::progress::summary::summarize(&store.progress, &content, &drills_passed, Utc::now());
        let ids: Vec<String> = content.drills.iter().map(|d| d.id.clone()).collect();
        let drills_last = crate::progress::summary::last_runs_of(&ids, &runs_root);
        App {
            base: content.clone(),
            content,
            lang: Lang::En,
            runs_root,
            sweeps_root,
            device: DeviceChoice::Auto,
            stack: vec![home],
            help: false,
            flash,
            quit: false,
            confirm_quit: None,
            area: Rect::default(),
            store,
            summary,
            drills_passed,
            runs_read: Some(std::time::Instant::now()),
            runs_scan: None,
            drills_last,
            now_override: None,
            home: home::Info::default(),
        }
        .with_home()
    }

    /// Show the screens and the content in `lang`, at once: every open
    /// screen keeps its place. A language the content has no translation
    /// for is refused with a message. Not saved (see [`App::switch_lang`]).
    pub fn set_lang(&mut self, lang: Lang) -> Result<(), String> {
        if !self.base.languages().contains(&lang) {
            return Err(crate::t!("lang-missing", name = lang.name()));
        }
        crate::i18n::set(lang);
        self.lang = lang;
        self.content = self.base.localized(lang);
        for screen in &mut self.stack {
            screen.relocalize(&self.content);
        }
        self.refresh_summary();
        Ok(())
    }

    /// The app in `lang` (start-up: `--lang`, `AGENTLAB_LANG`, the saved
    /// choice or the locale); English when the content has no such translation.
    pub fn in_lang(mut self, lang: Lang) -> App {
        if let Err(m) = self.set_lang(lang) {
            self.flash = Some(m);
        }
        self
    }

    /// The language key: the next language, remembered in the learner's settings.
    pub fn switch_lang(&mut self) {
        let langs = self.base.languages();
        let i = langs.iter().position(|l| *l == self.lang).map_or(0, |i| (i + 1) % langs.len());
        let lang = langs[i];
        self.flash = Some(match self.set_lang(lang) {
            Err(m) => m,
            Ok(()) => match self.store.set_lang(lang) {
                Ok(()) => crate::t!("lang-switched", name = lang.name()),
                Err(e) => format!("{} ({e:#})", crate::t!("lang-switched", name = lang.name())),
            },
        });
    }

    fn with_home(mut self) -> App {
        self.refresh_home();
        self
    }

    /// The time used for grading and scheduling (read here, passed into the logic).
    pub fn now(&self) -> DateTime<Utc> {
        self.now_override.unwrap_or_else(Utc::now)
    }

    /// Recompute what Home shows of each track's path and the Continue line
    /// (from the drills passed last read).
    pub fn refresh_home(&mut self) {
        self.home = home::Info::new(&self.content, &self.store.progress, &self.drills_passed);
        self.home.last = self.drills_last.clone();
    }

    /// Recompute Home's mastery bars, due count, paths and Continue line, and
    /// every open Progress screen, from the store and the drills passed last
    /// read (one summary).
    pub fn refresh_summary(&mut self) {
        self.summary =
            crate::progress::summary::summarize(&self.store.progress, &self.content, &self.drills_passed, self.now());
        self.refresh_progress_screens();
        self.refresh_home();
    }

    /// The drill screen for `id`.
    pub fn drill_screen(&self, id: &str) -> Option<Screen> {
        let meta = self.content.drill(id)?;
        let mut state = drill::State::new(meta, self.runs_root.clone(), self.sweeps_root.clone(), self.device);
        state.know_predictions(&self.store.progress);
        Some(Screen::Drill(Box::new(state)))
    }

    /// A drill screen was opened: Home's Continue comes back to it. A
    /// failed save is told as other failed saves are.
    fn opened_drill(&mut self, id: &str) {
        let now = self.now();
        if let Err(e) = self.store.set_resume(crate::progress::store::Place::Drill { id: id.to_string() }, now) {
            self.flash = Some(crate::t!("app-progress-not-saved", error = format!("{e:#}")));
        }
    }

    pub fn screen(&self) -> &Screen {
        self.stack.last().expect("the screen stack is never empty")
    }

    pub fn should_quit(&self) -> bool {
        self.quit
    }

    pub fn too_small(&self) -> bool {
        self.area.width < MIN_WIDTH || self.area.height < MIN_HEIGHT
    }

    /// Per-frame preparation that needs `&mut` (layout caches sized to the terminal).
    pub fn prepare(&mut self, area: Rect) {
        self.area = area;
        if self.too_small() {
            return;
        }
        let body = super::layout::body_area(area);
        if let Some(Screen::Reader(r)) = self.stack.last_mut() {
            r.prepare(body);
        }
    }

    /// Drain drill events (for every drill screen on the stack, not only the
    /// top one: a run goes on while its README is open). Returns whether
    /// anything changed that needs a redraw.
    pub fn on_tick(&mut self) -> bool {
        let mut changed = false;
        for s in self.stack.iter_mut() {
            if let Screen::Drill(d) = s {
                let was_busy = d.running() || d.sweeping();
                changed |= d.poll();
                if was_busy && !d.running() && !d.sweeping() {
                    // "started…", "cancelling…" were about the work that just
                    // ended: they go with it (the gauge says how it ended).
                    self.flash = None;
                    // A run that ended may have passed: read the runs again.
                    self.runs_read = None;
                    changed = true;
                }
                // A sweep that ended says where it was saved.
                if let Some(m) = d.take_notice() {
                    self.flash = Some(m);
                }
                // Predictions a run resolved go into the progress file.
                for mut r in d.take_records() {
                    r.at = self.now_override.unwrap_or_else(Utc::now);
                    if let Err(e) = self.store.record_prediction(r) {
                        self.flash = Some(crate::t!("app-progress-not-saved", error = format!("{e:#}")));
                    }
                    changed = true;
                }
            }
        }
        // The exercise on top re-checks its file when it was saved elsewhere (an editor in another window).
        if let Some(Screen::Exercise(x)) = self.stack.last_mut() {
            if !x.edit_requested && x.saved_since() && x.start_check().is_ok() {
                self.flash = Some(crate::t!("app-saved-checking"));
                changed = true;
            }
        }
        changed |= self.exercise_checked();
        changed | self.sync_progress(false)
    }

    /// On quit: a last try to save ratings whose saves failed; what could not be saved.
    pub fn save_unsaved(&mut self) -> Option<String> {
        if !self.store.has_unsaved() {
            return None;
        }
        let err = self.store.save().err()?;
        Some(crate::t!("app-ratings-not-saved", error = format!("{err:#}"), n = self.store.unsaved_ratings()))
    }

    /// What is under way on a drill screen (the top one or below it), as
    /// "a run" or "a sweep"; `None` when nothing runs.
    pub fn work_under_way(&self) -> Option<&'static str> {
        let drills = self.stack.iter().filter_map(|s| match s {
            Screen::Drill(d) => Some(d),
            _ => None,
        });
        let mut what = None;
        for d in drills {
            if d.running() {
                return Some("a run");
            }
            if d.sweeping() {
                what = Some("a sweep");
            }
        }
        what
    }

    /// Quitting: cancel every run and sweep under way and wait for them,
    /// until `deadline`, to save themselves (a run as cancelled, a sweep with
    /// the seeds that finished). Returns what to tell the learner.
    pub fn shutdown(&mut self, deadline: std::time::Instant) -> Vec<String> {
        let mut notes = Vec::new();
        for s in self.stack.iter_mut() {
            if let Screen::Drill(d) = s {
                notes.extend(d.stop(deadline));
            }
        }
        notes
    }

    /// `q`: quit, or ask first while a run or sweep is going.
    fn ask_to_quit(&mut self) {
        match self.work_under_way() {
            None => {
                self.leave_top();
                self.end_session();
                self.quit = true
            }
            Some(what) => {
                // One line that fits 80 columns.
                self.confirm_quit = Some(if what == "a run" {
                    crate::t!("app-confirm-quit-run")
                } else {
                    crate::t!("app-confirm-quit-sweep")
                });
            }
        }
    }

    pub fn on_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        // Ctrl-C always quits, whatever has focus, without asking.
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            self.quit = true;
            return;
        }
        // The answer to "q again quits": q quits, any other key stays (and does nothing else).
        if self.confirm_quit.take().is_some() {
            if key.code == KeyCode::Char('q') {
                self.quit = true;
            } else {
                self.flash = Some(crate::t!("app-not-quitting"));
            }
            return;
        }
        self.flash = None;
        crate::i18n::set(self.lang);
        // F2 switches the language anywhere, also while typing.
        if key.code == KeyCode::F(2) {
            self.switch_lang();
            return;
        }
        if self.help {
            if matches!(key.code, KeyCode::Esc | KeyCode::Char('?') | KeyCode::Char('q') | KeyCode::Enter) {
                self.help = false;
            }
            return;
        }
        if self.too_small() {
            if matches!(key.code, KeyCode::Char('q')) {
                self.ask_to_quit();
            }
            return;
        }
        let typing = self.screen().is_typing();
        if !typing {
            match key.code {
                KeyCode::Char('?') => {
                    self.help = true;
                    return;
                }
                KeyCode::Char('q') => {
                    self.ask_to_quit();
                    return;
                }
                _ => {}
            }
        }
        let shown = self.screen().kind();
        let now = self.now();
        // What the last frame showed the reader counts as read before this key moves on.
        self.note_reading();
        let content = &self.content;
        let store = &mut self.store;
        let action = match self.stack.last_mut().expect("non-empty") {
            Screen::Home(s) => s.on_key(key, content),
            Screen::Reader(s) => s.on_key(key),
            Screen::Drill(s) => s.on_key(key),
            Screen::Quiz(s) => s.on_key(key, content, store, now),
            Screen::Review(s) => s.on_key(key, content, store, now),
            Screen::Progress(s) => s.on_key(key),
            Screen::Exercises(s) => s.on_key(key, content),
            Screen::Exercise(s) => s.on_key(key),
            Screen::Study(s) => s.on_key(key, now),
        };
        self.apply(action);
        // A screen shown now (opened, or back to) reads the drills passed afresh.
        let opened = self.screen().kind() != shown;
        if !self.sync_progress(opened) {
            self.refresh_summary();
        }
    }

    /// The quiz screen: setup with `track` preselected, or started when `level` is given.
    pub fn quiz_screen(&self, track: Option<u8>, level: Option<Level>) -> Screen {
        let s = match (track, level) {
            (Some(t), Some(l)) => quiz::State::start(&self.content, &self.store, t, Some(l)),
            (t, l) => quiz::State::setup(t.unwrap_or(0), l.or(Some(Level::L1))),
        };
        Screen::Quiz(Box::new(s))
    }

    pub fn review_screen(&self) -> Screen {
        Screen::Review(Box::new(review::State::new(&self.content, &self.store, self.now())))
    }

    /// The progress screen: the file and the run history read again, then
    /// the same summary as Home's (kept fresh by `sync_progress`).
    pub fn progress_screen(&mut self) -> Screen {
        self.store.reload_if_changed();
        self.read_runs();
        self.refresh_summary();
        Screen::Progress(Box::new(progress::State {
            summary: self.summary.clone(),
            path: self.store.path.display().to_string(),
            notice: self.store.notice.clone(),
            scroll: None,
            study: false,
        }))
    }

    pub fn apply(&mut self, action: Action) {
        match action {
            Action::None => {}
            Action::Quit => self.quit = true,
            Action::Back => {
                if self.stack.len() > 1 {
                    self.leave_top();
                    self.stack.pop();
                    self.came_back();
                }
            }
            Action::OpenStudy { track, minutes } => {
                let s = self.study_screen(track, minutes);
                self.stack.push(s);
            }
            Action::Replan(minutes) => {
                let track = match self.stack.last() {
                    Some(Screen::Study(s)) => s.plan.track,
                    _ => return,
                };
                let s = self.study_screen(track, minutes);
                if let Some(top) = self.stack.last_mut() {
                    *top = s;
                }
            }
            Action::EndSession => self.end_session(),
            Action::StopsDone => self.offer_more_or_end(),
            Action::SessionQuiz { track, level } => {
                let ids = path::askable(&self.content, &self.store.progress, track, level);
                let s = quiz::State::start_with(&self.content, &self.store, track, Some(level), ids);
                self.stack.push(Screen::Quiz(Box::new(s)));
            }
            Action::Continue => self.resume(),
            Action::NextStep(track) => {
                let passed = self.passed_now();
                match path::next_step(&self.content, &self.store.progress, &passed, track) {
                    Some(step) => self.apply(study::Stop::Step(step).action()),
                    None => self.flash = Some(crate::t!("app-path-done", track = track.to_string())),
                }
            }
            Action::Flash(m) => self.flash = Some(m),
            Action::Readme(id) => match reader::State::for_drill(&self.content, &id) {
                Some(r) => self.stack.push(Screen::Reader(Box::new(r))),
                None => self.flash = Some(crate::t!("app-no-drill", id = id.as_str())),
            },
            Action::Follow(target) => self.follow(target),
            Action::OpenQuiz { track, level } => {
                let s = self.quiz_screen(track, level);
                self.stack.push(s);
            }
            Action::OpenReview => {
                let s = self.review_screen();
                self.stack.push(s);
            }
            Action::OpenProgress => {
                let s = self.progress_screen();
                self.stack.push(s);
            }
            Action::OpenExercises => self.stack.push(Screen::Exercises(exercise::ListView::default())),
            Action::CheckExercise => self.check_exercise(),
            Action::TrainWith { drill, exercise } => self.train_with(&drill, &exercise),
            Action::FlagForReview(ids) => {
                let now = self.now();
                self.flash = Some(match self.store.flag_for_review(&ids, now) {
                    Ok(()) => crate::t!("app-flagged", ids = ids.join(", ")),
                    Err(e) => crate::t!("app-progress-not-saved", error = format!("{e:#}")),
                });
            }
        }
    }

    /// Which drills have a passing run, read from the run history now.
    pub fn passed_now(&self) -> std::collections::BTreeMap<String, bool> {
        crate::progress::summary::drills_passed(&self.content, &self.runs_root)
    }

    /// The plan of a study session of `minutes` on `track` (or on the tracks in order).
    pub fn plan(&self, track: Option<u8>, minutes: u32) -> Plan {
        path::plan(&self.content, &self.store.progress, &self.passed_now(), track, minutes, self.now())
    }

    /// Open a study session's plan on top of Home (`agentlab study`).
    pub fn open_study(&mut self, track: Option<u8>, minutes: u32) {
        self.apply(Action::OpenStudy { track, minutes });
    }

    /// The study session screen, at its plan.
    pub fn study_screen(&self, track: Option<u8>, minutes: u32) -> Screen {
        Screen::Study(Box::new(study::State::new(self.plan(track, minutes), self.now())))
    }

    /// The session bar for the header, while a session goes (on any screen
    /// above it); short when the terminal is under 100 columns.
    pub fn session_bar(&self) -> Option<String> {
        let narrow = self.area.width < 100;
        self.stack.iter().find_map(|s| match s {
            Screen::Study(st) => st.bar(self.now(), narrow),
            _ => None,
        })
    }

    /// A reader showing a sheet: mark read every section whose every line it
    /// showed, whichever stop (or none) opened it: a path's read step, or a
    /// section a quiz item is about.
    fn note_reading(&mut self) {
        let Some(Screen::Reader(r)) = self.stack.last() else { return };
        let Some(track) = r.track else { return };
        let now = self.now();
        for slug in r.sections_read() {
            if !self.store.progress.was_read(track, &slug) {
                if let Err(e) = self.store.mark_read(track, &slug, now) {
                    self.flash = Some(crate::t!("app-progress-not-saved", error = format!("{e:#}")));
                }
            }
        }
    }

    /// The top screen is about to close: remember where the learner was.
    fn leave_top(&mut self) {
        self.note_reading();
        let place = match self.stack.last() {
            Some(Screen::Reader(r)) => r.track.map(|track| Place::Sheet { track, line: r.top }),
            Some(Screen::Quiz(q)) if q.phase == quiz::Phase::Asking => {
                Some(Place::Quiz { track: q.track, level: q.level })
            }
            _ => None,
        };
        if let Some(place) = place {
            let now = self.now();
            if let Err(e) = self.store.set_resume(place, now) {
                self.flash = Some(crate::t!("app-progress-not-saved", error = format!("{e:#}")));
            }
        }
    }

    /// A screen closed: when a study session is on top again, it checks the stop it opened.
    fn came_back(&mut self) {
        let now = self.now();
        let Some(Screen::Study(s)) = self.stack.last() else { return };
        if !s.going() || s.opened_at.is_none() {
            return;
        }
        let passed = self.passed_now();
        // A later stop counts done by the record only; the quiz stop just
        // walked also when it has nothing left to ask (every item about a
        // section read is answered), while a later quiz waits for the
        // sections planned before it.
        let done: Vec<bool> = s
            .stops
            .iter()
            .enumerate()
            .map(|(i, stop)| match stop {
                study::Stop::Review(_) => s.plan.review.iter().all(|id| {
                    self.store.progress.items.get(id).is_some_and(|r| r.attempts.iter().any(|a| a.at >= s.started))
                }),
                study::Stop::Step(step) => {
                    let (t, spec) = (step.track, &step.spec);
                    path::is_done(&self.content, &self.store.progress, &passed, t, spec)
                        || (i == s.current
                            && spec.kind == crate::content::sheet::StepKind::Quiz
                            && Level::parse(&spec.target)
                                .is_some_and(|l| path::askable(&self.content, &self.store.progress, t, l).is_empty()))
                }
            })
            .collect();
        let Some(Screen::Study(s)) = self.stack.last_mut() else { return };
        if s.on_return(&done, now) {
            self.offer_more_or_end();
        }
    }

    /// Every stop of the session on top is marked: when minutes of its plan
    /// are left, offer the next steps of the path that fit them (`Enter`
    /// continues, `x` ends); with no minute or no step left, end it.
    fn offer_more_or_end(&mut self) {
        let now = self.now();
        let passed = self.passed_now();
        let Some(Screen::Study(s)) = self.stack.last() else { return };
        let used = s.minutes_used(if self.now_override.is_some() { now } else { s.ended_at(now) });
        let left = s.plan.minutes.saturating_sub(used);
        let taken: Vec<(u8, crate::content::sheet::StepSpec)> = s
            .stops
            .iter()
            .filter_map(|x| match x {
                study::Stop::Step(st) => Some((st.track, st.spec.clone())),
                study::Stop::Review(_) => None,
            })
            .collect();
        let more = match left {
            0 => Vec::new(),
            _ => path::fill(&self.content, &self.store.progress, &passed, s.plan.track, left, false, &taken),
        };
        if more.is_empty() {
            self.end_session();
            return;
        }
        if let Some(Screen::Study(s)) = self.stack.last_mut() {
            s.offer(more, left);
        }
    }

    /// End the study session going (on top, or under the screens it opened
    /// when the learner quits): tally it from the record, save it, show the summary.
    fn end_session(&mut self) {
        let now = self.now();
        let Some(i) = self.stack.iter().rposition(|s| matches!(s, Screen::Study(st) if st.going())) else { return };
        let Screen::Study(s) = &self.stack[i] else { return };
        // A test's fixed clock is the clock; otherwise the monotonic one measures the session.
        let now = if self.now_override.is_some() { now.max(s.started) } else { s.ended_at(now) };
        let (done, skipped) = s.counts();
        let mut track_secs = s.track_secs.clone();
        // A stop still open (quitting from it) counts its time too.
        if let (Some(at), Some(t)) = (s.opened_at, s.stops.get(s.current).and_then(|x| x.track()).or(s.plan.track)) {
            let secs = track_secs.entry(t).or_default();
            *secs = secs.saturating_add((now - at).num_seconds().max(0) as u64);
        }
        let record = path::tally(
            &self.content,
            &self.store.progress,
            &self.runs_root,
            &s.plan,
            s.started,
            now,
            done,
            skipped,
            track_secs,
        );
        if let Err(e) = self.store.record_session(record.clone()) {
            self.flash = Some(crate::t!("app-session-not-saved", error = format!("{e:#}")));
        }
        if let Screen::Study(s) = &mut self.stack[i] {
            s.finish(record);
        }
    }

    /// Home's Continue: where the learner stopped last.
    fn resume(&mut self) {
        let Some(r) = self.store.progress.resume.clone() else {
            self.flash = Some(crate::t!("app-nothing-to-continue"));
            return;
        };
        match r.place {
            Place::Sheet { track, line } => match reader::State::for_track(&self.content, track, None) {
                Some(s) => self.stack.push(Screen::Reader(Box::new(s.at_line(line)))),
                None => self.flash = Some(crate::t!("app-no-sheet", track = track.to_string())),
            },
            Place::Drill { id } => self.follow(Target::Lab(Link::Drill(id))),
            Place::Quiz { track, level } => {
                self.stack.push(Screen::Quiz(Box::new(quiz::State::start(&self.content, &self.store, track, level))))
            }
        }
    }

    /// The exercise screen for `id` (its file written from the stub when new).
    pub fn exercise_screen(&self, id: &str) -> Option<Screen> {
        let meta = self.content.exercise(id)?;
        match exercise::State::open(meta) {
            Ok(s) => Some(Screen::Exercise(Box::new(s))),
            Err(_) => None,
        }
    }

    /// Check the learner's file on the exercise screen and record the result.
    pub fn check_exercise(&mut self) {
        let Some(Screen::Exercise(x)) = self.stack.last_mut() else { return };
        self.flash = Some(match x.start_check() {
            Ok(()) => crate::t!("app-checking"),
            Err(e) => e,
        });
    }

    /// A check that ended on an exercise screen: record it and say how it went.
    fn exercise_checked(&mut self) -> bool {
        let now = self.now();
        let mut changed = false;
        for s in self.stack.iter_mut() {
            let Screen::Exercise(x) = s else { continue };
            changed |= x.poll_reword();
            let Some(outcome) = x.poll_check() else { continue };
            changed = true;
            let passed = match outcome {
                Ok(passed) => passed,
                Err(e) => {
                    self.flash = Some(e);
                    continue;
                }
            };
            let saved = self.store.record_check(&x.meta.id, x.meta.track, passed, now);
            self.flash = Some(match (saved, passed) {
                (Err(e), _) => crate::t!("app-progress-not-saved", error = format!("{e:#}")),
                (Ok(()), true) if x.meta.plug => crate::t!("app-passed-plug"),
                (Ok(()), true) => crate::t!("app-passed"),
                (Ok(()), false) => {
                    crate::t!("app-not-yet")
                }
            });
        }
        changed
    }

    /// Open `drill` set to train with the learner's `exercise` function.
    pub fn train_with(&mut self, drill: &str, exercise: &str) {
        let Some(Screen::Drill(mut d)) = self.drill_screen(drill) else {
            self.flash = Some(crate::t!("app-no-drill", id = drill));
            return;
        };
        let msg = d.use_exercise(exercise);
        self.stack.push(Screen::Drill(d));
        self.flash = Some(msg);
        self.opened_drill(drill);
    }

    /// The editor the exercise screen asked for, if any (the event loop runs it).
    pub fn take_edit_request(&mut self) -> Option<std::path::PathBuf> {
        match self.stack.last_mut() {
            Some(Screen::Exercise(x)) if x.edit_requested => {
                x.edit_requested = false;
                Some(x.path.clone())
            }
            _ => None,
        }
    }

    /// Follow a link from any screen.
    pub fn follow(&mut self, target: Target) {
        match target {
            Target::Url(url) => self.flash = Some(crate::t!("app-web-link", url = url.as_str())),
            Target::Lab(Link::Sheet { track, section }) => {
                // Inside the same sheet: jump; otherwise open the sheet on top.
                if let Some(Screen::Reader(r)) = self.stack.last_mut() {
                    if r.track == Some(track) {
                        if let Some(slug) = section {
                            r.jump_to_slug(&slug);
                        }
                        return;
                    }
                }
                match reader::State::for_track(&self.content, track, section.as_deref()) {
                    Some(r) => self.stack.push(Screen::Reader(Box::new(r))),
                    None => self.flash = Some(crate::t!("app-no-sheet", track = track.to_string())),
                }
            }
            Target::Lab(Link::Drill(id)) => match self.drill_screen(&id) {
                Some(d) => {
                    self.stack.push(d);
                    self.opened_drill(&id);
                }
                None => self.flash = Some(crate::t!("app-no-drill", id = id.as_str())),
            },
            Target::Lab(Link::Quiz { track, level }) => {
                let s = self.quiz_screen(Some(track), level);
                self.stack.push(s);
            }
            Target::Lab(Link::Exercise(id)) => match self.exercise_screen(&id) {
                Some(x) => self.stack.push(x),
                None => self.flash = Some(crate::t!("app-no-exercise", id = id.as_str())),
            },
        }
    }
}
