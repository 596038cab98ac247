//! The drill runner screen: configure, start, watch the charts move while
//! the model trains on a worker thread, read the claims, the log and the
//! teaching views, browse and reopen past runs, export a PNG, and sweep the
//! configuration over seeds 1–N to see how often each claim holds.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent};

use crate::content::drill_meta::PredictionSpec;
use crate::content::{DrillMeta, ParamKind, ParamValue};
use crate::drills::{ClaimResult, Event, Report, RunStatus};
use crate::exercises::plug::UsedScript;
use crate::ml::device::DeviceChoice;
use crate::progress::store::PredictionRecord;
use crate::progress::Progress;
use crate::runner::predict as predicting;
use crate::runner::sweep::{self, SeedResult, Sweep, SweepConfig, SweepEvent, SweepHandle};
use crate::runner::{self, Point, RunConfig, RunHandle, RunRecord};
use crate::tui::action::Action;
use crate::tui::action::Hint;
use crate::tui::widgets::chart;
use jobs::{Done, Job, Kind};

mod draw;
mod jobs;
mod parts;
pub mod predict;
mod run_view;
mod sweep_tab;
pub mod try_tab;
pub use draw::draw;
pub use predict::{Asking, BreakList, Outcome, Outcomes};
pub use run_view::RunView;
pub use sweep_tab::{SweepPhase, SweepView};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Charts,
    Views,
    Log,
    Runs,
    Sweep,
    Try,
}

impl Tab {
    const ALL: [Tab; 6] = [Tab::Charts, Tab::Views, Tab::Log, Tab::Runs, Tab::Sweep, Tab::Try];

    /// The key that opens the tab.
    fn key(self) -> char {
        match self {
            Tab::Charts => '1',
            Tab::Views => '2',
            Tab::Log => '3',
            Tab::Runs => '4',
            Tab::Sweep => '5',
            Tab::Try => '6',
        }
    }

    /// The tab's name alone ("Charts").
    fn name(self) -> String {
        match self {
            Tab::Charts => crate::t!("drill-tab-charts"),
            Tab::Views => crate::t!("drill-tab-views"),
            Tab::Log => crate::t!("drill-tab-log"),
            Tab::Runs => crate::t!("drill-tab-runs"),
            Tab::Sweep => crate::t!("drill-tab-sweep"),
            Tab::Try => crate::t!("drill-tab-try"),
        }
    }

    /// "1 Charts".
    fn title(self) -> String {
        format!("{} {}", self.key(), self.name())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Config,
    Pane,
}

/// A row of the config panel: the drill's parameters, then the seed of a
/// run, then how many seeds a sweep runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ConfigRow {
    Param(usize),
    Seed,
    SweepSeeds,
}

/// What is under way on the screen (it locks the configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Busy {
    Run,
    Sweep,
}

impl std::fmt::Display for Busy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Busy::Run => "run",
            Busy::Sweep => "sweep",
        })
    }
}

/// How many seeds a sweep runs unless the learner changes it, and at most.
pub const SWEEP_SEEDS_DEFAULT: u64 = 20;
pub const SWEEP_SEEDS_MAX: u64 = 200;

pub struct State {
    pub meta: DrillMeta,
    pub preset: String,
    pub params: BTreeMap<String, ParamValue>,
    pub seed: u64,
    /// A sweep (`S`) runs seeds 1..=sweep_seeds.
    pub sweep_seeds: u64,
    pub device: DeviceChoice,
    pub runs_root: PathBuf,
    pub sweeps_root: PathBuf,
    pub focus: Focus,
    pub tab: Tab,
    pub cursor: usize,
    /// Text being typed for the selected parameter.
    pub editing: Option<String>,
    pub run: Option<RunHandle>,
    pub view: RunView,
    /// The opened past run, when browsing history instead of the live run.
    pub viewing: Option<String>,
    /// The opened past run's preset and what was edited in it ("quick, edited: steps").
    pub viewing_preset: Option<String>,
    /// The preset of the saved run shown (its claims are that preset's).
    pub viewed_preset: Option<String>,
    pub previous: Option<Vec<(String, Vec<Point>)>>,
    pub opts: chart::ChartOpts,
    pub chart_page: usize,
    pub log_scroll: Option<usize>,
    pub view_index: usize,
    /// Lines scrolled inside the shown view (PgDn / PgUp).
    pub view_scroll: usize,
    pub runs: Vec<RunRecord>,
    pub runs_cursor: usize,
    /// The directory of the run shown (for export).
    pub shown_dir: Option<PathBuf>,
    /// The sweep on the Sweep tab: this session's, else the newest saved one.
    pub sweep: Option<SweepView>,
    /// The sweep running in the background, if one is.
    pub sweep_job: Option<SweepHandle>,
    /// Row of the per-seed table at the bottom of the view; `None` follows the newest.
    pub sweep_scroll: Option<usize>,
    /// Which chart's seed bands the Sweep tab draws (`←→`), among the sweep's.
    pub sweep_chart: usize,
    /// Whether the Sweep tab draws the seed bands (`b`); the tables otherwise
    /// (both when the pane holds both).
    pub sweep_bands: bool,
    /// Your functions from exercises this drill trains with (`u`), by exercise id.
    pub uses: BTreeMap<String, UsedScript>,
    /// A message for the status line that arrived without a key (a sweep ended).
    notice: Option<String>,
    /// The predictions being asked before a run (`s`, `P`).
    pub asking: Option<Asking>,
    /// The answered predictions of the run under way, and its preset.
    pub answered: Option<(String, Vec<(PredictionSpec, f64)>)>,
    /// After a run with predictions: what it measured for each (until dismissed).
    pub outcomes: Option<Outcomes>,
    /// Predictions this learner has answered, as (preset, id): from the
    /// progress file, and those recorded since.
    pub predicted: BTreeSet<(String, String)>,
    /// Predictions skipped on this screen, as (preset, id): `s` does not
    /// ask them again (`P` does).
    pub skipped: BTreeSet<(String, String)>,
    /// Resolved predictions for the app to record ([`State::take_records`]).
    records: Vec<PredictionRecord>,
    /// The `b` list of settings that break the claims, while open.
    pub breaking: Option<BreakList>,
    /// The run a `b` run is compared with: its name and claim values.
    pub compare: Option<(String, Vec<ClaimResult>)>,
    /// The newest saved run, loading in the background when the screen opens.
    loading: Option<Receiver<LastRun>>,
    /// The run shown is the newest saved one, loaded when the screen opened.
    pub showing_last: bool,
    /// Files being read or written for a key, off the UI thread (see [`jobs`]).
    jobs: Vec<Job>,
    /// The exercise whose function `u` (or `t`) is reading, until it is read.
    reading_use: Option<String>,
    /// The Try tab: the shown run's models, answering what the learner types.
    pub try_tab: try_tab::TryTab,
    /// Runs marked on the Runs tab (`Space`) to compare (`c`): at most two, the first is A.
    pub runs_marked: Vec<PathBuf>,
    /// The two runs compared: the diff shown on the Runs tab, and both names (B is the charts' grey).
    pub runs_diff: Option<(Box<runner::diff::RunDiff>, String, String)>,
}

/// The newest saved run of a drill, loaded off the UI thread.
struct LastRun {
    record: RunRecord,
    view: RunView,
    previous: Option<Vec<(String, Vec<Point>)>>,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("drill::State").field("drill", &self.meta.id).finish()
    }
}

impl PartialEq for State {
    fn eq(&self, other: &Self) -> bool {
        self.meta.id == other.meta.id
    }
}

pub const HELP: &[Hint] = &[
    ("s", "start a run with the configuration on the left"),
    ("S", "sweep: the same run for seeds 1–N (\"sweep seeds\"); an unfinished sweep of it resumes"),
    ("x", "cancel the running run or sweep"),
    ("Tab", "switch focus: configuration ↔ right pane"),
    ("1 2 3 4 5 6", "charts · teaching views · log · past runs · sweep · try the models"),
    ("6 (Try)", "i or Enter type an input · ↑↓ a held-out example · Enter ask · l colour by log p · + - samples · < > temperature · n next seed · a the attack on/off · Esc stop"),
    ("↑↓ j k", "move (config, log, views, runs, sweep)"),
    ("PgDn PgUp", "scroll inside a teaching view longer than its pane"),
    ("Enter", "config: edit the parameter (Enter saves, Esc cancels) · Runs list: open the run"),
    ("p", "next preset (quick, full, and real where a drill has one)"),
    ("m  + -", "smoothing on/off · stronger/weaker (bias-corrected EMA)"),
    ("L", "log-scale y"),
    ("w", "x axis: what each chart counts (step, k, round…) ↔ wall time"),
    ("[ ]", "previous / next page of charts"),
    ("← →", "Sweep tab: the chart whose seed bands are drawn (mean, ±1 sd, min–max)"),
    ("b", "settings that break a claim: Enter runs one, compared with the last passing run of the seed"),
    ("b (Sweep tab)", "seed bands ↔ claim and seed tables (both where they fit)"),
    ("Space c (Runs tab)", "mark two runs, compare them: what differs, both claims, B grey under A's charts"),
    ("K (Runs tab)", "pin the run: its weights are kept whatever the keep rule says"),
    ("P", "predict again: ask this preset's predictions, then start the run"),
    ("e", "export the shown run's charts to PNG"),
    ("T V", "export the shown run for TRL (T) or verl (V) into its folder: then follow its README"),
    ("r", "read the drill's README (the lesson)"),
    ("u", "train with your own function from an exercise (drills that take one)"),
];

