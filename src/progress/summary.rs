//! Figures for the progress screen, Home and `agentlab progress`.
//!
//! Mastery of a track × level = share of its items that are *mastered*
//! ([`item_status`]): in FSRS's review stage (right the first time it was
//! asked, or recalled ✅ at least a day after it was missed), last rated ✅,
//! not due, and with a predicted recall now of at least the desired
//! retention. An item missed today is *learning* until a later day's review
//! recalls it. Days are counted from `now` in 24-hour windows.
//!
//! One truth: Home, the Progress screen, `agentlab progress` and the study
//! path all read their figures from [`summarize`] (a track's mastery is
//! [`TrackRow::mastery`], whether it was started [`TrackRow::started`]), and
//! say them with the `*_text` helpers here, so no two places can disagree.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Datelike, Duration, NaiveDate, Utc};
use serde::Serialize;

use super::schedule::{self, Rating, Stage};
use super::store::{ItemRecord, Progress};
use crate::content::{Content, Level, TRACKS};
use crate::drills::{Report, RunStatus};

/// Mastery of one track × level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
pub struct Cell {
    pub items: usize,
    /// Items with at least one rating.
    pub seen: usize,
    /// Items [mastered](Status::Mastered).
    pub mastered: usize,
    /// Items answered and not mastered ([`Status::Learning`]).
    pub learning: usize,
    /// Items never answered.
    pub not_seen: usize,
}

impl Cell {
    /// `None` while nothing has been answered.
    pub fn fraction(&self) -> Option<f64> {
        (self.seen > 0 && self.items > 0).then(|| self.mastered as f64 / self.items as f64)
    }

    /// Share of the items being learnt (0 for none).
    pub fn learning_fraction(&self) -> f64 {
        if self.items == 0 {
            0.0
        } else {
            self.learning as f64 / self.items as f64
        }
    }

    fn add(&mut self, o: &Cell) {
        self.items += o.items;
        self.seen += o.seen;
        self.mastered += o.mastered;
        self.learning += o.learning;
        self.not_seen += o.not_seen;
    }

    /// "10 mastered · 4 learning · 1 not seen".
    pub fn counts_text(&self) -> String {
        crate::t!("progress-counts", mastered = self.mastered, learning = self.learning, unseen = self.not_seen)
    }
}

/// One track's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrackRow {
    pub track: u8,
    pub title: String,
    /// L1, L2, L3.
    pub levels: [Cell; 3],
    pub total: Cell,
    /// Items of this track due now.
    pub due: usize,
    /// Drills of the track with at least one run where every claim held.
    pub drills_passed: usize,
    pub drills: usize,
    /// Exercises of the track whose check passed once, and how many there are.
    pub exercises_done: usize,
    pub exercises: usize,
    /// Seconds spent on the track in study sessions (their `track_secs`).
    pub secs: u64,
    /// Predictions about the track's drills, and how many were right.
    pub predictions: usize,
    pub predictions_right: usize,
}

impl TrackRow {
    /// Whether anything of the track was done: an item answered, a drill
    /// passed, an exercise passed, a prediction made or time spent on it.
    pub fn started(&self) -> bool {
        self.total.seen > 0
            || self.drills_passed > 0
            || self.exercises_done > 0
            || self.predictions > 0
            || self.secs > 0
    }

    /// Mastery of the whole track: its items mastered over all its items
    /// (every level). `None` while the track is not [started](Self::started).
    pub fn mastery(&self) -> Option<f64> {
        self.started().then(|| {
            if self.total.items == 0 {
                0.0
            } else {
                self.total.mastered as f64 / self.total.items as f64
            }
        })
    }

    /// Share of the track's predictions that were right (`None`: none yet).
    pub fn calibration(&self) -> Option<f64> {
        (self.predictions > 0).then(|| self.predictions_right as f64 / self.predictions as f64)
    }

    /// "12 of 27 items mastered (44%) · 3 learning · 12 not seen", or "not started".
    pub fn mastery_text(&self) -> String {
        match self.mastery() {
            None => crate::t!("progress-not-started"),
            Some(f) => crate::t!(
                "progress-mastered",
                mastered = self.total.mastered,
                items = self.total.items,
                pct = pct_text(Some(f)),
                learning = self.total.learning,
                unseen = self.total.not_seen
            ),
        }
    }

    /// "1/3" drills passed, "—" for a track without drills.
    pub fn drills_text(&self) -> String {
        ratio_text(self.drills_passed, self.drills)
    }

    /// "2/5" exercises done, "—" for a track without exercises.
    pub fn exercises_text(&self) -> String {
        ratio_text(self.exercises_done, self.exercises)
    }

