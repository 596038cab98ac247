//! One truth about progress: a file of the previous release loads and is
//! written back whole, two writers lose nothing of each other's, an open TUI
//! sees what another process saved, and Home and Progress show the same
//! numbers (issue 33).

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration as StdDuration;

use agentlab::content::{Content, Level};
use agentlab::progress::store::{lock_path, Place, PredictionRecord, SessionDrill, SessionRecord, FILE_NAME, VERSION};
use agentlab::progress::{Rating, Store};
use agentlab::tui::App;
use chrono::{DateTime, Duration, TimeZone, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use common::isolated_home;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 4, 1, 9, 0, 0).unwrap()
}

/// An app on `dir/progress.json` at a fixed time, its runs under `dir/runs`, drawn once.
fn study_app(dir: &Path, w: u16, h: u16) -> App {
    isolated_home();
    let store = Store::open(&dir.join(FILE_NAME), t0());
    let mut a = App::with_store(Content::embedded().unwrap(), store);
    a.now_override = Some(t0());
    a.runs_root = dir.join("runs");
    a.read_runs();
    a.refresh_summary();
    common::screen_lines(&mut a, w, h);
    a
}

fn key(a: &mut App, code: KeyCode) {
    a.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn screen(a: &mut App, w: u16, h: u16) -> Vec<String> {
    common::screen_lines(a, w, h)
}

/// A screen line as terminal cells: a wide symbol fills its cell and the next
/// (`'\0'`), so the columns of panes side by side line up.
fn cells(line: &str) -> Vec<char> {
    let mut out = Vec::new();
    for c in line.chars() {
        out.push(c);
        if unicode_width::UnicodeWidthChar::width(c).unwrap_or(1) > 1 {
            out.push('\0');
        }
    }
    out
}

/// The text of the pane whose title is `title` (the pane may sit right of
/// another), its rows joined and its spaces squeezed: wrapped text reads whole.
fn pane_text(lines: &[String], title: &str) -> String {
    let top = lines.iter().position(|l| l.contains(title)).unwrap_or_else(|| panic!("no pane {title}"));
    let head = cells(&lines[top]);
    let at = cells(&lines[top][..lines[top].find(title).unwrap()]).len();
    let left = (0..at).rev().find(|&i| head[i] == '╭').unwrap();
    let rows: Vec<String> = lines[top + 1..]
        .iter()
        .map(|l| cells(l))
        .take_while(|c| c.get(left) == Some(&'│'))
        .map(|c| c[left + 1..].iter().take_while(|&&c| c != '│').filter(|&&c| c != '\0').collect())
        .collect();
    rows.join(" ").split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The row of track `n` on screen (Home's list or Progress's table).
fn track_row(lines: &[String], n: u8) -> &str {
    let title = agentlab::content::TRACKS[n as usize].title;
    let head: String = title.chars().take(6).collect();
    lines
        .iter()
        .find(|l| l.contains(&format!("{n} {head}")))
        .unwrap_or_else(|| panic!("no row for track {n}:\n{}", lines.join("\n")))
}

fn items_of(content: &Content, track: u8, level: Level) -> Vec<String> {
    content.items().filter(|i| i.track == track && i.level == level).map(|i| i.id.clone()).collect()
}

/// A run of `drill` under `runs_root` whose report says every claim held.
fn passed_run(runs_root: &Path, drill: &str, name: &str) {
    let dir = runs_root.join(drill).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let report = agentlab::drills::Report {
        drill: drill.into(),
        preset: "quick".into(),
        seed: 1,
        status: agentlab::drills::RunStatus::Passed,
        claims: vec![],
        wall_s: 1.5,
        finals: Default::default(),
    };
    std::fs::write(dir.join("report.json"), serde_json::to_string(&report).unwrap()).unwrap();
}

/// A run of `drill` whose report says `status`.
fn run_with(runs_root: &Path, drill: &str, name: &str, status: agentlab::drills::RunStatus) {
    passed_run(runs_root, drill, name);
    let path = runs_root.join(drill).join(name).join("report.json");
    let mut report: agentlab::drills::Report = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    report.status = status;
    std::fs::write(path, serde_json::to_string(&report).unwrap()).unwrap();
}

/// Home's drill list marks each drill with its newest run: ✓ every claim
/// held, ✗ a claim failed (a drill passed once and failed since reads ✗); a
/// cancelled newest run falls back to the run before it; nothing for no run.
#[test]
fn home_marks_each_drill_with_its_last_run() {
    use agentlab::drills::RunStatus;
    let d = tempfile::tempdir().unwrap();
    let mut a = study_app(d.path(), 120, 40);
    let runs = a.runs_root.clone();
    passed_run(&runs, "sft-basics", "2026-03-30T10-00-00");
    passed_run(&runs, "dpo-pairs", "2026-03-30T10-00-00");
    run_with(&runs, "dpo-pairs", "2026-03-31T10-00-00", RunStatus::ClaimsFailed);
    run_with(&runs, "sft-basics", "2026-03-31T11-00-00", RunStatus::Cancelled);
    a.read_runs();
    a.refresh_home();
    let lines = screen(&mut a, 120, 40);
    let row = |id: &str| lines.iter().find(|l| l.contains(&format!("0 {id}"))).cloned().unwrap_or_default();
    assert!(row("sft-basics").contains("sft-basics ✓"), "{}", row("sft-basics"));
    assert!(row("dpo-pairs").contains("dpo-pairs ✗"), "{}", row("dpo-pairs"));
    let lora = row("lora-vs-full");
    assert!(!lora.contains('✓') && !lora.contains('✗'), "{lora}");
}

fn prediction(track: u8, drill: &str, id: &str, right: bool, at: DateTime<Utc>) -> PredictionRecord {
    PredictionRecord {
        drill: drill.into(),
        preset: "quick".into(),
        id: id.into(),
        track,
        answer: "a little".into(),
        measured: 0.3,
        right,
        at,
    }
}

fn session(track: Option<u8>, started: DateTime<Utc>, minutes: i64, secs: &[(u8, u64)]) -> SessionRecord {
    SessionRecord {
        started,
        ended: started + Duration::minutes(minutes),
        track,
        planned_minutes: 25,
        steps_done: 3,
        steps_skipped: 1,
        items_rated: 4,
        exercises_passed: 0,
        drills: vec![SessionDrill { id: "grpo-rlvr".into(), claims_held: 2, claims: 3 }],
        predictions: 2,
        predictions_right: 1,
        track_secs: secs.iter().copied().collect::<BTreeMap<u8, u64>>(),
    }
}

// ------------------------------------------------------------ (a) version 1

/// A progress.json as the previous release (format 1) wrote it, by hand:
/// settings, items with attempts and schedules, exercises, flagged items.
const VERSION_1: &str = r#"{
  "version": 1,
  "settings": { "desired_retention": 0.85 },
  "items": {
    "arl-l1-critic-free": {
      "track": 3,
      "level": "L1",
      "attempts": [
        { "at": "2026-03-01T08:00:00Z", "correct": false, "rating": "dont" },
        { "at": "2026-03-02T08:30:00Z", "correct": true, "rating": "know" }
      ],
      "sched": {
        "stability": 3.1262,
        "difficulty": 6.4133,
        "last_review": "2026-03-02T08:30:00Z",
        "due": "2026-03-05T08:30:00Z",
        "reps": 2,
        "lapses": 1
      }
    },
    "pre-l2-grpo-adv": {
      "track": 0,
      "level": "L2",
      "attempts": [ { "at": "2026-03-03T10:00:00Z", "correct": null, "rating": "fuzzy" } ],
      "sched": {
        "stability": 1.2,
        "difficulty": 5.5,
        "last_review": "2026-03-03T10:00:00Z",
        "due": "2026-03-04T10:00:00Z",
        "reps": 1,
        "lapses": 0
      }
    },
    "never-rated": { "track": 5, "level": "L3", "attempts": [], "sched": null }
  },
  "exercises": {
    "grpo-advantages": {
      "track": 3,
      "checks": 3,
      "passed_at": "2026-03-02T09:00:00Z",
      "last_check": "2026-03-02T09:00:00Z",
      "last_passed": true
    },
    "gae": {
      "track": 3,
      "checks": 1,
      "passed_at": null,
      "last_check": "2026-03-04T11:00:00Z",
      "last_passed": false
    }
  },
  "flagged": {
    "arl-l2-grpo-adv": "2026-03-04T11:00:00Z",
    "arl-l1-zero-variance": "2026-03-04T11:00:00Z"
  }
}"#;

#[test]
fn a_version_1_file_loads_and_is_written_back_as_version_2_with_nothing_lost() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    std::fs::write(&path, VERSION_1).unwrap();
    let old: serde_json::Value = serde_json::from_str(VERSION_1).unwrap();

    let mut s = Store::open(&path, t0());
    assert_eq!(s.notice, None, "a version-1 file is not refused");
    assert_eq!(s.progress.version, 1);
    assert_eq!(s.progress.items.len(), 3);
    assert_eq!(s.progress.items["arl-l1-critic-free"].attempts.len(), 2);
    assert!(s.progress.exercise_done("grpo-advantages") && !s.progress.exercise_done("gae"));
    assert_eq!(s.progress.flagged.len(), 2);
    assert!(s.progress.predictions.is_empty() && s.progress.sessions.is_empty());
    assert!(s.progress.resume.is_none() && s.progress.read.is_empty());

    // Saving a version-2 change writes the whole file back as version 2.
    s.mark_read(3, "group-relative-advantages", t0()).unwrap();
    let new: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(new["version"], VERSION);
    assert_eq!(VERSION, 2);
    for k in ["settings", "items", "exercises", "flagged"] {
        assert_eq!(new[k], old[k], "{k} kept as it was");
    }
    assert_eq!(new["read"]["3:group-relative-advantages"], "2026-04-01T09:00:00Z");

    // And it loads again, whole, as version 2.
    let again = Store::open(&path, t0());
    assert_eq!(again.notice, None);
    assert_eq!(again.progress.version, 2);
    assert_eq!(again.progress, s.progress);
}

