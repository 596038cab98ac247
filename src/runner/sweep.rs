//! A seed sweep: the same drill, preset and parameters for many seeds, one
//! run after another (or a few at once), and per claim how often it held and
//! the spread of its value.
//!
//! Variance across seeds is a lesson of its own in RL: a claim that holds on
//! one seed may not hold on the next, and a change of one parameter is only
//! visible when it moves the numbers by more than the seeds do. The drills'
//! READMEs quote sweeps of seeds 1–20; `agentlab drill sweep` and the drill
//! screen (`S`) run them, and every sweep is saved as
//! `<data>/sweeps/<drill>/<timestamp>.json` next to the runs it made.
//!
//! The record is written again (atomically) each time a seed finishes, so a
//! sweep killed halfway leaves the seeds it finished; running the same sweep
//! again (same drill, preset, parameters and seeds) continues with the seeds
//! that are missing ([`resumable`], [`Record`]). Each seed's metric stream
//! stays in its run directory; [`SeedStreams`] reads them back for the seed
//! bands ([`crate::plot::band`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use super::{load_events, series, start, Point, RunConfig};
use crate::content::{Cmp, DrillMeta};
use crate::drills::{fmt_value, Event, ParamMap, RunStatus};
use crate::ml::device::DeviceChoice;

/// Parse `1-20`, `3`, `1,4,9` or `1-5,11-12` into a list of seeds.
pub fn parse_seeds(s: &str) -> Result<Vec<u64>, String> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let num = |t: &str| crate::numbers::whole_number(t, &crate::t!("setup-what-seeds-seed"), 0, u64::MAX);
        if part.starts_with('-') {
            num(part)?; // a negative seed: says what a seed is
        }
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (num(a)?, num(b)?);
                if b < a {
                    return Err(crate::t!("run-seeds-backwards", a = a.to_string(), b = b.to_string()));
                }
                if b - a >= 1000 {
                    return Err(crate::t!("run-seeds-range-too-long", a = a.to_string(), b = b.to_string()));
                }
                out.extend(a..=b);
            }
            None => out.push(num(part)?),
        }
    }
    if out.is_empty() {
        return Err(crate::t!("run-seeds-none"));
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|s| seen.insert(*s));
    if out.len() > 1000 {
        return Err(crate::t!("run-seeds-too-many", n = out.len().to_string()));
    }
    Ok(out)
}

/// What a sweep runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepConfig {
    pub drill: String,
    pub preset: String,
    pub params: ParamMap,
    pub seeds: Vec<u64>,
    pub device: DeviceChoice,
}

impl SweepConfig {
    /// Whether `other` is the same sweep: drill, preset, parameters and
    /// seeds. The device is left out: `auto` and `cpu` pick the same CPU,
    /// and a sweep resumed from the other front end (TUI, CLI) is still it.
    pub fn same_sweep(&self, other: &SweepConfig) -> bool {
        self.drill == other.drill
            && self.preset == other.preset
            && self.params == other.params
            && self.seeds == other.seeds
    }
}

/// One claim's value on one seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimValue {
    pub id: String,
    pub measured: f64,
    pub pass: bool,
}

/// One seed's run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedResult {
    pub seed: u64,
    pub status: RunStatus,
    pub wall_s: f64,
    pub claims: Vec<ClaimValue>,
    pub run_dir: PathBuf,
}

/// A claim over every seed that finished.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimStats {
    pub id: String,
    pub text: String,
    pub op: Cmp,
    pub threshold: f64,
    pub observation: bool,
    /// Seeds on which it held, out of `runs`.
    pub held: usize,
    pub runs: usize,
    /// NaN (mean) and ±∞ (min, max) while no seed measured the claim: JSON
    /// writes them as `null`, read back as NaN.
    #[serde(deserialize_with = "nan_if_null")]
    pub mean: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub min: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub max: f64,
}