    /// "3/4 75%" predictions right, "—" before the first.
    pub fn calibration_text(&self) -> String {
        match self.calibration() {
            None => "—".to_string(),
            Some(f) => format!("{}/{} {}", self.predictions_right, self.predictions, pct_text(Some(f))),
        }
    }
}

/// "44%", or "—" for nothing yet.
pub fn pct_text(f: Option<f64>) -> String {
    match f {
        None => "—".to_string(),
        Some(f) => format!("{:.0}%", f.clamp(0.0, 1.0) * 100.0),
    }
}

/// "n/of", or "—" when there is nothing to count.
fn ratio_text(n: usize, of: usize) -> String {
    if of == 0 {
        "—".to_string()
    } else {
        format!("{n}/{of}")
    }
}

/// A time spent: "—" (none), "40s", "12m", "1h05".
pub fn duration_text(secs: u64) -> String {
    match secs {
        0 => "—".to_string(),
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s => format!("{}h{:02}", s / 3600, (s % 3600) / 60),
    }
}

/// Where one item stands for mastery: the one place that decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    NotSeen,
    /// Answered, not mastered: being (re)learnt, due again, or last rated ⚠️/❌.
    Learning,
    Mastered,
}

/// An item's [`Status`] at `now`: mastered when it is in FSRS's review stage
/// ([`schedule::stage`]), its last rating is ✅, it is not due nor flagged,
/// and its predicted recall now is at least `retention`.
pub fn item_status(rec: Option<&ItemRecord>, flagged: bool, now: DateTime<Utc>, retention: f64) -> Status {
    let Some(rec) = rec.filter(|r| !r.attempts.is_empty()) else { return Status::NotSeen };
    let Some(s) = rec.sched else { return Status::Learning };
    let mastered = !flagged
        && !s.is_due(now)
        && rec.last_rating() == Some(Rating::Know)
        && schedule::stage(rec.attempts.iter().map(|a| (a.at, a.rating))) == Stage::Review
        && schedule::recall_now(&s, now) >= retention;
    if mastered {
        Status::Mastered
    } else {
        Status::Learning
    }
}

/// Study sessions of one week (Monday to Sunday, UTC).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Week {
    /// Its Monday.
    pub start: NaiveDate,
    pub sessions: usize,
    /// Seconds between the starts and ends of its sessions.
    pub secs: u64,
}

/// Ratings given on one day.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Day {
    pub date: NaiveDate,
    pub know: usize,
    pub fuzzy: usize,
    pub dont: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub tracks: Vec<TrackRow>,
    /// Due now (at `now` or earlier).
    pub due_now: usize,
    /// `due_next[k]`: items coming due in (now + k days, now + k+1 days], k = 0..7.
    pub due_next: [usize; 7],
    /// The last `HISTORY_DAYS` days, oldest first (UTC dates).
    pub history: Vec<Day>,
    pub desired_retention: f64,
    /// Study sessions per week, the last `WEEKS` weeks, oldest first (the
    /// current week last).
    pub weeks: Vec<Week>,
    /// Study sessions ever recorded.
    pub sessions: usize,
}

pub const HISTORY_DAYS: usize = 14;
/// Weeks of study sessions in [`Summary::weeks`].
pub const WEEKS: usize = 4;

impl Summary {
    pub fn due_week(&self) -> usize {
        self.due_next.iter().sum()
    }
}

/// Passed drills by id (any run whose report says every claim held), read
/// fresh from the run history under `runs_root`. Only the reports are read,
/// and a drill's scan stops at its first passed run.
pub fn drills_passed(content: &Content, runs_root: &Path) -> BTreeMap<String, bool> {
    let ids: Vec<String> = content.drills.iter().map(|d| d.id.clone()).collect();
    drills_passed_of(&ids, runs_root)
}

/// [`drills_passed`] for the drills `ids`. Only regular files are read (a
/// FIFO in a report's place would block the read), each at most
/// [`crate::runner::MAX_REPORT_BYTES`].
pub fn drills_passed_of(ids: &[String], runs_root: &Path) -> BTreeMap<String, bool> {
    let passed_once = |id: &str| {
        let Ok(entries) = std::fs::read_dir(runs_root.join(id)) else { return false };
        entries.flatten().any(|e| {
            crate::fsutil::read_regular(&e.path().join("report.json"), crate::runner::MAX_REPORT_BYTES)
                .ok()
                .and_then(|s| serde_json::from_slice::<Report>(&s).ok())
                .is_some_and(|r| r.status == RunStatus::Passed)
        })
    };
    ids.iter().map(|id| (id.clone(), passed_once(id))).collect()
}

