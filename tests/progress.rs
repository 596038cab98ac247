//! Learner state: grading, the ✅/⚠️/❌ → FSRS mapping, passes and review
//! queues, the scheduler on a fixed clock, and the progress file on disk
//! (atomic writes, corrupt and newer files moved aside). Every test works in
//! a temporary directory.

use agentlab::content::{Answer, Content, Level};
use agentlab::progress::grade::{self, grade, Response};
use agentlab::progress::session::{due_now, quiz_items, weak_not_due, Passes};
use agentlab::progress::store::{Progress, Store, FILE_NAME, VERSION};
use agentlab::progress::{schedule, Rating};
use chrono::{DateTime, Duration, TimeZone, Utc};

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 4, 1, 9, 30, 0).unwrap()
}

#[test]
fn every_kind_of_shipped_item_grades_its_own_answer_as_correct() {
    let content = Content::embedded().unwrap();
    let mut kinds = std::collections::BTreeSet::new();
    for item in content.items() {
        let right = match &item.answer {
            Answer::Choice { correct, .. } => Response::Choice(correct.clone()),
            Answer::Numeric { value, .. } => Response::Numeric(*value),
            Answer::Order { steps } => Response::Order((0..steps.len()).collect()),
            Answer::Open { .. } => Response::Open,
        };
        let expected = item.answer.auto_graded().then_some(true);
        assert_eq!(grade(&item.answer, &right), expected, "{}", item.id);
        kinds.insert(format!("{:?}", item.answer.kind()));
        // A wrong answer of each auto-graded kind is graded wrong.
        let wrong = match &item.answer {
            Answer::Choice { choices, correct } => {
                Some(Response::Choice((0..choices.len()).filter(|i| !correct.contains(i)).take(1).collect()))
            }
            Answer::Numeric { value, tolerance } => Some(Response::Numeric(value + 2.0 * tolerance + 1.0)),
            Answer::Order { .. } => Some(Response::Order(grade::order_shuffle(item))),
            Answer::Open { .. } => None,
        };
        if let Some(w) = wrong {
            assert_eq!(grade(&item.answer, &w), Some(false), "{}", item.id);
        }
    }
    assert_eq!(kinds.len(), 4, "choice, numeric, order and open all ship: {kinds:?}");
}

#[test]
fn ratings_map_onto_fsrs_grades_and_wrong_answers_cannot_be_know() {
    assert_eq!(
        Rating::ALL.map(Rating::fsrs_grade),
        [3, 2, 1],
        "✅ = Good, ⚠️ = Hard (recalled with effort), ❌ = Again (forgot)"
    );
    assert!(!Rating::Know.allowed(Some(false)));
    assert!(Rating::Know.allowed(None), "open items may be rated ✅");
}

#[test]
fn after_each_pass_only_fuzzy_and_dont_items_come_back() {
    let mut p = Passes::new(["a", "b", "c"].map(String::from).to_vec());
    p.rate(Some(true), Rating::Know);
    p.rate(None, Rating::Fuzzy);
    p.rate(Some(false), Rating::Dont);
    assert!(p.next_pass());
    assert_eq!(p.queue, ["b", "c"]);
    p.rate(None, Rating::Know);
    p.rate(Some(true), Rating::Know);
    assert!(!p.next_pass());
}

#[test]
fn review_offers_due_items_then_only_weak_ones() {
    let content = Content::embedded().unwrap();
    let items = quiz_items(&content, Some(5), None, Some(4));
    let mut prog = Progress::default();
    for (item, r) in items.iter().zip([Rating::Know, Rating::Fuzzy, Rating::Dont, Rating::Know]) {
        prog.record(&item.id, item.track, item.level, None, r, t0());
    }
    assert!(due_now(&prog, &content, t0()).is_empty());
    let weak = weak_not_due(&prog, &content, t0());
    assert_eq!(weak.len(), 2);
    assert!(weak.contains(&items[1].id) && weak.contains(&items[2].id));
}

