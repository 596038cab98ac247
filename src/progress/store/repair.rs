//! Loading a progress file record by record, when it does not load whole.
//!
//! A file that is valid JSON with the right version but has one record that
//! does not fit (a session that ends before it starts, an exercise whose
//! counter reads 0, an answer dated in the year 1, an item of a track that
//! does not exist, a value of the wrong type) is not discarded: every
//! record is read and checked on its own ([`super`]'s per-record
//! checks, the same that [`Progress::check`] runs), and one that fails is
//!
//! - **repaired** when the fix is certain and loses nothing the learner did:
//!   a session's end moved to its start, its right predictions capped at
//!   its predictions, a track it names that does not exist dropped, an
//!   exercise's check counter of 0 set to 1, an item's schedule recomputed
//!   from its answers, a desired retention out of range reset to the default;
//! - **left out** otherwise (the record alone; the rest of the history loads).
//!
//! Either way the record as it was in the file is returned ([`SetAside`]):
//! the store keeps those in a side file and tells the learner.
//!
//! What is not repaired: a file that is not JSON, not an object, or whose
//! `version` is missing or out of range. Those are not a file this program
//! wrote, and are set aside whole, as before.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{
    check_attempt, check_exercise, check_item_track, check_prediction, check_resume, check_sched, check_session,
    check_session_times, check_time, track_ok, Attempt, ExerciseRecord, ItemRecord, PredictionRecord, Progress, Resume,
    SessionRecord, Settings, VERSION,
};
use crate::progress::schedule::{self, DEFAULT_RETENTION};

/// One record that did not load as it was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetAside {
    /// Where it was in the file: `sessions[0]`, `items."gae-l1".attempts[2]`.
    pub place: String,
    /// Why it did not pass the check.
    pub why: String,
    /// How it was repaired (in words); `None`: it was left out.
    pub repaired: Option<String>,
    /// The record as it was in the file.
    pub record: Value,
}

/// Read a progress file's JSON record by record. `Err`: the file as a whole
/// is not one this program reads (why, in words).
pub fn salvage(v: Value) -> Result<(Progress, Vec<SetAside>), String> {
    let Value::Object(mut top) = v else { return Err("it is not a JSON object".into()) };
    let mut out = Vec::new();
    let version = match top.get("version").and_then(Value::as_u64) {
        Some(v) if (1..=VERSION as u64).contains(&v) => v as u32,
        Some(v) => return Err(format!("version is {v}, not 1–{VERSION}")),
        None => return Err("it has no version number".into()),
    };
    let mut p = Progress { version, ..Progress::default() };

    if let Some(v) = top.remove("settings") {
        if let Some(mut s) = take::<Settings>(v.clone(), "settings", &mut out) {
            if let Err(e) = schedule::check_retention(s.desired_retention) {
                s.desired_retention = DEFAULT_RETENTION;
                out.push(SetAside {
                    place: "settings.desired_retention".into(),
                    why: e,
                    repaired: Some(format!("reset to {DEFAULT_RETENTION}")),
                    record: v.get("desired_retention").cloned().unwrap_or(Value::Null),
                });
            }
            p.settings = s;
        }
    }
    let retention = p.settings.desired_retention;

    for (id, v) in entries(top.remove("items"), "items", &mut out) {
        let place = format!("items.\"{id}\"");
        let Some(mut rec) = take::<ItemRecord>(v.clone(), &place, &mut out) else { continue };
        if let Err(why) = check_item_track(&id, &rec) {
            out.push(SetAside { place, why, repaired: None, record: v });
            continue;
        }
        let before = rec.attempts.len();
        let mut kept = Vec::with_capacity(before);
        for (k, a) in rec.attempts.into_iter().enumerate() {
            match check_attempt(&id, k, &a) {
                Ok(()) => kept.push(a),
                Err(why) => out.push(SetAside {
                    place: format!("{place}.attempts[{k}]"),
                    why,
                    repaired: None,
                    record: v.get("attempts").and_then(|xs| xs.get(k)).cloned().unwrap_or(Value::Null),
                }),
            }
        }
        rec.attempts = kept;
        if rec.attempts.is_empty() && before > 0 {
            // Nothing the learner did is left in it.
            out.push(SetAside { place, why: "none of its answers passed the check".into(), repaired: None, record: v });
            continue;
        }
        let sched_bad = rec.sched.as_ref().map(|s| check_sched(&id, s)).and_then(Result::err);
        if sched_bad.is_some() || rec.attempts.len() < before {
            let again = replay(&rec.attempts, retention);
            if let Some(why) = sched_bad {
                let n = rec.attempts.len();
                out.push(SetAside {
                    place: format!("{place}.sched"),
                    why,
                    repaired: Some(format!("recomputed from its {n} answers")),
                    record: v.get("sched").cloned().unwrap_or(Value::Null),
                });
            }
            rec.sched = again;
            if let Some(why) = rec.sched.as_ref().map(|s| check_sched(&id, s)).and_then(Result::err) {
                out.push(SetAside { place, why, repaired: None, record: v });
                continue;
            }
        }
        p.items.insert(id, rec);
    }

    for (id, v) in entries(top.remove("exercises"), "exercises", &mut out) {
        let place = format!("exercises.\"{id}\"");
        let Some(mut rec) = take::<ExerciseRecord>(v.clone(), &place, &mut out) else { continue };
        if rec.checks == 0 {
            // It is on record: it was checked at least once.
            rec.checks = 1;
            if check_exercise(&id, &rec).is_ok() {
                out.push(SetAside {
                    place: format!("{place}.checks"),
                    why: "it is 0 for an exercise on record".into(),
                    repaired: Some("set to 1".into()),
                    record: v.get("checks").cloned().unwrap_or(Value::Null),
                });
            }
        }
        match check_exercise(&id, &rec) {
            Ok(()) => {
                p.exercises.insert(id, rec);
            }
            Err(why) => out.push(SetAside { place, why, repaired: None, record: v }),
        }
    }

    times(top.remove("flagged"), "flagged", &mut p.flagged, &mut out);

    for (k, v) in elements(top.remove("predictions"), "predictions", &mut out) {
        let place = format!("predictions[{k}]");
        let Some(r) = take::<PredictionRecord>(v.clone(), &place, &mut out) else { continue };
        match check_prediction(k, &r) {
            Ok(()) => p.predictions.push(r),
            Err(why) => out.push(SetAside { place, why, repaired: None, record: v }),
        }
    }

    for (k, v) in elements(top.remove("sessions"), "sessions", &mut out) {
        let place = format!("sessions[{k}]");
        let Some(s) = take::<SessionRecord>(v.clone(), &place, &mut out) else { continue };
        if let Err(why) = check_session_times(k, &s) {
            out.push(SetAside { place, why, repaired: None, record: v });
            continue;
        }
        let Err(why) = check_session(k, &s) else {
            p.sessions.push(s);
            continue;
        };
        // Its times are real times: end it at its start, cap what cannot be,
        // and forget a track that does not exist.
        let mut fixed = s.clone().clamped();
        let real = |t: &u8| track_ok(*t);
        fixed.track = fixed.track.filter(real);
        fixed.track_secs.retain(|t, _| real(t));
        let mut how = Vec::new();
        if fixed.ended != s.ended {
            how.push("its end set to its start");
        }
        if fixed.predictions_right != s.predictions_right {
            how.push("its right predictions capped at its predictions");
        }
        if fixed.track != s.track || fixed.track_secs.len() != s.track_secs.len() {
            how.push("the track that does not exist dropped");
        }
        match check_session(k, &fixed) {
            Ok(()) => {
                out.push(SetAside { place, why, repaired: Some(how.join(", ")), record: v });
                p.sessions.push(fixed);
            }
            Err(why) => out.push(SetAside { place, why, repaired: None, record: v }),
        }
    }

    if let Some(v) = top.remove("resume").filter(|v| !v.is_null()) {
        if let Some(r) = take::<Resume>(v.clone(), "resume", &mut out) {
            match check_resume(&r) {
                Ok(()) => p.resume = Some(r),
                Err(why) => out.push(SetAside { place: "resume".into(), why, repaired: None, record: v }),
            }
        }
    }

    times(top.remove("read"), "read", &mut p.read, &mut out);

    // What is left is checked as a whole: anything still wrong is a bug here, and the file is refused.
    p.check()?;
    Ok((p, out))
}