/// Parameters of `params` that differ from the values of `preset`, in
/// declaration order: what a run changed from its preset (a key a saved
/// run's file leaves out is not an edit).
pub fn edited_keys(meta: &DrillMeta, preset: &str, params: &BTreeMap<String, ParamValue>) -> Vec<String> {
    let Ok(defaults) = meta.preset_values(preset) else { return Vec::new() };
    meta.params
        .iter()
        .filter(|p| params.get(&p.key).is_some_and(|v| defaults.get(&p.key) != Some(v)))
        .map(|p| p.key.clone())
        .collect()
}

/// "quick", or "quick, edited: lr, steps" when `params` differ from the preset.
pub fn preset_label(meta: &DrillMeta, preset: &str, params: &BTreeMap<String, ParamValue>) -> String {
    match edited_keys(meta, preset, params) {
        k if k.is_empty() => preset.to_string(),
        k => crate::t!("drill-preset-edited", preset = preset, keys = k.join(", ")),
    }
}

impl State {
    pub fn new(meta: &DrillMeta, runs_root: PathBuf, sweeps_root: PathBuf, device: DeviceChoice) -> State {
        let params = meta.preset_values("quick").unwrap_or_default();
        let runs = runner::list_runs(&runs_root, &meta.id);
        // The newest saved run is shown (charts, claims), read off the UI thread.
        let loading = runs.first().map(|last| load_last_run(meta, last.clone(), runs.get(1).cloned()));
        // The newest saved sweep (its record, and every seed's metrics for
        // the bands) is read off the UI thread too, where the drill has one.
        let mut jobs = Vec::new();
        if sweeps_root.join(&meta.id).is_dir() {
            let (meta, root) = (meta.clone(), sweeps_root.clone());
            let read = move || Done::LastSweep(newest_sweep(&root, &meta).map(Box::new));
            jobs.push(Job::spawn(Kind::LastSweep, crate::t!("drill-reading-last-sweep"), read));
        }
        State {
            meta: meta.clone(),
            preset: "quick".into(),
            params,
            seed: 1,
            sweep_seeds: SWEEP_SEEDS_DEFAULT,
            device,
            runs_root,
            sweeps_root,
            focus: Focus::Config,
            tab: Tab::Charts,
            cursor: 0,
            editing: None,
            run: None,
            view: RunView::default(),
            viewing: None,
            viewing_preset: None,
            viewed_preset: None,
            previous: None,
            opts: chart::ChartOpts::default(),
            chart_page: 0,
            log_scroll: None,
            view_index: 0,
            view_scroll: 0,
            runs,
            runs_cursor: 0,
            shown_dir: None,
            sweep: None,
            sweep_job: None,
            sweep_scroll: None,
            sweep_chart: 0,
            sweep_bands: true,
            uses: BTreeMap::new(),
            notice: None,
            asking: None,
            answered: None,
            outcomes: None,
            predicted: BTreeSet::new(),
            skipped: BTreeSet::new(),
            records: Vec::new(),
            breaking: None,
            compare: None,
            loading,
            showing_last: false,
            jobs,
            reading_use: None,
            try_tab: Default::default(),
            runs_marked: Vec::new(),
            runs_diff: None,
        }
    }

    /// Take the learner's answered predictions of this drill from `progress`.
    pub fn know_predictions(&mut self, progress: &Progress) {
        self.predicted.extend(
            progress.predictions.iter().filter(|p| p.drill == self.meta.id).map(|p| (p.preset.clone(), p.id.clone())),
        );
    }

    /// Predictions resolved by a run, for the app to record in the progress file.
    pub fn take_records(&mut self) -> Vec<PredictionRecord> {
        std::mem::take(&mut self.records)
    }

    /// The newest saved run is still being read.
    pub fn loading(&self) -> bool {
        self.loading.is_some()
    }

    /// Files are being read or written for a key (a run opened, a PNG
    /// exported, your function read), or the newest saved run is still
    /// being read: [`State::poll`] applies what arrives.
    pub fn working(&self) -> bool {
        self.loading() || !self.jobs.is_empty()
    }

    /// What is being read or written for a key, for the status line
    /// ("exporting the charts to PNG…"); the newest first.
    pub fn under_way(&self) -> Option<&str> {
        self.jobs.last().map(|j| j.what.as_str())
    }

