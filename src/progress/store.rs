//! The learner-state file: `<data dir>/progress.json`, versioned, written
//! atomically (temp file + rename, see `fsutil::write_atomic`).
//!
//! A file that does not parse, has a value out of range ([`Progress::check`]),
//! or that a newer agentlab wrote, is never overwritten: it is renamed to
//! `progress.json.corrupt-<ts>` or `progress.json.newer-<ts>`, the learner is
//! told (the `notice`), and a fresh state starts. A file that cannot be read
//! (permissions, a directory in its place) is left alone: the session saves
//! to `progress.json.unsaved-<ts>` and the notice says so.
//!
//! Writers lock `progress.json.lock` and merge on save (see [`Store`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use anyhow::{bail, Context, Result};
use chrono::{DateTime, Datelike, Utc};
use serde::{Deserialize, Serialize};

mod repair;

use super::schedule::{self, Rating, Sched, DEFAULT_RETENTION};
use crate::content::tracks::TRACKS;
use crate::content::Level;
pub use repair::SetAside;

/// Version of the file format this build writes; it reads every version up
/// to it. Version 2 added predictions, study sessions, the resume point,
/// the sections read and the reader's place per track (all optional, so a
/// version-1 file loads as it is and is written back as version 2).
pub const VERSION: u32 = 2;
/// File name inside the data directory.
pub const FILE_NAME: &str = "progress.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// FSRS desired retention (0.70–0.99).
    pub desired_retention: f64,
    /// The language the learner last switched to in the TUI (`None`: never
    /// switched; the locale decides). `--lang` and `AGENTLAB_LANG` override it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<crate::i18n::Lang>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { desired_retention: DEFAULT_RETENTION, lang: None }
    }
}

/// One answer to one item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    pub at: DateTime<Utc>,
    /// Auto-grade (`None` for open items).
    pub correct: Option<bool>,
    pub rating: Rating,
}

/// Everything known about one quiz item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemRecord {
    pub track: u8,
    pub level: Level,
    pub attempts: Vec<Attempt>,
    pub sched: Option<Sched>,
}

impl ItemRecord {
    pub fn last_rating(&self) -> Option<Rating> {
        self.attempts.last().map(|a| a.rating)
    }
}

/// A learner's work on one exercise (`agentlab exercise check`, the TUI).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExerciseRecord {
    pub track: u8,
    /// How many times the learner's script was checked.
    pub checks: u32,
    /// The first check that passed.
    pub passed_at: Option<DateTime<Utc>>,
    pub last_check: DateTime<Utc>,
    pub last_passed: bool,
}

/// A prediction asked before a drill's run, and what the run measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PredictionRecord {
    pub drill: String,
    pub preset: String,
    /// The prediction's id in the drill's `drill.toml`.
    pub id: String,
    pub track: u8,
    /// What the learner answered, as shown ("a little", "0.3").
    pub answer: String,
    /// NaN or ±∞ when the run measured no finite number (stored as a string: see `numbers::nonfinite`).
    #[serde(with = "crate::numbers::nonfinite")]
    pub measured: f64,
    pub right: bool,
    pub at: DateTime<Utc>,
}

/// Equal field by field, a NaN measured equal to a NaN (as it reads back from the file).
impl PartialEq for PredictionRecord {
    fn eq(&self, o: &Self) -> bool {
        let same = |a: f64, b: f64| a == b || (a.is_nan() && b.is_nan());
        self.drill == o.drill
            && self.preset == o.preset
            && self.id == o.id
            && self.track == o.track
            && self.answer == o.answer
            && same(self.measured, o.measured)
            && self.right == o.right
            && self.at == o.at
    }
}

/// A drill run inside a study session, with its claims.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionDrill {
    pub id: String,
    pub claims_held: u32,
    pub claims: u32,
}

/// One study session (`agentlab study`, or `S` on Home), as it ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    pub started: DateTime<Utc>,
    pub ended: DateTime<Utc>,
    /// The track it was planned on (`None`: the tracks in order).
    pub track: Option<u8>,
    pub planned_minutes: u32,
    pub steps_done: u32,
    pub steps_skipped: u32,
    pub items_rated: u32,
    pub exercises_passed: u32,
    #[serde(default)]
    pub drills: Vec<SessionDrill>,
    pub predictions: u32,
    pub predictions_right: u32,
    /// Seconds spent per track in the session.
    #[serde(default)]
    pub track_secs: BTreeMap<u8, u64>,
}

impl SessionRecord {
    /// The record as it can be stored: it ends no earlier than it started
    /// (the wall clock may step back during a session: an NTP correction, a
    /// VM restored), and no more predictions were right than were made.
    pub fn clamped(mut self) -> SessionRecord {
        self.ended = self.ended.max(self.started);
        self.predictions_right = self.predictions_right.min(self.predictions);
        self
    }
}

/// Where a learner stopped: what Home's **Continue** opens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Place {
    /// A sheet, at a line of its rendered text.
    Sheet { track: u8, line: usize },
    /// A drill's screen.
    Drill { id: String },
    /// A quiz of a track (one level, or all), left before its end.
    Quiz { track: u8, level: Option<Level> },
}

impl Place {
    pub fn track(&self) -> Option<u8> {
        match self {
            Place::Sheet { track, .. } | Place::Quiz { track, .. } => Some(*track),
            Place::Drill { .. } => None,
        }
    }
}

/// The last [`Place`], with when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resume {
    pub at: DateTime<Utc>,
    pub place: Place,
}

