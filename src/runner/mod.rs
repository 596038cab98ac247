//! Runs a drill on a worker thread and streams its events.
//!
//! The worker owns the run: it creates `runs/<drill>/<timestamp>/`, writes
//! `config.toml`, appends every event to `metrics.jsonl` as it happens (an
//! interrupted run keeps what it logged), and finishes with `report.json`.
//! Cancellation is a flag the drill checks between steps. A panic or an error
//! inside the drill ends the run as failed with its message; the caller (the
//! TUI) keeps running.

pub mod diff;
pub mod kept;
pub mod predict;
pub mod sweep;

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex, Once};
use std::thread::JoinHandle;
use std::time::Instant;

use anyhow::{anyhow, Context, Result};
use serde::{Deserialize, Serialize};

use crate::content::DrillMeta;
use crate::drills::{self, Cancelled, Drill, Event, ParamMap, Report, RunCtx, RunStatus};
use crate::exercises::plug::{Plugs, UsedScript};
use crate::ml::device::{self, DeviceChoice};

/// What to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    pub drill: String,
    pub preset: String,
    pub seed: u64,
    pub device: DeviceChoice,
    pub params: ParamMap,
    /// Learner scripts the run trains with, by exercise id (`--use ID=FILE`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub uses: BTreeMap<String, UsedScript>,
    /// Save the models the run trains into its directory (`models/`, see
    /// [`kept`]); a sweep's seeds do not.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub keep: bool,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

impl RunConfig {
    /// A run of `drill` with `preset`'s parameters `params`, on `device`, that keeps its models.
    pub fn new(drill: &str, preset: &str, seed: u64, device: DeviceChoice, params: ParamMap) -> RunConfig {
        RunConfig {
            drill: drill.to_string(),
            preset: preset.to_string(),
            seed,
            device,
            params,
            uses: BTreeMap::new(),
            keep: true,
        }
    }
}

/// Parameters of a preset with `key=value` overrides applied and validated:
/// each value against `drill.toml` (type, range, choices), then the whole set
/// by the drill's code (its typed parameters and the rules between them).
pub fn resolve_params(meta: &DrillMeta, preset: &str, sets: &[(String, String)]) -> Result<ParamMap, String> {
    let mut values = meta.preset_values(preset)?;
    for (k, v) in sets {
        let spec = meta.param(k).ok_or_else(|| {
            let keys: Vec<_> = meta.params.iter().map(|p| p.key.as_str()).collect();
            crate::t!("run-no-param", id = meta.id.as_str(), key = k.as_str(), keys = keys.join(", "))
        })?;
        values.insert(k.clone(), spec.parse_str(v)?);
    }
    check_params(meta, &values)?;
    Ok(values)
}

/// The drill's own check of a full parameter set (a drill without code in
/// this build has nothing to check), and [`check_model`].
pub fn check_params(meta: &DrillMeta, values: &ParamMap) -> Result<(), String> {
    check_model(meta, values)?;
    match drills::find(&meta.id) {
        Some(d) => d.check(values),
        None => Ok(()),
    }
}

/// The text parameter that picks a drill's model (`--model SPEC` sets it).
pub const MODEL_PARAM: &str = "model";

/// A drill's `model` value (a text param named [`MODEL_PARAM`]), checked
/// before anything runs: `tiny`, or a path or a registered name that
/// [`models::resolve`](crate::ml::models::resolve) finds. The value is kept
/// as given; the drill resolves it again when it runs.
pub fn check_model(meta: &DrillMeta, values: &ParamMap) -> Result<(), String> {
    use crate::content::{ParamKind, ParamValue};
    use crate::ml::models;
    if meta.param(MODEL_PARAM).is_none_or(|p| p.kind != ParamKind::Text) {
        return Ok(());
    }
    match values.get(MODEL_PARAM) {
        Some(ParamValue::Text(spec)) if spec.trim() != models::TINY => {
            models::resolve(spec).map(|_| ()).map_err(|e| format!("{MODEL_PARAM}: {e:#}"))
        }
        _ => Ok(()),
    }
}

pub struct RunHandle {
    pub rx: Receiver<Event>,
    pub dir: PathBuf,
    pub config: RunConfig,
    cancel: Arc<AtomicBool>,
    join: Option<JoinHandle<()>>,
    /// What the run could not write.
    unsaved: Arc<Mutex<Unsaved>>,
}

