//! Study paths and study sessions: what a learner should do next, and a
//! plan that fits the minutes they have. No UI here: Home, the session
//! screen and `agentlab study` call into it.
//!
//! A track's path is the `[[step]]` list in its sheet's front matter (read a
//! section → L1 quiz → exercise → drill → L2 → L3). A step is **done** when
//! the learner's record says so, never by a click:
//!
//! | step | done when |
//! |---|---|
//! | read a section | the reader showed every line of it ([`Progress::read`]) |
//! | quiz level | every item of that level on the track has an answer |
//! | exercise | a check of it passed once |
//! | drill | a run of it passed (every claim held) |
//!
//! A session ([`plan`]) puts the review items due first, capped at a share of
//! the time ([`REVIEW_SHARE`], [`REVIEW_MINUTES_PER_ITEM`] each), then the
//! next path steps in order while they fit the rest. A session's figures
//! ([`tally`]) are read from the record afterwards: items rated, exercises
//! passed, drills run, predictions right since it started.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Utc};

use super::store::{Progress, SessionDrill, SessionRecord};
use crate::content::sheet::{StepKind, StepSpec};
use crate::content::{Content, Level, TRACKS};

/// The Roadmap's main line: each track builds on the ones before it here.
pub const MAIN_LINE: [u8; 5] = [0, 1, 2, 3, 4];

/// At most this share of a session goes to review items.
pub const REVIEW_SHARE: f64 = 0.4;
/// Minutes one review item is planned to take.
pub const REVIEW_MINUTES_PER_ITEM: f64 = 0.5;

/// One step of a path, with whether it is done.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub track: u8,
    pub spec: StepSpec,
    /// What the learner reads in a list: "Read §Credit assignment".
    pub label: String,
    pub done: bool,
}

impl Step {
    pub fn minutes(&self) -> u32 {
        self.spec.minutes
    }
}

/// The label of a step: what to do, in a few words.
pub fn label(content: &Content, track: u8, spec: &StepSpec) -> String {
    let t = spec.target.as_str();
    match spec.kind {
        StepKind::Read => {
            let title =
                content.sheet(track).and_then(|s| s.section(t)).map_or_else(|| t.to_string(), |s| s.title.clone());
            crate::t!("study-step-read", title = title)
        }
        StepKind::Quiz => {
            let n = Level::parse(t).map_or(0, |l| quiz_ids(content, track, l).len());
            crate::t!("study-step-quiz", level = t, count = n)
        }
        StepKind::Exercise => {
            let title = content.exercise(t).map_or(t, |e| e.title.as_str());
            crate::t!("study-step-exercise", title = title)
        }
        StepKind::Drill => crate::t!("study-step-drill", id = t),
    }
}

fn quiz_ids(content: &Content, track: u8, level: Level) -> Vec<&str> {
    content
        .quiz(track)
        .map_or_else(Vec::new, |q| q.items.iter().filter(|i| i.level == level).map(|i| i.id.as_str()).collect())
}

/// Whether the learner's record says a step is done; `passed` says which drills passed.
pub fn is_done(
    content: &Content,
    progress: &Progress,
    passed: &BTreeMap<String, bool>,
    track: u8,
    spec: &StepSpec,
) -> bool {
    let t = spec.target.as_str();
    match spec.kind {
        StepKind::Read => progress.was_read(track, t),
        StepKind::Quiz => Level::parse(t).is_some_and(|l| {
            let ids = quiz_ids(content, track, l);
            !ids.is_empty() && ids.iter().all(|id| progress.items.get(*id).is_some_and(|r| !r.attempts.is_empty()))
        }),
        StepKind::Exercise => progress.exercise_done(t),
        StepKind::Drill => passed.get(t).copied().unwrap_or(false),
    }
}

/// The study path of `track` with each step's state (empty when its sheet declares none).
pub fn path(content: &Content, progress: &Progress, passed: &BTreeMap<String, bool>, track: u8) -> Vec<Step> {
    let Some(sheet) = content.sheet(track) else { return Vec::new() };
    sheet
        .meta
        .steps
        .iter()
        .map(|spec| Step {
            track,
            spec: spec.clone(),
            label: label(content, track, spec),
            done: is_done(content, progress, passed, track, spec),
        })
        .collect()
}

/// The first step of `track`'s path not done yet.
pub fn next_step(content: &Content, progress: &Progress, passed: &BTreeMap<String, bool>, track: u8) -> Option<Step> {
    path(content, progress, passed, track).into_iter().find(|s| !s.done)
}

