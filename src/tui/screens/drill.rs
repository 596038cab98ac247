//! The drill runner screen: configure, start, watch the charts move while
//! the model trains on a worker thread, read the claims, the log and the
//! teaching views, browse and reopen past runs, export a PNG.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, BorderType, Borders, Cell, Gauge, List, ListItem, ListState, Paragraph, Row, Table, Tabs, Wrap,
};
use ratatui::Frame;

use super::Hint;
use crate::content::{DrillMeta, ParamKind, ParamValue};
use crate::drills::{ClaimResult, Event, Report, RunStatus, View};
use crate::ml::device::DeviceChoice;
use crate::runner::{self, Point, RunConfig, RunHandle, RunRecord};
use crate::tui::app::Action;
use crate::tui::ui::accent;
use crate::tui::widgets::{chart, claims, token_mask};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Charts,
    Views,
    Log,
    Runs,
}

impl Tab {
    const ALL: [Tab; 4] = [Tab::Charts, Tab::Views, Tab::Log, Tab::Runs];

    fn title(self) -> &'static str {
        match self {
            Tab::Charts => "1 Charts",
            Tab::Views => "2 Views",
            Tab::Log => "3 Log",
            Tab::Runs => "4 Runs",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Config,
    Pane,
}

/// Everything a run reported, accumulated for drawing (live or reloaded).
#[derive(Debug, Clone, Default)]
pub struct RunView {
    pub series: Vec<(String, Vec<Point>)>,
    pub logs: Vec<String>,
    pub claims: Vec<ClaimResult>,
    pub views: Vec<View>,
    pub phase: String,
    pub device: String,
    /// (step, total, tokens) of the latest progress event.
    pub progress: Option<(u64, u64, u64)>,
    pub report: Option<Report>,
    /// When the current phase's first progress arrived, and tokens then (live runs).
    phase_start: Option<(Instant, u64, u64)>,
    /// Recent (time, tokens) samples for tokens/s.
    rate: Vec<(Instant, u64)>,
}

impl RunView {
    pub fn apply(&mut self, e: Event) {
        match e {
            Event::Started { device, preset, seed, .. } => {
                self.device = device.clone();
                self.logs.push(format!("▶ started · preset {preset} · seed {seed} · {device}"));
            }
            Event::Phase(p) => {
                self.logs.push(format!("── {p}"));
                self.phase = p;
                self.phase_start = None;
            }
            Event::Log(l) => self.logs.push(l),
            Event::Metric { step, name, value, t } => {
                let p = Point { step: step as f64, t, value };
                match self.series.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, pts)) => pts.push(p),
                    None => self.series.push((name, vec![p])),
                }
            }
            Event::Progress { step, total, tokens } => {
                let now = Instant::now();
                if self.phase_start.is_none() {
                    self.phase_start = Some((now, step, tokens));
                }
                self.rate.push((now, tokens));
                self.rate.retain(|(t, _)| now.duration_since(*t).as_secs_f64() < 3.0);
                self.progress = Some((step, total, tokens));
            }
            Event::Claim(c) => {
                self.logs.push(format!(
                    "claim {}: {:.4} {} {} → {}",
                    c.id,
                    c.measured,
                    c.op.symbol(),
                    c.threshold,
                    if c.pass { "pass" } else { "FAIL" }
                ));
                self.claims.retain(|x| x.id != c.id);
                self.claims.push(c);
            }
            Event::View(v) => {
                self.views.retain(|x| x.title() != v.title());
                self.views.push(v);
            }
            Event::Finished(r) => {
                let line = match &r.status {
                    RunStatus::Passed => format!("■ finished in {:.1} s: every claim holds", r.wall_s),
                    RunStatus::ClaimsFailed => format!("■ finished in {:.1} s: a claim failed", r.wall_s),
                    RunStatus::Cancelled => format!("■ cancelled after {:.1} s", r.wall_s),
                    RunStatus::Failed(m) => format!("■ failed after {:.1} s: {m}", r.wall_s),
                };
                self.logs.push(line);
                self.report = Some(r);
            }
        }
    }

    /// Seconds left in the current phase, extrapolated from its pace so far.
    pub fn eta(&self) -> Option<f64> {
        let (step, total, _) = self.progress?;
        let (start, s0, _) = self.phase_start?;
        let done = step.saturating_sub(s0);
        if done == 0 || step >= total {
            return None;
        }
        let per = start.elapsed().as_secs_f64() / done as f64;
        Some(per * (total - step) as f64)
    }

    pub fn tokens_per_s(&self) -> Option<f64> {
        let (t0, k0) = *self.rate.first()?;
        let (t1, k1) = *self.rate.last()?;
        let dt = t1.duration_since(t0).as_secs_f64();
        (dt > 0.2).then(|| (k1.saturating_sub(k0)) as f64 / dt)
    }
}