/// What a run could not write: the first failed write of its files (what,
/// where, why), and why its models were not kept.
#[derive(Default)]
struct Unsaved {
    files: Option<String>,
    models: Option<String>,
}

impl RunHandle {
    /// Why the run's files are not complete (a write of `metrics.jsonl` or
    /// `report.json` failed: a full disk, a read-only folder): `None` when
    /// everything was written. Such a run ends as failed, "not saved".
    pub fn unsaved(&self) -> Option<String> {
        self.unsaved.lock().ok().and_then(|u| u.files.clone())
    }

    /// Why the models the drill kept were not written (the run's metrics and
    /// report are whole; only Try cannot open it): `None` when they were, or
    /// when the drill keeps none.
    pub fn unkept(&self) -> Option<String> {
        self.unsaved.lock().ok().and_then(|u| u.models.clone())
    }

    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    pub fn is_finished(&self) -> bool {
        self.join.as_ref().is_none_or(|j| j.is_finished())
    }

    /// Block until the worker ends (events stay readable from `rx`).
    pub fn join(&mut self) {
        if let Some(j) = self.join.take() {
            let _ = j.join();
        }
    }
}

impl Drop for RunHandle {
    fn drop(&mut self) {
        // Leaving a screen or quitting stops the run; it records itself as cancelled.
        self.cancel();
    }
}

/// Panics in drill threads are reported as failed runs; they must not print
/// over the TUI nor run the terminal-restoring hook meant for the main thread.
pub fn install_panic_filter() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let in_drill = std::thread::current().name().is_some_and(|n| n.starts_with("drill-"));
            if !in_drill {
                previous(info);
            }
        }));
    });
}

/// A new, empty `root/drill/<timestamp>[-n]` directory. `create_dir` (not
/// `create_dir_all`) claims the name atomically, so runs started in the same
/// second (a sweep with several jobs, two windows) never share a directory.
fn timestamp_dir(root: &Path, drill: &str) -> Result<PathBuf> {
    let base = root.join(drill);
    std::fs::create_dir_all(&base).with_context(|| format!("creating {}", base.display()))?;
    let stamp = chrono::Local::now().format("%Y-%m-%dT%H-%M-%S").to_string();
    for n in 0.. {
        let dir = if n == 0 { base.join(&stamp) } else { base.join(format!("{stamp}-{n}")) };
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e).with_context(|| format!("creating {}", dir.display())),
        }
    }
    unreachable!("an unbounded range ends only by returning")
}

/// Start a run of `meta`'s drill. Errors here are setup errors (unknown drill,
/// unwritable data dir); errors of the run itself arrive as a failed report.
pub fn start(meta: &DrillMeta, config: RunConfig, runs_root: &Path) -> Result<RunHandle> {
    let drill: &'static dyn Drill =
        drills::find(&meta.id).ok_or_else(|| anyhow!("drill \"{}\" has no implementation in this build", meta.id))?;
    start_with(drill, meta, config, runs_root)
}

/// Start a run of a given drill implementation (tests use their own drills).
pub fn start_with(
    drill: &'static dyn Drill,
    meta: &DrillMeta,
    config: RunConfig,
    runs_root: &Path,
) -> Result<RunHandle> {
    install_panic_filter();
    let dir = timestamp_dir(runs_root, &meta.id)?;
    let files = || -> Result<std::fs::File> {
        let config_path = dir.join("config.toml");
        crate::fsutil::write_atomic(&config_path, toml::to_string_pretty(&config)?.as_bytes())
            .with_context(|| crate::t!("run-cannot-write", path = config_path.display().to_string()))?;
        let metrics = dir.join("metrics.jsonl");
        std::fs::File::create(&metrics)
            .with_context(|| crate::t!("run-cannot-write", path = metrics.display().to_string()))
    };
    let file = match files() {
        Ok(f) => f,
        Err(e) => {
            // A run that cannot start leaves nothing behind (no empty config.toml to read as a run).
            let _ = std::fs::remove_dir_all(&dir);
            return Err(e);
        }
    };
    let (tx, rx) = mpsc::channel();
    let cancel = Arc::new(AtomicBool::new(false));
    let meta = meta.clone();
    let cfg = config.clone();
    let worker_cancel = cancel.clone();
    let worker_dir = dir.clone();
    // What the run says (its views, log and errors) is in the language of the screen that started it.
    let lang = crate::i18n::current();
    let unsaved: Arc<Mutex<Unsaved>> = Arc::default();
    let worker_unsaved = unsaved.clone();
    let join = std::thread::Builder::new()
        .name(format!("drill-{}", meta.id))
        .spawn(move || {
            crate::i18n::set(lang);
            worker(drill, meta, cfg, worker_cancel, worker_dir, file, tx, worker_unsaved)
        })
        .context("starting the drill thread")?;
    Ok(RunHandle { rx, dir, config, cancel, join: Some(join), unsaved })
}