#[test]
fn due_dates_advance_after_know_on_a_fixed_clock() {
    let mut p = Progress::default();
    let mut now = t0();
    let mut gaps = Vec::new();
    for _ in 0..4 {
        p.record("x", 3, Level::L1, Some(true), Rating::Know, now);
        let s = p.items["x"].sched.unwrap();
        assert_eq!(s.last_review, now);
        gaps.push((s.due - now).num_days());
        now = s.due;
    }
    assert_eq!(gaps[0], 2, "FSRS-6 defaults: a first ✅ comes back in 2 days");
    assert!(gaps.windows(2).all(|w| w[1] > w[0]), "each ✅ pushes the next review further: {gaps:?}");
    // Rated ❌ later: due again within a day, however stable it was.
    p.record("x", 3, Level::L1, Some(false), Rating::Dont, now);
    let s = p.items["x"].sched.unwrap();
    assert!(s.due - now <= Duration::days(1), "❌ is due again within a day");
    assert_eq!(s.lapses, 1);
    assert_eq!(p.items["x"].attempts.len(), 5);
    // The same history on the same clock gives the same schedule (no hidden clock).
    let again = schedule::review(None, Rating::Know, t0(), 0.9);
    assert_eq!(again.due, t0() + Duration::days(2));
}

#[test]
fn state_file_round_trips_with_its_version() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    let mut s = Store::open(&path, t0());
    s.record("arl-l1-critic-free", 3, Level::L1, Some(true), Rating::Know, t0()).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(v["version"], VERSION);
    assert_eq!(v["settings"]["desired_retention"], 0.9);
    let sched = &v["items"]["arl-l1-critic-free"]["sched"];
    for k in ["stability", "difficulty", "last_review", "due"] {
        assert!(!sched[k].is_null(), "{k} is stored: {sched}");
    }
    assert_eq!(Store::open(&path, t0()).progress, s.progress);
}

#[test]
fn a_crash_between_write_and_rename_leaves_the_old_file() {
    use std::io::Write;
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    let mut s = Store::open(&path, t0());
    s.record("a", 0, Level::L1, None, Rating::Know, t0()).unwrap();
    let before = std::fs::read(&path).unwrap();
    // What write_atomic does before its rename: a temp file in the same dir, half written.
    // "Crash" here: keep the temp file, never rename it.
    let mut tmp = tempfile::NamedTempFile::new_in(d.path()).unwrap();
    tmp.write_all(&before[..before.len() / 2]).unwrap();
    let (_file, tmp_path) = tmp.keep().unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), before, "the target is untouched");
    let reopened = Store::open(&path, t0());
    assert!(reopened.notice.is_none());
    assert_eq!(reopened.progress, s.progress);
    assert!(tmp_path.exists());
    // A failing write (the target dir's place taken by a file) changes nothing either.
    let mut blocked = reopened.clone();
    blocked.path = path.join("sub").join(FILE_NAME);
    assert!(blocked.save().is_err());
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_corrupt_file_is_moved_aside_and_reported() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    std::fs::write(&path, b"{ \"version\": 1, \"items\": { trunc").unwrap();
    let mut s = Store::open(&path, t0());
    let notice = s.notice.clone().expect("the learner is told");
    assert!(notice.contains("not valid JSON") && notice.contains("corrupt-20260401-093000"), "{notice}");
    let aside = d.path().join("progress.json.corrupt-20260401-093000");
    assert_eq!(std::fs::read(&aside).unwrap(), b"{ \"version\": 1, \"items\": { trunc", "kept as it was");
    assert!(s.progress.items.is_empty());
    // Saving now writes a fresh file and leaves the kept one alone.
    s.record("a", 0, Level::L1, None, Rating::Fuzzy, t0()).unwrap();
    assert!(aside.exists() && path.exists());
    // Valid JSON in the wrong shape is corrupt too; a second one gets its own name.
    std::fs::write(&path, br#"[{"version": 1, "items": {}}]"#).unwrap();
    let s = Store::open(&path, t0());
    assert!(s.notice.unwrap().contains("does not match"));
    assert!(d.path().join("progress.json.corrupt-20260401-093000-1").exists());
    // One section in the wrong shape costs that section only (kept aside as it was).
    std::fs::write(&path, br#"{"version": 1, "items": [1, 2], "read": {"3:gae": "2026-04-01T09:00:00Z"}}"#).unwrap();
    let s = Store::open(&path, t0());
    let notice = s.notice.unwrap();
    assert!(notice.contains("items: it is not a JSON object") && notice.contains("set-aside"), "{notice}");
    assert!(s.progress.was_read(3, "gae"), "the rest loads");
}

/// A file from a newer agentlab (a downgrade) is left where it is and
/// never written: this build shows what it can read of it and refuses every
/// save with a message, so the learner's history never splits in two files.
#[test]
fn a_file_from_a_newer_version_is_left_alone_and_never_written() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    let newer = format!(
        r#"{{"version": {}, "items": {{"x": {{"track": 3, "level": "L1", "attempts": [
            {{"at": "2026-04-01T09:00:00Z", "correct": true, "rating": "know"}}], "sched": null}}}}, "something_new": true}}"#,
        VERSION + 1
    );
    std::fs::write(&path, &newer).unwrap();
    let mut s = Store::open(&path, t0());
    let notice = s.notice.clone().expect("the learner is told");
    assert!(notice.contains("newer agentlab") && notice.contains("left as it is"), "{notice}");
    assert!(s.read_only().is_some());
    assert_eq!(s.progress.items["x"].attempts.len(), 1, "what this build can read of it is shown");
    let err = s.record("a", 0, Level::L1, None, Rating::Know, t0()).unwrap_err();
    assert!(format!("{err:#}").contains("not saved") && format!("{err:#}").contains("newer agentlab"), "{err:#}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), newer, "never overwritten");
    let names: Vec<String> =
        std::fs::read_dir(d.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| n == FILE_NAME || n.ends_with(".lock")), "no second file: {names:?}");
}