/// A number, or NaN for the `null` JSON writes for a non-finite one: a
/// record saved before any seed measured a claim (a first seed that failed)
/// must load again.
fn nan_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// A whole sweep, as saved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sweep {
    pub config: SweepConfig,
    pub results: Vec<SeedResult>,
    pub claims: Vec<ClaimStats>,
    /// Median wall time of a run, and the whole sweep's wall time.
    pub median_wall_s: f64,
    pub total_wall_s: f64,
    /// False when the sweep was cancelled before every seed ran.
    pub complete: bool,
    /// True in the record saved after each seed while the sweep runs, false
    /// once it ended (every seed ran, or it was cancelled): a record left
    /// true that nothing writes any more was interrupted (killed). Records
    /// from before it, written only at the end, read as false.
    #[serde(default)]
    pub in_progress: bool,
}

impl Sweep {
    /// Per-claim statistics over the results so far.
    pub fn summarise(meta: &DrillMeta, config: SweepConfig, mut results: Vec<SeedResult>, total_wall_s: f64) -> Sweep {
        results.sort_by_key(|r| r.seed);
        let claims = meta
            .claims
            .iter()
            .filter(|c| c.applies_to(&config.preset))
            .map(|c| {
                let values: Vec<&ClaimValue> =
                    results.iter().flat_map(|r| r.claims.iter().filter(|v| v.id == c.id)).collect();
                let xs: Vec<f64> = values.iter().map(|v| v.measured).collect();
                let n = xs.len();
                ClaimStats {
                    id: c.id.clone(),
                    text: c.text.clone(),
                    op: c.op,
                    threshold: c.threshold,
                    observation: c.observation,
                    held: values.iter().filter(|v| v.pass).count(),
                    runs: n,
                    mean: if n == 0 { f64::NAN } else { xs.iter().sum::<f64>() / n as f64 },
                    min: xs.iter().copied().fold(f64::INFINITY, f64::min),
                    max: xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                }
            })
            .collect();
        // A cancelled run's time is not a run's time.
        let mut walls: Vec<f64> =
            results.iter().filter(|r| r.status != RunStatus::Cancelled).map(|r| r.wall_s).collect();
        walls.sort_by(f64::total_cmp);
        let median_wall_s = match walls.len() {
            0 => 0.0,
            n if n % 2 == 1 => walls[n / 2],
            n => (walls[n / 2 - 1] + walls[n / 2]) / 2.0,
        };
        // A seed whose run was cancelled did not run either.
        let complete = results.len() == config.seeds.len() && results.iter().all(|r| r.status != RunStatus::Cancelled);
        Sweep { config, results, claims, median_wall_s, total_wall_s, complete, in_progress: false }
    }

    /// Seeds whose run finished (a cancelled one did not).
    pub fn done(&self) -> usize {
        self.results.iter().filter(|r| r.status != RunStatus::Cancelled).count()
    }

    /// "3 of 5 seeds, interrupted" for a sweep that did not run every seed
    /// (killed, or cancelled); `None` for a complete one.
    pub fn partial(&self) -> Option<String> {
        if self.complete {
            return None;
        }
        // The English word; the zh message chooses by it.
        let how = if self.in_progress { "interrupted" } else { "cancelled" };
        let (done, total) = (self.done().to_string(), self.config.seeds.len().to_string());
        Some(crate::t!("run-sweep-partial", done = done, total = total, how = how))
    }

    /// Every claim (not observation) held on every seed, and every run finished.
    pub fn all_held(&self) -> bool {
        self.complete
            && self.results.iter().all(|r| matches!(r.status, RunStatus::Passed | RunStatus::ClaimsFailed))
            && self.claims.iter().filter(|c| !c.observation).all(|c| c.held == c.runs && c.runs == self.results.len())
    }

