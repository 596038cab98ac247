//! The learner-state file: `<data dir>/progress.json`, versioned, written
//! atomically (temp file + rename, see `fsutil::write_atomic`).
//!
//! A file that does not parse, or that a newer agentlab wrote, is never
//! overwritten: it is renamed to `progress.json.corrupt-<ts>` or
//! `progress.json.newer-<ts>`, the learner is told (the `notice`), and a
//! fresh state starts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::schedule::{self, Rating, Sched, DEFAULT_RETENTION};
use crate::content::Level;

/// Version of the file format this build reads and writes.
pub const VERSION: u32 = 1;
/// File name inside the data directory.
pub const FILE_NAME: &str = "progress.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// FSRS desired retention (0.70–0.99).
    pub desired_retention: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { desired_retention: DEFAULT_RETENTION }
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

/// The whole learner state, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub version: u32,
    #[serde(default)]
    pub settings: Settings,
    /// Keyed by quiz item id.
    #[serde(default)]
    pub items: BTreeMap<String, ItemRecord>,
}

impl Default for Progress {
    fn default() -> Self {
        Progress { version: VERSION, settings: Settings::default(), items: BTreeMap::new() }
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
    }
}

/// The progress file on disk and its contents in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Store {
    pub path: PathBuf,
    pub progress: Progress,
    /// Said once to the learner: a file moved aside, or a save that failed.
    pub notice: Option<String>,
}

impl Store {
    /// `<AGENTLAB_HOME or the platform data dir>/progress.json`.
    pub fn open_default(now: DateTime<Utc>) -> Result<Store> {
        Ok(Store::open(&crate::paths::data_dir()?.join(FILE_NAME), now))
    }

    /// A store that lives only in memory (when no data dir can be found).
    pub fn in_memory(path: PathBuf, notice: String) -> Store {
        Store { path, progress: Progress::default(), notice: Some(notice) }
    }

    /// Load `path`. A missing file is a fresh start; a corrupt or newer one
    /// is moved aside (never overwritten) and `notice` says so.
    pub fn open(path: &Path, now: DateTime<Utc>) -> Store {
        let fresh = |notice| Store { path: path.to_path_buf(), progress: Progress::default(), notice };
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return fresh(None),
            Err(e) => {
                return fresh(Some(format!("cannot read {}: {e}; progress is not saved this session", path.display())))
            }
        };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let (tag, why) = match serde_json::from_slice::<serde_json::Value>(&bytes) {
            Err(e) => ("corrupt", format!("{name} is corrupt (not valid JSON: {e})")),
            Ok(v) => match v.get("version").and_then(|x| x.as_u64()) {
                Some(ver) if ver > VERSION as u64 => (
                    "newer",
                    format!("{name} was written by a newer agentlab (format {ver}; this build reads {VERSION})"),
                ),
                _ => match serde_json::from_value::<Progress>(v) {
                    Ok(p) => return Store { path: path.to_path_buf(), progress: p, notice: None },
                    Err(e) => ("corrupt", format!("{name} is corrupt (it does not match the progress format: {e})")),
                },
            },
        };
        let aside = aside_path(path, tag, now);
        match std::fs::rename(path, &aside) {
            Ok(()) => fresh(Some(format!("{why}. It was kept as {} and a fresh one starts.", aside.display()))),
            // Could not move it: leave it untouched and save elsewhere.
            Err(e) => {
                let elsewhere = aside_path(path, "unsaved", now);
                Store {
                    path: elsewhere.clone(),
                    progress: Progress::default(),
                    notice: Some(format!(
                        "{why}, and it could not be moved aside ({e}): this session saves to {}",
                        elsewhere.display()
                    )),
                }
            }
        }
    }

    /// Write the state atomically.
    pub fn save(&self) -> Result<()> {
        let json = serde_json::to_vec_pretty(&self.progress)?;
        crate::fsutil::write_atomic(&self.path, &json)
            .with_context(|| format!("saving progress to {}", self.path.display()))
    }

    /// Record an answer and save. On a failed save the answer stays in memory
    /// and the error says why.
    pub fn record(
        &mut self,
        id: &str,
        track: u8,
        level: Level,
        correct: Option<bool>,
        rating: Rating,
        now: DateTime<Utc>,
    ) -> Result<()> {
        self.progress.record(id, track, level, correct, rating, now);
        self.save()
    }

    /// Set the desired retention (checked) and save.
    pub fn set_retention(&mut self, r: f64) -> Result<()> {
        let r = schedule::check_retention(r).map_err(anyhow::Error::msg)?;
        self.progress.settings.desired_retention = (r * 100.0).round() / 100.0;
        self.save()
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