/// The whole learner state, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub version: u32,
    #[serde(default)]
    pub settings: Settings,
    /// Keyed by quiz item id.
    #[serde(default)]
    pub items: BTreeMap<String, ItemRecord>,
    /// Keyed by exercise id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub exercises: BTreeMap<String, ExerciseRecord>,
    /// Quiz items put into review by hand (a failed exercise check adds the
    /// items linked to it), with when; an answer given later takes it off.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub flagged: BTreeMap<String, DateTime<Utc>>,
    /// Predictions answered and resolved by a run, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub predictions: Vec<PredictionRecord>,
    /// Study sessions, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sessions: Vec<SessionRecord>,
    /// Where the learner stopped last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<Resume>,
    /// Study-path read steps done, keyed `"<track>:<section slug>"`, with when.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub read: BTreeMap<String, DateTime<Utc>>,
}

impl Default for Progress {
    fn default() -> Self {
        Progress {
            version: VERSION,
            settings: Settings::default(),
            items: BTreeMap::new(),
            exercises: BTreeMap::new(),
            flagged: BTreeMap::new(),
            predictions: Vec::new(),
            sessions: Vec::new(),
            resume: None,
            read: BTreeMap::new(),
        }
    }
}

impl Progress {
    /// Record an answer and reschedule the item.
    pub fn record(
        &mut self,
        id: &str,
        track: u8,
        level: Level,
        correct: Option<bool>,
        rating: Rating,
        now: DateTime<Utc>,
    ) {
        let retention = self.settings.desired_retention;
        let rec = self.items.entry(id.to_string()).or_insert_with(|| ItemRecord {
            track,
            level,
            attempts: Vec::new(),
            sched: None,
        });
        rec.track = track;
        rec.level = level;
        rec.attempts.push(Attempt { at: now, correct, rating });
        rec.sched = Some(schedule::review(rec.sched.as_ref(), rating, now, retention));
        if self.flagged.get(id).is_some_and(|&at| at <= now) {
            self.flagged.remove(id);
        }
    }

    /// Record one check of an exercise.
    pub fn record_check(&mut self, id: &str, track: u8, passed: bool, now: DateTime<Utc>) {
        let rec = self.exercises.entry(id.to_string()).or_insert_with(|| ExerciseRecord {
            track,
            checks: 0,
            passed_at: None,
            last_check: now,
            last_passed: false,
        });
        rec.track = track;
        // Saturates: a counter at its limit stays there (a wrap to 0 is a file the loader refuses).
        rec.checks = rec.checks.saturating_add(1);
        rec.last_check = now;
        rec.last_passed = passed;
        if passed && rec.passed_at.is_none() {
            rec.passed_at = Some(now);
        }
    }

    /// Whether a prediction of `drill`'s `preset` was ever answered (it is then asked again only on request).
    pub fn predicted(&self, drill: &str, preset: &str, id: &str) -> bool {
        self.predictions.iter().any(|p| p.drill == drill && p.preset == preset && p.id == id)
    }

    /// The key of a read step in [`Progress::read`].
    /// How many times item `id` has been shown and answered before: its
    /// next showing (0 the first time). Choices are shuffled and templated
    /// numbers drawn per showing (`grade::shown`).
    pub fn showing(&self, id: &str) -> u64 {
        self.items.get(id).map_or(0, |r| r.attempts.len() as u64)
    }

    pub fn read_key(track: u8, slug: &str) -> String {
        format!("{track}:{slug}")
    }

    /// Whether the section `slug` of track `track` was read (as a study step).
    pub fn was_read(&self, track: u8, slug: &str) -> bool {
        self.read.contains_key(&Progress::read_key(track, slug))
    }

    /// Whether an exercise was ever passed.
    pub fn exercise_done(&self, id: &str) -> bool {
        self.exercises.get(id).is_some_and(|r| r.passed_at.is_some())
    }

    /// Check the range of every field; the first problem found names the field.
    /// The loader refuses (or repairs, record by record: see
    /// [`repair`]) what fails it, and every save runs it on what it is
    /// about to write.
    pub fn check(&self) -> std::result::Result<(), String> {
        if !(1..=VERSION).contains(&self.version) {
            return Err(format!("version is {}, not 1–{VERSION}", self.version));
        }
        schedule::check_retention(self.settings.desired_retention)
            .map_err(|e| format!("settings.desired_retention: {e}"))?;
        for (id, rec) in &self.exercises {
            check_exercise(id, rec)?;
        }
        for (id, at) in &self.flagged {
            check_time(*at).map_err(|e| format!("flagged.\"{id}\" {e}"))?;
        }
        for (k, p) in self.predictions.iter().enumerate() {
            check_prediction(k, p)?;
        }
        for (k, s) in self.sessions.iter().enumerate() {
            check_session(k, s)?;
        }
        if let Some(r) = &self.resume {
            check_resume(r)?;
        }
        for (k, at) in &self.read {
            check_time(*at).map_err(|e| format!("read.\"{k}\" {e}"))?;
        }
        for (id, rec) in &self.items {
            check_item_track(id, rec)?;
            for (k, a) in rec.attempts.iter().enumerate() {
                check_attempt(id, k, a)?;
            }
            if let Some(s) = &rec.sched {
                check_sched(id, s)?;
            }
        }
        Ok(())
    }
}

pub(crate) fn track_ok(t: u8) -> bool {
    TRACKS.iter().any(|x| x.number == t)
}