#[test]
fn retention_is_a_saved_checked_setting() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    let mut s = Store::open(&path, t0());
    assert_eq!(s.progress.settings.desired_retention, 0.9);
    s.set_retention(0.85).unwrap();
    assert_eq!(Store::open(&path, t0()).progress.settings.desired_retention, 0.85);
    assert!(s.set_retention(1.5).is_err());
    assert_eq!(s.progress.settings.desired_retention, 0.85);
}

/// All attempts in the file at `path`.
fn attempts_on_disk(path: &std::path::Path) -> usize {
    let p: Progress = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    p.items.values().map(|r| r.attempts.len()).sum()
}

#[test]
fn two_stores_on_one_file_keep_each_others_ratings() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    // A TUI and a headless quiz, both opened before either saved.
    let mut a = Store::open(&path, t0());
    let mut b = Store::open(&path, t0());
    for k in 0..5 {
        a.record(&format!("a{k}"), 0, Level::L1, None, Rating::Know, t0()).unwrap();
        b.record(&format!("b{k}"), 5, Level::L2, Some(false), Rating::Dont, t0()).unwrap();
        // The same item from both: each rating is an attempt of its own.
        a.record("shared", 3, Level::L1, None, Rating::Fuzzy, t0()).unwrap();
        b.record("shared", 3, Level::L1, None, Rating::Know, t0()).unwrap();
    }
    b.set_retention(0.8).unwrap();
    a.record("a-last", 0, Level::L1, None, Rating::Know, t0()).unwrap();
    assert_eq!(attempts_on_disk(&path), 21);
    let on_disk = Store::open(&path, t0()).progress;
    assert_eq!(on_disk.items["shared"].attempts.len(), 10);
    assert_eq!(on_disk.items["shared"].sched.unwrap().reps, 10, "rescheduled by every rating in turn");
    assert_eq!(on_disk.settings.desired_retention, 0.8, "b's setting survives a's later save");
    assert_eq!(a.progress, on_disk, "after a save a store holds what is on disk");
    assert!(!a.has_unsaved() && !b.has_unsaved());
}