#[allow(clippy::too_many_arguments)]
fn worker(
    drill: &'static dyn Drill,
    meta: DrillMeta,
    cfg: RunConfig,
    cancel: Arc<AtomicBool>,
    dir: PathBuf,
    file: std::fs::File,
    tx: mpsc::Sender<Event>,
    unsaved: Arc<Mutex<Unsaved>>,
) {
    let started = Instant::now();
    let finals: Arc<Mutex<BTreeMap<String, f64>>> = Arc::default();
    let phases: Arc<Mutex<Vec<(String, f64)>>> = Arc::default();
    let writer = Arc::new(Mutex::new(BufWriter::new(file)));
    let metrics_path = dir.join("metrics.jsonl");
    // The first failed write of the run's files, said once (the run goes on, and ends as not saved).
    let failed = {
        let unsaved = unsaved.clone();
        move |path: &Path, e: &dyn std::fmt::Display| {
            let mut u = unsaved.lock().expect("unsaved");
            if u.files.is_none() {
                u.files = Some(crate::t!("run-write-failed", path = path.display().to_string(), error = e.to_string()));
            }
        }
    };
    let sink = {
        let finals = finals.clone();
        let phases = phases.clone();
        let writer = writer.clone();
        let tx = tx.clone();
        let failed = failed.clone();
        let metrics_path = metrics_path.clone();
        let mut last_flush = Instant::now();
        move |e: Event| {
            match &e {
                Event::Metric { name, value, .. } => {
                    finals.lock().expect("finals").insert(name.clone(), *value);
                }
                Event::Phase(p) => phases.lock().expect("phases").push((p.clone(), started.elapsed().as_secs_f64())),
                _ => {}
            }
            if let Ok(line) = serde_json::to_string(&e) {
                let mut w = writer.lock().expect("writer");
                let mut written = writeln!(w, "{line}");
                let important = !matches!(e, Event::Metric { .. } | Event::Progress { .. });
                if written.is_ok() && (important || last_flush.elapsed().as_millis() > 250) {
                    written = w.flush();
                    last_flush = Instant::now();
                }
                if let Err(err) = written {
                    failed(&metrics_path, &err);
                }
            }
            let _ = tx.send(e);
        }
    };
    let mut sink: Box<dyn FnMut(Event) + Send> = Box::new(sink);
    let plugs = Plugs::new(&cfg.drill, &cfg.uses);
    let (status, claims, mut sink) = match (device::select_noted(cfg.device), plugs) {
        (Err(e), _) => {
            sink(Event::Log(crate::t!("run-log-device", error = e.to_string())));
            (RunStatus::Failed(e.to_string()), Vec::new(), sink)
        }
        (_, Err(e)) => {
            sink(Event::Log(crate::t!("run-log-your-function", error = e.as_str())));
            (RunStatus::Failed(e), Vec::new(), sink)
        }
        (Ok((device, device_note)), Ok(plugs)) => {
            sink(Event::Started {
                drill: cfg.drill.clone(),
                preset: cfg.preset.clone(),
                seed: cfg.seed,
                device: device::describe(&device),
                params: cfg.params.clone(),
            });
            let mut ctx = RunCtx::new(meta.clone(), cfg.params.clone(), &cfg.preset, cfg.seed, device, cancel, sink);
            if let Some(note) = device_note {
                ctx.log(note);
            }
            for (id, used) in &cfg.uses {
                ctx.log(crate::t!("run-log-training-with", id = id.as_str(), file = used.file.as_str()));
            }
            ctx.plugs = plugs;
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drill.run(&mut ctx)));
            let status = match outcome {
                Ok(Ok(())) => {
                    let measured: Vec<&str> = ctx.claims().iter().map(|c| c.id.as_str()).collect();
                    let missing: Vec<&str> = meta
                        .claims
                        .iter()
                        .filter(|c| c.applies_to(&cfg.preset))
                        .map(|c| c.id.as_str())
                        .filter(|id| !measured.contains(id))
                        .collect();
                    if !missing.is_empty() {
                        RunStatus::Failed(crate::t!("run-ended-without-measuring", names = missing.join(", ")))
                    } else if ctx.claims().iter().all(|c| c.pass || c.observation) {
                        RunStatus::Passed
                    } else {
                        RunStatus::ClaimsFailed
                    }
                }
                Ok(Err(e)) if e.is::<Cancelled>() => RunStatus::Cancelled,
                Ok(Err(e)) => RunStatus::Failed(format!("{e:#}")),
                Err(panic) => {
                    let msg = panic
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "unknown panic".into());
                    RunStatus::Failed(crate::t!("run-panicked", msg = msg))
                }
            };
            let claims = ctx.claims().to_vec();
            // The files a drill attached (a report card) go with any run that did not fail.
            if !matches!(status, RunStatus::Failed(_)) {
                if let Err(e) = ctx.save_attached(&dir) {
                    ctx.log(crate::t!("run-log-attach-failed", error = format!("{e:#}")));
                }
            }
            // A finished or cancelled run keeps its models (a failed one may hold NaNs).
            if cfg.keep && !matches!(status, RunStatus::Failed(_)) {
                unsaved.lock().expect("unsaved").models = keep_models(&mut ctx, &dir);
            }
            (status, claims, ctx.into_sink())
        }
    };
    // Everything logged so far is on disk, or the run says it is not.
    let flushed = writer.lock().expect("writer").flush();
    if let Err(e) = flushed {
        failed(&metrics_path, &e);
    }
    let not_saved = |status: RunStatus| match unsaved.lock().expect("unsaved").files.clone() {
        Some(why) => RunStatus::Failed(crate::t!("run-not-saved", why = why)),
        None => status,
    };
    let mut report = Report {
        drill: cfg.drill.clone(),
        preset: cfg.preset.clone(),
        seed: cfg.seed,
        status: not_saved(status),
        claims,
        wall_s: started.elapsed().as_secs_f64(),
        finals: finals.lock().expect("finals").clone(),
        phases: phases.lock().expect("phases").clone(),
    };
    let report_path = dir.join("report.json");
    let written = serde_json::to_vec_pretty(&report)
        .map_err(anyhow::Error::from)
        .and_then(|json| crate::fsutil::write_atomic(&report_path, &json));
    if let Err(e) = written {
        failed(&report_path, &format!("{e:#}"));
        report.status = not_saved(report.status);
    }
    sink(Event::Finished(report));
    let flushed = writer.lock().expect("writer").flush();
    if let Err(e) = flushed {
        failed(&metrics_path, &e);
    }
}