/// The checks of one record each (what [`Progress::check`] runs on all of them).
pub(crate) fn check_exercise(id: &str, rec: &ExerciseRecord) -> std::result::Result<(), String> {
    let field = |f: &str| format!("exercises.\"{id}\".{f}");
    if !track_ok(rec.track) {
        return Err(format!("{} is {}, not a track 0–{}", field("track"), rec.track, TRACKS.len() - 1));
    }
    check_time(rec.last_check).map_err(|e| format!("{} {e}", field("last_check")))?;
    if let Some(p) = rec.passed_at {
        check_time(p).map_err(|e| format!("{} {e}", field("passed_at")))?;
    }
    if rec.checks == 0 {
        return Err(format!("{} is 0 for an exercise on record", field("checks")));
    }
    Ok(())
}

pub(crate) fn check_prediction(k: usize, p: &PredictionRecord) -> std::result::Result<(), String> {
    if !track_ok(p.track) {
        return Err(format!("predictions[{k}].track is {}, not a track", p.track));
    }
    check_time(p.at).map_err(|e| format!("predictions[{k}].at {e}"))
}

/// A session's times and tracks (see [`check_session`] for its counts too).
pub(crate) fn check_session_times(k: usize, s: &SessionRecord) -> std::result::Result<(), String> {
    check_time(s.started).map_err(|e| format!("sessions[{k}].started {e}"))?;
    check_time(s.ended).map_err(|e| format!("sessions[{k}].ended {e}"))
}

pub(crate) fn check_session(k: usize, s: &SessionRecord) -> std::result::Result<(), String> {
    check_session_times(k, s)?;
    if s.ended < s.started {
        return Err(format!("sessions[{k}].ended is before its start"));
    }
    if s.predictions_right > s.predictions {
        return Err(format!("sessions[{k}].predictions_right exceeds its predictions"));
    }
    if let Some(t) = s.track.into_iter().chain(s.track_secs.keys().copied()).find(|&t| !track_ok(t)) {
        return Err(format!("sessions[{k}] names track {t}, not a track"));
    }
    Ok(())
}

pub(crate) fn check_resume(r: &Resume) -> std::result::Result<(), String> {
    check_time(r.at).map_err(|e| format!("resume.at {e}"))?;
    if let Some(t) = r.place.track().filter(|&t| !track_ok(t)) {
        return Err(format!("resume names track {t}, not a track"));
    }
    Ok(())
}

pub(crate) fn check_item_track(id: &str, rec: &ItemRecord) -> std::result::Result<(), String> {
    if !track_ok(rec.track) {
        return Err(format!("items.\"{id}\".track is {}, not a track 0–{}", rec.track, TRACKS.len() - 1));
    }
    Ok(())
}

pub(crate) fn check_attempt(id: &str, k: usize, a: &Attempt) -> std::result::Result<(), String> {
    let field = format!("items.\"{id}\".attempts[{k}]");
    check_time(a.at).map_err(|e| format!("{field}.at {e}"))?;
    if !a.rating.allowed(a.correct) {
        return Err(format!("{field}.rating is \"know\" after a wrong answer"));
    }
    Ok(())
}

pub(crate) fn check_sched(id: &str, s: &Sched) -> std::result::Result<(), String> {
    let field = |f: &str| format!("items.\"{id}\".{f}");
    in_range(&field("sched.stability"), s.stability, STABILITY_RANGE)?;
    in_range(&field("sched.difficulty"), s.difficulty, DIFFICULTY_RANGE)?;
    check_time(s.last_review).map_err(|e| format!("{} {e}", field("sched.last_review")))?;
    check_time(s.due).map_err(|e| format!("{} {e}", field("sched.due")))?;
    if s.due < s.last_review {
        return Err(format!("{} is before sched.last_review", field("sched.due")));
    }
    if s.lapses > s.reps {
        return Err(format!("{} ({}) exceeds sched.reps ({})", field("sched.lapses"), s.lapses, s.reps));
    }
    Ok(())
}

/// FSRS's bounds on stability (days): its states never leave them.
pub const STABILITY_RANGE: (f32, f32) = (0.001, 36_500.0);
/// FSRS's bounds on difficulty.
pub const DIFFICULTY_RANGE: (f32, f32) = (1.0, 10.0);
/// Years a stored time may fall in.
pub const YEARS: (i32, i32) = (1970, 9999);

pub(crate) fn check_time(t: DateTime<Utc>) -> std::result::Result<(), String> {
    if (YEARS.0..=YEARS.1).contains(&t.year()) {
        Ok(())
    } else {
        Err(format!("is {t}, outside the years {}–{}", YEARS.0, YEARS.1))
    }
}

fn newer(version: u64) -> (&'static str, String) {
    ("newer", crate::t!("progress-store-newer", version = version.to_string(), reads = VERSION.to_string()))
}

/// Parse and check the bytes of a progress file, strictly: every record
/// must pass [`Progress::check`]. On refusal: the tag of the name it is
/// kept under (`corrupt`, `newer`) and why, after the file's name.
pub fn parse(bytes: &[u8]) -> std::result::Result<Progress, (&'static str, String)> {
    match parse_salvaging(bytes)? {
        (p, aside) if aside.is_empty() => Ok(p),
        (_, aside) => Err(("corrupt", crate::t!("progress-store-out-of-range", error = aside[0].why.as_str()))),
    }
}