pub struct State {
    pub meta: DrillMeta,
    pub preset: String,
    pub params: BTreeMap<String, ParamValue>,
    pub seed: u64,
    pub device: DeviceChoice,
    pub runs_root: PathBuf,
    pub focus: Focus,
    pub tab: Tab,
    pub cursor: usize,
    /// Text being typed for the selected parameter.
    pub editing: Option<String>,
    pub run: Option<RunHandle>,
    pub view: RunView,
    /// The opened past run, when browsing history instead of the live run.
    pub viewing: Option<String>,
    pub previous: Option<Vec<(String, Vec<Point>)>>,
    pub opts: chart::ChartOpts,
    pub chart_page: usize,
    pub log_scroll: Option<usize>,
    pub view_index: usize,
    pub runs: Vec<RunRecord>,
    pub runs_cursor: usize,
    /// The directory of the run shown (for export).
    pub shown_dir: Option<PathBuf>,
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
    ("x", "cancel the running run"),
    ("Tab", "switch focus: configuration ↔ right pane"),
    ("1 2 3 4", "charts · teaching views · log · past runs"),
    ("↑↓ j k", "move (config, log, views, runs)"),
    ("Enter", "edit the parameter (Enter saves, Esc cancels) · open a past run"),
    ("p", "switch preset quick ↔ full"),
    ("m  + -", "smoothing on/off · stronger/weaker (bias-corrected EMA)"),
    ("L", "log-scale y"),
    ("w", "x axis: step ↔ wall time"),
    ("[ ]", "previous / next page of charts"),
    ("e", "export the shown run's charts to PNG"),
    ("r", "read the drill's README (the lesson)"),
];

impl State {
    pub fn new(meta: &DrillMeta, runs_root: PathBuf, device: DeviceChoice) -> State {
        let params = meta.preset_values("quick").unwrap_or_default();
        let runs = runner::list_runs(&runs_root, &meta.id);
        let previous = runs.first().and_then(|r| runner::load_events(&r.dir).ok()).map(|e| runner::series(&e));
        State {
            meta: meta.clone(),
            preset: "quick".into(),
            params,
            seed: 1,
            device,
            runs_root,
            focus: Focus::Config,
            tab: Tab::Charts,
            cursor: 0,
            editing: None,
            run: None,
            view: RunView::default(),
            viewing: None,
            previous,
            opts: chart::ChartOpts::default(),
            chart_page: 0,
            log_scroll: None,
            view_index: 0,
            runs,
            runs_cursor: 0,
            shown_dir: None,
        }
    }

    pub fn title(&self) -> String {
        format!("drill {}", self.meta.id)
    }

    /// A run was started and its final report has not arrived yet.
    pub fn running(&self) -> bool {
        self.run.is_some() && self.view.report.is_none()
    }

    pub fn is_typing(&self) -> bool {
        self.editing.is_some()
    }

    pub fn hints(&self) -> Vec<Hint> {
        if self.is_typing() {
            return vec![("Enter", "save"), ("Esc", "cancel")];
        }
        let mut h = if self.running() { vec![("x", "cancel")] } else { vec![("s", "start")] };
        h.extend([
            ("Enter", "edit"),
            ("1-4", "tabs"),
            ("m", "smooth"),
            ("e", "export"),
            ("r", "README"),
            ("Esc", "back"),
        ]);
        h
    }

    /// Rows of the config panel: parameters, then the seed.
    fn rows(&self) -> usize {
        self.meta.params.len() + 1
    }