/// Write the models the drill kept into `dir/models/`, say so in the log,
/// then apply the keep rule to the drill's older runs ([`kept`]). Returns
/// why the models could not be written, if they could not.
fn keep_models(ctx: &mut RunCtx, dir: &Path) -> Option<String> {
    match ctx.save_kept(dir) {
        Ok(Some(index)) => {
            let arms: Vec<&str> = index.arms.iter().map(|a| a.id.as_str()).collect();
            ctx.log(crate::t!(
                "run-log-kept",
                arms = arms.join(", "),
                size = crate::ml::models::human_size(index.bytes())
            ));
            if let Some(root) = dir.parent().and_then(Path::parent) {
                if let Err(e) = kept::prune(root, Some(&ctx.meta.id), false) {
                    ctx.log(crate::t!("run-log-prune-failed", error = format!("{e:#}")));
                }
            }
        }
        Ok(None) => {}
        Err(e) => {
            let why = format!("{e:#}");
            ctx.log(crate::t!("run-log-keep-failed", error = why.as_str()));
            return Some(why);
        }
    }
    None
}

/// A saved run, as listed in the runs view and used for overlays.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    pub dir: PathBuf,
    pub name: String,
    pub config: Option<RunConfig>,
    pub report: Option<Report>,
    /// The models it kept ([`kept::weights`]), as read with the record.
    pub weights: kept::Weights,
    /// Pinned: its weights are kept whatever the keep rule says.
    pub pinned: bool,
}