    /// Exercises whose function this drill can train with.
    pub fn pluggable(&self) -> Vec<&'static str> {
        crate::exercises::specs().iter().filter(|s| s.plug_drill == Some(self.meta.id.as_str())).map(|s| s.id).collect()
    }

    /// `u`: train with your function instead of the lab's, cycling through
    /// the exercises that plug into this drill, then back to the lab's own.
    fn toggle_use(&mut self) -> Action {
        if let Some(what) = self.busy() {
            return Action::Flash(crate::t!("drill-busy-use", what = what.to_string()));
        }
        let ids = self.pluggable();
        if ids.is_empty() {
            return Action::Flash(crate::t!("drill-no-plug"));
        }
        // The function being read counts as the one in use.
        let current = self.reading_use.clone().or_else(|| self.uses.keys().next().cloned());
        let now = ids.iter().position(|id| current.as_deref() == Some(*id));
        self.uses.clear();
        self.reading_use = None;
        self.jobs.retain(|j| j.kind != Kind::Use);
        let next = match now {
            None => 0,
            Some(i) if i + 1 < ids.len() => i + 1,
            Some(_) => return Action::Flash(crate::t!("drill-use-lab")),
        };
        Action::Flash(self.use_exercise(ids[next]))
    }

    /// Train the next runs with the learner's file of exercise `id`: the
    /// file is read and checked on a thread ([`State::poll`] plugs it in
    /// and says whether it passes its check, or why it cannot be used).
    /// Returns what to tell the learner meanwhile.
    pub fn use_exercise(&mut self, id: &str) -> String {
        let file = match crate::exercises::file(id) {
            Ok(f) => f,
            Err(e) => return crate::t!("drill-no-data-dir", error = format!("{e:#}")),
        };
        let (drill, id) = (self.meta.id.clone(), id.to_string());
        let what = crate::t!("drill-reading-yours", id = id.as_str());
        self.uses.clear();
        self.jobs.retain(|j| j.kind != Kind::Use);
        self.reading_use = Some(id.clone());
        self.show_runs_with(&id);
        self.jobs.push(Job::spawn(Kind::Use, what.clone(), move || read_use(&drill, &id, file)));
        what
    }

    /// With the learner's function of exercise `id` chosen, the run drawn is
    /// the newest that trained with it, or none: a run of the lab's own
    /// function would read as the learner's function's result. (Not while a
    /// run of this screen is shown.)
    fn show_runs_with(&mut self, id: &str) {
        if self.run.is_some() {
            return;
        }
        let runs = &self.runs;
        let with = runs.iter().position(|r| r.config.as_ref().is_some_and(|c| c.uses.contains_key(id)));
        self.view = RunView::default();
        self.viewing = None;
        self.viewing_preset = None;
        self.viewed_preset = None;
        self.previous = None;
        self.shown_dir = None;
        self.showing_last = false;
        self.runs_diff = None;
        self.loading = with.map(|i| load_last_run(&self.meta, runs[i].clone(), None));
    }

    /// "your grpo-advantages" when a run would use a learner function.
    pub fn uses_label(&self) -> Option<String> {
        (!self.uses.is_empty()).then(|| {
            let ids: Vec<&str> = self.uses.keys().map(String::as_str).collect();
            crate::t!("drill-with-yours", ids = ids.join(", "))
        })
    }

    pub fn title(&self) -> String {
        crate::t!("drill-title", id = self.meta.id.as_str())
    }

    /// Parameters that differ from the preset's values, in declaration order.
    pub fn edited_keys(&self) -> Vec<String> {
        edited_keys(&self.meta, &self.preset, &self.params)
    }

    /// "quick", or "quick, edited: lr, steps" once parameters were changed.
    pub fn preset_label(&self) -> String {
        preset_label(&self.meta, &self.preset, &self.params)
    }

    /// A run was started and its final report has not arrived yet.
    pub fn running(&self) -> bool {
        self.run.is_some() && self.view.report.is_none()
    }

    /// A sweep is running in the background.
    pub fn sweeping(&self) -> bool {
        self.sweep_job.is_some()
    }

    /// What is under way and locks the configuration.
    fn busy(&self) -> Option<Busy> {
        if self.running() {
            Some(Busy::Run)
        } else if self.sweeping() || self.jobs.iter().any(|j| j.kind == Kind::SweepStart) {
            Some(Busy::Sweep)
        } else {
            None
        }
    }

    /// The status-line message that arrived since the last call (the app shows it).
    pub fn take_notice(&mut self) -> Option<String> {
        self.notice.take()
    }

    pub fn is_typing(&self) -> bool {
        self.editing.is_some()
            || self.asking.as_ref().is_some_and(Asking::is_typing)
            || (self.tab == Tab::Try && self.try_tab.is_typing())
    }

    pub fn hints(&self) -> Vec<Hint> {
        if let Some(a) = &self.asking {
            return a.hints();
        }
        if self.tab == Tab::Try && self.try_tab.is_typing() {
            return vec![("Enter", "ask"), ("↑↓", "example"), ("Esc", "stop typing")];
        }
        if self.is_typing() {
            return vec![("Enter", "save"), ("Esc", "cancel")];
        }
        if self.tab == Tab::Try && self.try_tab.answering {
            return vec![("Esc", "stop"), ("1-6", "tabs")];
        }
        if self.outcomes.is_some() {
            return vec![("↑↓", "scroll"), ("Enter", "close")];
        }
        if self.breaking.is_some() {
            return vec![("↑↓", "choose"), ("Enter", "run it"), ("Esc", "close")];
        }
        // The few that fit in 80 columns with "? help" and "q quit"; the rest are in the help.
        match self.busy() {
            Some(Busy::Sweep) => vec![("x", "cancel sweep"), ("5", "sweep"), ("1-6", "tabs"), ("r", "README")],
            Some(Busy::Run) => vec![("x", "cancel"), ("1-6", "tabs"), ("m", "smooth"), ("r", "README")],
            // Enter acts on the focused pane (▶): the footer says what it does there.
            None => match (self.focus, self.tab) {
                // The last ones give way on a narrow footer (the help lists them all).
                (Focus::Config, _) => vec![
                    ("s", "start"),
                    ("S", "sweep"),
                    ("Enter", "edit"),
                    ("1-6", "tabs"),
                    ("r", "README"),
                    ("b", "break it"),
                    ("P", "predict"),
                ],
                (Focus::Pane, Tab::Sweep) if self.sweep.as_ref().is_some_and(|v| !v.bands.is_empty()) => {
                    vec![("s", "start"), ("S", "sweep"), ("←→", "chart"), ("b", "bands/tables"), ("1-6", "tabs")]
                }
                (Focus::Pane, Tab::Runs) if !self.runs.is_empty() => vec![
                    ("Enter", "open run"),
                    ("Tab", "config"),
                    ("Space", "mark"),
                    ("c", "compare"),
                    ("K", "pin"),
                    ("1-6", "tabs"),
                ],
                (Focus::Pane, Tab::Try) => vec![
                    ("i", "type"),
                    ("↑↓", "example"),
                    ("Enter", "ask"),
                    ("l", "log p"),
                    ("+-", "samples"),
                    ("<>", "temperature"),
                ],
                (Focus::Pane, _) => vec![
                    ("s", "start"),
                    ("S", "sweep"),
                    ("Tab", "config"),
                    ("1-6", "tabs"),
                    ("r", "README"),
                    ("b", "break it"),
                    ("P", "predict"),
                ],
            },
        }
    }

    /// Rows of the config panel: parameters, the seed, the sweep's seeds.
    fn rows(&self) -> usize {
        self.meta.params.len() + 2
    }

    fn config_row(&self) -> ConfigRow {
        let n = self.meta.params.len();
        match self.cursor {
            i if i < n => ConfigRow::Param(i),
            i if i == n => ConfigRow::Seed,
            _ => ConfigRow::SweepSeeds,
        }
    }

    /// Drain the run's and the sweep's events. Returns whether anything arrived.
    pub fn poll(&mut self) -> bool {
        let loaded = self.poll_loading();
        let run = self.poll_run();
        let sweep = self.poll_sweep();
        let jobs = self.poll_jobs();
        let (tried, notice) = self.try_tab.poll();
        if notice.is_some() {
            self.notice = notice;
        }
        loaded || run || sweep || jobs || tried
    }

    /// `6`: the Try tab, open on the run shown (once it has ended).
    fn open_try(&mut self) -> Action {
        (self.tab, self.focus) = (Tab::Try, Focus::Pane);
        if self.running() && self.viewing.is_none() {
            return Action::Flash(crate::t!("try-wait-run"));
        }
        let Some(dir) = self.shown_dir.clone() else {
            return Action::Flash(crate::t!("try-no-run"));
        };
        let record = self.runs.iter().find(|r| r.dir == dir).cloned().unwrap_or_else(|| runner::load_run(&dir));
        self.try_tab.open(&self.meta, record);
        Action::None
    }

    /// Apply what the jobs started by keys have finished. Returns whether one did.
    fn poll_jobs(&mut self) -> bool {
        let mut done = Vec::new();
        self.jobs.retain(|j| match j.try_take() {
            Err(TryRecvError::Empty) => true,
            Ok(d) => {
                done.push(Ok(d));
                false
            }
            Err(TryRecvError::Disconnected) => {
                done.push(Err((j.kind, j.what.clone())));
                false
            }
        });
        let any = !done.is_empty();
        for d in done {
            match d {
                Ok(d) => self.apply_done(d),
                // Its thread died (it cannot normally happen): say so, and wait no more.
                Err((kind, what)) => {
                    if kind == Kind::Use {
                        self.reading_use = None;
                    }
                    self.notice = Some(crate::t!("drill-job-died", what = what.trim_end_matches('…')));
                }
            }
        }
        any
    }

    fn apply_done(&mut self, done: Done) {
        match done {
            Done::Opened { record, result } => match result {
                Ok((view, previous)) => {
                    self.show_saved(&record, *view, previous);
                    self.tab = Tab::Charts;
                    self.notice = Some(crate::t!("drill-showing-saved", name = record.name.as_str()));
                }
                Err(e) => self.notice = Some(e),
            },
            Done::Exported(message) => self.notice = Some(message),
            Done::SweepReady { config, record, view } => self.sweep_ready(config, record, *view),
            // Shown unless a sweep was started (or set) meanwhile.
            Done::LastSweep(view) => {
                if self.sweep.is_none() {
                    self.sweep = view.map(|v| *v);
                }
            }
            Done::Used { id, plug, message } => {
                // Only the function asked for last (u may have moved on).
                if self.reading_use.as_deref() != Some(id.as_str()) {
                    return;
                }
                self.reading_use = None;
                if let Some(plug) = plug {
                    self.uses = plug;
                }
                self.notice = Some(message);
            }
            Done::Diffed { a, b_name, result } => match result {
                Ok((view, b_series, diff)) => {
                    self.show_saved(&a, *view, b_series);
                    self.runs_diff = Some((diff, a.name.clone(), b_name));
                    self.notice = Some(crate::t!("drill-runs-compared"));
                }
                Err(e) => self.notice = Some(e),
            },
            Done::Pinned(message) => {
                self.runs = runner::list_runs(&self.runs_root, &self.meta.id);
                self.notice = Some(message);
            }
            Done::Compared { run, series, name, claims } => {
                // Only for the run it was read for, if that one is still shown.
                let Some(series) = series else { return };
                if self.viewing.is_none() && self.run.as_ref().is_some_and(|h| h.dir == run) {
                    self.previous = Some(series);
                    self.compare = Some((name, claims));
                }
            }
        }
    }

    /// The newest saved run, once read: shown unless a run was started or
    /// a saved run opened meanwhile.
    fn poll_loading(&mut self) -> bool {
        let Some(rx) = &self.loading else { return false };
        let last = match rx.try_recv() {
            Ok(last) => last,
            Err(TryRecvError::Empty) => return false,
            Err(TryRecvError::Disconnected) => {
                self.loading = None;
                return false;
            }
        };
        self.loading = None;
        if self.run.is_some() || self.viewing.is_some() {
            return false;
        }
        self.show_saved(&last.record, last.view, last.previous);
        self.showing_last = true;
        true
    }

    /// "last run: 2026-11-24 09:00 · passed" while the newest saved run is
    /// shown as the screen opened.
    pub fn last_run_line(&self) -> Option<String> {
        if !self.showing_last {
            return None;
        }
        let name = self.viewing.as_deref()?;
        let when = match name.split_once('T') {
            Some((date, time)) => format!("{date} {}", time.get(..5).unwrap_or(time).replace('-', ":")),
            None => name.to_string(),
        };
        let how = match &self.view.report {
            Some(r) => match &r.status {
                RunStatus::Passed => crate::t!("drill-status-passed"),
                RunStatus::ClaimsFailed => failed_claims(r),
                RunStatus::Cancelled => crate::t!("drill-status-cancelled"),
                RunStatus::Failed(_) => crate::t!("drill-status-error"),
            },
            // A report that is there but does not read: not "interrupted".
            None if std::fs::symlink_metadata(self.runs_root.join(&self.meta.id).join(name).join("report.json"))
                .is_ok() =>
            {
                crate::t!("drill-status-corrupt")
            }
            None => crate::t!("drill-status-interrupted"),
        };
        Some(crate::t!("drill-last-run", when = when, how = how))
    }

    /// Show a saved run: its events folded into `view`, compared with `previous`.
    fn show_saved(&mut self, r: &RunRecord, view: RunView, previous: Option<Vec<(String, Vec<Point>)>>) {
        self.previous = previous;
        self.view = view;
        self.viewing = Some(r.name.clone());
        // The run records its parameters: say which differed from its preset.
        self.viewing_preset = r.config.as_ref().map(|c| preset_label(&self.meta, &c.preset, &c.params));
        self.viewed_preset = r.config.as_ref().map(|c| c.preset.clone());
        self.shown_dir = Some(r.dir.clone());
        self.compare = None;
        self.runs_diff = None;
        self.showing_last = false;
    }

    fn poll_run(&mut self) -> bool {
        let Some(run) = &self.run else { return false };
        let mut got = false;
        let mut lost = false;
        // Bounded per tick so a burst of events cannot stall input handling.
        for _ in 0..20_000 {
            match run.rx.try_recv() {
                Ok(e) => {
                    got = true;
                    fold(&self.meta, &mut self.view, e);
                }
                Err(std::sync::mpsc::TryRecvError::Empty) => break,
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    lost = self.view.report.is_none();
                    break;
                }
            }
        }
        if lost {
            // The worker is gone without a report (it cannot normally happen): do not wait forever.
            let r = Report {
                drill: self.meta.id.clone(),
                preset: self.preset.clone(),
                seed: self.seed,
                status: RunStatus::Failed("the run's worker stopped without a report".into()),
                claims: self.view.claims.clone(),
                wall_s: 0.0,
                finals: BTreeMap::new(),
            };
            self.view.apply(Event::Finished(r));
            got = true;
        }
        if got && self.view.report.is_some() {
            self.runs = runner::list_runs(&self.runs_root, &self.meta.id);
            self.resolve_predictions();
        }
        got
    }

    /// The run ended: what it measured for each prediction answered before
    /// it, shown (an overlay) and kept for the app to record. A cancelled
    /// run resolves nothing.
    fn resolve_predictions(&mut self) {
        let Some((preset, answers)) = self.answered.take() else { return };
        let Some(report) = &self.view.report else { return };
        if report.status == RunStatus::Cancelled {
            return;
        }
        let mut items = Vec::new();
        for (spec, answer) in answers {
            let (verdict, right) = match predicting::measured(&spec, report) {
                Some(m) => {
                    self.records.push(predicting::record(&self.meta, &preset, &spec, answer, m, chrono::Utc::now()));
                    self.predicted.insert((preset.clone(), spec.id.clone()));
                    (predicting::verdict_line(&spec, answer, m), Some(spec.is_right(answer, m)))
                }
                None => (crate::t!("drill-pred-not-measured", answer = predicting::answer_text(&spec, answer)), None),
            };
            self.view.logs.push(crate::t!("drill-log-prediction", id = spec.id.as_str(), verdict = verdict.as_str()));
            items.push(Outcome { question: spec.question.clone(), verdict, right, explain: spec.explain.clone() });
        }
        if !items.is_empty() {
            self.outcomes = Some(Outcomes { items, scroll: 0 });
        }
    }

    fn poll_sweep(&mut self) -> bool {
        let Some(job) = &self.sweep_job else { return false };
        let mut events = Vec::new();
        loop {
            match job.rx.try_recv() {
                Ok(e) => events.push(e),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => {
                    // Gone without a summary (it cannot normally happen): do not wait forever.
                    if events.iter().all(|e| matches!(e, SweepEvent::Seed(_))) {
                        events.push(SweepEvent::Failed(crate::t!("drill-sweep-worker-died")));
                    }
                    break;
                }
            }
        }
        let got = !events.is_empty();
        for e in events {
            self.apply_sweep_event(e);
        }
        let ticked = self.sweep.as_mut().is_some_and(SweepView::tick);
        got || ticked
    }

    fn apply_sweep_event(&mut self, e: SweepEvent) {
        match e {
            SweepEvent::Seed(r) => self.apply_sweep_result(&r),
            SweepEvent::Ended { sweep, saved } => {
                let view = SweepView::finished(&self.meta, sweep, saved.as_ref().ok().cloned().flatten());
                let phase = view.phase.label();
                self.notice = Some(match &saved {
                    Ok(Some(path)) => {
                        crate::t!("drill-sweep-saved", phase = phase.as_str(), path = path.display().to_string())
                    }
                    Ok(None) => crate::t!("drill-sweep-nothing-saved"),
                    Err(e) => crate::t!("drill-sweep-save-failed", phase = phase.as_str(), error = e.as_str()),
                });
                self.sweep = Some(view);
                self.end_sweep();
            }
            SweepEvent::Failed(m) => {
                self.notice = Some(crate::t!("drill-sweep-stopped", error = m.as_str()));
                if let Some(v) = &mut self.sweep {
                    v.stop(SweepPhase::Failed(m));
                }
                self.end_sweep();
            }
        }
    }

    /// The sweep's worker is done: forget it, and list the runs it made.
    fn end_sweep(&mut self) {
        self.sweep_job = None;
        self.runs = runner::list_runs(&self.runs_root, &self.meta.id);
    }

    /// A seed of the live sweep finished (the worker's results arrive here;
    /// tests feed their own). Ignored when no live sweep is shown.
    pub fn apply_sweep_result(&mut self, r: &SeedResult) {
        if let Some(v) = self.sweep.as_mut().filter(|v| v.is_live()) {
            v.apply(&self.meta, r);
        }
    }

    /// Show a finished sweep on the Sweep tab.
    pub fn set_sweep(&mut self, sweep: Sweep, saved: Option<PathBuf>) {
        self.sweep = Some(SweepView::finished(&self.meta, sweep, saved));
        self.sweep_scroll = None;
    }

    /// What `S` runs: this configuration for seeds 1..=sweep_seeds.
    pub fn sweep_config(&self) -> SweepConfig {
        SweepConfig {
            drill: self.meta.id.clone(),
            preset: self.preset.clone(),
            params: self.params.clone(),
            seeds: (1..=self.sweep_seeds).collect(),
            device: self.device,
        }
    }

    fn start_sweep(&mut self) -> Action {
        if let Some(what) = self.busy() {
            return Action::Flash(crate::t!("drill-busy-sweep", what = what.to_string()));
        }
        if crate::drills::find(&self.meta.id).is_none() {
            return Action::Flash(crate::t!("drill-not-implemented", id = self.meta.id.as_str()));
        }
        // The same sweep left unfinished (killed, cancelled) continues with
        // its missing seeds: finding it, and reading the seeds it has done
        // for the bands, is disk work for a thread of its own.
        let (config, meta, root) = (self.sweep_config(), self.meta.clone(), self.sweeps_root.clone());
        let what = crate::t!("drill-looking-for-sweep");
        self.jobs.push(Job::spawn(Kind::SweepStart, what.clone(), move || {
            let record = match sweep::resumable(&root, &config) {
                Some((path, saved)) => sweep::Record::resume(path, &saved),
                None => sweep::Record::fresh(&root),
            };
            let view = Box::new(SweepView::resumed(&meta, config.clone(), &record));
            Done::SweepReady { config, record, view }
        }));
        Action::Flash(what)
    }

    /// The sweep `S` asked for, once its record is found: start it.
    fn sweep_ready(&mut self, config: SweepConfig, record: sweep::Record, view: SweepView) {
        let done: Vec<u64> = record.done.iter().map(|r| r.seed).collect();
        // One run at a time: a sweep must not slow the runs it measures.
        match sweep::spawn(&self.meta, config, self.runs_root.clone(), record, 1) {
            Ok(job) => {
                self.sweep_job = Some(job);
                self.sweep = Some(view);
                self.sweep_scroll = None;
                self.tab = Tab::Sweep;
                self.notice = Some(match done.len() {
                    0 => crate::t!("drill-sweep-started", n = self.sweep_seeds.to_string()),
                    k => crate::t!(
                        "drill-sweep-resumed",
                        n = self.sweep_seeds.to_string(),
                        seeds = sweep::seeds_label(&done),
                        done = k.to_string()
                    ),
                });
            }
            Err(e) => self.notice = Some(crate::t!("drill-sweep-cannot-start", error = format!("{e:#}"))),
        }
    }

    /// Why a run cannot start now, if it cannot.
    fn cannot_start(&self) -> Option<Action> {
        if let Some(what) = self.busy() {
            return Some(Action::Flash(crate::t!("drill-busy", what = what.to_string())));
        }
        // The run would train with the lab's function instead of the one asked for.
        if let Some(id) = &self.reading_use {
            return Some(Action::Flash(crate::t!("drill-reading-yours-wait", id = id.as_str())));
        }
        if crate::drills::find(&self.meta.id).is_none() {
            return Some(Action::Flash(crate::t!("drill-not-implemented", id = self.meta.id.as_str())));
        }
        None
    }

    /// `s`: ask the preset's predictions not answered yet (nor skipped
    /// here), then start the run; `P` (`again`): ask them all.
    fn start(&mut self, again: bool) -> Action {
        if let Some(refused) = self.cannot_start() {
            return refused;
        }
        // Predictions are about the preset as declared: an edited run (a `b`
        // setting, a parameter changed) does not answer them.
        let edited = self.edited_keys();
        if !edited.is_empty() {
            if again {
                return Action::Flash(crate::t!(
                    "drill-pred-edited",
                    preset = self.preset.as_str(),
                    keys = edited.join(", ")
                ));
            }
            return self.start_run(None);
        }
        let specs: Vec<PredictionSpec> = predicting::for_preset(&self.meta, &self.preset)
            .into_iter()
            .filter(|p| {
                let k = (self.preset.clone(), p.id.clone());
                again || !(self.predicted.contains(&k) || self.skipped.contains(&k))
            })
            .cloned()
            .collect();
        if specs.is_empty() {
            if again {
                return Action::Flash(crate::t!("drill-no-predictions", preset = self.preset.as_str()));
            }
            return self.start_run(None);
        }
        self.asking = Some(Asking::new(&self.preset, specs));
        Action::None
    }

    /// Whether the claims pane hides the claims' texts and thresholds: while
    /// the predictions are asked, and while the preset has predictions not
    /// yet answered nor skipped and no run's results are shown.
    pub fn claims_hidden(&self) -> bool {
        if self.asking.is_some() {
            return true;
        }
        if !self.view.claims.is_empty() || self.viewing.is_some() || !self.edited_keys().is_empty() {
            return false;
        }
        predicting::for_preset(&self.meta, &self.preset).into_iter().any(|p| {
            let k = (self.preset.clone(), p.id.clone());
            let answering = self
                .answered
                .as_ref()
                .is_some_and(|(preset, a)| *preset == self.preset && a.iter().any(|(q, _)| q.id == p.id));
            !(self.predicted.contains(&k) || self.skipped.contains(&k) || answering)
        })
    }

    /// A key while the predictions are asked; the last one starts the run.
    fn ask_key(&mut self, key: KeyEvent) -> Action {
        let Some(a) = self.asking.as_mut() else { return Action::None };
        if a.on_key(key) == predict::Asked::Stay {
            return Action::None;
        }
        let Some(a) = self.asking.take() else { return Action::None };
        for id in &a.skipped {
            self.skipped.insert((a.preset.clone(), id.clone()));
        }
        let n = a.answers.len();
        let action = self.start_run(None);
        if self.running() && n > 0 {
            self.answered = Some((a.preset, a.answers));
            return Action::Flash(crate::t!("drill-started-predictions", count = n));
        }
        action
    }

    /// `b`: the settings that break the claims of this preset.
    fn open_breaking(&mut self) -> Action {
        let items = predicting::breakers(&self.meta, &self.preset);
        if items.is_empty() {
            return Action::Flash(crate::t!(
                "drill-no-breakers",
                id = self.meta.id.as_str(),
                preset = self.preset.as_str()
            ));
        }
        self.breaking = Some(BreakList { items, cursor: 0 });
        Action::None
    }

    fn breaking_key(&mut self, key: KeyEvent) -> Action {
        let Some(list) = self.breaking.as_mut() else { return Action::None };
        let n = list.items.len();
        match key.code {
            KeyCode::Esc | KeyCode::Backspace | KeyCode::Char('b') => self.breaking = None,
            KeyCode::Up | KeyCode::Char('k') => list.cursor = list.cursor.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => list.cursor = (list.cursor + 1).min(n.saturating_sub(1)),
            KeyCode::Enter => {
                let Some(b) = list.items.get(list.cursor).cloned() else { return Action::None };
                self.breaking = None;
                return self.run_break(&b);
            }
            _ => {}
        }
        Action::None
    }

    /// Apply a breaking setting over the configuration (same seed) and run
    /// it, drawn over the last passing run of the seed.
    fn run_break(&mut self, b: &predicting::Breaker) -> Action {
        if let Some(refused) = self.cannot_start() {
            return refused;
        }
        let params = match predicting::apply_break(&self.meta, &self.params, &b.set.set) {
            Ok(p) => p,
            Err(e) => return Action::Flash(crate::t!("drill-cannot-apply", setting = b.label(), error = e.as_str())),
        };
        self.params = params;
        let base = last_passing(&self.runs, &self.preset, self.seed);
        let started = self.start_run(base.as_ref());
        if !self.running() {
            return started;
        }
        Action::Flash(match &base {
            Some(r) => crate::t!(
                "drill-breaking-with",
                claim = b.claim.as_str(),
                setting = b.label(),
                seed = self.seed.to_string(),
                run = r.name.as_str()
            ),
            None => crate::t!(
                "drill-breaking-alone",
                claim = b.claim.as_str(),
                setting = b.label(),
                seed = self.seed.to_string()
            ),
        })
    }

    /// Start a run of the configuration; `base`: the saved run it is
    /// compared with (a `b` run), else the run shown before.
    fn start_run(&mut self, base: Option<&RunRecord>) -> Action {
        if let Some(refused) = self.cannot_start() {
            return refused;
        }
        // The run being replaced becomes the overlay.
        if !self.view.series.is_empty() {
            self.previous = Some(self.view.series.clone());
        }
        let config = RunConfig {
            drill: self.meta.id.clone(),
            preset: self.preset.clone(),
            seed: self.seed,
            device: self.device,
            params: self.params.clone(),
            uses: self.uses.clone(),
            keep: true,
        };
        match runner::start(&self.meta, config, &self.runs_root) {
            Ok(h) => {
                self.shown_dir = Some(h.dir.clone());
                self.run = Some(h);
                self.view = RunView::default();
                self.viewing = None;
                self.viewing_preset = None;
                self.viewed_preset = None;
                self.log_scroll = None;
                self.chart_page = 0;
                self.showing_last = false;
                self.answered = None;
                self.outcomes = None;
                self.compare = None;
                // A saved run opening now would hide the live one.
                self.jobs.retain(|j| !matches!(j.kind, Kind::Open | Kind::Compare));
                // The run compared with is read meanwhile (its series are the grey curves).
                if let Some(r) = base.cloned() {
                    let run = self.shown_dir.clone().unwrap_or_default();
                    let what = crate::t!("drill-reading-run", name = r.name.as_str());
                    self.jobs.push(Job::spawn(Kind::Compare, what, move || read_compare(r, run)));
                }
                Action::Flash(crate::t!("drill-started"))
            }
            Err(e) => Action::Flash(crate::t!("drill-cannot-start", error = format!("{e:#}"))),
        }
    }

    fn cancel(&mut self) -> Action {
        if let Some(job) = &self.sweep_job {
            job.cancel();
            if let Some(v) = &mut self.sweep {
                v.phase = SweepPhase::Cancelling;
            }
            return Action::Flash(crate::t!("drill-cancelling-sweep"));
        }
        match &self.run {
            Some(r) if self.running() => {
                r.cancel();
                Action::Flash(crate::t!("drill-cancelling"))
            }
            _ => Action::Flash(crate::t!("drill-nothing-running")),
        }
    }

    /// Quitting: cancel the run and the sweep under way, and wait for them
    /// (until `deadline`) to save themselves: the run's `report.json` says
    /// cancelled, the sweep saves the seeds that finished. Returns what to
    /// tell the learner (nothing when nothing was running).
    pub fn stop(&mut self, deadline: Instant) -> Vec<String> {
        let mut notes = Vec::new();
        let remaining = || deadline.saturating_duration_since(Instant::now());
        // A PNG being written is finished (reads are let go).
        for job in self.jobs.drain(..).filter(|j| j.kind == Kind::Export) {
            if let Some(Done::Exported(m)) = job.wait(remaining()) {
                notes.push(m);
            }
        }
        if let Some(job) = self.sweep_job.take() {
            job.cancel();
            let mut ended = None;
            while let Ok(e) = job.rx.recv_timeout(remaining()) {
                match e {
                    SweepEvent::Seed(_) => continue,
                    SweepEvent::Ended { saved: Ok(Some(path)), .. } => {
                        ended = Some(crate::t!(
                            "drill-quit-sweep-saved",
                            id = self.meta.id.as_str(),
                            path = path.display().to_string()
                        ))
                    }
                    SweepEvent::Ended { saved: Ok(None), .. } => {
                        ended = Some(crate::t!("drill-quit-sweep-nothing", id = self.meta.id.as_str()))
                    }
                    SweepEvent::Ended { saved: Err(e), .. } | SweepEvent::Failed(e) => {
                        ended =
                            Some(crate::t!("drill-quit-sweep-error", id = self.meta.id.as_str(), error = e.as_str()))
                    }
                }
                break;
            }
            notes.push(ended.unwrap_or_else(|| crate::t!("drill-quit-sweep-stuck", id = self.meta.id.as_str())));
        }
        if self.running() {
            if let Some(run) = self.run.as_mut() {
                run.cancel();
                while !run.is_finished() && !remaining().is_zero() {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                let dir = run.dir.display().to_string();
                if run.is_finished() {
                    run.join();
                    // It may have finished on its own just before.
                    let status = run.rx.try_iter().find_map(|e| match e {
                        Event::Finished(r) => Some(r.status),
                        _ => None,
                    });
                    let id = self.meta.id.as_str();
                    notes.push(match status {
                        None | Some(RunStatus::Cancelled) => crate::t!("drill-quit-run-cancelled", id = id, dir = dir),
                        Some(s) => crate::t!("drill-quit-run-ended", id = id, status = s.to_string(), dir = dir),
                    });
                } else {
                    notes.push(crate::t!("drill-quit-run-stuck", id = self.meta.id.as_str(), dir = dir));
                }
            }
        }
        notes
    }

    fn locked(&self) -> Option<Action> {
        self.busy().map(|what| Action::Flash(crate::t!("drill-locked", what = what.to_string())))
    }

    fn begin_edit(&mut self) -> Action {
        if let Some(refused) = self.locked() {
            return refused;
        }
        let i = match self.config_row() {
            ConfigRow::Seed => {
                self.editing = Some(self.seed.to_string());
                return Action::None;
            }
            ConfigRow::SweepSeeds => {
                self.editing = Some(self.sweep_seeds.to_string());
                return Action::None;
            }
            ConfigRow::Param(i) => i,
        };
        let Some(spec) = self.meta.params.get(i).cloned() else { return Action::None };
        let current = self.params.get(&spec.key).cloned();
        match (spec.kind, current) {
            (ParamKind::Bool, Some(ParamValue::Bool(b))) => {
                if let Err(e) = self.try_set(&spec.key, ParamValue::Bool(!b)) {
                    return Action::Flash(e);
                }
            }
            (ParamKind::Choice, Some(ParamValue::Text(t))) => {
                let choices = spec.choices.unwrap_or_default();
                let i = choices.iter().position(|c| *c == t).map_or(0, |i| (i + 1) % choices.len().max(1));
                if let Some(next) = choices.get(i) {
                    if let Err(e) = self.try_set(&spec.key, ParamValue::Text(next.clone())) {
                        return Action::Flash(e);
                    }
                }
            }
            (_, v) => self.editing = Some(v.map(|v| v.to_string()).unwrap_or_default()),
        }
        Action::None
    }

    /// Set one parameter if the drill accepts the whole set with it
    /// (rules between parameters, such as n_heads dividing d_model).
    fn try_set(&mut self, key: &str, value: ParamValue) -> Result<(), String> {
        let mut next = self.params.clone();
        next.insert(key.to_string(), value);
        runner::check_params(&self.meta, &next)?;
        self.params = next;
        Ok(())
    }

    fn edit_key(&mut self, key: KeyEvent) -> Action {
        let buf = self.editing.as_mut().expect("editing");
        match key.code {
            KeyCode::Esc => self.editing = None,
            KeyCode::Backspace => {
                buf.pop();
            }
            KeyCode::Char(c) if !c.is_control() => buf.push(c),
            KeyCode::Enter => {
                let text = buf.clone();
                return self.commit_edit(&text);
            }
            _ => {}
        }
        Action::None
    }

    /// Enter in the editor: set the row's value and say so, or refuse with
    /// the reason (the text stays for correction).
    fn commit_edit(&mut self, text: &str) -> Action {
        let set = match self.config_row() {
            ConfigRow::Seed => {
                crate::numbers::whole_number(text, &crate::t!("setup-what-seed"), 0, u64::MAX).map(|seed| {
                    self.seed = seed;
                    None
                })
            }
            ConfigRow::SweepSeeds => parse_sweep_seeds(text).map(|n| {
                self.sweep_seeds = n;
                Some(crate::t!("drill-sweeps-seeds", n = n.to_string()))
            }),
            ConfigRow::Param(i) => self.set_param(i, text).map(Some),
        };
        match set {
            Ok(said) => {
                self.editing = None;
                said.map_or(Action::None, Action::Flash)
            }
            Err(e) => Action::Flash(e),
        }
    }

    /// Parameter `i` from typed text; returns what to tell the learner.
    fn set_param(&mut self, i: usize, text: &str) -> Result<String, String> {
        let spec = self.meta.params.get(i).ok_or_else(|| crate::t!("drill-no-such-param"))?;
        let key = spec.key.clone();
        let value = spec.parse_str(text)?;
        self.try_set(&key, value)?;
        Ok(format!("{key} = {text}"))
    }

    /// Enter on the Runs tab: read the run under the cursor (and the one
    /// before it, its overlay) on a thread; it is shown when read.
    fn open_run(&mut self) -> Action {
        let Some(r) = self.runs.get(self.runs_cursor).cloned() else { return Action::None };
        let before = self.runs.get(self.runs_cursor + 1).cloned();
        let meta = self.meta.clone();
        let what = crate::t!("drill-reading-run", name = r.name.as_str());
        // The run opened last is the one shown.
        self.jobs.retain(|j| j.kind != Kind::Open);
        self.jobs.push(Job::spawn(Kind::Open, what.clone(), move || read_saved(&meta, r, before)));
        Action::Flash(what)
    }

    /// `Space` on the Runs tab: mark the run under the cursor to compare (a
    /// third mark drops the oldest), or unmark it.
    fn mark_run(&mut self) -> Action {
        let Some(r) = self.runs.get(self.runs_cursor) else { return Action::None };
        if let Some(i) = self.runs_marked.iter().position(|d| *d == r.dir) {
            self.runs_marked.remove(i);
            return Action::Flash(crate::t!("drill-runs-unmarked", name = r.name.as_str()));
        }
        if self.runs_marked.len() == 2 {
            self.runs_marked.remove(0);
        }
        self.runs_marked.push(r.dir.clone());
        Action::Flash(match self.runs_marked.len() {
            1 => crate::t!("drill-runs-marked-one", name = r.name.as_str()),
            _ => crate::t!("drill-runs-marked-two"),
        })
    }

    /// `c` on the Runs tab: compare the two marked runs (or the marked one
    /// with the run under the cursor), read on a thread: A is shown, B is
    /// its grey overlay, and the Runs tab shows what differs.
    fn compare_runs(&mut self) -> Action {
        let mut dirs = self.runs_marked.clone();
        if dirs.len() == 1 {
            match self.runs.get(self.runs_cursor) {
                Some(r) if r.dir != dirs[0] => dirs.push(r.dir.clone()),
                _ => return Action::Flash(crate::t!("drill-runs-mark-two")),
            }
        }
        if dirs.len() != 2 {
            return Action::Flash(crate::t!("drill-runs-mark-two"));
        }
        let find = |d: &PathBuf| self.runs.iter().find(|r| r.dir == *d).cloned().unwrap_or_else(|| runner::load_run(d));
        let (a, b) = (find(&dirs[0]), find(&dirs[1]));
        let meta = self.meta.clone();
        let what = crate::t!("drill-runs-comparing", a = a.name.as_str(), b = b.name.as_str());
        self.jobs.retain(|j| j.kind != Kind::Diff);
        self.jobs.push(Job::spawn(Kind::Diff, what.clone(), move || read_diff(&meta, a, b)));
        Action::Flash(what)
    }

    /// `K` on the Runs tab: pin the run under the cursor (its weights are
    /// kept whatever the keep rule says), or unpin it.
    fn pin_run(&mut self) -> Action {
        let Some(r) = self.runs.get(self.runs_cursor).cloned() else { return Action::None };
        let on = !r.pinned;
        let what = crate::t!("drill-runs-pinning");
        self.jobs.push(Job::spawn(Kind::Pin, what.clone(), move || {
            Done::Pinned(match runner::kept::pin(&r.dir, on) {
                Ok(()) if on => crate::t!("drill-runs-pinned", name = r.name.as_str()),
                Ok(()) => crate::t!("drill-runs-unpinned", name = r.name.as_str()),
                Err(e) => crate::t!("drill-runs-pin-failed", error = format!("{e:#}")),
            })
        }));
        Action::Flash(what)
    }

    /// `e`: export the shown run's charts to PNG, on a thread.
    fn export(&mut self) -> Action {
        let Some(dir) = self.shown_dir.clone() else {
            return Action::Flash(crate::t!("drill-nothing-to-export"));
        };
        let live = self.running() && self.viewing.is_none();
        // The export draws what the screen shows: the same smoothing and y scale.
        let style = self.opts.style();
        let what = crate::t!("drill-exporting");
        self.jobs.push(Job::spawn(Kind::Export, what.clone(), move || Done::Exported(export_png(&dir, style, live))));
        Action::Flash(what)
    }

    /// `T` / `V`: export the shown run as the same experiment for TRL or
    /// verl (`src/graduate/`), into `<run>/export-<engine>/`, on a thread.
    fn export_engine(&mut self, engine: crate::graduate::Engine) -> Action {
        let Some(dir) = self.shown_dir.clone() else {
            return Action::Flash(crate::t!("drill-nothing-to-export"));
        };
        if let Some(why) = crate::graduate::refusal(&self.meta.id, engine) {
            return Action::Flash(why);
        }
        let what = crate::t!("drill-exporting-to", engine = engine.name());
        self.jobs.push(Job::spawn(Kind::Export, what.clone(), move || {
            let out = dir.join(format!("export-{}", engine.name()));
            let record = crate::runner::load_run(&dir);
            let Some(c) = record.config else {
                return Done::Exported(crate::t!("try-no-config", dir = dir.display().to_string()));
            };
            let src = crate::graduate::Source {
                drill: c.drill,
                preset: c.preset,
                seed: c.seed,
                params: c.params,
                run: Some(dir.clone()),
            };
            Done::Exported(match crate::graduate::export(&src, engine, &out, true) {
                Ok(_) => crate::t!(
                    "drill-exported-to",
                    engine = engine.name(),
                    path = out.join("README.md").display().to_string()
                ),
                Err(e) => crate::t!("drill-export-failed", error = format!("{e:#}")),
            })
        }));
        Action::Flash(what)
    }

    pub fn on_key(&mut self, key: KeyEvent) -> Action {
        if self.editing.is_some() {
            return self.edit_key(key);
        }
        if self.asking.is_some() {
            return self.ask_key(key);
        }
        if let Some(o) = self.outcomes.as_mut() {
            if o.on_key(key) {
                self.outcomes = None;
            }
            return Action::None;
        }
        if self.breaking.is_some() {
            return self.breaking_key(key);
        }
        if self.tab == Tab::Try && self.focus == Focus::Pane {
            if let Some(said) = self.try_tab.on_key(key) {
                return said.map_or(Action::None, Action::Flash);
            }
        }
        if self.tab == Tab::Runs && self.focus == Focus::Pane {
            match key.code {
                KeyCode::Char(' ') => return self.mark_run(),
                KeyCode::Char('c') => return self.compare_runs(),
                KeyCode::Char('K') => return self.pin_run(),
                _ => {}
            }
        }
        match key.code {
            KeyCode::Char('s') => return self.start(false),
            KeyCode::Char('P') => return self.start(true),
            KeyCode::Char('S') => return self.start_sweep(),
            KeyCode::Char('x') => return self.cancel(),
            KeyCode::Char('1') => self.tab = Tab::Charts,
            // The tabs with something to move through take the focus: ↑↓
            // and Enter then act on what the learner is looking at.
            KeyCode::Char('2') => (self.tab, self.focus) = (Tab::Views, Focus::Pane),
            KeyCode::Char('3') => (self.tab, self.focus) = (Tab::Log, Focus::Pane),
            KeyCode::Char('4') => {
                (self.tab, self.focus) = (Tab::Runs, Focus::Pane);
                self.runs = runner::list_runs(&self.runs_root, &self.meta.id);
            }
            KeyCode::Char('5') => (self.tab, self.focus) = (Tab::Sweep, Focus::Pane),
            KeyCode::Char('6') => return self.open_try(),
            KeyCode::Tab | KeyCode::BackTab => {
                self.focus = if self.focus == Focus::Config { Focus::Pane } else { Focus::Config };
            }
            KeyCode::Char('m') => self.opts.smoothing = if self.opts.smoothing.is_some() { None } else { Some(0.9) },
            KeyCode::Char('+') | KeyCode::Char('=') => {
                let b = self.opts.smoothing.unwrap_or(0.5);
                self.opts.smoothing = Some((1.0 - (1.0 - b) / 2.0).min(0.995));
            }
            KeyCode::Char('-') => {
                if let Some(b) = self.opts.smoothing {
                    let nb = 1.0 - (1.0 - b) * 2.0;
                    self.opts.smoothing = if nb < 0.3 { None } else { Some(nb) };
                }
            }
            KeyCode::Char('L') => self.opts.log_y = !self.opts.log_y,
            KeyCode::Char('w') => self.opts.x_time = !self.opts.x_time,
            KeyCode::Char('[') => self.chart_page = self.chart_page.saturating_sub(1),
            KeyCode::Char(']') => self.chart_page += 1,
            KeyCode::Char('e') => return self.export(),
            KeyCode::Char('T') => return self.export_engine(crate::graduate::Engine::Trl),
            KeyCode::Char('V') => return self.export_engine(crate::graduate::Engine::Verl),
            KeyCode::Left | KeyCode::Right if self.tab == Tab::Sweep => return self.pick_sweep_chart(key.code),
            KeyCode::Char('b') if self.tab == Tab::Sweep => {
                self.sweep_bands = !self.sweep_bands;
                return Action::Flash(if self.sweep_bands {
                    crate::t!("drill-sweep-tab-bands")
                } else {
                    crate::t!("drill-sweep-tab-tables")
                });
            }
            KeyCode::Char('b') => {
                if let Some(refused) = self.cannot_start() {
                    return refused;
                }
                return self.open_breaking();
            }
            KeyCode::Char('r') => return Action::Readme(self.meta.id.clone()),
            KeyCode::Char('u') => return self.toggle_use(),
            KeyCode::Char('p') => {
                if let Some(refused) = self.locked() {
                    return refused;
                }
                let names: Vec<String> = self.meta.presets.keys().cloned().collect();
                let i = names.iter().position(|n| *n == self.preset).map_or(0, |i| (i + 1) % names.len());
                self.preset = names[i].clone();
                self.params = self.meta.preset_values(&self.preset).unwrap_or_default();
                return Action::Flash(crate::t!("drill-preset-reset", preset = self.preset.as_str()));
            }
            KeyCode::Down | KeyCode::Char('j') => self.move_cursor(1),
            KeyCode::Up | KeyCode::Char('k') => self.move_cursor(-1),
            // Inside a teaching view longer than its pane.
            KeyCode::PageDown if self.tab == Tab::Views => self.view_scroll += 5,
            KeyCode::PageUp if self.tab == Tab::Views => self.view_scroll = self.view_scroll.saturating_sub(5),
            KeyCode::Enter => {
                // Enter acts on the focused pane: a pane with nothing to open
                // does not edit the config behind the learner's back.
                return match (self.focus, self.tab) {
                    (Focus::Pane, Tab::Runs) => self.open_run(),
                    (Focus::Pane, _) => Action::Flash(crate::t!("drill-enter-edits")),
                    (Focus::Config, _) => self.begin_edit(),
                };
            }
            KeyCode::Esc | KeyCode::Backspace => {
                if self.running() {
                    return Action::Flash(crate::t!("drill-run-going-esc"));
                }
                // Leaving drops the sweep's handle, which cancels it (the seeds done are saved).
                return Action::Back;
            }
            _ => {}
        }
        Action::None
    }

    /// `←` `→` on the Sweep tab: the previous or next chart of seed bands.
    fn pick_sweep_chart(&mut self, code: KeyCode) -> Action {
        let n = self.sweep.as_ref().map_or(0, |v| v.bands.len());
        if n == 0 {
            return Action::Flash(crate::t!("drill-no-bands"));
        }
        self.sweep_bands = true;
        let at = self.sweep_chart % n;
        self.sweep_chart = if code == KeyCode::Left { (at + n - 1) % n } else { (at + 1) % n };
        Action::None
    }

    fn move_cursor(&mut self, d: isize) {
        let step = |v: usize, n: usize| -> usize { (v as isize + d).clamp(0, n.saturating_sub(1) as isize) as usize };
        match (self.focus, self.tab) {
            (Focus::Config, _) => self.cursor = step(self.cursor, self.rows()),
            (Focus::Pane, Tab::Runs) => self.runs_cursor = step(self.runs_cursor, self.runs.len()),
            (Focus::Pane, Tab::Views) => {
                self.view_index = step(self.view_index, self.view.views.len());
                self.view_scroll = 0;
            }
            (Focus::Pane, Tab::Log) => self.log_scroll = scroll(self.log_scroll, self.view.logs.len(), d),
            (Focus::Pane, Tab::Sweep) => {
                let n = self.sweep.as_ref().map_or(0, |v| v.sweep.results.len());
                self.sweep_scroll = scroll(self.sweep_scroll, n, d);
            }
            (Focus::Pane, Tab::Try) => {}
            (Focus::Pane, Tab::Charts) => {
                if d > 0 {
                    self.chart_page += 1
                } else {
                    self.chart_page = self.chart_page.saturating_sub(1)
                }
            }
        }
    }
}