    /// The table a learner reads (and the drill READMEs quote).
    pub fn table(&self) -> String {
        let head = crate::t!(
            "run-sweep-head",
            drill = self.config.drill.as_str(),
            preset = self.config.preset.as_str(),
            seeds = seeds_label(&self.config.seeds),
            median = format!("{:.1}", self.median_wall_s),
            total = format!("{:.0}", self.total_wall_s)
        );
        let incomplete =
            self.partial().map(|p| format!(" · {}", crate::t!("run-sweep-incomplete", what = p))).unwrap_or_default();
        let mut s = format!("{head}{incomplete}\n");
        // Padded by terminal columns: a Chinese header is two columns a character.
        let col = |key: &str| crate::i18n::tr(key, None);
        s.push_str(&format!(
            "{} {} {} {} {}   {}\n",
            pad_right(&col("run-col-claim"), 32),
            pad_left(&col("run-col-held"), 7),
            pad_left(&col("run-col-mean"), 10),
            pad_left(&col("run-col-min"), 10),
            pad_left(&col("run-col-max"), 10),
            col("run-col-threshold")
        ));
        let observation = format!(" {}", col("run-observation"));
        for c in &self.claims {
            let held = format!("{}/{}", c.held, c.runs);
            let kind = if c.observation { observation.as_str() } else { "" };
            s.push_str(&format!(
                "{:<32} {:>7} {:>10} {:>10} {:>10}   {} {}{kind}\n",
                c.id,
                held,
                fmt_value(c.mean),
                fmt_value(c.min),
                fmt_value(c.max),
                c.op.symbol(),
                c.threshold
            ));
        }
        let failed: Vec<String> = self
            .results
            .iter()
            .filter(|r| !matches!(r.status, RunStatus::Passed | RunStatus::ClaimsFailed))
            .map(|r| crate::t!("run-seed-status", seed = r.seed.to_string(), status = r.status.to_string()))
            .collect();
        if !failed.is_empty() {
            s.push_str(&format!("{}\n", crate::t!("run-not-finished", runs = failed.join("; "))));
        }
        s
    }
}

/// `text` and spaces after it to `width` terminal columns.
fn pad_right(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    format!("{text}{}", " ".repeat(width.saturating_sub(text.width())))
}

/// Spaces and `text` after them to `width` terminal columns.
fn pad_left(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    format!("{}{text}", " ".repeat(width.saturating_sub(text.width())))
}

/// `1-20` for a contiguous range, else the list.
pub fn seeds_label(seeds: &[u64]) -> String {
    let contiguous = seeds.windows(2).all(|w| w[1] == w[0] + 1);
    match (seeds.first(), seeds.last()) {
        (Some(a), Some(b)) if contiguous && seeds.len() > 2 => format!("{a}-{b}"),
        _ => seeds.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(","),
    }
}

/// Where a sweep is saved as it goes, and what an earlier, interrupted try
/// of the same sweep already did.
#[derive(Debug, Clone, Default)]
pub struct Record {
    /// `<data>/sweeps`; `None`: nothing is saved.
    root: Option<PathBuf>,
    /// The file, once there is one: a fresh sweep names it at its first
    /// save, a resumed one keeps its own.
    pub path: Option<PathBuf>,
    /// Seeds the earlier try finished (in seed order).
    pub done: Vec<SeedResult>,
    /// The earlier try's wall time.
    pub wall_s: f64,
}

impl Record {
    /// A new sweep, saved under `sweeps_root`.
    pub fn fresh(sweeps_root: &Path) -> Record {
        Record { root: Some(sweeps_root.to_path_buf()), ..Record::default() }
    }

    /// A sweep that saves nothing (tests, previews).
    pub fn unsaved() -> Record {
        Record::default()
    }

    /// Continue `saved` (read from `path`): its finished seeds count as done;
    /// a seed it cancelled runs again.
    pub fn resume(path: PathBuf, saved: &Sweep) -> Record {
        let done: Vec<SeedResult> =
            saved.results.iter().filter(|r| r.status != RunStatus::Cancelled).cloned().collect();
        let root = path.parent().and_then(Path::parent).map(Path::to_path_buf);
        Record { root, path: Some(path), done, wall_s: saved.total_wall_s }
    }