/// Saved runs of a drill, newest first.
pub fn list_runs(runs_root: &Path, drill: &str) -> Vec<RunRecord> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(runs_root.join(drill)) else { return out };
    for e in entries.flatten() {
        let dir = e.path();
        if !dir.is_dir() {
            continue;
        }
        out.push(load_run(&dir));
    }
    out.sort_by(|a, b| b.name.cmp(&a.name));
    out
}

/// The largest `report.json` or `config.toml` read (a report is a few KB;
/// a config holding a plugged script, at most that script's size).
pub const MAX_REPORT_BYTES: u64 = 4 << 20;
/// The largest `metrics.jsonl` read.
pub const MAX_METRICS_BYTES: u64 = 1 << 30;

pub fn load_run(dir: &Path) -> RunRecord {
    // Only regular files: a FIFO in a run's folder must not hang whoever lists the runs.
    let read = |name: &str| crate::fsutil::read_regular_text(&dir.join(name), MAX_REPORT_BYTES).ok();
    let config = read("config.toml").and_then(|s| toml::from_str(&s).ok());
    let report = read("report.json").and_then(|s| serde_json::from_str(&s).ok());
    RunRecord {
        dir: dir.to_path_buf(),
        name: dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
        config,
        report,
        weights: kept::weights(dir),
        pinned: kept::is_pinned(dir),
    }
}

/// Whether the run has a `report.json` that does not read (corrupt, not a
/// regular file): it is not "interrupted", and says so.
pub fn report_unreadable(record: &RunRecord) -> bool {
    record.report.is_none() && std::fs::symlink_metadata(record.dir.join("report.json")).is_ok()
}

/// How a saved run did not finish, for exports and messages: "interrupted
/// at step 120 of 300" (no report: the process was killed), "cancelled at
/// step …", "failed at step …: why". `None` for a run that finished.
pub fn incomplete(record: &RunRecord, events: &[Event]) -> Option<String> {
    // The English word; the message of each language words it (the zh one chooses by it).
    let how = match record.report.as_ref().map(|r| &r.status) {
        None if report_unreadable(record) => "corrupt",
        None => "interrupted",
        Some(RunStatus::Cancelled) => "cancelled",
        Some(RunStatus::Failed(_)) => "failed",
        Some(RunStatus::Passed | RunStatus::ClaimsFailed) => return None,
    };
    let at = events.iter().rev().find_map(|e| match e {
        Event::Progress { step, total, .. } => Some((step.to_string(), total.to_string())),
        _ => None,
    });
    let phase = events.iter().rev().find_map(|e| match e {
        Event::Phase(p) => Some(format!(" {}", crate::t!("run-phase", phase = p.as_str()))),
        _ => None,
    });
    Some(match at {
        Some((step, total)) => {
            format!(
                "{}{}",
                crate::t!("run-incomplete-at", how = how, step = step, total = total),
                phase.unwrap_or_default()
            )
        }
        None => crate::t!("run-incomplete-start", how = how),
    })
}

/// Events of a saved run; a torn last line (a killed process) is skipped.
/// (A write cut in the middle of a multi-byte character leaves bytes that are
/// not UTF-8: that line is torn too, the others still load.)
pub fn load_events(dir: &Path) -> Result<Vec<Event>> {
    Ok(load_events_counted(dir)?.0)
}

/// [`load_events`], and how many non-empty lines did not read as an event.
pub fn load_events_counted(dir: &Path) -> Result<(Vec<Event>, usize)> {
    let bytes = crate::fsutil::read_regular(&dir.join("metrics.jsonl"), MAX_METRICS_BYTES)
        .with_context(|| format!("reading {}/metrics.jsonl", dir.display()))?;
    let mut skipped = 0;
    let events = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .filter_map(|l| {
            let e = serde_json::from_slice(l).ok();
            skipped += usize::from(e.is_none());
            e
        })
        .collect();
    Ok((events, skipped))
}

/// One point of a series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub step: f64,
    pub t: f64,
    pub value: f64,
}

/// Metric series by name, in the order they first appeared.
pub fn series(events: &[Event]) -> Vec<(String, Vec<Point>)> {
    let mut out: Vec<(String, Vec<Point>)> = Vec::new();
    for e in events {
        if let Event::Metric { step, name, value, t } = e {
            let p = Point { step: *step as f64, t: *t, value: *value };
            match out.iter_mut().find(|(n, _)| n == name) {
                Some((_, pts)) => pts.push(p),
                None => out.push((name.clone(), vec![p])),
            }
        }
    }
    out
}