// ------------------------------------------------------------ (b) two writers

#[test]
fn two_stores_interleaving_predictions_sessions_resume_places_and_read_marks_lose_nothing() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    // A TUI and a headless session, both opened before either saved.
    let mut a = Store::open(&path, t0());
    let mut b = Store::open(&path, t0());
    for k in 0..4u8 {
        let at = t0() + Duration::minutes(k as i64 * 10);
        a.record(&format!("a{k}"), 0, Level::L1, None, Rating::Know, at).unwrap();
        b.record_prediction(prediction(6, "grpo-rlvr", &format!("p{k}"), k % 2 == 0, at)).unwrap();
        a.record_prediction(prediction(3, "turn-credit-assignment", &format!("q{k}"), true, at)).unwrap();
        b.record_session(session(Some(6), at, 5, &[(6, 300)])).unwrap();
        a.record_session(session(None, at, 7, &[(0, 200), (3, 220)])).unwrap();
        a.set_resume(Place::Sheet { track: 3, line: k as usize * 10 }, at).unwrap();
        b.set_resume(Place::Drill { id: "grpo-rlvr".into() }, at + Duration::seconds(1)).unwrap();
        a.mark_read(3, &format!("a-section-{k}"), at).unwrap();
        b.mark_read(6, &format!("b-section-{k}"), at).unwrap();
        // The same section from both: the first mark's time stays.
        b.mark_read(0, "shared", at).unwrap();
        a.mark_read(0, "shared", at + Duration::hours(1)).unwrap();
        b.record("shared", 3, Level::L1, None, Rating::Fuzzy, at).unwrap();
    }
    // An older place saved later does not win over the newer one.
    a.set_resume(Place::Quiz { track: 7, level: Some(Level::L2) }, t0() - Duration::days(1)).unwrap();

    let on_disk = Store::open(&path, t0()).progress;
    assert_eq!(on_disk.items.len(), 5, "a0–a3 and shared");
    assert_eq!(on_disk.items["shared"].attempts.len(), 4);
    assert_eq!(on_disk.predictions.len(), 8);
    assert_eq!(on_disk.predictions.iter().filter(|p| p.track == 6).count(), 4);
    assert_eq!(on_disk.predictions.iter().filter(|p| p.track == 6 && p.right).count(), 2);
    assert_eq!(on_disk.sessions.len(), 8);
    assert_eq!(on_disk.sessions.iter().filter(|s| s.track == Some(6)).count(), 4);
    let secs: u64 = on_disk.sessions.iter().flat_map(|s| s.track_secs.values()).sum();
    assert_eq!(secs, 4 * (300 + 200 + 220));
    let resume = on_disk.resume.as_ref().unwrap();
    assert_eq!(resume.place, Place::Drill { id: "grpo-rlvr".into() }, "the newest place wins");
    assert_eq!(resume.at, t0() + Duration::minutes(30) + Duration::seconds(1));
    assert_eq!(on_disk.read.len(), 9, "4 + 4 + the shared one");
    assert_eq!(on_disk.read["0:shared"], t0(), "the first mark's time");
    // Each store, after its own save, holds what is on disk; the other catches up by reloading.
    b.reload_if_changed();
    a.reload_if_changed();
    assert_eq!(a.progress, on_disk);
    assert_eq!(b.progress, on_disk);
    assert!(!a.has_unsaved() && !b.has_unsaved());
}