/// Fold one event of a run into `view`; a failed claim (not an
/// observation) is followed in the log by its `why`.
fn fold(meta: &DrillMeta, view: &mut RunView, e: Event) {
    let why = match &e {
        Event::Claim(c) if !c.pass && !c.observation => meta
            .claim(&c.id)
            .and_then(|s| s.why.clone())
            .map(|w| format!("  {}", crate::t!("drill-log-why", id = c.id.as_str(), why = w))),
        _ => None,
    };
    view.apply(e);
    view.logs.extend(why);
}

/// A saved run's events folded into a view (its report from `report.json`
/// where the events end without one).
fn fold_saved(meta: &DrillMeta, r: &RunRecord, events: Vec<Event>) -> RunView {
    let mut view = RunView::default();
    for e in events {
        fold(meta, &mut view, e);
    }
    if view.report.is_none() {
        view.report = r.report.clone();
    }
    view
}

/// Read the newest saved run (and the series of the one before it, its
/// overlay) on a thread of its own.
fn load_last_run(meta: &DrillMeta, last: RunRecord, before: Option<RunRecord>) -> Receiver<LastRun> {
    let (tx, rx) = mpsc::channel();
    let meta = meta.clone();
    // The log lines it makes are in the screen's language.
    let lang = crate::i18n::current();
    std::thread::spawn(move || {
        crate::i18n::set(lang);
        let events = runner::load_events(&last.dir).unwrap_or_default();
        let view = fold_saved(&meta, &last, events);
        let previous = before.and_then(|p| runner::load_events(&p.dir).ok()).map(|e| runner::series(&e));
        let _ = tx.send(LastRun { record: last, view, previous });
    });
    rx
}