#[test]
fn a_save_waits_for_the_lock_and_says_so_when_it_stays_held() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    let mut s = Store::open(&path, t0());
    s.record("a", 0, Level::L1, None, Rating::Know, t0()).unwrap();
    let held =
        agentlab::fsutil::lock_exclusive(&agentlab::progress::store::lock_path(&path), std::time::Duration::ZERO)
            .unwrap();
    s.lock_wait = std::time::Duration::from_millis(50);
    let err = s.record("b", 0, Level::L1, None, Rating::Know, t0()).unwrap_err();
    assert!(format!("{err:#}").contains("another agentlab kept"), "{err:#}");
    assert_eq!((s.unsaved_ratings(), attempts_on_disk(&path)), (1, 1), "kept in memory, not on disk");
    // Tried four times: the message says how long the lock was held over all of them, not over the last.
    s.lock_wait = std::time::Duration::from_millis(500);
    let err = s.save_retrying(4).unwrap_err();
    assert!(format!("{err:#}").contains("locked for 2 s"), "{err:#}");
    drop(held);
    s.record("c", 0, Level::L1, None, Rating::Know, t0()).unwrap();
    assert_eq!((s.unsaved_ratings(), attempts_on_disk(&path)), (0, 3), "the next save writes both");
}

/// Item 1 of the reliability issue: a `progress.json` that cannot be read
/// (chmod 000, or root-owned after a `sudo` run) was replaced by the
/// session's first save. The tests run as root, which reads a chmod-000
/// file, so the read failure here is a directory in the file's place
/// (`read` fails with "Is a directory"); the chmod-000 case is tried too and
/// checked when the read really fails (not as root).
#[test]
fn an_unreadable_file_is_left_alone_and_the_session_saves_beside_it() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    std::fs::create_dir(&path).unwrap();
    std::fs::write(path.join("inside"), b"kept").unwrap();
    let mut s = Store::open(&path, t0());
    let notice = s.notice.clone().expect("the learner is told");
    let side = d.path().join("progress.json.unsaved-20260401-093000");
    assert!(notice.contains("cannot read") && notice.contains(side.to_str().unwrap()), "{notice}");
    assert_eq!(s.path, side);
    s.record("a", 0, Level::L1, None, Rating::Know, t0()).unwrap();
    assert_eq!(attempts_on_disk(&side), 1);
    assert_eq!(std::fs::read(path.join("inside")).unwrap(), b"kept", "left as it was");

    // chmod 000 on a file with 4 items / 6 attempts.
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    let mut s = Store::open(&path, t0());
    for (k, id) in ["a", "b", "c", "d", "a", "b"].iter().enumerate() {
        s.record(id, 0, Level::L1, None, Rating::ALL[k % 3], t0()).unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    if std::fs::read(&path).is_err() {
        let mut s = Store::open(&path, t0());
        assert!(s.notice.as_deref().unwrap().contains("Permission denied"));
        s.record("e", 0, Level::L1, None, Rating::Know, t0()).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), before, "never replaced");
    }
}

#[test]
fn a_file_that_turns_unreadable_mid_session_is_never_replaced() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    let mut s = Store::open(&path, t0());
    s.record("a", 0, Level::L1, None, Rating::Know, t0()).unwrap();
    // Another program writes something this build refuses: saves fail and leave it alone.
    for bad in [&b"{ torn"[..], br#"{"version": 7}"#, br#"[{"version": 1}]"#] {
        std::fs::write(&path, bad).unwrap();
        let err = s.record("b", 0, Level::L1, None, Rating::Fuzzy, t0()).unwrap_err();
        assert!(format!("{err:#}").contains("left as it is"), "{err:#}");
        assert_eq!(std::fs::read(&path).unwrap(), bad);
    }
    assert_eq!(s.unsaved_ratings(), 3);
    // Once the file is fine again, the next save adds every pending rating.
    std::fs::remove_file(&path).unwrap();
    s.save().unwrap();
    assert_eq!(attempts_on_disk(&path), 3, "the three pending ratings, on what is now on disk");
}