/// The verdict of each drill's newest run under `runs_root` that has one
/// (run directories are named by their start time, so the newest sorts
/// last): `true` when every claim held, `false` when a claim failed. Runs
/// cancelled or stopped by an error give no verdict and are passed over; a
/// drill without a verdict is absent.
/// Read as [`drills_passed_of`] reads (regular files, bounded).
pub fn last_runs_of(ids: &[String], runs_root: &Path) -> BTreeMap<String, bool> {
    let mut out = BTreeMap::new();
    for id in ids {
        let Ok(entries) = std::fs::read_dir(runs_root.join(id)) else { continue };
        let mut dirs: Vec<std::path::PathBuf> = entries.flatten().map(|e| e.path()).collect();
        dirs.sort();
        let verdict = dirs.iter().rev().find_map(|d| {
            let report = crate::fsutil::read_regular(&d.join("report.json"), crate::runner::MAX_REPORT_BYTES)
                .ok()
                .and_then(|s| serde_json::from_slice::<Report>(&s).ok())?;
            match report.status {
                RunStatus::Passed => Some(true),
                RunStatus::ClaimsFailed => Some(false),
                _ => None,
            }
        });
        if let Some(v) = verdict {
            out.insert(id.clone(), v);
        }
    }
    out
}

/// [`summarize`] with the drills passed read from `runs_root` now: what
/// `agentlab progress` shows (the TUI keeps the drills passed between scans).
pub fn summarize_with_runs(progress: &Progress, content: &Content, runs_root: &Path, now: DateTime<Utc>) -> Summary {
    summarize(progress, content, &drills_passed(content, runs_root), now)
}