    /// Drain the worker's events. Returns whether anything arrived.
    pub fn poll(&mut self) -> bool {
        let Some(run) = &self.run else { return false };
        let mut got = false;
        let mut lost = false;
        // Bounded per tick so a burst of events cannot stall input handling.
        for _ in 0..20_000 {
            match run.rx.try_recv() {
                Ok(e) => {
                    got = true;
                    self.view.apply(e);
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
        }
        got
    }

    fn start(&mut self) -> Action {
        if self.running() {
            return Action::Flash("a run is already going: x cancels it".into());
        }
        if crate::drills::find(&self.meta.id).is_none() {
            return Action::Flash(format!("{} is not implemented in this build yet", self.meta.id));
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
        };
        match runner::start(&self.meta, config, &self.runs_root) {
            Ok(h) => {
                self.shown_dir = Some(h.dir.clone());
                self.run = Some(h);
                self.view = RunView::default();
                self.viewing = None;
                self.log_scroll = None;
                self.chart_page = 0;
                Action::Flash("started: charts update as the model trains (x cancels)".into())
            }
            Err(e) => Action::Flash(format!("cannot start: {e:#}")),
        }
    }

    fn cancel(&mut self) -> Action {
        match &self.run {
            Some(r) if self.running() => {
                r.cancel();
                Action::Flash("cancelling… the run stops at the next step".into())
            }
            _ => Action::Flash("nothing is running".into()),
        }
    }

    fn begin_edit(&mut self) -> Action {
        if self.running() {
            return Action::Flash("parameters are locked while a run is going".into());
        }
        if self.cursor == self.meta.params.len() {
            self.editing = Some(self.seed.to_string());
            return Action::None;
        }
        let Some(spec) = self.meta.params.get(self.cursor).cloned() else { return Action::None };
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
                if self.cursor == self.meta.params.len() {
                    return match text.trim().parse::<u64>() {
                        Ok(s) => {
                            self.seed = s;
                            self.editing = None;
                            Action::None
                        }
                        Err(_) => Action::Flash(format!("seed: \"{text}\" is not a whole number ≥ 0")),
                    };
                }
                let Some(spec) = self.meta.params.get(self.cursor) else { return Action::None };
                let key = spec.key.clone();
                return match spec.parse_str(&text).and_then(|v| self.try_set(&key, v)) {
                    Ok(()) => {
                        self.editing = None;
                        Action::Flash(format!("{key} = {text}"))
                    }
                    // Refused with the reason; the text stays for correction.
                    Err(e) => Action::Flash(e),
                };
            }
            _ => {}
        }
        Action::None
    }

    fn open_run(&mut self) -> Action {
        let Some(r) = self.runs.get(self.runs_cursor).cloned() else { return Action::None };
        let events = match runner::load_events(&r.dir) {
            Ok(e) => e,
            Err(e) => return Action::Flash(format!("cannot read {}: {e:#}", r.dir.display())),
        };
        let mut view = RunView::default();
        for e in events {
            view.apply(e);
        }
        if view.report.is_none() {
            view.report = r.report.clone();
        }
        // The run opened is compared with the one before it.
        self.previous = self
            .runs
            .get(self.runs_cursor + 1)
            .and_then(|p| runner::load_events(&p.dir).ok())
            .map(|e| runner::series(&e));
        self.view = view;
        self.viewing = Some(r.name.clone());
        self.shown_dir = Some(r.dir.clone());
        self.tab = Tab::Charts;
        Action::Flash(format!("showing saved run {} (s starts a new run)", r.name))
    }

    fn export(&self) -> Action {
        let Some(dir) = &self.shown_dir else { return Action::Flash("no run to export yet: s starts one".into()) };
        match crate::plot::export_run(dir, crate::plot::Format::Png, None) {
            Ok(p) => Action::Flash(format!("exported {}", p.display())),
            Err(e) => Action::Flash(format!("export failed: {e:#}")),
        }
    }