/// A saved run's view and the series of `before` (its overlay), or why
/// it cannot be read (on a job's thread).
fn read_saved(meta: &DrillMeta, r: RunRecord, before: Option<RunRecord>) -> Done {
    let result = match runner::load_events(&r.dir) {
        Ok(events) => {
            let view = fold_saved(meta, &r, events);
            let previous = before.and_then(|p| runner::load_events(&p.dir).ok()).map(|e| runner::series(&e));
            Ok((Box::new(view), previous))
        }
        Err(e) => Err(crate::t!("drill-cannot-read", path = r.dir.display().to_string(), error = format!("{e:#}"))),
    };
    Done::Opened { record: Box::new(r), result }
}

/// Two runs compared (on a job's thread): A's view, B's series (A's overlay) and the diff.
fn read_diff(meta: &DrillMeta, a: RunRecord, b: RunRecord) -> Done {
    let b_name = b.name.clone();
    let result = match (runner::load_events(&a.dir), runner::load_events(&b.dir)) {
        (Ok(ea), Ok(eb)) => {
            let last = |events: &[Event]| -> Vec<(String, f64)> {
                runner::series(events).into_iter().filter_map(|(n, p)| p.last().map(|x| (n, x.value))).collect()
            };
            let diff = runner::diff::diff(&a, &b, &last(&ea), &last(&eb));
            let view = fold_saved(meta, &a, ea);
            Ok((Box::new(view), Some(runner::series(&eb)), Box::new(diff)))
        }
        (Err(e), _) | (_, Err(e)) => {
            Err(crate::t!("drill-cannot-read", path = String::new(), error = format!("{e:#}")))
        }
    };
    Done::Diffed { a: Box::new(a), b_name, result }
}

