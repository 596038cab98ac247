//! Study paths and study sessions: the next step follows the learner's
//! record, a session plans the due review first and then the path, walks it
//! on screen, and saves its summary.

mod common;

use std::collections::BTreeMap;

use agentlab::content::sheet::{StepKind, StepSpec};
use agentlab::content::{Content, Level};
use agentlab::progress::store::{Place, Progress, Store};
use agentlab::progress::study;
use agentlab::progress::Rating;
use agentlab::tui::App;
use chrono::{DateTime, Duration, TimeZone, Utc};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

const TRACK: u8 = 3;

use common::isolated_home;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 27, 9, 0, 0).unwrap()
}

fn step(kind: StepKind, target: &str, minutes: u32) -> StepSpec {
    StepSpec { kind, target: target.to_string(), minutes }
}

/// The embedded content with a known path on track 3 (read the first section
/// → L1 quiz → the track's first exercise → its first drill → L2), so the
/// tests do not depend on the path the sheet declares.
fn content() -> (Content, Vec<StepSpec>) {
    let mut c = Content::embedded().unwrap();
    let sheet = c.sheet(TRACK).unwrap();
    // A section an L1 item is about (so the session's L1 quiz has something
    // to ask once it is read), long enough that reading it takes paging.
    let section = "masking-observation-tokens".to_string();
    assert!(sheet.section(&section).is_some(), "track 3 has §{section}");
    let l1_about = |i: &agentlab::content::QuizItem| {
        i.level == Level::L1 && i.sheet.as_deref() == Some("3#masking-observation-tokens")
    };
    assert!(c.quiz(TRACK).unwrap().items.iter().any(l1_about), "an L1 item is about §{section}");
    let exercise = c.exercises_of(TRACK).next().unwrap().id.clone();
    let drill = c.drills_of(TRACK).next().unwrap().id.clone();
    let steps = vec![
        step(StepKind::Read, &section, 4),
        step(StepKind::Quiz, "L1", 3),
        step(StepKind::Exercise, &exercise, 12),
        step(StepKind::Drill, &drill, 3),
        step(StepKind::Quiz, "L2", 5),
    ];
    let i = c.sheets.iter().position(|s| s.meta.track == TRACK).unwrap();
    c.sheets[i].meta.steps = steps.clone();
    (c, steps)
}

fn ids(c: &Content, level: Level) -> Vec<String> {
    c.quiz(TRACK).unwrap().items.iter().filter(|i| i.level == level).map(|i| i.id.clone()).collect()
}

#[test]
fn the_next_step_follows_the_record_not_clicks() {
    let (c, steps) = content();
    let mut p = Progress::default();
    let mut passed = BTreeMap::new();
    let next = |p: &Progress, passed: &BTreeMap<String, bool>| study::next_step(&c, p, passed, TRACK).map(|s| s.spec);

    assert_eq!(next(&p, &passed), Some(steps[0].clone()), "a fresh learner starts by reading");
    let path = study::path(&c, &p, &passed, TRACK);
    assert_eq!(study::path_progress(&path), (0, 5, 27));
    assert!(path[0].label.starts_with("Read §"), "{}", path[0].label);
    assert!(path[1].label.starts_with("L1 quiz ("), "{}", path[1].label);

    p.read.insert(Progress::read_key(TRACK, &steps[0].target), t0());
    assert_eq!(next(&p, &passed), Some(steps[1].clone()));

    // All L1 items but one answered: the quiz step is not done yet.
    let l1 = ids(&c, Level::L1);
    for id in &l1[1..] {
        p.record(id, TRACK, Level::L1, Some(false), Rating::Dont, t0());
    }
    assert_eq!(next(&p, &passed), Some(steps[1].clone()), "one L1 item is still unanswered");
    p.record(&l1[0], TRACK, Level::L1, Some(true), Rating::Know, t0());
    assert_eq!(next(&p, &passed), Some(steps[2].clone()), "answered (even wrongly) counts as done");

    p.record_check(&steps[2].target, TRACK, false, t0());
    assert_eq!(next(&p, &passed), Some(steps[2].clone()), "a failed check is not a passed exercise");
    p.record_check(&steps[2].target, TRACK, true, t0());
    assert_eq!(next(&p, &passed), Some(steps[3].clone()));

    passed.insert(steps[3].target.clone(), false);
    assert_eq!(next(&p, &passed), Some(steps[3].clone()), "a failed run does not pass the drill step");
    passed.insert(steps[3].target.clone(), true);
    assert_eq!(next(&p, &passed), Some(steps[4].clone()));
    assert_eq!(study::path_progress(&study::path(&c, &p, &passed, TRACK)), (4, 5, 5));
}