    /// The seeds of `config` still to run, in its order.
    pub fn pending(&self, config: &SweepConfig) -> Vec<u64> {
        config.seeds.iter().copied().filter(|s| !self.done.iter().any(|r| r.seed == *s)).collect()
    }

    /// Write `sweep` to the record's file (naming it at the first save).
    /// Returns the path; `None` for an unsaved record.
    fn write(&mut self, sweep: &Sweep) -> Result<Option<PathBuf>> {
        let Some(root) = &self.root else { return Ok(None) };
        let path = match &self.path {
            Some(p) => p.clone(),
            None => fresh_path(root, &sweep.config.drill),
        };
        crate::fsutil::write_atomic(&path, &serde_json::to_vec_pretty(sweep)?)?;
        self.path = Some(path.clone());
        Ok(Some(path))
    }

    /// Save the ended sweep; `Ok(None)` when no seed of it ever finished
    /// (nothing worth saving) or the record saves nothing.
    pub fn finish(&mut self, sweep: &Sweep) -> Result<Option<PathBuf>> {
        if self.path.is_none() && sweep.done() == 0 {
            return Ok(None);
        }
        self.write(sweep)
    }
}

/// The saved sweep that running `config` again continues: the newest saved
/// sweep of the same drill, preset, parameters and seeds
/// ([`SweepConfig::same_sweep`]), when it did not run every seed.
pub fn resumable(sweeps_root: &Path, config: &SweepConfig) -> Option<(PathBuf, Sweep)> {
    list(sweeps_root, &config.drill).into_iter().find(|(_, s)| s.config.same_sweep(config)).filter(|(_, s)| !s.complete)
}

/// Run the seeds of `config` that `record` has not done (at most `jobs` at
/// a time) and return the whole sweep, the record's seeds included. Each
/// seed that finishes is saved at once in the record's file (marked
/// `in_progress`), so a killed sweep keeps it; the caller saves the end
/// ([`Record::finish`]). `on_result` sees each new seed as it finishes (in
/// finishing order); `cancel` stops the sweep after the runs under way
/// (which it cancels too).
pub fn run_sweep(
    meta: &DrillMeta,
    config: &SweepConfig,
    runs_root: &Path,
    jobs: usize,
    cancel: &AtomicBool,
    record: &mut Record,
    mut on_result: impl FnMut(&SeedResult),
) -> Result<Sweep> {
    if config.seeds.is_empty() {
        bail!("a sweep needs at least one seed");
    }
    let started = std::time::Instant::now();
    let pending = record.pending(config);
    let queue: Mutex<std::vec::IntoIter<u64>> = Mutex::new(pending.clone().into_iter());
    let (tx, rx) = mpsc::channel::<Result<SeedResult>>();
    let lang = crate::i18n::current();
    let results = std::thread::scope(|scope| -> Result<Vec<SeedResult>> {
        for _ in 0..jobs.clamp(1, pending.len().max(1)) {
            let tx = tx.clone();
            let queue = &queue;
            scope.spawn(move || loop {
                crate::i18n::set(lang);
                if cancel.load(Ordering::Relaxed) {
                    return;
                }
                let Some(seed) = queue.lock().expect("seed queue").next() else { return };
                let r = run_seed(meta, config, seed, runs_root, cancel);
                if tx.send(r).is_err() {
                    return;
                }
            });
        }
        drop(tx);
        let mut out = record.done.clone();
        for r in rx {
            let r = r?;
            on_result(&r);
            let finished = r.status != RunStatus::Cancelled;
            out.push(r);
            if finished {
                let wall = record.wall_s + started.elapsed().as_secs_f64();
                let mut so_far = Sweep::summarise(meta, config.clone(), out.clone(), wall);
                so_far.in_progress = true;
                record.write(&so_far).context("saving the sweep after a seed")?;
            }
        }
        Ok(out)
    })?;
    Ok(Sweep::summarise(meta, config.clone(), results, record.wall_s + started.elapsed().as_secs_f64()))
}