/// Export the run in `dir` to PNG; what to tell the learner (on a job's thread).
fn export_png(dir: &Path, style: crate::plot::Style, live: bool) -> String {
    match crate::plot::export_run_styled(dir, crate::plot::Format::Png, None, style) {
        Ok(p) => {
            let events = runner::load_events(dir).unwrap_or_default();
            let path = p.display().to_string();
            match runner::incomplete(&runner::load_run(dir), &events) {
                Some(_) if live => crate::t!("drill-exported-live", path = path),
                Some(note) => crate::t!("drill-exported-partial", path = path, note = note),
                None => crate::t!("drill-exported", path = path),
            }
        }
        Err(e) => crate::t!("drill-export-failed", error = format!("{e:#}")),
    }
}

/// The learner's function of exercise `id` read from `file` and checked,
/// for drill `drill` (on a job's thread).
fn read_use(drill: &str, id: &str, file: PathBuf) -> Done {
    let used = |plug, message| Done::Used { id: id.to_string(), plug, message };
    let Ok(source) = crate::exercises::read_script(&file) else {
        return used(None, crate::t!("drill-use-write-first", id = id));
    };
    let map = BTreeMap::from([(id.to_string(), UsedScript { file: file.display().to_string(), source })]);
    if let Err(e) = crate::exercises::plug::Plugs::new(drill, &map) {
        return used(None, crate::t!("drill-use-cannot", id = id, error = e.to_string()));
    }
    let passes = crate::exercises::spec(id).is_some_and(|s| crate::exercises::check(s, &map[id].source).passed);
    let verdict = if passes { crate::t!("drill-use-passes") } else { crate::t!("drill-use-fails") };
    used(Some(map), crate::t!("drill-use-ready", id = id, verdict = verdict))
}