#[test]
fn a_plan_reviews_first_within_its_share_then_fits_the_path() {
    let (c, steps) = content();
    let mut p = Progress::default();
    // 12 items answered wrongly two days ago (6 of L1, 6 of L2: neither level complete): all due now.
    let (l1, l2) = (ids(&c, Level::L1), ids(&c, Level::L2));
    assert!(l1.len() > 6 && l2.len() > 6, "track 3 has more than 6 L1 and 6 L2 items");
    let due: Vec<String> = l1[..6].iter().chain(&l2[..6]).cloned().collect();
    for id in &due {
        let level = c.item(id).unwrap().level;
        p.record(id, TRACK, level, Some(false), Rating::Dont, t0() - Duration::days(2));
    }
    let passed = BTreeMap::new();

    // 10 minutes: at most 40% for review = 8 items (4 min); 6 min left fit the read (4), not the quiz (3).
    let plan = study::plan(&c, &p, &passed, Some(TRACK), 10, t0());
    assert_eq!(plan.review.len(), 8);
    assert_eq!(plan.review_left_out, 4);
    assert_eq!(plan.review_minutes(), 4);
    assert_eq!(plan.steps.iter().map(|s| s.spec.clone()).collect::<Vec<_>>(), vec![steps[0].clone()]);
    assert!(plan.planned_minutes() <= 10);

    // 60 minutes: every due item (6 min), then the path (27 min) but its L1
    // quiz: the L1 items still unanswered are about sections neither read
    // nor planned, so a session has nothing to ask there yet.
    let plan = study::plan(&c, &p, &passed, Some(TRACK), 60, t0());
    assert_eq!((plan.review.len(), plan.review_left_out, plan.steps.len()), (12, 0, 4));
    assert!(plan.steps.iter().all(|s| s.spec != steps[1]), "{plan:?}");

    // Nothing due and 5 minutes: the first step is taken even when it is longer.
    let fresh = Progress::default();
    let mut read = fresh.clone();
    read.read.insert(Progress::read_key(TRACK, &steps[0].target), t0());
    read.record_check(&steps[2].target, TRACK, true, t0());
    let plan = study::plan(&c, &read, &passed, Some(TRACK), 5, t0());
    assert_eq!(plan.steps.len(), 1, "the L1 quiz (3 min) fits, the drill after it does not");
    let plan = study::plan(&c, &fresh, &passed, Some(TRACK), 5, t0());
    assert!(plan.review.is_empty() && plan.steps.len() == 1, "{plan:?}");
}

fn key(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn draw(app: &mut App, w: u16, h: u16) -> String {
    common::screen_lines(app, w, h).join("\n")
}

fn app_on(store_path: &std::path::Path) -> (App, Vec<StepSpec>) {
    isolated_home();
    let (c, steps) = content();
    let mut a = App::with_store(c, Store::open(store_path, Utc::now()));
    draw(&mut a, 120, 40);
    (a, steps)
}

#[test]
fn a_session_walks_the_path_on_screen_and_saves_its_summary() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("progress.json");
    let (mut a, steps) = app_on(&file);

    a.open_study(Some(TRACK), 30);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Study session · plan") && s.contains("30 min on track 3"), "{s}");
    assert!(s.contains("Read §") && s.contains("L1 quiz"), "the plan lists the steps:\n{s}");

    // Enter starts: the first stop (reading) opens, with the session bar in the header.
    key(&mut a, KeyCode::Enter);
    let s = draw(&mut a, 120, 40);
    let header = s.lines().next().unwrap();
    assert!(header.contains("session · step 1 of 5"), "header: {header}");

    // Esc before reading it through: not done; the session says so.
    key(&mut a, KeyCode::Esc);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("not done yet"), "{s}");

    // Read the section through, page by page (each frame shows more of it).
    key(&mut a, KeyCode::Enter);
    draw(&mut a, 120, 40);
    for _ in 0..60 {
        if a.store.progress.was_read(TRACK, &steps[0].target) {
            break;
        }
        key(&mut a, KeyCode::PageDown);
        draw(&mut a, 120, 40);
    }
    assert!(a.store.progress.was_read(TRACK, &steps[0].target), "paging through the section marks it read");
    key(&mut a, KeyCode::Esc);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("done: Read §"), "{s}");
    assert!(s.lines().next().unwrap().contains("step 2 of 5"), "{s}");

    // Skip the quiz, then end: the summary, saved to the file.
    key(&mut a, KeyCode::Char('n'));
    key(&mut a, KeyCode::Char('x'));
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Session over") && s.contains("Steps: 1 done, 1 skipped"), "{s}");
    assert!(s.contains("Predictions: none made") && s.contains("Drills run: none"), "{s}");
    assert!(!s.lines().next().unwrap().contains("session · step"), "the bar goes with the session");
    let on_disk = Store::open(&file, Utc::now()).progress;
    assert_eq!(on_disk.sessions.len(), 1);
    let r = &on_disk.sessions[0];
    assert_eq!((r.track, r.planned_minutes, r.steps_done, r.steps_skipped), (Some(TRACK), 30, 1, 1));
    assert!(on_disk.was_read(TRACK, &steps[0].target));
    // The reader left by Esc is where Continue goes back to.
    assert!(matches!(on_disk.resume.as_ref().map(|r| &r.place), Some(Place::Sheet { track: TRACK, .. })));

    // Enter leaves the summary for Home, which now offers Continue and the next step (the L1 quiz).
    key(&mut a, KeyCode::Enter);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Continue: reading track 3"), "{s}");
}