fn run_seed(
    meta: &DrillMeta,
    config: &SweepConfig,
    seed: u64,
    runs_root: &Path,
    cancel: &AtomicBool,
) -> Result<SeedResult> {
    let run = RunConfig {
        drill: config.drill.clone(),
        preset: config.preset.clone(),
        seed,
        device: config.device,
        params: config.params.clone(),
        uses: Default::default(),
        // Twenty seeds' weights would crowd out the learner's own runs.
        keep: false,
    };
    let mut handle = start(meta, run, runs_root)?;
    let mut report = None;
    loop {
        // Checked on every event, not only when none comes: a run streams
        // metrics far more often than the timeout, and must still stop.
        if cancel.load(Ordering::Relaxed) {
            handle.cancel();
        }
        match handle.rx.recv_timeout(std::time::Duration::from_millis(200)) {
            Ok(Event::Finished(r)) => {
                report = Some(r);
                break;
            }
            Ok(_) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    handle.join();
    let report = report.with_context(|| format!("seed {seed}: the run ended without a report"))?;
    Ok(SeedResult {
        seed,
        status: report.status,
        wall_s: report.wall_s,
        claims: report
            .claims
            .iter()
            .map(|c| ClaimValue { id: c.id.clone(), measured: c.measured, pass: c.pass })
            .collect(),
        run_dir: handle.dir.clone(),
    })
}

/// A new sweep file's name: `<root>/<drill>/<timestamp>[-n].json`.
fn fresh_path(sweeps_root: &Path, drill: &str) -> PathBuf {
    let stamp = chrono::Local::now().format("%Y-%m-%dT%H-%M-%S").to_string();
    let dir = sweeps_root.join(drill);
    let mut path = dir.join(format!("{stamp}.json"));
    let mut n = 1;
    while path.exists() {
        path = dir.join(format!("{stamp}-{n}.json"));
        n += 1;
    }
    path
}

/// Save a sweep as `<root>/<drill>/<timestamp>.json`; returns the path.
pub fn save(sweep: &Sweep, sweeps_root: &Path) -> Result<PathBuf> {
    let path = fresh_path(sweeps_root, &sweep.config.drill);
    crate::fsutil::write_atomic(&path, &serde_json::to_vec_pretty(sweep)?)?;
    Ok(path)
}

/// Read a saved sweep: a sweep file, or a folder of them (its newest).
/// The error says what the path is not.
pub fn load(path: &Path) -> Result<(PathBuf, Sweep)> {
    let file = if path.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .with_context(|| format!("reading {}", path.display()))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        files.pop().with_context(|| format!("{} holds no sweep (no .json file)", path.display()))?
    } else {
        path.to_path_buf()
    };
    let text = std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    let sweep = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a sweep record (as `agentlab drill sweep` saves)", file.display()))?;
    Ok((file, sweep))
}

/// The metric streams of a sweep's seeds, for the seed bands: each seed
/// whose run finished (passed or a claim failed), read from its run
/// directory. A cancelled or failed run stopped early and would bend the
/// bands; it is left out, and so is a run whose files are gone (`missing`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SeedStreams {
    pub seeds: Vec<u64>,
    /// `series[i]`: seed `seeds[i]`'s metric series (see [`series`]).
    pub series: Vec<Vec<(String, Vec<Point>)>>,
    /// Finished seeds whose metrics could not be read.
    pub missing: Vec<u64>,
}

impl SeedStreams {
    /// Every finished seed of `sweep`; `record` is the sweep's file, used to
    /// find runs whose data folder has moved.
    pub fn load(sweep: &Sweep, record: Option<&Path>) -> SeedStreams {
        let mut out = SeedStreams::default();
        for r in &sweep.results {
            out.add(r, record);
        }
        out
    }