/// Parse a progress file, record by record where it does not load whole
/// (see [`repair`]): the state, and the records repaired or left out
/// to get it. Refused whole (tag and why, as [`parse`]): a file that is not
/// JSON, not in the format, or from a newer agentlab.
pub fn parse_salvaging(bytes: &[u8]) -> std::result::Result<(Progress, Vec<SetAside>), (&'static str, String)> {
    // The usual case: one typed parse and one check, no intermediate tree.
    match serde_json::from_slice::<Progress>(bytes) {
        Ok(p) if p.version > VERSION => return Err(newer(p.version as u64)),
        Ok(p) if p.check().is_ok() => return Ok((p, Vec::new())),
        _ => {}
    }
    let v = serde_json::from_slice::<serde_json::Value>(bytes)
        .map_err(|e| ("corrupt", crate::t!("progress-store-not-json", error = e.to_string())))?;
    if let Some(ver) = v.get("version").and_then(|x| x.as_u64()).filter(|&v| v > VERSION as u64) {
        return Err(newer(ver));
    }
    if !v.is_object() || v.get("version").and_then(|x| x.as_u64()).is_none() {
        let e = serde_json::from_value::<Progress>(v).err().map(|e| e.to_string()).unwrap_or_default();
        return Err(("corrupt", crate::t!("progress-store-bad-format", error = e)));
    }
    repair::salvage(v).map_err(|e| ("corrupt", crate::t!("progress-store-out-of-range", error = e)))
}

/// A newer agentlab's file read as far as this build can (its records in
/// this build's format, for showing them): `None` when it cannot.
fn read_newer(bytes: &[u8]) -> Option<Progress> {
    let mut p = serde_json::from_slice::<Progress>(bytes).ok()?;
    p.version = VERSION;
    p.check().ok()?;
    Some(p)
}

/// What a read of the progress file found.
enum Loaded {
    Missing,
    /// Read; the records that did not pass the check (repaired or left out; see [`repair`]).
    Read(Progress, Vec<SetAside>),
    Unreadable(std::io::Error),
    /// Written by a newer agentlab, and never written by this one: why (with
    /// the file's name first), and what this build can show of it.
    Newer(String, Option<Box<Progress>>),
    /// Read, but refused: (tag, why, with the file's name first).
    Rejected(&'static str, String),
}

/// What tells one version of the file from the next: every save replaces
/// the file (a rename: a new inode where there are inodes) and sets its time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
    inode: u64,
}

impl Stamp {
    fn of(m: &std::fs::Metadata) -> Stamp {
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(m);
        #[cfg(not(unix))]
        let inode = 0;
        Stamp { modified: m.modified().ok(), len: m.len(), inode }
    }

    /// The file's stamp now (`None`: no file, or none that can be seen).
    fn at(path: &Path) -> Option<Stamp> {
        std::fs::metadata(path).ok().map(|m| Stamp::of(&m))
    }
}

/// Largest progress file read (a 2-million-answer history is about 250 MB).
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// Read the file, with the stamp of the very file read (taken from its handle).
/// Only a regular file is read: a FIFO or a device in its place is unreadable.
fn load(path: &Path) -> (Loaded, Option<Stamp>) {
    let read = || -> std::io::Result<(Vec<u8>, Option<Stamp>)> {
        let f = crate::fsutil::open_regular(path)?;
        let stamp = f.metadata().ok().map(|m| Stamp::of(&m));
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::Read::take(f, MAX_FILE_BYTES + 1), &mut bytes)?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            let msg = crate::t!("fs-too-large", path = path.display().to_string(), limit = MAX_FILE_BYTES.to_string());
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, msg));
        }
        Ok((bytes, stamp))
    };
    let (bytes, stamp) = match read() {
        Ok(b) => b,
        // No file, or no directory to hold one (a save then says why it cannot write).
        Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => {
            return (Loaded::Missing, None)
        }
        Err(e) => return (Loaded::Unreadable(e), None),
    };
    let name = || path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let loaded = match parse_salvaging(&bytes) {
        Ok((p, aside)) => Loaded::Read(p, aside),
        Err(("newer", why)) => Loaded::Newer(format!("{} {why}", name()), read_newer(&bytes).map(Box::new)),
        Err((tag, why)) => Loaded::Rejected(tag, format!("{} {why}", name())),
    };
    (loaded, stamp)
}

/// A change this session made, applied again onto the file's current
/// contents at each save (merge on save).
#[derive(Debug, Clone, PartialEq)]
enum Change {
    Attempt { id: String, track: u8, level: Level, correct: Option<bool>, rating: Rating, at: DateTime<Utc> },
    Retention(f64),
    Lang(crate::i18n::Lang),
    Check { id: String, track: u8, passed: bool, at: DateTime<Utc> },
    Flag { ids: Vec<String>, at: DateTime<Utc> },
    Prediction(PredictionRecord),
    Session(SessionRecord),
    Resume(Resume),
    Read { track: u8, slug: String, at: DateTime<Utc> },
}

impl Change {
    fn apply(&self, p: &mut Progress) {
        match self {
            Change::Attempt { id, track, level, correct, rating, at } => {
                p.record(id, *track, *level, *correct, *rating, *at)
            }
            Change::Retention(r) => p.settings.desired_retention = *r,
            Change::Lang(l) => p.settings.lang = Some(*l),
            Change::Check { id, track, passed, at } => p.record_check(id, *track, *passed, *at),
            Change::Flag { ids, at } => {
                for id in ids {
                    p.flagged.insert(id.clone(), *at);
                }
            }
            Change::Prediction(r) => p.predictions.push(r.clone()),
            Change::Session(r) => p.sessions.push(r.clone().clamped()),
            // The newer place wins, whichever process saved it.
            Change::Resume(r) => {
                if p.resume.as_ref().is_none_or(|old| old.at <= r.at) {
                    p.resume = Some(r.clone());
                }
            }
            Change::Read { track, slug, at } => {
                p.read.entry(Progress::read_key(*track, slug)).or_insert(*at);
            }
        }
    }
}