/// The series and claims of `base`, the run a `b` run saved in `run` is
/// compared with (on a job's thread). Unreadable, it is not compared.
fn read_compare(base: RunRecord, run: PathBuf) -> Done {
    let series = runner::load_events(&base.dir).ok().map(|e| runner::series(&e));
    let claims = base.report.as_ref().map(|rep| rep.claims.clone()).unwrap_or_default();
    Done::Compared { run, series, name: base.name, claims }
}

/// The newest run of `runs` (newest first) that passed with `seed`, of
/// `preset` where there is one, else of any preset.
fn last_passing(runs: &[RunRecord], preset: &str, seed: u64) -> Option<RunRecord> {
    let passed = |r: &&RunRecord| {
        r.report.as_ref().is_some_and(|rep| rep.status == RunStatus::Passed)
            && r.config.as_ref().is_some_and(|c| c.seed == seed)
    };
    let same = runs.iter().filter(passed).find(|r| r.config.as_ref().is_some_and(|c| c.preset == preset));
    same.or_else(|| runs.iter().find(passed)).cloned()
}

/// "2 claims failed" (observations are not counted), "1 claim failed".
pub fn failed_claims(r: &Report) -> String {
    let n = r.claims.iter().filter(|c| !c.observation && !c.pass).count();
    crate::t!("drill-claims-failed", count = n.max(1))
}