    /// Add one seed (in seed order), if its run finished.
    pub fn add(&mut self, r: &SeedResult, record: Option<&Path>) {
        if !matches!(r.status, RunStatus::Passed | RunStatus::ClaimsFailed) || self.seeds.contains(&r.seed) {
            return;
        }
        match seed_events(r, record) {
            Some(series) => {
                let at = self.seeds.partition_point(|s| *s < r.seed);
                self.seeds.insert(at, r.seed);
                self.series.insert(at, series);
            }
            None => self.missing.push(r.seed),
        }
    }
}

/// A seed's series from its run directory; when that path is gone, from the
/// run of the same name under the runs folder beside the record's sweeps
/// folder (`<data>/sweeps/<drill>/x.json` → `<data>/runs/<drill>/<run>`).
fn seed_events(r: &SeedResult, record: Option<&Path>) -> Option<Vec<(String, Vec<Point>)>> {
    let moved = || {
        let data = record?.parent()?.parent()?.parent()?;
        let drill = record?.parent()?.file_name()?;
        Some(data.join("runs").join(drill).join(r.run_dir.file_name()?))
    };
    let dir = if r.run_dir.join("metrics.jsonl").is_file() { r.run_dir.clone() } else { moved()? };
    let s = series(&load_events(&dir).ok()?);
    (!s.is_empty()).then_some(s)
}

/// Saved sweeps of a drill, newest first.
pub fn list(sweeps_root: &Path, drill: &str) -> Vec<(PathBuf, Sweep)> {
    let mut out: Vec<(PathBuf, Sweep)> = std::fs::read_dir(sweeps_root.join(drill))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| {
            let s = std::fs::read_to_string(&p).ok()?;
            Some((p, serde_json::from_str(&s).ok()?))
        })
        .collect();
    out.sort_by(|a, b| b.0.cmp(&a.0));
    out
}

/// The per-claim values of a sweep's seeds, as one row per seed (for tables).
pub fn per_seed_rows(sweep: &Sweep) -> Vec<(u64, BTreeMap<String, f64>)> {
    sweep.results.iter().map(|r| (r.seed, r.claims.iter().map(|c| (c.id.clone(), c.measured)).collect())).collect()
}

/// What a sweep started with [`spawn`] sends.
#[derive(Debug)]
pub enum SweepEvent {
    /// A seed finished.
    Seed(SeedResult),
    /// The sweep ended (every seed ran, or it was cancelled) and was saved:
    /// `Ok(None)` when no seed finished (nothing worth saving).
    Ended { sweep: Sweep, saved: Result<Option<PathBuf>, String> },
    /// A run could not be started; the sweep stopped.
    Failed(String),
}

/// A sweep running on its own thread (the TUI's `S`).
pub struct SweepHandle {
    pub rx: mpsc::Receiver<SweepEvent>,
    cancel: Arc<AtomicBool>,
}