/// How long a save waits for another agentlab that is saving the same file.
pub const LOCK_WAIT: Duration = Duration::from_secs(3);
/// How many times a one-shot command's save waits [`LOCK_WAIT`] for the lock
/// ([`Store::save_retrying`]) before it says the change was not saved.
pub const SAVE_TRIES: u32 = 4;

/// `<file>.lock`, the sibling file that writers of `path` lock.
/// The lock a save waited for in vain, if that is why it failed.
fn busy(e: &anyhow::Error) -> Option<&crate::fsutil::Busy> {
    e.chain().find_map(|c| c.downcast_ref::<crate::fsutil::Busy>())
}

pub fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

/// The progress file on disk and its contents in memory.
///
/// Several agentlab processes may use one data dir at once (a TUI and a
/// headless quiz): each save locks `progress.json.lock`, reads the file
/// again, applies this session's changes not yet saved to what it found,
/// and writes the result, so no writer's ratings are lost. A store kept open
/// (the TUI) sees what the others saved with [`Store::reload_if_changed`].
#[derive(Debug, Clone, PartialEq)]
pub struct Store {
    pub path: PathBuf,
    /// The file's contents as last read or written, with this session's changes.
    pub progress: Progress,
    /// Said once to the learner: a file moved aside or left unread.
    pub notice: Option<String>,
    /// How long a save waits for the lock ([`LOCK_WAIT`]).
    pub lock_wait: Duration,
    /// Changes not yet on disk (a save failed, or none ran yet).
    pending: Vec<Change>,
    /// The file as this store last read or wrote it (`None`: no file then).
    stamp: Option<Stamp>,
    /// Why this store never writes (a newer agentlab's file): every save says it.
    read_only: Option<String>,
}

impl Store {
    /// The language saved by the TUI's switch, read without opening the store
    /// for writing (`None` when there is no readable progress file). Only the
    /// start of the file is read: `settings` comes second in every file this
    /// program writes, so a long history costs nothing here.
    pub fn saved_lang() -> Option<crate::i18n::Lang> {
        saved_lang_in(&crate::paths::data_dir().ok()?.join(FILE_NAME))
    }

    /// Whether this store never writes (a newer agentlab's file), and why.
    pub fn read_only(&self) -> Option<&str> {
        self.read_only.as_deref()
    }

    /// `<AGENTLAB_HOME or the platform data dir>/progress.json`.
    pub fn open_default(now: DateTime<Utc>) -> Result<Store> {
        Ok(Store::open(&crate::paths::data_dir()?.join(FILE_NAME), now))
    }

    fn at(path: &Path, progress: Progress, notice: Option<String>) -> Store {
        Store {
            path: path.to_path_buf(),
            progress,
            notice,
            lock_wait: LOCK_WAIT,
            pending: Vec::new(),
            stamp: None,
            read_only: None,
        }
    }

    /// A store that lives only in memory (when no data dir can be found).
    pub fn in_memory(path: PathBuf, notice: String) -> Store {
        Store::at(&path, Progress::default(), Some(notice))
    }

    /// Load `path`. A missing file is a fresh start. A record that does not
    /// pass the check is repaired or left out alone, the rest loads, the
    /// records as they were are kept in `progress.json.set-aside-<ts>`, the
    /// repaired file is written back, and `notice` says so. A file that
    /// does not load at all (not JSON, not the format) is moved aside, never
    /// overwritten, and a fresh one starts. A newer agentlab's file is left
    /// as it is and never written ([`Store::read_only`]). One that cannot be
    /// read is left as it is: this session saves to a side file, which
    /// `notice` names.
    pub fn open(path: &Path, now: DateTime<Utc>) -> Store {
        let loaded = match load(path) {
            // Set aside or repair under the lock: another agentlab may be doing the same.
            (Loaded::Rejected(..), _) => {
                let _lock = crate::fsutil::lock_exclusive(&lock_path(path), LOCK_WAIT).ok();
                match load(path) {
                    (Loaded::Rejected(tag, why), _) => return Store::set_aside(path, tag, &why, now),
                    (Loaded::Read(p, aside), _) if !aside.is_empty() => return Store::repaired(path, p, aside, now),
                    other => other,
                }
            }
            (Loaded::Read(_, aside), _) if !aside.is_empty() => {
                let lock = crate::fsutil::lock_exclusive(&lock_path(path), LOCK_WAIT);
                match load(path) {
                    (Loaded::Read(p, aside), _) if !aside.is_empty() && lock.is_ok() => {
                        return Store::repaired(path, p, aside, now)
                    }
                    // The lock stays taken: show the repaired state, and let the first save keep the records aside.
                    (Loaded::Read(p, aside), _) if !aside.is_empty() => {
                        let notice = repair_notice(path, &aside, None, lock.err().map(|e| format!("{e:#}")));
                        return Store::at(path, p, Some(notice));
                    }
                    other => other,
                }
            }
            other => other,
        };
        match loaded {
            (Loaded::Missing, _) => Store::at(path, Progress::default(), None),
            (Loaded::Read(p, _), stamp) => Store { stamp, ..Store::at(path, p, None) },
            (Loaded::Unreadable(e), _) => {
                let side = aside_path(path, "unsaved", now);
                let notice = crate::t!(
                    "progress-store-unreadable",
                    path = path.display().to_string(),
                    error = e.to_string(),
                    side = side.display().to_string()
                );
                Store::at(&side, Progress::default(), Some(notice))
            }
            (Loaded::Newer(why, shown), stamp) => {
                let notice = crate::t!("progress-store-newer-kept", why = why.as_str());
                let progress = shown.map(|p| *p).unwrap_or_default();
                Store { stamp, read_only: Some(notice.clone()), ..Store::at(path, progress, Some(notice)) }
            }
            (Loaded::Rejected(tag, why), _) => Store::set_aside(path, tag, &why, now),
        }
    }