/// "sweep seeds" from typed text: a whole number from 1 to [`SWEEP_SEEDS_MAX`].
fn parse_sweep_seeds(text: &str) -> Result<u64, String> {
    crate::numbers::whole_number(text, &crate::t!("setup-what-sweep-seeds"), 1, SWEEP_SEEDS_MAX)
}

/// The newest saved sweep of a drill, if any.
fn newest_sweep(sweeps_root: &Path, drill: &DrillMeta) -> Option<SweepView> {
    let (path, sweep) = sweep::list(sweeps_root, drill.id.as_str()).into_iter().next()?;
    Some(SweepView::finished(drill, sweep, Some(path)))
}

/// Move a scrolled position in a list of `n` lines by `d`; `None` follows
/// the end, and moving back to the end follows it again.
fn scroll(at: Option<usize>, n: usize, d: isize) -> Option<usize> {
    let cur = at.unwrap_or(n.saturating_sub(1));
    let next = (cur as isize + d).clamp(0, n.saturating_sub(1) as isize) as usize;
    (next + 1 < n).then_some(next)
}

/// The lines of a list of `n` shown in `h` rows, ending at the scrolled
/// position (or at the end when following); the rows stay filled near the top.
fn window(n: usize, h: usize, at: Option<usize>) -> Range<usize> {
    let end = at.map_or(n, |i| (i + 1).min(n)).max(h.min(n));
    end.saturating_sub(h)..end
}