    pub fn on_key(&mut self, key: KeyEvent) -> Action {
        if self.editing.is_some() {
            return self.edit_key(key);
        }
        match key.code {
            KeyCode::Char('s') => return self.start(),
            KeyCode::Char('x') => return self.cancel(),
            KeyCode::Char('1') => self.tab = Tab::Charts,
            KeyCode::Char('2') => self.tab = Tab::Views,
            KeyCode::Char('3') => self.tab = Tab::Log,
            KeyCode::Char('4') => {
                self.tab = Tab::Runs;
                self.runs = runner::list_runs(&self.runs_root, &self.meta.id);
            }
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
            KeyCode::Char('r') => return Action::Readme(self.meta.id.clone()),
            KeyCode::Char('p') => {
                if self.running() {
                    return Action::Flash("parameters are locked while a run is going".into());
                }
                let names: Vec<String> = self.meta.presets.keys().cloned().collect();
                let i = names.iter().position(|n| *n == self.preset).map_or(0, |i| (i + 1) % names.len());
                self.preset = names[i].clone();
                self.params = self.meta.preset_values(&self.preset).unwrap_or_default();
                return Action::Flash(format!("preset {}: parameters reset to its values", self.preset));
            }
            KeyCode::Down | KeyCode::Char('j') => self.move_cursor(1),
            KeyCode::Up | KeyCode::Char('k') => self.move_cursor(-1),
            KeyCode::Enter => {
                return match (self.focus, self.tab) {
                    (Focus::Pane, Tab::Runs) => self.open_run(),
                    _ => {
                        self.focus = Focus::Config;
                        self.begin_edit()
                    }
                };
            }
            KeyCode::Esc | KeyCode::Backspace => {
                if self.running() {
                    return Action::Flash("a run is going: x cancels it, then Esc goes back".into());
                }
                return Action::Back;
            }
            _ => {}
        }
        Action::None
    }