/// One value out of range costs its record, never the file: the record is
/// repaired (or left out alone), kept as it was in a side file the learner
/// is told about, the rest loads, and the repaired file is written back.
#[test]
fn an_out_of_range_value_costs_its_record_only() {
    let good = serde_json::json!({
        "version": 1,
        "settings": {"desired_retention": 0.9},
        "items": {
            "x": {"track": 3, "level": "L1", "attempts": [
                {"at": "2026-04-01T09:00:00Z", "correct": true, "rating": "know"}
            ], "sched": {"stability": 2.3, "difficulty": 5.0, "last_review": "2026-04-01T09:00:00Z",
                         "due": "2026-04-03T09:00:00Z", "reps": 1, "lapses": 0}},
            "y": {"track": 2, "level": "L2", "attempts": [
                {"at": "2026-04-01T08:00:00Z", "correct": false, "rating": "dont"}
            ], "sched": null}
        },
        "exercises": {"gae": {"track": 3, "checks": 2, "passed_at": null,
                              "last_check": "2026-04-01T09:00:00Z", "last_passed": false}},
        "sessions": [{"started": "2026-04-01T09:00:00Z", "ended": "2026-04-01T09:30:00Z", "track": 3,
                      "planned_minutes": 30, "steps_done": 1, "steps_skipped": 0, "items_rated": 2,
                      "exercises_passed": 0, "predictions": 1, "predictions_right": 1}]
    });
    // (where, value, what the notice names, how it is kept: repaired or left out)
    let cases: &[(&str, serde_json::Value, &str, &str)] = &[
        ("/settings/desired_retention", 5.0.into(), "settings.desired_retention", "reset to 0.9"),
        ("/settings/desired_retention", (-0.5).into(), "settings.desired_retention", "reset to 0.9"),
        ("/items/x/track", 9.into(), "items.\"x\".track", "left out"),
        ("/items/x/sched/stability", (-1.0).into(), "sched.stability", "recomputed from its 1 answers"),
        ("/items/x/sched/stability", 1e30.into(), "sched.stability", "recomputed"),
        ("/items/x/sched/difficulty", 11.0.into(), "sched.difficulty", "recomputed"),
        ("/items/x/sched/due", "2026-03-01T09:00:00Z".into(), "sched.due", "recomputed"),
        ("/items/x/sched/lapses", 2.into(), "sched.lapses", "recomputed"),
        ("/items/x/attempts/0/at", "0001-01-01T00:00:00Z".into(), "attempts[0].at", "left out"),
        ("/items/x/attempts/0/correct", false.into(), "attempts[0].rating", "left out"),
        ("/items/x/level", "L7".into(), "items.\"x\"", "left out"),
        ("/exercises/gae/checks", 0.into(), "checks", "set to 1"),
        ("/exercises/gae/checks", (-3).into(), "exercises.\"gae\"", "left out"),
        (
            "/sessions/0/ended",
            "2026-04-01T07:00:00Z".into(),
            "sessions[0].ended is before its start",
            "its end set to its start",
        ),
        ("/sessions/0/predictions_right", 4.into(), "predictions_right", "capped"),
        ("/sessions/0/track", 42.into(), "track 42", "dropped"),
    ];
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    std::fs::write(&path, good.to_string()).unwrap();
    let whole = Store::open(&path, t0());
    assert!(whole.notice.is_none(), "the unchanged file is accepted");
    for (k, (ptr, value, field, how)) in cases.iter().enumerate() {
        let mut v = good.clone();
        *v.pointer_mut(ptr).unwrap() = value.clone();
        std::fs::write(&path, v.to_string()).unwrap();
        let s = Store::open(&path, t0());
        let notice = s.notice.clone().unwrap_or_else(|| panic!("{ptr} = {value} is accepted"));
        assert!(notice.contains(field) && notice.contains(how), "{ptr}: {notice}");
        assert!(notice.contains("the rest of your history loaded"), "{notice}");
        let side = if k == 0 {
            "progress.json.set-aside-20260401-093000".into()
        } else {
            format!("progress.json.set-aside-20260401-093000-{k}")
        };
        assert!(notice.contains(&side), "{notice}");
        // The side file holds the record as it was.
        let kept: serde_json::Value = serde_json::from_slice(&std::fs::read(d.path().join(&side)).unwrap()).unwrap();
        let record = &kept["records"][0];
        assert!(record["place"].as_str().is_some() && !record["record"].is_null(), "{kept}");
        // Everything else loaded as it was.
        let p = &s.progress;
        assert_eq!(p.items["y"], whole.progress.items["y"], "{ptr}: the other item");
        if !ptr.starts_with("/exercises") {
            assert_eq!(p.exercises, whole.progress.exercises, "{ptr}");
        }
        if !ptr.starts_with("/sessions") {
            assert_eq!(p.sessions, whole.progress.sessions, "{ptr}");
        } else {
            assert_eq!(p.sessions.len(), 1, "{ptr}: the session is kept, repaired");
        }
        // The repaired file is on disk: the next start says nothing and reads the same.
        let again = Store::open(&path, t0());
        assert!(again.notice.is_none(), "{:?}", again.notice);
        assert_eq!(again.progress, s.progress);
    }
}