/// A reload keeps this session's unsaved changes on top of what another process saved.
#[test]
fn a_reload_keeps_the_changes_not_saved_yet() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join(FILE_NAME);
    let mut tui = Store::open(&path, t0());
    let mut cli = Store::open(&path, t0());
    tui.record("mine-saved", 3, Level::L1, None, Rating::Know, t0()).unwrap();
    // Another agentlab holds the lock: this rating stays pending.
    {
        let _held = agentlab::fsutil::lock_exclusive(&lock_path(&path), StdDuration::from_secs(1)).unwrap();
        tui.lock_wait = StdDuration::from_millis(50);
        assert!(tui.record("mine-pending", 3, Level::L1, None, Rating::Fuzzy, t0()).is_err());
    }
    assert!(tui.has_unsaved());
    assert!(!tui.reload_if_changed(), "nothing new on disk yet");
    cli.record("theirs", 7, Level::L1, Some(true), Rating::Know, t0()).unwrap();
    cli.record_check("grpo-advantages", 3, true, t0()).unwrap();
    assert!(tui.reload_if_changed());
    for id in ["mine-saved", "mine-pending", "theirs"] {
        assert!(tui.progress.items.contains_key(id), "{id} after the reload");
    }
    assert!(tui.progress.exercise_done("grpo-advantages"));
    assert!(tui.has_unsaved(), "still to be saved");
    assert!(!tui.reload_if_changed(), "read once per change");
    tui.save().unwrap();
    let on_disk = Store::open(&path, t0()).progress;
    assert_eq!(on_disk, tui.progress);
    assert_eq!(on_disk.items.len(), 3);
}