    fn move_cursor(&mut self, d: isize) {
        let step = |v: usize, n: usize| -> usize { (v as isize + d).clamp(0, n.saturating_sub(1) as isize) as usize };
        match (self.focus, self.tab) {
            (Focus::Config, _) => self.cursor = step(self.cursor, self.rows()),
            (Focus::Pane, Tab::Runs) => self.runs_cursor = step(self.runs_cursor, self.runs.len()),
            (Focus::Pane, Tab::Views) => self.view_index = step(self.view_index, self.view.views.len()),
            (Focus::Pane, Tab::Log) => {
                let n = self.view.logs.len();
                let cur = self.log_scroll.unwrap_or(n.saturating_sub(1));
                let next = step(cur, n);
                // Back at the end: follow new lines again.
                self.log_scroll = if next + 1 >= n { None } else { Some(next) };
            }
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

fn panel<'a>(title: impl Into<Line<'a>>, focused: bool) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_style(if focused { accent() } else { Style::default().fg(Color::DarkGray) })
        .title(title)
}

pub fn draw(frame: &mut Frame, area: Rect, s: &State) {
    let [top, main, gauge] =
        Layout::vertical([Constraint::Length(2), Constraint::Min(8), Constraint::Length(1)]).areas(area);
    // Objective and where the shown run comes from.
    let source = match (&s.viewing, s.running()) {
        (Some(name), _) => format!("saved run {name}"),
        (None, true) => "live run".to_string(),
        (None, false) if s.view.report.is_some() => "last run".to_string(),
        _ => "no run yet: s starts one".to_string(),
    };
    frame.render_widget(
        Paragraph::new(vec![
            Line::from(Span::raw(s.meta.objective.clone())),
            Line::from(vec![
                Span::styled(
                    format!("track {} · preset {} · ", s.meta.track, s.preset),
                    Style::default().fg(Color::DarkGray),
                ),
                Span::styled(source, Style::default().fg(Color::Yellow)),
            ]),
        ])
        .wrap(Wrap { trim: true }),
        top,
    );

    let left_w = (area.width / 3).clamp(30, 40);
    let [left, right] = Layout::horizontal([Constraint::Length(left_w), Constraint::Min(20)]).areas(main);
    let claims_h = (s.meta.claims.len() as u16 * 2 + 2).min(left.height / 2);
    let [config_area, claims_area] = Layout::vertical([Constraint::Min(4), Constraint::Length(claims_h)]).areas(left);
    draw_config(frame, config_area, s);
    let claim_lines = claims::lines(&s.meta, &s.view.claims, claims_area.width.saturating_sub(2) as usize);
    frame.render_widget(Paragraph::new(claim_lines).block(panel(" Claims ", false)), claims_area);

    let [tabs_area, pane] = Layout::vertical([Constraint::Length(1), Constraint::Min(3)]).areas(right);
    let titles: Vec<&str> = Tab::ALL.iter().map(|t| t.title()).collect();
    let selected = Tab::ALL.iter().position(|t| *t == s.tab).unwrap_or(0);
    frame.render_widget(
        Tabs::new(titles)
            .select(selected)
            .highlight_style(accent().add_modifier(Modifier::BOLD | Modifier::UNDERLINED)),
        tabs_area,
    );
    match s.tab {
        Tab::Charts => draw_charts(frame, pane, s),
        Tab::Views => draw_views(frame, pane, s),
        Tab::Log => draw_log(frame, pane, s),
        Tab::Runs => draw_runs(frame, pane, s),
    }
    draw_gauge(frame, gauge, s);
}

fn draw_config(frame: &mut Frame, area: Rect, s: &State) {
    let key_w = s.meta.params.iter().map(|p| p.key.len()).max().unwrap_or(4).max(4);
    let mut items: Vec<ListItem> = s
        .meta
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let value = if s.editing.is_some() && i == s.cursor {
                format!("{}█", s.editing.as_deref().unwrap_or(""))
            } else {
                s.params.get(&p.key).map(|v| v.to_string()).unwrap_or_default()
            };
            let changed = s.meta.preset_values(&s.preset).ok().and_then(|d| d.get(&p.key).cloned())
                != s.params.get(&p.key).cloned();
            let vstyle = if changed { Style::default().fg(Color::Yellow) } else { Style::default() };
            ListItem::new(Line::from(vec![
                Span::styled(format!("{:<key_w$} ", p.key), Style::default().fg(Color::Gray)),
                Span::styled(value, vstyle),
            ]))
        })
        .collect();
    let seed = if s.editing.is_some() && s.cursor == s.meta.params.len() {
        format!("{}█", s.editing.as_deref().unwrap_or(""))
    } else {
        s.seed.to_string()
    };
    items.push(ListItem::new(Line::from(vec![
        Span::styled(format!("{:<key_w$} ", "seed"), Style::default().fg(Color::Gray)),
        Span::raw(seed),
    ])));
    let help = s
        .meta
        .params
        .get(s.cursor)
        .map(|p| p.help.clone())
        .unwrap_or_else(|| "random seed of data, init and sampling".into());
    let [list_area, help_area] = Layout::vertical([Constraint::Min(2), Constraint::Length(2)]).areas(area);
    let mut st = ListState::default().with_selected(Some(s.cursor));
    let list = List::new(items)
        .block(
            panel(format!(" Config · {} ", s.preset), s.focus == Focus::Config)
                .borders(Borders::TOP | Borders::LEFT | Borders::RIGHT),
        )
        .highlight_style(if s.focus == Focus::Config {
            Style::default().add_modifier(Modifier::REVERSED)
        } else {
            Style::default()
        });
    frame.render_stateful_widget(list, list_area, &mut st);
    frame.render_widget(
        Paragraph::new(Span::styled(help, Style::default().fg(Color::DarkGray))).wrap(Wrap { trim: true }).block(
            Block::default()
                .borders(Borders::LEFT | Borders::RIGHT | Borders::BOTTOM)
                .border_type(BorderType::Rounded)
                .border_style(if s.focus == Focus::Config { accent() } else { Style::default().fg(Color::DarkGray) }),
        ),
        help_area,
    );
}

/// How many charts fit, and in how many columns.
fn grid(area: Rect, n: usize) -> (usize, usize) {
    let cols = if area.width >= 90 && n > 1 { 2 } else { 1 };
    let rows = ((area.height / 9).max(1) as usize).min(n.div_ceil(cols).max(1));
    (cols, rows)
}

