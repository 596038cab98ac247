//! The learner's rating and the spaced-repetition schedule (FSRS).
//!
//! Every item ends with a self-rating, mapped onto FSRS's four grades:
//!
//! | rating | meaning | FSRS grade |
//! |---|---|---|
//! | ✅ know  | recalled it        | Good (3)  |
//! | ⚠️ fuzzy | recalled with effort | Hard (2) |
//! | ❌ don't | forgot             | Again (1) |
//!
//! (Easy is not offered: one "know" button keeps the choice quick.)
//! The scheduler is the `fsrs` crate with its default FSRS-6 parameters;
//! `MemoryState` is not `Deserialize`, so stability and difficulty are kept
//! in [`Sched`] here. Every function takes `now`: the logic never reads the clock.
//!
//! ```
//! use agentlab::progress::schedule::{review, Rating};
//! use chrono::{TimeZone, Utc};
//! let t0 = Utc.with_ymd_and_hms(2026, 1, 1, 9, 0, 0).unwrap();
//! let s = review(None, Rating::Know, t0, 0.9);
//! assert!(s.due > t0 + chrono::Duration::days(1));
//! ```

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

/// The learner's self-rating after an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rating {
    /// ✅ know
    Know,
    /// ⚠️ fuzzy
    Fuzzy,
    /// ❌ don't know
    Dont,
}

impl Rating {
    pub const ALL: [Rating; 3] = [Rating::Know, Rating::Fuzzy, Rating::Dont];

    /// Keys `1`/`2`/`3` (also the headless answer lines).
    pub fn from_key(s: &str) -> Option<Rating> {
        match s.trim() {
            "1" => Some(Rating::Know),
            "2" => Some(Rating::Fuzzy),
            "3" => Some(Rating::Dont),
            _ => None,
        }
    }

    pub fn key(self) -> char {
        match self {
            Rating::Know => '1',
            Rating::Fuzzy => '2',
            Rating::Dont => '3',
        }
    }

    pub fn emoji(self) -> &'static str {
        match self {
            Rating::Know => "✅",
            // Without the emoji selector (U+FE0F): terminals disagree on the width of "⚠️",
            // which shifts the rest of a TUI line; plain "⚠" is one cell everywhere.
            Rating::Fuzzy => "⚠",
            Rating::Dont => "❌",
        }
    }

    /// The rating in words, in the language in force ("know", "fuzzy", "don't").
    pub fn word(self) -> String {
        match self {
            Rating::Know => crate::t!("progress-rating-know"),
            Rating::Fuzzy => crate::t!("progress-rating-fuzzy"),
            Rating::Dont => crate::t!("progress-rating-dont"),
        }
    }

    /// The FSRS grade: Again = 1, Hard = 2, Good = 3 (Easy = 4 is unused).
    pub fn fsrs_grade(self) -> u32 {
        match self {
            Rating::Know => 3,
            Rating::Fuzzy => 2,
            Rating::Dont => 1,
        }
    }

    /// Whether the rating may be given after an answer graded `correct`
    /// (`None`: an open item). An auto-graded wrong answer cannot be ✅.
    pub fn allowed(self, correct: Option<bool>) -> bool {
        !(self == Rating::Know && correct == Some(false))
    }

    /// ⚠️ and ❌ items come back after each pass and in review.
    pub fn comes_back(self) -> bool {
        self != Rating::Know
    }
}

/// Scheduler state of one item, stored in the progress file.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sched {
    pub stability: f32,
    pub difficulty: f32,
    pub last_review: DateTime<Utc>,
    pub due: DateTime<Utc>,
    pub reps: u32,
    pub lapses: u32,
}

impl Sched {
    pub fn is_due(&self, now: DateTime<Utc>) -> bool {
        self.due <= now
    }
}

/// Default desired retention (probability of recall when an item comes due).
pub const DEFAULT_RETENTION: f64 = 0.9;
/// Accepted range for desired retention.
pub const RETENTION_RANGE: (f64, f64) = (0.70, 0.99);

/// Check a desired retention value, with the reason when it is refused.
pub fn check_retention(r: f64) -> Result<f64, String> {
    if r.is_finite() && (RETENTION_RANGE.0..=RETENTION_RANGE.1).contains(&r) {
        Ok(r)
    } else {
        Err(crate::t!(
            "progress-retention-range",
            low = RETENTION_RANGE.0.to_string(),
            high = RETENTION_RANGE.1.to_string(),
            got = r.to_string()
        ))
    }
}