#[test]
fn home_shows_the_next_step_and_tab_goes_to_the_tracks_drills() {
    let dir = tempfile::tempdir().unwrap();
    let (mut a, steps) = app_on(&dir.path().join("progress.json"));
    for _ in 0..TRACK {
        key(&mut a, KeyCode::Down);
    }
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Next step (n): Read §"), "{s}");
    assert!(s.contains("Path: 0 of 5 steps done · about 27 min left"), "{s}");
    assert!(!s.contains("Continue:"), "nothing to continue on a fresh record:\n{s}");

    // n opens the next step: the sheet, at the section.
    key(&mut a, KeyCode::Char('n'));
    let s = draw(&mut a, 120, 40);
    assert!(s.lines().next().unwrap().contains("3 ·"), "the track's sheet opens:\n{s}");
    key(&mut a, KeyCode::Esc);

    // Tab goes to the selected track's first drill, not the first drill of all.
    key(&mut a, KeyCode::Tab);
    let s = draw(&mut a, 120, 40);
    let drill = &steps[3].target;
    let selected = s.lines().find(|l| l.contains('▶')).unwrap_or_default();
    assert!(selected.contains(drill.as_str()), "selected: {selected}\n{s}");
}

#[test]
fn the_session_screens_fit_60x16() {
    let dir = tempfile::tempdir().unwrap();
    let (mut a, _) = app_on(&dir.path().join("progress.json"));
    a.open_study(Some(TRACK), 30);
    let s = draw(&mut a, 60, 16);
    assert!(s.contains("Read §"), "{s}");
    key(&mut a, KeyCode::Enter);
    key(&mut a, KeyCode::Esc);
    let s = draw(&mut a, 60, 16);
    let header = s.lines().next().unwrap();
    assert!(header.contains("step 1/5 · 0/30 min"), "a short bar at 60 columns: {header}");
    key(&mut a, KeyCode::Char('x'));
    let s = draw(&mut a, 60, 16);
    assert!(s.contains("Session over"), "{s}");
}

#[test]
fn quitting_in_the_middle_of_a_session_saves_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("progress.json");
    let (mut a, _) = app_on(&file);
    a.open_study(Some(TRACK), 20);
    key(&mut a, KeyCode::Enter);
    draw(&mut a, 120, 40);
    key(&mut a, KeyCode::Char('q'));
    assert!(a.should_quit());
    let on_disk = Store::open(&file, Utc::now()).progress;
    assert_eq!(on_disk.sessions.len(), 1, "the session is saved on quit");
    assert_eq!(on_disk.sessions[0].planned_minutes, 20);
    assert!(matches!(on_disk.resume.as_ref().map(|r| &r.place), Some(Place::Sheet { track: TRACK, .. })));
}