fn draw_charts(frame: &mut Frame, area: Rect, s: &State) {
    let series = &s.view.series;
    if series.is_empty() {
        let msg = if s.running() {
            "waiting for the first metric points…"
        } else {
            "No run yet. Press s to start the drill with the configuration on the left."
        };
        frame.render_widget(
            Paragraph::new(msg).wrap(Wrap { trim: true }).block(panel(" Charts ", s.focus == Focus::Pane)),
            area,
        );
        return;
    }
    let (cols, rows) = grid(area, series.len());
    let per_page = cols * rows;
    let pages = series.len().div_ceil(per_page);
    let page = s.chart_page.min(pages - 1);
    let [status, charts] = Layout::vertical([Constraint::Length(1), Constraint::Min(3)]).areas(area);
    let smooth = match s.opts.smoothing {
        Some(b) => format!("EMA {b:.3}"),
        None => "raw".into(),
    };
    let mut info = format!(
        " page {}/{} ([ ]) · {smooth} (m, + -) · y {} (L) · x {} (w)",
        page + 1,
        pages,
        if s.opts.log_y { "log" } else { "linear" },
        if s.opts.x_time { "seconds" } else { "step" }
    );
    if s.previous.is_some() {
        info.push_str(" · grey = previous run");
    }
    frame.render_widget(Paragraph::new(Span::styled(info, Style::default().fg(Color::DarkGray))), status);
    let row_areas = Layout::vertical(vec![Constraint::Ratio(1, rows as u32); rows]).split(charts);
    for (r, row_area) in row_areas.iter().enumerate() {
        let cells = Layout::horizontal(vec![Constraint::Ratio(1, cols as u32); cols]).split(*row_area);
        for (c, cell) in cells.iter().enumerate() {
            let i = page * per_page + r * cols + c;
            let Some((name, pts)) = series.get(i) else { continue };
            let prev = s.previous.as_ref().and_then(|p| p.iter().find(|(n, _)| n == name)).map(|(_, p)| p.as_slice());
            chart::draw(frame, *cell, name, i, pts, prev, s.opts);
        }
    }
}

fn draw_views(frame: &mut Frame, area: Rect, s: &State) {
    let views = &s.view.views;
    let Some(v) = views.get(s.view_index.min(views.len().saturating_sub(1))) else {
        frame.render_widget(
            Paragraph::new(
                "Teaching views appear here while the drill runs: trajectories token by token, sample tables.",
            )
            .wrap(Wrap { trim: true })
            .block(panel(" Views ", s.focus == Focus::Pane)),
            area,
        );
        return;
    };
    let title =
        format!(" {} ({}/{}, ↑↓ with Tab focus) ", v.title(), s.view_index.min(views.len() - 1) + 1, views.len());
    let block = panel(title, s.focus == Focus::Pane);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    match v {
        View::Tokens { tokens, legend, .. } => {
            let mut lines = token_mask::lines(tokens, inner.width as usize);
            lines.push(Line::raw(""));
            lines.push(Line::from(vec![
                Span::styled(" prompt ", token_mask::kind_style(crate::drills::TokenKind::Prompt)),
                Span::raw(" "),
                Span::styled(" trained ", token_mask::kind_style(crate::drills::TokenKind::Trained)),
                Span::raw(" "),
                Span::styled(" masked ", token_mask::kind_style(crate::drills::TokenKind::Masked)),
            ]));
            lines.push(Line::from(Span::styled(legend.clone(), Style::default().fg(Color::DarkGray))));
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
        }
        View::Table { header, rows, .. } => {
            let n = header.len().max(1);
            let widths = vec![Constraint::Ratio(1, n as u32); n];
            let table = Table::new(rows.iter().map(|r| Row::new(r.iter().map(|c| Cell::from(c.clone())))), widths)
                .header(
                    Row::new(header.iter().map(|h| Cell::from(h.clone()))).style(accent().add_modifier(Modifier::BOLD)),
                );
            frame.render_widget(table, inner);
        }
        View::Text { body, .. } => frame.render_widget(Paragraph::new(body.clone()).wrap(Wrap { trim: false }), inner),
    }
}

fn draw_log(frame: &mut Frame, area: Rect, s: &State) {
    let h = area.height.saturating_sub(2) as usize;
    let n = s.view.logs.len();
    let end = s.log_scroll.map_or(n, |i| (i + 1).min(n));
    let start = end.saturating_sub(h);
    let lines: Vec<Line> = s.view.logs[start..end].iter().map(|l| Line::raw(l.clone())).collect();
    let title = if s.log_scroll.is_some() {
        format!(" Log {end}/{n} (scrolled: ↓ to the end to follow) ")
    } else {
        format!(" Log ({n} lines, following) ")
    };
    frame.render_widget(Paragraph::new(lines).block(panel(title, s.focus == Focus::Pane)), area);
}