/// The next schedule after rating an item at `now`.
///
/// Intervals come from FSRS for the chosen grade. ✅ and ⚠️ intervals are
/// rounded to whole days (at least one), as Anki does; a ❌ item keeps FSRS's
/// short interval (hours) so it comes back soon.
pub fn review(prev: Option<&Sched>, rating: Rating, now: DateTime<Utc>, retention: f64) -> Sched {
    let fsrs = fsrs::FSRS::default();
    let memory = prev.map(|p| fsrs::MemoryState { stability: p.stability, difficulty: p.difficulty });
    let elapsed_days = prev.map_or(0, |p| (now - p.last_review).num_days().max(0) as u32);
    let retention = check_retention(retention).unwrap_or(DEFAULT_RETENTION) as f32;
    let next = fsrs.next_states(memory, retention, elapsed_days).ok();
    let state = next.map(|n| match rating {
        Rating::Know => n.good,
        Rating::Fuzzy => n.hard,
        Rating::Dont => n.again,
    });
    // FSRS refuses only non-finite input; keep the old memory (or a neutral one) then.
    let (stability, difficulty, interval_days) = match state {
        Some(s) => (s.memory.stability, s.memory.difficulty, s.interval as f64),
        None => (prev.map_or(1.0, |p| p.stability), prev.map_or(5.0, |p| p.difficulty), 1.0),
    };
    let due = match rating {
        Rating::Dont => now + Duration::seconds((interval_days * 86_400.0).clamp(600.0, 86_400.0) as i64),
        _ => now + Duration::days(interval_days.round().max(1.0) as i64),
    };
    Sched {
        stability,
        difficulty,
        last_review: now,
        due,
        // Counters saturate: at their limit they stay there (never wrap to a
        // state the loader refuses; lapses never pass reps).
        reps: prev.map_or(0, |p| p.reps).saturating_add(1),
        lapses: prev
            .map_or(0, |p| p.lapses)
            .saturating_add(u32::from(rating == Rating::Dont && prev.is_some()))
            .min(prev.map_or(0, |p| p.reps).saturating_add(1)),
    }
}

/// Where an item stands in the FSRS sense, read from its answers in order.
///
/// - *new*: never answered;
/// - *learning*: it was missed (❌) or only half-recalled (⚠️) as a new item,
///   or missed (❌) in review, and no ✅ has yet come at least a day after the
///   answer before it (FSRS's short-term steps: a miss corrected minutes later
///   on the same day is still being learned; Anki keeps such cards in
///   (re)learning);
/// - *review*: right the first time it was ever asked, or recalled (✅)
///   after an interval of at least a day since its last miss was being learnt.
///
/// ⚠️ on an item in review keeps it in review (Hard is a pass), as in FSRS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    New,
    Learning,
    Review,
}

/// The [`Stage`] after the answers `(at, rating)`, oldest first.
pub fn stage<I: IntoIterator<Item = (DateTime<Utc>, Rating)>>(answers: I) -> Stage {
    let mut stage = Stage::New;
    let mut prev: Option<DateTime<Utc>> = None;
    for (at, rating) in answers {
        let a_day_later = prev.is_some_and(|p| at - p >= Duration::days(1));
        stage = match (stage, rating) {
            (Stage::New, Rating::Know) => Stage::Review,
            (Stage::New, _) => Stage::Learning,
            (Stage::Learning, Rating::Know) if a_day_later => Stage::Review,
            (Stage::Learning, _) => Stage::Learning,
            (Stage::Review, Rating::Dont) => Stage::Learning,
            (Stage::Review, _) => Stage::Review,
        };
        prev = Some(at);
    }
    stage
}