    /// Read the file again if another process saved it since this store last
    /// read or wrote it (its time, length or inode changed), with this
    /// session's unsaved changes applied on top. Returns whether what the
    /// store holds changed. A file that is gone now counts as a fresh start
    /// (as the next save would find it); one that cannot be read or is
    /// refused is left to the next save, which says why, and the store keeps
    /// what it holds. One `stat` when nothing changed: cheap enough for a tick.
    pub fn reload_if_changed(&mut self) -> bool {
        if Stamp::at(&self.path) == self.stamp {
            return false;
        }
        let (loaded, stamp) = load(&self.path);
        self.stamp = stamp;
        let mut fresh = match loaded {
            // Records another writer left that do not pass the check: the next save keeps them aside.
            Loaded::Read(p, _) => p,
            Loaded::Missing => Progress::default(),
            Loaded::Unreadable(_) | Loaded::Rejected(..) | Loaded::Newer(..) => return false,
        };
        for c in &self.pending {
            c.apply(&mut fresh);
        }
        if fresh == self.progress {
            return false;
        }
        self.progress = fresh;
        true
    }

    /// Move a refused file aside and start fresh (or, when it cannot be moved, save elsewhere).
    fn set_aside(path: &Path, tag: &str, why: &str, now: DateTime<Utc>) -> Store {
        let aside = aside_path(path, tag, now);
        match std::fs::rename(path, &aside) {
            Ok(()) => Store::at(
                path,
                Progress::default(),
                Some(crate::t!("progress-store-set-aside", why = why, aside = aside.display().to_string())),
            ),
            // Could not move it: leave it untouched and save elsewhere.
            Err(e) => {
                let elsewhere = aside_path(path, "unsaved", now);
                let notice = crate::t!(
                    "progress-store-not-moved",
                    why = why,
                    error = e.to_string(),
                    elsewhere = elsewhere.display().to_string()
                );
                Store::at(&elsewhere, Progress::default(), Some(notice))
            }
        }
    }

    /// A file read with records repaired or left out (the caller holds the
    /// lock): keep those records as they were in a side file, then write the
    /// repaired state, so that the next start loads it without a word. When
    /// the side file cannot be written the file is left as it is (nothing is
    /// lost); the store shows the repaired state and its saves try again.
    fn repaired(path: &Path, p: Progress, aside: Vec<SetAside>, now: DateTime<Utc>) -> Store {
        match keep_aside(path, &aside, now) {
            Ok(side) => {
                let written = crate::fsutil::write_atomic(path, &serde_json::to_vec_pretty(&p).unwrap_or_default());
                let stamp = written.is_ok().then(|| Stamp::at(path)).flatten();
                let notice = repair_notice(path, &aside, Some(&side), written.err().map(|e| format!("{e:#}")));
                Store { stamp, ..Store::at(path, p, Some(notice)) }
            }
            Err(e) => {
                let notice = repair_notice(path, &aside, None, Some(format!("{e:#}")));
                Store::at(path, p, Some(notice))
            }
        }
    }

    /// Save this session's changes: under the lock, read the file again,
    /// apply the changes not yet saved to it, check the result with the
    /// loader's own check, and write it atomically. A file that cannot be
    /// read or is refused now is never replaced: the error says so and the
    /// changes stay pending for the next save. A change that would make the
    /// file fail the check is refused (and dropped, said in the error); the
    /// others are saved.
    pub fn save(&mut self) -> Result<()> {
        self.merge_and_write()
            .with_context(|| crate::t!("progress-store-saving", path = self.path.display().to_string()))
    }

    /// [`Store::save`], tried again while another agentlab holds the lock
    /// (up to `tries` times, each waiting [`Store::lock_wait`]): what a
    /// one-shot command (an exercise check, a prediction) does, as a quiz
    /// does by saving again with each rating.
    pub fn save_retrying(&mut self, tries: u32) -> Result<()> {
        self.retrying(tries, Duration::ZERO)
    }

    /// After a save that failed (`first`) because another agentlab held the
    /// lock, [`Store::save_retrying`]; any other outcome as it is.
    pub fn retry_if_busy(&mut self, first: Result<()>, tries: u32) -> Result<()> {
        match first {
            Err(e) if self.has_unsaved() => match busy(&e) {
                Some(b) => self.retrying(tries, b.waited),
                None => Err(e),
            },
            other => other,
        }
    }

    /// Up to `tries` saves while the lock is held; `waited` already waited.
    /// The last error says how long the lock was held over all the tries.
    fn retrying(&mut self, tries: u32, mut waited: Duration) -> Result<()> {
        let mut k = 1;
        loop {
            let err = match self.save() {
                Err(e) => e,
                ok => return ok,
            };
            let Some(b) = busy(&err) else { return Err(err) };
            waited += b.waited;
            if k >= tries {
                let total = crate::fsutil::Busy { path: b.path.clone(), waited };
                return Err(anyhow::Error::new(total)
                    .context(crate::t!("progress-store-saving", path = self.path.display().to_string())));
            }
            k += 1;
        }
    }