/// An item's schedule from its answers, in order: what the ratings would
/// have made it (`None` without answers).
pub fn replay(attempts: &[Attempt], retention: f64) -> Option<schedule::Sched> {
    attempts.iter().fold(None, |s, a| Some(schedule::review(s.as_ref(), a.rating, a.at, retention)))
}

/// A record of type `T`, or `None` with the value set aside (its type is wrong).
fn take<T: DeserializeOwned>(v: Value, place: &str, out: &mut Vec<SetAside>) -> Option<T> {
    match serde_json::from_value::<T>(v.clone()) {
        Ok(t) => Some(t),
        Err(e) => {
            out.push(SetAside { place: place.into(), why: e.to_string(), repaired: None, record: v });
            None
        }
    }
}

/// The entries of an object-valued section (`items`, `exercises`, …); a
/// section that is not an object is set aside whole.
fn entries(v: Option<Value>, place: &str, out: &mut Vec<SetAside>) -> Map<String, Value> {
    match v {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(other) => {
            out.push(SetAside {
                place: place.into(),
                why: "it is not a JSON object".into(),
                repaired: None,
                record: other,
            });
            Map::new()
        }
    }
}

/// The elements of an array-valued section (`predictions`, `sessions`).
fn elements(v: Option<Value>, place: &str, out: &mut Vec<SetAside>) -> Vec<(usize, Value)> {
    match v {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(xs)) => xs.into_iter().enumerate().collect(),
        Some(other) => {
            out.push(SetAside {
                place: place.into(),
                why: "it is not a JSON array".into(),
                repaired: None,
                record: other,
            });
            Vec::new()
        }
    }
}

/// A map of times (`flagged`, `read`): each entry kept where it reads as a
/// time the store accepts, else set aside alone.
fn times(
    value: Option<serde_json::Value>,
    key: &str,
    into: &mut std::collections::BTreeMap<String, chrono::DateTime<chrono::Utc>>,
    out: &mut Vec<SetAside>,
) {
    for (name, v) in entries(value, key, out) {
        let place = format!("{key}.\"{name}\"");
        let Some(at) = take::<chrono::DateTime<chrono::Utc>>(v.clone(), &place, out) else { continue };
        match check_time(at) {
            Ok(()) => {
                into.insert(name, at);
            }
            Err(e) => {
                out.push(SetAside { place: place.clone(), why: format!("{place} {e}"), repaired: None, record: v })
            }
        }
    }
}