// ------------------------------------------------------------ (c) an open TUI sees other writers

/// A headless quiz on track 7 saved while the TUI shows Progress: the next
/// tick shows it. An exercise check by the real binary: the Exercises list
/// and Home's details count it.
#[test]
fn a_headless_quiz_and_an_exercise_check_saved_elsewhere_show_in_the_open_tui() {
    let d = tempfile::tempdir().unwrap();
    let mut a = study_app(d.path(), 120, 40);
    key(&mut a, KeyCode::Char('p'));
    let lines = screen(&mut a, 120, 40);
    let row = track_row(&lines, 7).to_string();
    assert!(row.contains("—") && !row.contains('%'), "track 7 not started yet: {row}");

    // The headless quiz: its own Store on the same file, as `agentlab quiz` does.
    let mut quiz = Store::open(&d.path().join(FILE_NAME), t0());
    let l1 = items_of(&a.content, 7, Level::L1);
    for id in &l1 {
        quiz.record(id, 7, Level::L1, Some(true), Rating::Know, t0() - Duration::hours(1)).unwrap();
    }
    assert!(a.on_tick(), "the tick notices the file changed");
    let lines = screen(&mut a, 120, 40);
    let row = track_row(&lines, 7);
    assert!(row.contains("100%"), "every L1 item of track 7 ✅ now shows on Progress: {row}");
    assert!(!a.on_tick(), "nothing new: nothing to redraw");

    // `agentlab exercise check` in another process, with the shipped solution.
    let x = a.content.exercise("grpo-advantages").unwrap().clone();
    let file = d.path().join("grpo.rhai");
    std::fs::write(&file, &x.solution).unwrap();
    let o = common::agentlab(d.path())
        .args(["exercise", "check", "grpo-advantages", "--file"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    a.on_tick();
    let lines = screen(&mut a, 120, 40);
    assert!(track_row(&lines, 3).contains("1/"), "Progress counts the exercise: {}", track_row(&lines, 3));
    key(&mut a, KeyCode::Esc);
    key(&mut a, KeyCode::Char('e'));
    let s = screen(&mut a, 120, 40).join("\n");
    assert!(s.contains(&format!("1 of {} done", a.content.exercises.len())), "{s}");
}

/// The Store of the TUI reads the file again when Progress opens, even without a tick.
#[test]
fn progress_opened_after_another_writer_saved_shows_it() {
    let d = tempfile::tempdir().unwrap();
    let mut a = study_app(d.path(), 100, 30);
    let mut other = Store::open(&d.path().join(FILE_NAME), t0());
    let id = items_of(&a.content, 5, Level::L2)[0].clone();
    other.record(&id, 5, Level::L2, Some(true), Rating::Know, t0() - Duration::hours(1)).unwrap();
    key(&mut a, KeyCode::Char('p'));
    let lines = screen(&mut a, 100, 30);
    let row = track_row(&lines, 5);
    assert!(!row.contains("not started") && row.contains('%'), "{row}");
}

// ------------------------------------------------------------ (d) Home and Progress agree

/// Track 6 with a passed drill and nothing answered: Home no longer says
/// "not started"; then with answers, Home's % is Progress's "all", and the
/// details say the same drills, levels and exercises as the table.
#[test]
fn home_and_progress_show_the_same_numbers() {
    let d = tempfile::tempdir().unwrap();
    let mut a = study_app(d.path(), 120, 40);
    passed_run(&a.runs_root.clone(), "grpo-rlvr", "2026-03-31T10-00-00");
    // Home → track 6: the drill passed shows after any screen comes back.
    for _ in 0..6 {
        key(&mut a, KeyCode::Char('j'));
    }
    key(&mut a, KeyCode::Char('p'));
    let lines = screen(&mut a, 120, 40);
    let progress_row = track_row(&lines, 6).to_string();
    assert!(progress_row.contains("1/3") && progress_row.contains("0%"), "{progress_row}");
    key(&mut a, KeyCode::Esc);
    let lines = screen(&mut a, 120, 40);
    let home_row = track_row(&lines, 6);
    assert!(!home_row.contains("not started") && home_row.contains("0%"), "Home: {home_row}");
    let details = pane_text(&lines, "Details");
    assert!(details.contains("Drills: 1 of 3 passed"), "{details}");

    // Some answers: 2 L1 ✅, 1 L1 ❌ (due again within the day), 1 L2 ✅.
    let l1 = items_of(&a.content, 6, Level::L1);
    let l2 = items_of(&a.content, 6, Level::L2);
    let earlier = t0() - Duration::hours(2);
    a.store.record(&l1[0], 6, Level::L1, Some(true), Rating::Know, earlier).unwrap();
    a.store.record(&l1[1], 6, Level::L1, Some(true), Rating::Know, earlier).unwrap();
    a.store.record(&l1[2], 6, Level::L1, Some(false), Rating::Dont, earlier).unwrap();
    a.store.record(&l2[0], 6, Level::L2, Some(true), Rating::Know, earlier).unwrap();
    a.store.record_prediction(prediction(6, "grpo-rlvr", "kl", true, earlier)).unwrap();
    a.store.record_session(session(Some(6), earlier, 30, &[(6, 1500)])).unwrap();
    a.refresh_summary();
    let row = a.summary.tracks[6].clone();
    let all = format!("{:.0}%", 3.0 / row.total.items as f64 * 100.0);
    let l1_pct = format!("{:.0}%", 2.0 / l1.len() as f64 * 100.0);
    let l2_pct = format!("{:.0}%", 1.0 / l2.len() as f64 * 100.0);

    let lines = screen(&mut a, 120, 40);
    let home_row = track_row(&lines, 6).to_string();
    let details = pane_text(&lines, "Details");
    key(&mut a, KeyCode::Char('p'));
    let lines = screen(&mut a, 120, 40);
    let progress_row = track_row(&lines, 6).to_string();
    let study = pane_text(&lines, "Study sessions");

    assert!(home_row.contains(&format!(" {all}")), "Home {all}: {home_row}");
    assert!(progress_row.contains(&format!(" {all} ")), "Progress all {all}: {progress_row}");
    assert!(details.contains(&format!("3 of {} items mastered ({all})", row.total.items)), "{details}");
    assert!(details.contains(&format!("L1 {l1_pct}")) && progress_row.contains(&l1_pct), "{details}\n{progress_row}");
    assert!(details.contains(&format!("L2 {l2_pct}")) && progress_row.contains(&l2_pct), "{details}\n{progress_row}");
    assert!(details.contains("L3 —"), "{details}");
    assert!(details.contains("Drills: 1 of 3 passed") && progress_row.contains("1/3"), "{details}\n{progress_row}");
    assert!(details.contains("Study time: 25m · predictions right: 1/1 100%"), "{details}");
    assert!(study.contains("Self-improv") && study.contains("25m") && study.contains("1/1 100%"), "{study}");
    assert!(study.contains("1 session · 30m"), "sessions per week: {study}");
}

/// The Progress screen stays readable at the smallest size, at 120×40 and at
/// 200×60: below 100 columns Tab swaps the study panel in; "—" where nothing is yet.
#[test]
fn progress_is_readable_at_every_size_with_dashes_where_nothing_is_yet() {
    for (w, h) in [(60, 16), (80, 24), (120, 40), (200, 60)] {
        let d = tempfile::tempdir().unwrap();
        let mut a = study_app(d.path(), w, h);
        key(&mut a, KeyCode::Char('p'));
        let lines = screen(&mut a, w, h);
        let s = lines.join("\n");
        assert!(s.contains("Mastery"), "{w}×{h}:\n{s}");
        if w < 100 {
            assert!(s.contains("Due · Tab: study") && !s.contains("Study sessions"), "{w}×{h}:\n{s}");
            key(&mut a, KeyCode::Tab);
        }
        let lines = screen(&mut a, w, h);
        let study = pane_text(&lines, "Study sessions");
        assert!(study.contains("Sessions per week") && study.contains("— none yet"), "{w}×{h}: {study}");
        assert!(study.contains("— — —"), "time and predictions: {w}×{h}: {study}");
        for l in &lines {
            assert!(unicode_width::UnicodeWidthStr::width(l.as_str()) <= w as usize, "{w}×{h}: {l}");
        }

        // With sessions: this week's and last week's show (each week on its own row when there is room).
        let mut other = Store::open(&d.path().join(FILE_NAME), t0());
        other.record_session(session(Some(3), t0() - Duration::hours(3), 20, &[(3, 1200)])).unwrap();
        other.record_session(session(Some(3), t0() - Duration::days(7), 40, &[(3, 2400)])).unwrap();
        other.record_prediction(prediction(3, "turn-credit-assignment", "x", false, t0())).unwrap();
        a.on_tick();
        let lines = screen(&mut a, w, h);
        let study = pane_text(&lines, "Study sessions");
        if h >= 40 {
            assert!(
                study.contains("03-30 1 session · 20m") && study.contains("03-23 1 session · 40m"),
                "{w}×{h}: {study}"
            );
        } else {
            // Short: the weeks on one line.
            assert!(study.contains("03-23 1 (40m), 03-30 1 (20m)"), "{w}×{h}: {study}");
        }
        if h >= 24 {
            assert!(study.contains("1h00") && study.contains("0/1 0%"), "{w}×{h}: {study}");
        }
    }
}

/// `agentlab progress` says the same: the "all" column, sessions per week,
/// time and predictions per track, and "—" where nothing is yet.
#[test]
fn the_progress_command_shows_sessions_time_and_predictions() {
    let d = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let o = common::agentlab(d.path()).args(args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let out = run(&["progress"]);
    assert!(out.contains("study sessions per week") && out.contains("0 in all"), "{out}");
    let row6 = out.lines().filter(|l| l.starts_with("6 Self-improving")).nth(1).unwrap();
    assert!(row6.trim_end().ends_with("—") && row6.matches('—').count() == 2, "{row6}");

    let now = Utc::now();
    let mut s = Store::open(&d.path().join(FILE_NAME), now);
    s.record_session(session(Some(6), now - Duration::hours(1), 50, &[(6, 3000)])).unwrap();
    s.record_prediction(prediction(6, "grpo-rlvr", "kl", true, now)).unwrap();
    s.record_prediction(prediction(6, "grpo-rlvr", "acc", false, now)).unwrap();
    passed_run(&d.path().join("runs"), "grpo-rlvr", "2026-03-31T10-00-00");
    let out = run(&["progress"]);
    assert!(out.contains("1 in all") && out.contains("1 (50m)"), "{out}");
    let rows: Vec<&str> = out.lines().filter(|l| l.starts_with("6 Self-improving")).collect();
    assert!(rows[0].contains("0%") && rows[0].contains("1/3"), "mastery row: {}", rows[0]);
    assert!(rows[1].contains("50m") && rows[1].contains("1/2 50%"), "study row: {}", rows[1]);

    let v: serde_json::Value = serde_json::from_str(&run(&["progress", "--json"])).unwrap();
    let t6 = &v["summary"]["tracks"][6];
    assert_eq!(t6["secs"], 3000);
    assert_eq!(t6["predictions"], 2);
    assert_eq!(t6["predictions_right"], 1);
    assert_eq!(t6["drills_passed"], 1);
    // Mastered, learning and not seen, apart, in every cell.
    let total = &t6["total"];
    assert_eq!((total["mastered"].clone(), total["learning"].clone()), (serde_json::json!(0), serde_json::json!(0)));
    assert_eq!(total["not_seen"], total["items"], "{total}");
    assert_eq!((t6["started"].clone(), t6["mastery"].clone()), (serde_json::json!(true), serde_json::json!(0.0)));
    let t1 = &v["summary"]["tracks"][1];
    assert_eq!((t1["started"].clone(), t1["mastery"].clone()), (serde_json::json!(false), serde_json::Value::Null));
    assert_eq!(v["summary"]["sessions"], 1);
    assert_eq!(v["summary"]["weeks"].as_array().unwrap().len(), agentlab::progress::summary::WEEKS);
}