/// What a clock stepped back during a session used to write (its end
/// before its start) and what a wrapped counter wrote (checks 0): both load,
/// repaired, with every rating, exercise and session of the history.
#[test]
fn the_files_the_issue_saw_refused_load_repaired() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    let file = serde_json::json!({
        "version": 2, "settings": {"desired_retention": 0.9},
        "items": {"x": {"track": 3, "level": "L1", "attempts": [
            {"at": "2026-04-01T09:00:00Z", "correct": true, "rating": "know"}], "sched": null}},
        "exercises": {"gae": {"track": 3, "checks": 0, "passed_at": "2026-04-01T09:00:00Z",
                              "last_check": "2026-04-01T09:00:00Z", "last_passed": true}},
        "sessions": [{"started": "2026-04-01T09:00:05Z", "ended": "2026-04-01T07:00:07Z", "track": 0,
                      "planned_minutes": 30, "steps_done": 0, "steps_skipped": 0, "items_rated": 0,
                      "exercises_passed": 0, "predictions": 0, "predictions_right": 0}]
    });
    std::fs::write(&path, file.to_string()).unwrap();
    let s = Store::open(&path, t0());
    let notice = s.notice.unwrap();
    assert!(notice.contains("2 records") && notice.contains("set-aside"), "{notice}");
    assert_eq!(s.progress.items["x"].attempts.len(), 1);
    assert_eq!(s.progress.exercises["gae"].checks, 1);
    assert!(s.progress.exercise_done("gae"));
    assert_eq!(s.progress.sessions[0].ended, s.progress.sessions[0].started);
}

/// A check at a counter's limit saturates; the next start loads it.
#[test]
fn a_counter_at_its_limit_stays_there() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    let mut s = Store::open(&path, t0());
    s.record_check("gae", 3, false, t0()).unwrap();
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    v["exercises"]["gae"]["checks"] = u32::MAX.into();
    std::fs::write(&path, v.to_string()).unwrap();
    let mut s = Store::open(&path, t0());
    s.record_check("gae", 3, true, t0()).unwrap();
    let again = Store::open(&path, t0());
    assert!(again.notice.is_none(), "{:?}", again.notice);
    assert_eq!(again.progress.exercises["gae"].checks, u32::MAX);
}

/// A change that would make the file fail its own check is refused with a
/// message; the file stays loadable and the other changes are saved.
#[test]
fn a_change_the_check_refuses_is_never_written() {
    use chrono::TimeZone;
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    let mut s = Store::open(&path, t0());
    s.record("a", 0, Level::L1, None, Rating::Know, t0()).unwrap();
    // A clock in the year 10000: outside what the file may hold.
    let wild = chrono::Utc.with_ymd_and_hms(10000, 1, 1, 0, 0, 0).unwrap();
    let err = s.record("b", 0, Level::L1, None, Rating::Know, wild).unwrap_err();
    assert!(format!("{err:#}").contains("refused"), "{err:#}");
    // ✅ after a wrong answer: the check refuses it too.
    assert!(s.record("c", 0, Level::L1, Some(false), Rating::Know, t0()).is_err());
    let again = Store::open(&path, t0());
    assert!(again.notice.is_none(), "{:?}", again.notice);
    assert_eq!(again.progress, s.progress, "the store holds what is on disk");
    assert!(again.progress.items.contains_key("a") && !again.progress.items.contains_key("b"));
    assert!(!s.has_unsaved(), "a refused change does not block the next saves");
    s.record("d", 0, Level::L1, None, Rating::Fuzzy, t0()).unwrap();
    assert!(Store::open(&path, t0()).progress.items.contains_key("d"));
}