    fn merge_and_write(&mut self) -> Result<()> {
        if let Some(why) = &self.read_only {
            bail!(crate::t!("progress-store-read-only", why = why.as_str()));
        }
        let _lock = crate::fsutil::lock_exclusive(&lock_path(&self.path), self.lock_wait)?;
        let mut merged = self.load_for_merge()?;
        for c in &self.pending {
            c.apply(&mut merged);
        }
        merged.version = VERSION;
        let mut refused = Vec::new();
        if merged.check().is_err() {
            // Which change breaks it: apply them one by one onto the file as it is.
            let mut base = self.load_for_merge()?;
            base.version = VERSION;
            let mut kept = Vec::new();
            for c in std::mem::take(&mut self.pending) {
                let mut trial = base.clone();
                c.apply(&mut trial);
                match trial.check() {
                    Ok(()) => {
                        base = trial;
                        kept.push(c);
                    }
                    Err(why) => refused.push(why),
                }
            }
            self.pending = kept;
            merged = base;
            merged.check().map_err(|why| anyhow::anyhow!(crate::t!("progress-store-refused", why = why)))?;
        }
        crate::fsutil::write_atomic(&self.path, &serde_json::to_vec_pretty(&merged)?)?;
        // Still under the lock: no other writer can have replaced it since.
        self.stamp = Stamp::at(&self.path);
        self.progress = merged;
        self.pending.clear();
        match refused.first() {
            Some(why) => bail!(crate::t!("progress-store-refused", why = why.as_str())),
            None => Ok(()),
        }
    }

    /// The file's contents to apply this session's changes to (under the
    /// lock). Records that do not pass the check are kept aside first (and
    /// the notice says so); a file that cannot be read or is refused now is
    /// an error, and is left as it is.
    fn load_for_merge(&mut self) -> Result<Progress> {
        Ok(match load(&self.path).0 {
            Loaded::Missing => Progress::default(),
            Loaded::Read(p, aside) if aside.is_empty() => p,
            Loaded::Read(p, aside) => {
                let side = keep_aside(&self.path, &aside, Utc::now())?;
                self.notice = Some(repair_notice(&self.path, &aside, Some(&side), None));
                p
            }
            Loaded::Unreadable(e) => bail!(crate::t!("progress-store-cannot-merge", error = e.to_string())),
            Loaded::Newer(why, _) => bail!(crate::t!("progress-store-newer-kept", why = why)),
            Loaded::Rejected(_, why) => {
                bail!(crate::t!("progress-store-changed", why = why))
            }
        })
    }

    /// Ratings of this session not on disk yet (their saves failed).
    pub fn unsaved_ratings(&self) -> usize {
        self.pending.iter().filter(|c| matches!(c, Change::Attempt { .. })).count()
    }

    /// Whether a change of this session (a rating or a setting) is not on disk yet.
    pub fn has_unsaved(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Record an answer and save. On a failed save the answer stays in
    /// memory, is saved with the next save that succeeds, and the error says why.
    pub fn record(
        &mut self,
        id: &str,
        track: u8,
        level: Level,
        correct: Option<bool>,
        rating: Rating,
        now: DateTime<Utc>,
    ) -> Result<()> {
        let change = Change::Attempt { id: id.to_string(), track, level, correct, rating, at: now };
        change.apply(&mut self.progress);
        self.pending.push(change);
        self.save()
    }

    /// Record a check of an exercise and save.
    pub fn record_check(&mut self, id: &str, track: u8, passed: bool, now: DateTime<Utc>) -> Result<()> {
        self.change(Change::Check { id: id.to_string(), track, passed, at: now })
    }

    /// Put quiz items into review now (they are due until answered) and save.
    pub fn flag_for_review(&mut self, ids: &[String], now: DateTime<Utc>) -> Result<()> {
        self.change(Change::Flag { ids: ids.to_vec(), at: now })
    }

    fn change(&mut self, change: Change) -> Result<()> {
        change.apply(&mut self.progress);
        self.pending.push(change);
        self.save()
    }

    /// Record a resolved prediction and save.
    pub fn record_prediction(&mut self, r: PredictionRecord) -> Result<()> {
        self.change(Change::Prediction(r))
    }

    /// Record a finished study session and save.
    pub fn record_session(&mut self, r: SessionRecord) -> Result<()> {
        self.change(Change::Session(r))
    }

    /// Remember where the learner is (Home's Continue) and save.
    pub fn set_resume(&mut self, place: Place, now: DateTime<Utc>) -> Result<()> {
        self.change(Change::Resume(Resume { at: now, place }))
    }

    /// Mark a study-path section as read and save (a second mark keeps the first time).
    pub fn mark_read(&mut self, track: u8, slug: &str, now: DateTime<Utc>) -> Result<()> {
        if self.progress.was_read(track, slug) {
            return Ok(());
        }
        self.change(Change::Read { track, slug: slug.to_string(), at: now })
    }

    /// Set the desired retention (checked) and save.
    pub fn set_retention(&mut self, r: f64) -> Result<()> {
        let r = schedule::check_retention(r).map_err(anyhow::Error::msg)?;
        let change = Change::Retention((r * 100.0).round() / 100.0);
        change.apply(&mut self.progress);
        self.pending.push(change);
        self.save()
    }

    /// Remember the language the learner chose, and save.
    pub fn set_lang(&mut self, lang: crate::i18n::Lang) -> Result<()> {
        let change = Change::Lang(lang);
        change.apply(&mut self.progress);
        self.pending.push(change);
        self.save()
    }
}

/// How many bytes of the progress file [`Store::saved_lang`] reads.
const LANG_PREFIX: u64 = 64 * 1024;

/// The `settings.lang` of the progress file at `path`, read from its first
/// [`LANG_PREFIX`] bytes with a parse that stops at `settings` (`None`: no
/// regular file, no language saved, or `settings` does not come that early).
pub fn saved_lang_in(path: &Path) -> Option<crate::i18n::Lang> {
    use serde::de::{Deserializer as _, IgnoredAny, MapAccess, Visitor};

    struct Head<'a>(&'a mut Option<Option<crate::i18n::Lang>>);
    impl<'de> Visitor<'de> for Head<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a progress file")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<(), A::Error> {
            #[derive(Deserialize)]
            struct Lang {
                #[serde(default)]
                lang: Option<crate::i18n::Lang>,
            }
            while let Some(key) = map.next_key::<String>()? {
                if key == "settings" {
                    *self.0 = Some(map.next_value::<Lang>()?.lang);
                    // The rest of the file is not read.
                    return Ok(());
                }
                map.next_value::<IgnoredAny>()?;
            }
            Ok(())
        }
    }

    let f = crate::fsutil::open_regular(path).ok()?;
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(f, LANG_PREFIX), &mut bytes).ok()?;
    let mut found = None;
    // Stopping early leaves the map unclosed, which serde_json calls an error: `found` says what was read.
    let _ = serde_json::Deserializer::from_slice(&bytes).deserialize_map(Head(&mut found));
    found.flatten()
}