/// Page through the reader on top until `slug` of track 3 is marked read.
fn read_through(a: &mut App, slug: &str) {
    draw(a, 120, 40);
    for _ in 0..80 {
        if a.store.progress.was_read(TRACK, slug) {
            break;
        }
        key(a, KeyCode::PageDown);
        draw(a, 120, 40);
    }
    assert!(a.store.progress.was_read(TRACK, slug), "paging through marks §{slug} read");
}

#[test]
fn a_session_done_early_offers_the_next_steps_and_continues_past_its_plan() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("progress.json");
    let (mut a, steps) = app_on(&file);

    // 5 minutes: the read (4 min) only; the L1 quiz (3 min) does not fit.
    a.open_study(Some(TRACK), 5);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Read §") && !s.contains("L1 quiz"), "{s}");
    key(&mut a, KeyCode::Enter);
    read_through(&mut a, &steps[0].target);
    key(&mut a, KeyCode::Esc);

    // Its one stop done with minutes left: the session offers the path's next
    // step, not its end, where a 60x16 terminal shows it too.
    let small = draw(&mut a, 60, 16);
    assert!(small.contains("Enter continues"), "{small}");
    let s = draw(&mut a, 120, 40);
    assert!(!s.contains("Session over"), "{s}");
    assert!(s.contains("Planned steps done, 5 min left") && s.contains("Enter continues: L1 quiz"), "{s}");
    assert!(s.contains("x ends"), "{s}");
    // The quiz asks only the L1 items about sections read: here the one about §masking.
    let about_read: Vec<String> = a
        .content
        .quiz(TRACK)
        .unwrap()
        .items
        .iter()
        .filter(|i| i.level == Level::L1 && i.sheet.as_deref() == Some("3#masking-observation-tokens"))
        .map(|i| i.id.clone())
        .collect();
    let all = ids(&a.content, Level::L1).len();
    let offered = format!("L1 quiz ({} of {all} items: the sections read)", about_read.len());
    assert!(s.contains(&offered), "{offered}\n{s}");

    // Enter continues: the quiz opens as the session's second stop, with those items only.
    key(&mut a, KeyCode::Enter);
    let s = draw(&mut a, 120, 40);
    assert!(s.lines().next().unwrap().contains("session · step 2 of 2"), "{s}");
    match a.stack.last() {
        Some(agentlab::tui::screens::Screen::Quiz(q)) => assert_eq!(q.passes.queue, about_read),
        _ => panic!("the quiz is on top:\n{s}"),
    }
    // Back without answering: not done; x ends, and the summary counts the stop walked.
    key(&mut a, KeyCode::Esc);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("not done yet"), "{s}");
    key(&mut a, KeyCode::Char('x'));
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Session over") && s.contains("Steps: 1 done, 0 skipped"), "{s}");
}

#[test]
fn a_30_minute_session_on_track_3_reaches_its_drill_and_names_the_tracks_before() {
    isolated_home();
    let dir = tempfile::tempdir().unwrap();
    let c = Content::embedded().unwrap();
    let drills: Vec<String> = c.drills_of(TRACK).map(|d| d.id.clone()).collect();
    let plan = study::plan(&c, &Progress::default(), &BTreeMap::new(), Some(TRACK), 30, t0());
    assert!(plan.planned_minutes() <= 30, "{plan:?}");
    let drill = plan.steps.iter().find(|s| s.spec.kind == StepKind::Drill).expect("a drill within 30 minutes");
    assert!(drills.contains(&drill.spec.target), "{drill:?}");
    // Every section an L1 item planned here is about comes before the quiz.
    let k = plan.steps.iter().position(|s| s.spec.kind == StepKind::Quiz).expect("the L1 quiz within 30 minutes");
    assert!(plan.steps[k].label.contains("items: the sections read"), "{}", plan.steps[k].label);
    assert_eq!(plan.untouched_before, vec![0, 1, 2]);

    let mut a = App::with_store(c, Store::open(&dir.path().join("progress.json"), Utc::now()));
    a.open_study(Some(TRACK), 30);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains(&format!("Drill: {}", drill.spec.target)), "{s}");
    assert!(s.contains("Not started yet: tracks 0, 1, 2, which track 3 builds on"), "{s}");
    // Once track 0 is touched, the line names only the others.
    a.store.mark_read(0, "sft", Utc::now()).unwrap();
    a.apply(agentlab::tui::action::Action::Replan(30));
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Not started yet: tracks 1, 2, which track 3 builds on"), "{s}");
}