/// Compute everything at `now`; `passed` comes from [`drills_passed`] (empty: none known).
pub fn summarize(
    progress: &Progress,
    content: &Content,
    passed: &BTreeMap<String, bool>,
    now: DateTime<Utc>,
) -> Summary {
    let mut tracks = Vec::new();
    let mut due_now = 0;
    let mut due_next = [0usize; 7];
    for t in TRACKS.iter() {
        let mut levels = [Cell::default(); 3];
        let mut due = 0;
        for item in content.items().filter(|i| i.track == t.number) {
            let li = Level::ALL.iter().position(|l| *l == item.level).unwrap_or(0);
            let cell = &mut levels[li];
            cell.items += 1;
            let flagged = progress.flagged.get(&item.id).is_some_and(|at| *at <= now);
            let rec = progress.items.get(&item.id);
            match item_status(rec, flagged, now, progress.settings.desired_retention) {
                Status::NotSeen => cell.not_seen += 1,
                Status::Learning => cell.learning += 1,
                Status::Mastered => cell.mastered += 1,
            }
            let Some(rec) = rec.filter(|r| !r.attempts.is_empty()) else {
                due += usize::from(flagged);
                continue;
            };
            cell.seen += 1;
            let Some(s) = rec.sched else { continue };
            if s.is_due(now) || flagged {
                due += 1;
            } else {
                let k = ((s.due - now).num_seconds() - 1).max(0) / 86_400;
                if let Some(slot) = due_next.get_mut(k as usize) {
                    *slot += 1;
                }
            }
        }
        let mut total = Cell::default();
        for c in &levels {
            total.add(c);
        }
        due_now += due;
        let drills: Vec<_> = content.drills_of(t.number).collect();
        tracks.push(TrackRow {
            track: t.number,
            title: content.track_title(t.number),
            levels,
            total,
            due,
            drills_passed: drills.iter().filter(|d| passed.get(&d.id).copied().unwrap_or(false)).count(),
            drills: drills.len(),
            exercises_done: content.exercises_of(t.number).filter(|x| progress.exercise_done(&x.id)).count(),
            exercises: content.exercises_of(t.number).count(),
            secs: progress.sessions.iter().filter_map(|s| s.track_secs.get(&t.number)).sum(),
            predictions: progress.predictions.iter().filter(|p| p.track == t.number).count(),
            predictions_right: progress.predictions.iter().filter(|p| p.track == t.number && p.right).count(),
        });
    }
    let today = now.date_naive();
    let mut history: Vec<Day> = (0..HISTORY_DAYS)
        .rev()
        .map(|k| Day { date: today - Duration::days(k as i64), know: 0, fuzzy: 0, dont: 0 })
        .collect();
    for rec in progress.items.values() {
        for a in &rec.attempts {
            if let Some(day) = history.iter_mut().find(|d| d.date == a.at.date_naive()) {
                match a.rating {
                    Rating::Know => day.know += 1,
                    Rating::Fuzzy => day.fuzzy += 1,
                    Rating::Dont => day.dont += 1,
                }
            }
        }
    }
    // Weeks start on Monday; the current one is last.
    let monday = today - Duration::days(today.weekday().num_days_from_monday() as i64);
    let mut weeks: Vec<Week> =
        (0..WEEKS).rev().map(|k| Week { start: monday - Duration::weeks(k as i64), sessions: 0, secs: 0 }).collect();
    for s in &progress.sessions {
        let day = s.started.date_naive();
        if let Some(w) = weeks.iter_mut().find(|w| w.start <= day && day < w.start + Duration::weeks(1)) {
            w.sessions += 1;
            w.secs += (s.ended - s.started).num_seconds().max(0) as u64;
        }
    }
    Summary {
        tracks,
        due_now,
        due_next,
        history,
        desired_retention: progress.settings.desired_retention,
        weeks,
        sessions: progress.sessions.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn mastery_counts_know_items_that_are_not_due() {
        let content = Content::embedded().unwrap();
        let l1: Vec<_> = super::super::session::quiz_items(&content, Some(3), Some(Level::L1), None);
        let t0 = Utc.with_ymd_and_hms(2026, 3, 1, 8, 0, 0).unwrap();
        let mut p = Progress::default();
        p.record(&l1[0].id, 3, Level::L1, Some(true), Rating::Know, t0);
        p.record(&l1[1].id, 3, Level::L1, Some(true), Rating::Know, t0);
        p.record(&l1[2].id, 3, Level::L1, Some(false), Rating::Dont, t0);
        let s = summarize(&p, &content, &BTreeMap::new(), t0);
        let row = &s.tracks[3];
        assert_eq!(row.levels[0].items, l1.len());
        assert_eq!(row.levels[0].seen, 3);
        assert_eq!(row.levels[0].mastered, 2);
        assert_eq!(row.levels[1].fraction(), None, "L2 not started");
        assert_eq!(s.tracks[0].total.fraction(), None);
        assert_eq!(s.due_now, 0);
        assert_eq!(s.due_next[0], 1, "the ❌ item comes due within a day");
        assert_eq!(s.due_next[1], 2, "the ✅ items in two days");
        assert_eq!(s.history.last().unwrap(), &Day { date: t0.date_naive(), know: 2, fuzzy: 0, dont: 1 });
        // Three days later everything is due and nothing counts as mastered.
        let s = summarize(&p, &content, &BTreeMap::new(), t0 + Duration::days(3));
        assert_eq!(s.due_now, 3);
        assert_eq!(s.tracks[3].levels[0].mastered, 0);
        assert_eq!(s.tracks[3].due, 3);
    }

    #[test]
    fn sessions_time_and_predictions_are_counted_per_week_and_track() {
        use crate::progress::store::{PredictionRecord, SessionRecord};
        let content = Content::embedded().unwrap();
        // A Wednesday; its week starts on Monday 2026-03-30.
        let now = Utc.with_ymd_and_hms(2026, 4, 1, 9, 0, 0).unwrap();
        let session = |started: DateTime<Utc>, mins: i64, secs: &[(u8, u64)]| SessionRecord {
            started,
            ended: started + Duration::minutes(mins),
            track: None,
            planned_minutes: 25,
            steps_done: 1,
            steps_skipped: 0,
            items_rated: 0,
            exercises_passed: 0,
            drills: vec![],
            predictions: 0,
            predictions_right: 0,
            track_secs: secs.iter().copied().collect(),
        };
        let mut p = Progress::default();
        p.sessions.push(session(now - Duration::days(2), 30, &[(6, 1200), (3, 600)])); // Monday
        p.sessions.push(session(now - Duration::days(3), 10, &[(6, 600)])); // Sunday, the week before
        p.sessions.push(session(now - Duration::days(60), 10, &[(6, 60)])); // long ago: time only
        for (right, track) in [(true, 6), (false, 6), (true, 3)] {
            p.predictions.push(PredictionRecord {
                drill: "grpo-rlvr".into(),
                preset: "quick".into(),
                id: "kl".into(),
                track,
                answer: "a little".into(),
                measured: 0.1,
                right,
                at: now,
            });
        }
        let s = summarize(&p, &content, &BTreeMap::new(), now);
        let weeks: Vec<_> = s.weeks.iter().map(|w| (w.start.to_string(), w.sessions, w.secs)).collect();
        assert_eq!(
            weeks,
            [
                ("2026-03-09".to_string(), 0, 0),
                ("2026-03-16".to_string(), 0, 0),
                ("2026-03-23".to_string(), 1, 600),
                ("2026-03-30".to_string(), 1, 1800)
            ]
        );
        assert_eq!(s.sessions, 3);
        let t6 = &s.tracks[6];
        assert_eq!((t6.secs, t6.predictions, t6.predictions_right), (1860, 2, 1));
        assert!(t6.started() && t6.mastery() == Some(0.0), "time and predictions start a track");
        assert_eq!(t6.calibration_text(), "1/2 50%");
        assert_eq!(duration_text(t6.secs), "31m");
        assert_eq!(s.tracks[3].calibration_text(), "1/1 100%");
        assert!(!s.tracks[1].started() && s.tracks[1].mastery().is_none());
        assert_eq!((s.tracks[1].mastery_text(), s.tracks[1].calibration_text()), ("not started".into(), "—".into()));
        assert_eq!(
            (duration_text(0), duration_text(42), duration_text(3900)),
            ("—".into(), "42s".into(), "1h05".into())
        );
        // A passed drill alone starts a track too.
        let passed: BTreeMap<String, bool> = [("grpo-rlvr".to_string(), true)].into();
        let s = summarize(&Progress::default(), &content, &passed, now);
        assert!(s.tracks[6].started() && s.tracks[6].drills_text() == "1/3");
    }

    /// The example: 5 of 15 wrong on a quiz, every item ✅ in a
    /// review ten minutes later: 10 mastered, 5 learning, not 100%; a ✅
    /// review of the 5 on a later day masters them.
    #[test]
    fn a_miss_relearnt_the_same_day_is_learning_not_mastered() {
        let content = Content::embedded().unwrap();
        let items: Vec<_> = super::super::session::quiz_items(&content, Some(0), Some(Level::L2), None);
        assert!(items.len() >= 15, "track 0 L2 has {} items", items.len());
        let items = &items[..15];
        let t0 = Utc.with_ymd_and_hms(2026, 3, 1, 8, 0, 0).unwrap();
        let mut p = Progress::default();
        for (i, it) in items.iter().enumerate() {
            let rating = match i {
                0..=9 => Rating::Know,
                10 => Rating::Fuzzy,
                _ => Rating::Dont,
            };
            p.record(&it.id, 0, Level::L2, Some(rating == Rating::Know), rating, t0);
        }
        let later = t0 + Duration::minutes(10);
        for it in &items[10..] {
            p.record(&it.id, 0, Level::L2, Some(true), Rating::Know, later);
        }
        let s = summarize(&p, &content, &BTreeMap::new(), later + Duration::minutes(1));
        let cell = s.tracks[0].levels[1];
        assert_eq!((cell.mastered, cell.learning, cell.seen), (10, 5, 15), "{cell:?}");
        assert_eq!(cell.not_seen, cell.items - 15);
        assert!(cell.fraction().unwrap() < 1.0);
        assert_eq!(
            s.tracks[0].mastery_text(),
            format!(
                "10 of {} items mastered ({}) · 5 learning · {} not seen",
                s.tracks[0].total.items,
                pct_text(Some(10.0 / s.tracks[0].total.items as f64)),
                s.tracks[0].total.not_seen
            )
        );
        // Status per item, from the one function.
        let status = |id: &str, at| item_status(p.items.get(id), false, at, 0.9);
        assert_eq!(status(&items[0].id, later), Status::Mastered);
        assert_eq!(status(&items[14].id, later), Status::Learning);
        assert_eq!(status("no-such-item", later), Status::NotSeen);
        // A later day: the five come due, are recalled, and count.
        let mut at = later;
        for it in &items[10..] {
            let due = p.items[&it.id].sched.unwrap().due;
            at = at.max(due);
        }
        for it in &items[10..] {
            p.record(&it.id, 0, Level::L2, Some(true), Rating::Know, at);
        }
        for it in &items[..10] {
            // The ten right the first time were due meanwhile too: recall them as well.
            p.record(&it.id, 0, Level::L2, Some(true), Rating::Know, at);
        }
        let s = summarize(&p, &content, &BTreeMap::new(), at + Duration::minutes(1));
        assert_eq!(s.tracks[0].levels[1].mastered, 15, "{:?}", s.tracks[0].levels[1]);
        // Far past due, recall has fallen under the retention: learning again.
        let s = summarize(&p, &content, &BTreeMap::new(), at + Duration::days(365));
        assert_eq!((s.tracks[0].levels[1].mastered, s.tracks[0].levels[1].learning), (0, 15));
    }
}