/// The records a load set aside, as kept beside the progress file.
#[derive(Serialize)]
struct SideFile<'a> {
    /// The progress file they were in.
    file: String,
    at: DateTime<Utc>,
    records: &'a [SetAside],
}

/// Keep `aside` (the records as they were) in `progress.json.set-aside-<ts>`.
fn keep_aside(path: &Path, aside: &[SetAside], now: DateTime<Utc>) -> Result<PathBuf> {
    let side = aside_path(path, "set-aside", now);
    let file = SideFile { file: path.display().to_string(), at: now, records: aside };
    crate::fsutil::write_atomic(&side, &serde_json::to_vec_pretty(&file)?)?;
    Ok(side)
}

/// What the learner is told about records repaired or left out: which (the
/// first three), where the originals are kept (`side`), and what went wrong
/// keeping them (`error`: the side file, or the repaired file, not written).
fn repair_notice(path: &Path, aside: &[SetAside], side: Option<&Path>, error: Option<String>) -> String {
    let file = path.display().to_string();
    let mut records: Vec<String> = aside
        .iter()
        .take(3)
        .map(|a| {
            let why = if a.why.starts_with(&a.place) { a.why.clone() } else { format!("{}: {}", a.place, a.why) };
            match &a.repaired {
                Some(how) => crate::t!("progress-store-record-repaired", why = why, how = how.as_str()),
                None => crate::t!("progress-store-record-left-out", why = why),
            }
        })
        .collect();
    if aside.len() > 3 {
        records.push(crate::t!("progress-store-records-more", count = aside.len() - 3));
    }
    let records = records.join("; ");
    let count = aside.len();
    match (side, error) {
        (Some(side), None) => crate::t!(
            "progress-store-repaired",
            file = file,
            count = count,
            records = records,
            side = side.display().to_string()
        ),
        (Some(side), Some(error)) => crate::t!(
            "progress-store-repaired-unwritten",
            file = file,
            count = count,
            records = records,
            side = side.display().to_string(),
            error = error
        ),
        (None, error) => crate::t!(
            "progress-store-repair-not-kept",
            file = file,
            count = count,
            records = records,
            error = error.unwrap_or_default()
        ),
    }
}

/// `progress.json.<tag>-<YYYYmmdd-HHMMSS>`, made unique if it exists.
fn aside_path(path: &Path, tag: &str, now: DateTime<Utc>) -> PathBuf {
    let base = format!(
        "{}.{tag}-{}",
        path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default(),
        now.format("%Y%m%d-%H%M%S")
    );
    let mut p = path.with_file_name(&base);
    let mut k = 1;
    while p.exists() {
        p = path.with_file_name(format!("{base}-{k}"));
        k += 1;
    }
    p
}

/// `value` within `range` (inclusive), or an error naming `field`.
fn in_range(field: &str, value: f32, range: (f32, f32)) -> std::result::Result<(), String> {
    if (range.0..=range.1).contains(&value) {
        Ok(())
    } else {
        Err(format!("{field} is {value}, not in [{}, {}]", range.0, range.1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 1, 8, 0, 0).unwrap()
    }

    #[test]
    fn round_trips_through_the_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join(FILE_NAME);
        let mut s = Store::open(&p, now());
        assert!(s.notice.is_none() && s.progress.items.is_empty());
        s.record("x", 3, Level::L1, Some(true), Rating::Know, now()).unwrap();
        s.set_retention(0.85).unwrap();
        let again = Store::open(&p, now());
        assert_eq!(again.progress, s.progress);
        assert_eq!(again.progress.settings.desired_retention, 0.85);
        assert!(s.set_retention(0.3).is_err());
    }
}