impl SweepHandle {
    /// Stop after the run under way, which is cancelled too.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

impl Drop for SweepHandle {
    fn drop(&mut self) {
        // Leaving the screen stops the sweep; the worker still saves the seeds that finished.
        self.cancel();
    }
}

/// Run [`run_sweep`] on a thread, saving into `record` as seeds finish and
/// when it ends; each seed and the end arrive on the handle's channel.
pub fn spawn(
    meta: &DrillMeta,
    config: SweepConfig,
    runs_root: PathBuf,
    mut record: Record,
    jobs: usize,
) -> Result<SweepHandle> {
    super::install_panic_filter();
    let (tx, rx) = mpsc::channel();
    let cancel = Arc::new(AtomicBool::new(false));
    let worker_cancel = cancel.clone();
    let meta = meta.clone();
    // Its runs and messages speak the language of the thread that started it.
    let lang = crate::i18n::current();
    std::thread::Builder::new()
        // The `drill-` prefix keeps a panic's message off the TUI (see `install_panic_filter`).
        .name(format!("drill-sweep-{}", meta.id))
        .spawn(move || {
            crate::i18n::set(lang);
            let seed_tx = tx.clone();
            let ended = run_sweep(&meta, &config, &runs_root, jobs, &worker_cancel, &mut record, |r| {
                let _ = seed_tx.send(SweepEvent::Seed(r.clone()));
            });
            let event = match ended {
                Ok(sweep) => {
                    let saved = record.finish(&sweep).map_err(|e| format!("{e:#}"));
                    SweepEvent::Ended { sweep, saved }
                }
                Err(e) => SweepEvent::Failed(format!("{e:#}")),
            };
            let _ = tx.send(event);
        })
        .context("starting the sweep thread")?;
    Ok(SweepHandle { rx, cancel })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_parse_ranges_and_lists() {
        assert_eq!(parse_seeds("1-5").unwrap(), vec![1, 2, 3, 4, 5]);
        assert_eq!(parse_seeds("3").unwrap(), vec![3]);
        assert_eq!(parse_seeds("1,4, 9").unwrap(), vec![1, 4, 9]);
        assert_eq!(parse_seeds("1-3,2-4").unwrap(), vec![1, 2, 3, 4]);
        assert!(parse_seeds("5-1").unwrap_err().contains("backwards"));
        assert!(parse_seeds("x").unwrap_err().contains("a seed is a whole number ≥ 0, got \"x\""));
        assert!(parse_seeds("1-99999999999999999999").unwrap_err().contains("out of range"));
        assert!(parse_seeds("").is_err());
        assert!(parse_seeds("0-5000").is_err());
        assert_eq!(seeds_label(&[1, 2, 3, 4]), "1-4");
        assert_eq!(seeds_label(&[1, 5]), "1,5");
    }

    #[test]
    fn a_cancelled_last_seed_leaves_the_sweep_incomplete() {
        let meta = DrillMeta::parse(
            "id = \"t\"\ntitle = \"T\"\ntrack = 0\nobjective = \"o\"\n[presets.quick]\n\n\
             [[claim]]\nid = \"acc\"\ntext = \"accuracy\"\nop = \">=\"\nthreshold = 0.8\n",
            "# t",
        )
        .unwrap();
        let config = SweepConfig {
            drill: "t".into(),
            preset: "quick".into(),
            params: ParamMap::new(),
            seeds: vec![1, 2],
            device: DeviceChoice::Cpu,
        };
        let seed = |seed, status, claims: Vec<ClaimValue>| SeedResult {
            seed,
            status,
            wall_s: 1.0,
            claims,
            run_dir: PathBuf::new(),
        };
        let held = ClaimValue { id: "acc".into(), measured: 0.9, pass: true };
        let mut cancelled = seed(2, RunStatus::Cancelled, vec![]);
        cancelled.wall_s = 0.3;
        let results = vec![seed(1, RunStatus::Passed, vec![held]), cancelled];
        let sweep = Sweep::summarise(&meta, config, results, 2.0);
        assert!(!sweep.complete && !sweep.all_held());
        assert_eq!((sweep.claims[0].held, sweep.claims[0].runs), (1, 1));
        assert_eq!(sweep.median_wall_s, 1.0, "the cancelled run's time is left out");
        assert_eq!(sweep.partial().as_deref(), Some("1 of 2 seeds, cancelled"));
    }

    fn meta() -> DrillMeta {
        let toml = "id = \"t\"\ntitle = \"T\"\ntrack = 0\nobjective = \"o\"\n[presets.quick]\n\n\
                    [[claim]]\nid = \"acc\"\ntext = \"accuracy\"\nop = \">=\"\nthreshold = 0.8\n";
        DrillMeta::parse(toml, "# t").unwrap()
    }

    fn config(seeds: Vec<u64>) -> SweepConfig {
        SweepConfig {
            drill: "t".into(),
            preset: "quick".into(),
            params: ParamMap::new(),
            seeds,
            device: DeviceChoice::Cpu,
        }
    }

    fn result(seed: u64, status: RunStatus) -> SeedResult {
        SeedResult { seed, status, wall_s: 2.0, claims: vec![], run_dir: PathBuf::new() }
    }

    /// A sweep killed after seed 1 (its record still `in_progress`) is found
    /// again and continued with seeds 2–5 only; a seed it cancelled runs again.
    #[test]
    fn an_interrupted_sweep_resumes_with_the_seeds_it_lacks() {
        let home = tempfile::tempdir().unwrap();
        let root = home.path().join("sweeps");
        let meta = meta();
        let mut record = Record::fresh(&root);
        let mut partial = Sweep::summarise(&meta, config(vec![1, 2, 3, 4, 5]), vec![result(1, RunStatus::Passed)], 2.0);
        partial.in_progress = true;
        let path = record.write(&partial).unwrap().unwrap();
        assert!(path.starts_with(root.join("t")) && path.extension().unwrap() == "json");

        let (found, saved) = resumable(&root, &config(vec![1, 2, 3, 4, 5])).expect("the partial sweep");
        assert_eq!(found, path);
        assert_eq!(saved.partial().as_deref(), Some("1 of 5 seeds, interrupted"));
        let resumed = Record::resume(found.clone(), &saved);
        assert_eq!(resumed.pending(&config(vec![1, 2, 3, 4, 5])), vec![2, 3, 4, 5]);
        assert_eq!((resumed.path.as_deref(), resumed.wall_s), (Some(found.as_path()), 2.0));

        // Another sweep (other seeds, another preset, other parameters) does not continue it.
        assert!(resumable(&root, &config(vec![1, 2, 3])).is_none());
        let mut other = config(vec![1, 2, 3, 4, 5]);
        other.preset = "full".into();
        assert!(resumable(&root, &other).is_none());
        other = config(vec![1, 2, 3, 4, 5]);
        other.params.insert("lr".into(), crate::content::ParamValue::Float(1e-3));
        assert!(resumable(&root, &other).is_none());

        // A cancelled seed is not done; a finished sweep is not resumed.
        let cancelled = Sweep::summarise(
            &meta,
            config(vec![1, 2]),
            vec![result(1, RunStatus::Passed), result(2, RunStatus::Cancelled)],
            3.0,
        );
        assert_eq!(Record::resume(PathBuf::from("x.json"), &cancelled).pending(&config(vec![1, 2])), vec![2]);
        let mut record = Record::resume(path.clone(), &saved);
        let all: Vec<SeedResult> = (1..=5).map(|s| result(s, RunStatus::Passed)).collect();
        record.finish(&Sweep::summarise(&meta, config(vec![1, 2, 3, 4, 5]), all, 10.0)).unwrap();
        assert!(resumable(&root, &config(vec![1, 2, 3, 4, 5])).is_none(), "complete: a new sweep starts");
        assert_eq!(list(&root, "t").len(), 1, "resumed in its own file");
    }

    /// A record saved before `in_progress` existed loads (as not in progress).
    #[test]
    fn an_old_sweep_record_still_loads() {
        let mut v = serde_json::to_value(Sweep::summarise(&meta(), config(vec![1]), vec![], 0.0)).unwrap();
        v.as_object_mut().unwrap().remove("in_progress");
        let old: Sweep = serde_json::from_value(v).unwrap();
        assert!(!old.in_progress && !old.complete);
        assert_eq!(old.partial().as_deref(), Some("0 of 1 seeds, cancelled"));
    }

    /// Nothing finished, nothing saved: no empty record is left behind.
    #[test]
    fn a_sweep_with_no_finished_seed_saves_nothing() {
        let home = tempfile::tempdir().unwrap();
        let mut record = Record::fresh(home.path());
        let sweep = Sweep::summarise(&meta(), config(vec![1]), vec![result(1, RunStatus::Cancelled)], 1.0);
        assert_eq!(record.finish(&sweep).unwrap(), None);
        assert!(list(home.path(), "t").is_empty());
    }
}