fn draw_runs(frame: &mut Frame, area: Rect, s: &State) {
    if s.runs.is_empty() {
        frame.render_widget(
            Paragraph::new("No saved runs of this drill yet.").block(panel(" Runs ", s.focus == Focus::Pane)),
            area,
        );
        return;
    }
    let rows: Vec<Row> = s
        .runs
        .iter()
        .map(|r| {
            let (preset, seed) = r
                .config
                .as_ref()
                .map_or(("?".to_string(), "?".to_string()), |c| (c.preset.clone(), c.seed.to_string()));
            let (status, style, claims, wall) = match &r.report {
                Some(rep) => {
                    let passed = rep.claims.iter().filter(|c| c.pass).count();
                    let (st, style) = match &rep.status {
                        RunStatus::Passed => ("passed", Style::default().fg(Color::Green)),
                        RunStatus::ClaimsFailed => ("claim failed", Style::default().fg(Color::Red)),
                        RunStatus::Cancelled => ("cancelled", Style::default().fg(Color::DarkGray)),
                        RunStatus::Failed(_) => ("error", Style::default().fg(Color::Red)),
                    };
                    (st.to_string(), style, format!("{passed}/{}", rep.claims.len()), format!("{:.0} s", rep.wall_s))
                }
                None => ("interrupted".into(), Style::default().fg(Color::DarkGray), "-".into(), "-".into()),
            };
            Row::new(vec![
                Cell::from(r.name.clone()),
                Cell::from(preset),
                Cell::from(seed),
                Cell::from(status).style(style),
                Cell::from(claims),
                Cell::from(wall),
            ])
        })
        .collect();
    let widths = [
        Constraint::Length(21),
        Constraint::Length(7),
        Constraint::Length(5),
        Constraint::Length(13),
        Constraint::Length(7),
        Constraint::Length(7),
    ];
    let table = Table::new(rows, widths)
        .header(
            Row::new(["run", "preset", "seed", "status", "claims", "time"])
                .style(accent().add_modifier(Modifier::BOLD)),
        )
        .block(panel(" Runs (Enter opens, with Tab focus) ", s.focus == Focus::Pane))
        .row_highlight_style(Style::default().add_modifier(Modifier::REVERSED));
    let mut st = ratatui::widgets::TableState::default().with_selected(Some(s.runs_cursor));
    frame.render_stateful_widget(table, area, &mut st);
}

fn draw_gauge(frame: &mut Frame, area: Rect, s: &State) {
    let v = &s.view;
    let (ratio, label) = match (v.progress, &v.report) {
        (_, Some(r)) => {
            let text = match &r.status {
                RunStatus::Passed => format!("done in {:.1} s · every claim holds", r.wall_s),
                RunStatus::ClaimsFailed => format!("done in {:.1} s · a claim failed", r.wall_s),
                RunStatus::Cancelled => format!("cancelled after {:.1} s", r.wall_s),
                RunStatus::Failed(m) => format!("failed: {m}"),
            };
            (1.0, text)
        }
        (Some((step, total, _)), None) => {
            let mut text = format!("{} · step {step}/{total}", v.phase);
            if let Some(eta) = v.eta() {
                text.push_str(&format!(" · ETA {eta:.0} s"));
            }
            if let Some(tps) = v.tokens_per_s() {
                text.push_str(&format!(" · {:.1}K tok/s", tps / 1000.0));
            }
            if !v.device.is_empty() {
                text.push_str(&format!(" · {}", v.device));
            }
            ((step as f64 / total.max(1) as f64).clamp(0.0, 1.0), text)
        }
        (None, None) if s.running() => (0.0, format!("{} · starting…", v.phase)),
        _ => (0.0, "idle · s starts a run".to_string()),
    };
    let colour = match &v.report {
        Some(r) if r.status == RunStatus::Passed => Color::Green,
        Some(r) if matches!(r.status, RunStatus::Failed(_) | RunStatus::ClaimsFailed) => Color::Red,
        _ => Color::Rgb(0x5f, 0x87, 0xd7),
    };
    frame.render_widget(
        Gauge::default()
            .ratio(ratio)
            .label(label)
            .gauge_style(Style::default().fg(colour).bg(Color::Rgb(0x26, 0x26, 0x26))),
        area,
    );
}