/// (steps done, steps, minutes left) of a track's path.
pub fn path_progress(steps: &[Step]) -> (usize, usize, u32) {
    let done = steps.iter().filter(|s| s.done).count();
    let left = steps.iter().filter(|s| !s.done).map(Step::minutes).sum();
    (done, steps.len(), left)
}

/// A planned study session.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub minutes: u32,
    pub track: Option<u8>,
    /// Review items due, in the order the review asks them (may be empty).
    pub review: Vec<String>,
    /// Due items left out to keep the review within its share.
    pub review_left_out: usize,
    pub steps: Vec<Step>,
    /// Main-line tracks before the session's track that the learner has not touched.
    pub untouched_before: Vec<u8>,
}

impl Plan {
    pub fn review_minutes(&self) -> u32 {
        (self.review.len() as f64 * REVIEW_MINUTES_PER_ITEM).ceil() as u32
    }

    pub fn planned_minutes(&self) -> u32 {
        self.review_minutes() + self.steps.iter().map(Step::minutes).sum::<u32>()
    }

    /// Stops of the session: the review (when there is one) and each step.
    pub fn len(&self) -> usize {
        usize::from(!self.review.is_empty()) + self.steps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Plan a session of `minutes` on `track` (or, with none, on the tracks in
/// order from the first whose path is not done): the due review items first,
/// capped at [`REVIEW_SHARE`] of the time, then the next path steps in order
/// while they fit. The first undone step is always taken, even when it is
/// longer than the time left: a session never plans nothing while work is left.
pub fn plan(
    content: &Content,
    progress: &Progress,
    passed: &BTreeMap<String, bool>,
    track: Option<u8>,
    minutes: u32,
    now: DateTime<Utc>,
) -> Plan {
    let due = super::session::due_now(progress, content, now);
    let due: Vec<String> = match track {
        Some(t) => due.into_iter().filter(|id| content.item(id).is_some_and(|i| i.track == t)).collect(),
        None => due,
    };
    let cap = ((minutes as f64 * REVIEW_SHARE) / REVIEW_MINUTES_PER_ITEM).floor() as usize;
    let review: Vec<String> = due.iter().take(cap).cloned().collect();
    let review_left_out = due.len() - review.len();
    let left = minutes.saturating_sub((review.len() as f64 * REVIEW_MINUTES_PER_ITEM).ceil() as u32);
    let steps = fill(content, progress, passed, track, left, !review.is_empty(), &[]);
    let untouched_before = track.map_or_else(Vec::new, |t| untouched_before(content, progress, passed, t));
    Plan { minutes, track, review, review_left_out, steps, untouched_before }
}

/// The next undone steps of `track`'s path (or of the tracks in order) that
/// fit `minutes`, leaving out those in `taken` (already in the session). The
/// first is always taken unless `has_review`: a session never plans nothing
/// while work is left. A quiz level with no unanswered item whose section
/// the learner has read (or will have read, by the steps planned before it)
/// is passed over: it has nothing to ask yet.
pub fn fill(
    content: &Content,
    progress: &Progress,
    passed: &BTreeMap<String, bool>,
    track: Option<u8>,
    minutes: u32,
    has_review: bool,
    taken: &[(u8, StepSpec)],
) -> Vec<Step> {
    let tracks: Vec<u8> = match track {
        Some(t) => vec![t],
        None => TRACKS.iter().map(|t| t.number).collect(),
    };
    let mut left = minutes;
    let mut steps = Vec::new();
    // The record as it will be once the sections planned before a quiz are read.
    let mut ahead = progress.clone();
    'tracks: for t in tracks {
        for mut s in path(content, progress, passed, t).into_iter().filter(|s| !s.done) {
            if taken.iter().any(|(tt, spec)| *tt == t && *spec == s.spec) {
                continue;
            }
            if s.spec.kind == StepKind::Quiz {
                let Some(level) = Level::parse(&s.spec.target) else { continue };
                let (ask, all) = (askable(content, &ahead, t, level).len(), quiz_ids(content, t, level).len());
                if ask == 0 {
                    continue;
                }
                if ask < all {
                    s.label = crate::t!("study-step-quiz-read", level = s.spec.target.as_str(), count = ask, all = all);
                }
            }
            if s.minutes() > left && (has_review || !steps.is_empty()) {
                break 'tracks;
            }
            left = left.saturating_sub(s.minutes());
            if s.spec.kind == StepKind::Read {
                ahead.read.insert(Progress::read_key(t, &s.spec.target), DateTime::<Utc>::UNIX_EPOCH);
            }
            steps.push(s);
        }
    }
    steps
}

/// Whether the learner has read the section a quiz item names (`"3#slug"`):
/// every line of it, or of a section it sits in, was shown. An item that
/// names no section can always be asked.
pub fn section_read(content: &Content, progress: &Progress, sheet_ref: Option<&str>) -> bool {
    let Some((t, slug)) = sheet_ref.and_then(|r| r.split_once('#')) else { return true };
    let Ok(track) = t.trim().parse::<u8>() else { return true };
    if progress.was_read(track, slug) {
        return true;
    }
    let Some(sheet) = content.sheet(track) else { return true };
    let Some(i) = sheet.sections.iter().position(|s| s.slug == slug) else { return true };
    // The sections it sits in: walking back, each heading of a lower level than the last one met.
    let mut level = sheet.sections[i].level;
    for s in sheet.sections[..i].iter().rev() {
        if s.level < level {
            if progress.was_read(track, &s.slug) {
                return true;
            }
            level = s.level;
        }
    }
    false
}

/// The items of `track` × `level` a session's quiz asks: not answered yet,
/// and about a section the learner has read.
pub fn askable(content: &Content, progress: &Progress, track: u8, level: Level) -> Vec<String> {
    content.quiz(track).map_or_else(Vec::new, |q| {
        q.items
            .iter()
            .filter(|i| i.level == level)
            .filter(|i| progress.items.get(&i.id).is_none_or(|r| r.attempts.is_empty()))
            .filter(|i| section_read(content, progress, i.sheet.as_deref()))
            .map(|i| i.id.clone())
            .collect()
    })
}

/// Whether the learner has done anything on `track`: read a section,
/// answered an item, passed an exercise, run a drill that passed.
pub fn touched(content: &Content, progress: &Progress, passed: &BTreeMap<String, bool>, track: u8) -> bool {
    let prefix = Progress::read_key(track, "");
    progress.read.keys().any(|k| k.starts_with(&prefix))
        || progress.items.values().any(|r| r.track == track && !r.attempts.is_empty())
        || content.exercises_of(track).any(|e| progress.exercise_done(&e.id))
        || content.drills_of(track).any(|d| passed.get(&d.id).copied().unwrap_or(false))
}

/// The main-line tracks before `track` that the learner has not touched.
pub fn untouched_before(content: &Content, progress: &Progress, passed: &BTreeMap<String, bool>, track: u8) -> Vec<u8> {
    let Some(k) = MAIN_LINE.iter().position(|t| *t == track) else { return Vec::new() };
    MAIN_LINE[..k].iter().copied().filter(|t| !touched(content, progress, passed, *t)).collect()
}

/// What a session did, read from the learner's record after it: answers
/// given, exercises passed and predictions resolved since `started`, and
/// the drill runs saved since then under `runs_root`.
#[allow(clippy::too_many_arguments)]
pub fn tally(
    content: &Content,
    progress: &Progress,
    runs_root: &Path,
    plan: &Plan,
    started: DateTime<Utc>,
    ended: DateTime<Utc>,
    steps_done: u32,
    steps_skipped: u32,
    track_secs: BTreeMap<u8, u64>,
) -> SessionRecord {
    // A clock stepped back during the session: it ended when it started, not before.
    let ended = ended.max(started);
    let since = |t: &DateTime<Utc>| *t >= started && *t <= ended;
    let items_rated = progress.items.values().flat_map(|r| r.attempts.iter()).filter(|a| since(&a.at)).count() as u32;
    let exercises_passed =
        progress.exercises.values().filter(|r| r.passed_at.as_ref().is_some_and(since)).count() as u32;
    let predictions: Vec<_> = progress.predictions.iter().filter(|p| since(&p.at)).collect();
    let mut drills = Vec::new();
    for d in &content.drills {
        for r in crate::runner::list_runs(runs_root, &d.id) {
            let Some(rep) = &r.report else { continue };
            // A run belongs to the session when its report was written during it.
            let written = std::fs::metadata(r.dir.join("report.json")).and_then(|m| m.modified());
            if !written.is_ok_and(|t| since(&DateTime::<Utc>::from(t))) {
                continue;
            }
            let claims: Vec<_> = rep.claims.iter().filter(|c| !c.observation).collect();
            drills.push(SessionDrill {
                id: d.id.clone(),
                claims_held: claims.iter().filter(|c| c.pass).count() as u32,
                claims: claims.len() as u32,
            });
        }
    }
    SessionRecord {
        started,
        ended,
        track: plan.track,
        planned_minutes: plan.minutes,
        steps_done,
        steps_skipped,
        items_rated,
        exercises_passed,
        drills,
        predictions: predictions.len() as u32,
        predictions_right: predictions.iter().filter(|p| p.right).count() as u32,
        track_secs,
    }
    .clamped()
}