/// FSRS's predicted probability of recall of `s` at `now` (1 right after a
/// review, the desired retention about when it comes due).
pub fn recall_now(s: &Sched, now: DateTime<Utc>) -> f64 {
    let days = ((now - s.last_review).num_seconds().max(0) as f64 / 86_400.0) as f32;
    let memory = fsrs::MemoryState { stability: s.stability.max(1e-3), difficulty: s.difficulty };
    let r = fsrs::current_retrievability(memory, days, fsrs::FSRS6_DEFAULT_DECAY) as f64;
    if r.is_finite() {
        r.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn t0() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 1, 8, 0, 0).unwrap()
    }

    #[test]
    fn ratings_map_onto_fsrs_grades() {
        assert_eq!(Rating::Know.fsrs_grade(), 3, "✅ = Good");
        assert_eq!(Rating::Fuzzy.fsrs_grade(), 2, "⚠️ = Hard");
        assert_eq!(Rating::Dont.fsrs_grade(), 1, "❌ = Again");
        assert_eq!(Rating::from_key("1"), Some(Rating::Know));
        assert_eq!(Rating::from_key(" 3 "), Some(Rating::Dont));
        assert_eq!(Rating::from_key("4"), None);
        assert!(!Rating::Know.allowed(Some(false)), "a wrong answer cannot be rated ✅");
        assert!(Rating::Know.allowed(None) && Rating::Know.allowed(Some(true)));
        assert!(Rating::Fuzzy.allowed(Some(false)) && Rating::Dont.allowed(Some(false)));
        assert!(!Rating::Know.comes_back() && Rating::Fuzzy.comes_back() && Rating::Dont.comes_back());
    }

    #[test]
    fn know_pushes_the_due_date_further_each_time() {
        let mut now = t0();
        let mut s = review(None, Rating::Know, now, 0.9);
        // FSRS-6 default: first Good → stability ≈ 2.3 days → due in 2 days.
        assert_eq!(s.due, now + Duration::days(2));
        let mut last_gap = s.due - now;
        for _ in 0..4 {
            now = s.due;
            s = review(Some(&s), Rating::Know, now, 0.9);
            let gap = s.due - now;
            assert!(gap > last_gap, "interval grows after ✅: {gap} vs {last_gap}");
            last_gap = gap;
        }
        assert_eq!(s.reps, 5);
        assert_eq!(s.lapses, 0);
        assert!(last_gap >= Duration::days(20), "after five ✅ the gap is weeks: {last_gap}");
    }

    #[test]
    fn fuzzy_and_dont_come_back_sooner_than_know() {
        let now = t0();
        let know = review(None, Rating::Know, now, 0.9);
        let fuzzy = review(None, Rating::Fuzzy, now, 0.9);
        let dont = review(None, Rating::Dont, now, 0.9);
        assert!(fuzzy.due < know.due);
        assert!(dont.due < fuzzy.due);
        assert!(dont.due < now + Duration::days(1), "❌ comes back within the day");
        // A lapse after ✅ counts, and shortens the interval.
        let after = review(Some(&know), Rating::Dont, know.due, 0.9);
        assert_eq!(after.lapses, 1);
        assert!(after.stability < review(Some(&know), Rating::Know, know.due, 0.9).stability);
    }

    #[test]
    fn higher_retention_means_shorter_intervals() {
        let now = t0();
        let mut lo = review(None, Rating::Know, now, 0.8);
        let mut hi = review(None, Rating::Know, now, 0.97);
        for _ in 0..3 {
            lo = review(Some(&lo), Rating::Know, lo.due, 0.8);
            hi = review(Some(&hi), Rating::Know, hi.due, 0.97);
        }
        assert!(hi.due - hi.last_review < lo.due - lo.last_review);
        assert!(check_retention(0.85).is_ok());
        assert!(check_retention(0.5).is_err() && check_retention(1.0).is_err() && check_retention(f64::NAN).is_err());
    }

    #[test]
    fn a_miss_corrected_the_same_day_is_still_learning() {
        let t = t0();
        let m = |mins: i64| t + Duration::minutes(mins);
        assert_eq!(stage([]), Stage::New);
        assert_eq!(stage([(t, Rating::Know)]), Stage::Review, "right the first time");
        assert_eq!(stage([(t, Rating::Fuzzy)]), Stage::Learning);
        // ❌ in the quiz, ✅ in a review ten minutes later: still learning.
        assert_eq!(stage([(t, Rating::Dont), (m(10), Rating::Know)]), Stage::Learning);
        // …until a ✅ a day or more after the answer before it.
        let next_day = m(10) + Duration::days(1);
        assert_eq!(stage([(t, Rating::Dont), (m(10), Rating::Know), (next_day, Rating::Know)]), Stage::Review);
        assert_eq!(stage([(t, Rating::Dont), (m(10), Rating::Dont), (next_day, Rating::Fuzzy)]), Stage::Learning);
        // A lapse in review relearns; ⚠️ in review stays in review.
        assert_eq!(stage([(t, Rating::Know), (t + Duration::days(2), Rating::Dont)]), Stage::Learning);
        assert_eq!(stage([(t, Rating::Know), (t + Duration::days(2), Rating::Fuzzy)]), Stage::Review);
    }

    #[test]
    fn recall_falls_from_one_to_the_retention_at_due() {
        let s = review(None, Rating::Know, t0(), 0.9);
        assert!((recall_now(&s, t0()) - 1.0).abs() < 1e-6);
        let at_s = t0() + Duration::seconds((s.stability as f64 * 86_400.0) as i64);
        assert!((recall_now(&s, at_s) - 0.9).abs() < 1e-3, "R = 0.9 after one stability");
        assert!(recall_now(&s, t0() + Duration::days(30)) < 0.8);
    }
}
