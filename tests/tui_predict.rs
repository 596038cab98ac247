//! The drill screen for study: predictions asked before a run and resolved
//! by it, a failed claim's `why`, `b` (break a claim on purpose, compared
//! with the last passing run of the seed), the last run shown when a drill
//! reopens, and `drill run --predict`.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use agentlab::content::{Content, DrillMeta, ParamValue};
use agentlab::drills::{ClaimResult, Event, Report, RunStatus};
use agentlab::progress::Store;
use agentlab::tui::screens::{drill, Screen};
use agentlab::tui::App;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// sft-basics with a `why` and a breaking setting on `loss_drop`, and two predictions.
const EXTRA: &str = r#"
why = "The loss barely fell: the model has not learned the task yet, so nothing it outputs can be trusted."

[[claim.breaks_with]]
set = { steps = 2 }
effect = "two steps: loss_drop reads about 0.9"

[[prediction]]
id = "acc"
question = "After two steps, what held-out accuracy?"
kind = "choice"
choices = ["below 0.5", "0.5 or more"]
edges = [0.5]
claim = "heldout_accuracy"
explain = "Two optimizer steps teach almost nothing: the answers are still guesses."

[[prediction]]
id = "final_loss"
question = "What is the final loss?"
kind = "number"
tolerance = 100.0
metric = "loss"
explain = "The loss starts near the log of the vocabulary size."

[[chart]]
title = "training loss"
series = ["loss"]
"#;

/// sft-basics' parameters and presets with its two claims bare (no `why`,
/// no breaking settings, no predictions): the tests add their own.
fn bare_toml() -> String {
    let text = include_str!("../drills/sft-basics/drill.toml");
    let head = &text[..text.find("\n[[claim]]").expect("sft-basics declares claims")];
    format!(
        "{head}
[[claim]]
id = \"heldout_accuracy\"
text = \"exact-match accuracy on held-out a+b pairs\"
op = \">=\"
threshold = 0.95

[[claim]]
id = \"loss_drop\"
text = \"final loss as a fraction of the first step's\"
op = \"<=\"
threshold = 0.25
"
    )
}

fn meta() -> DrillMeta {
    let toml = format!("{}{EXTRA}", bare_toml());
    DrillMeta::parse(&toml, "# sft-basics").unwrap()
}

/// sft-basics.toml whose quick preset is `steps` steps and a held-out set of
/// 50: predictions are asked only for a preset as declared, so a short test
/// run is a preset, not an edit.
fn toml_with_quick(steps: u32) -> String {
    let text = bare_toml()
        .replace("[presets.quick]\nsteps = 800\n", &format!("[presets.quick]\nsteps = {steps}\nholdout = 50\n"));
    assert!(text.contains(&format!("steps = {steps}\nholdout = 50")), "sft-basics' quick preset changed");
    format!("{text}{EXTRA}")
}

fn meta_with_quick(steps: u32) -> DrillMeta {
    DrillMeta::parse(&toml_with_quick(steps), "# sft-basics").unwrap()
}

use common::isolated_home;

/// An app on a progress file in `dir`, with the drill screen of `meta` on
/// top (runs under `dir/runs`), drawn once.
fn app_with(dir: &Path, meta: &DrillMeta, w: u16, h: u16) -> App {
    isolated_home();
    let store = Store::open(&dir.join("progress.json"), chrono::Utc::now());
    let mut a = App::with_store(Content::embedded().unwrap(), store);
    a.runs_root = dir.join("runs");
    a.sweeps_root = dir.join("sweeps");
    let mut s = drill::State::new(meta, a.runs_root.clone(), a.sweeps_root.clone(), a.device);
    s.know_predictions(&a.store.progress);
    a.stack.push(Screen::Drill(Box::new(s)));
    common::screen_lines(&mut a, w, h);
    a
}

fn d(a: &mut App) -> &mut drill::State {
    match a.stack.last_mut() {
        Some(Screen::Drill(d)) => d,
        _ => panic!("not on a drill screen"),
    }
}

fn key(a: &mut App, code: KeyCode) {
    a.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn draw(a: &mut App, w: u16, h: u16) -> String {
    common::screen_lines(a, w, h).join("\n")
}

/// Tick the app until the run has ended (or a minute has passed).
fn wait_for_run(a: &mut App) {
    let until = Instant::now() + Duration::from_secs(120);
    while d(a).running() && Instant::now() < until {
        a.on_tick();
        std::thread::sleep(Duration::from_millis(20));
    }
    a.on_tick();
    assert!(!d(a).running(), "the run ended");
}

/// Tick the app until the last saved run has been read.
fn wait_for_load(a: &mut App) {
    let until = Instant::now() + Duration::from_secs(20);
    while d(a).loading() && Instant::now() < until {
        a.on_tick();
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(!d(a).loading());
}

fn claim(meta: &DrillMeta, id: &str, measured: f64, pass: bool) -> ClaimResult {
    let c = meta.claim(id).unwrap();
    ClaimResult {
        id: id.into(),
        text: c.text.clone(),
        measured,
        op: c.op,
        threshold: c.threshold,
        pass,
        observation: false,
    }
}

/// A finished sft-basics run saved under `runs_root` as `name`, with its
/// claims' events and report, as the runner writes one.
fn saved(runs_root: &Path, name: &str, seed: u64, claims: Vec<ClaimResult>) {
    let dir = runs_root.join("sft-basics").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("config.toml"),
        format!("drill = \"sft-basics\"\npreset = \"quick\"\nseed = {seed}\ndevice = \"cpu\"\n\n[params]\n"),
    )
    .unwrap();
    let passed = claims.iter().all(|c| c.pass);
    let report = Report {
        drill: "sft-basics".into(),
        preset: "quick".into(),
        seed,
        status: if passed { RunStatus::Passed } else { RunStatus::ClaimsFailed },
        claims: claims.clone(),
        wall_s: 12.0,
        finals: Default::default(),
        phases: Vec::new(),
    };
    let mut events = vec![Event::Phase("train".into())];
    for step in 1..=40u64 {
        events.push(Event::Metric { step, name: "loss".into(), value: 3.0 / step as f64, t: step as f64 * 0.1 });
        events.push(Event::Progress { step, total: 40, tokens: step * 100 });
    }
    events.extend(claims.into_iter().map(Event::Claim));
    events.push(Event::Finished(report.clone()));
    let text: String = events.iter().map(|e| serde_json::to_string(e).unwrap() + "\n").collect();
    std::fs::write(dir.join("metrics.jsonl"), text).unwrap();
    std::fs::write(dir.join("report.json"), serde_json::to_string(&report).unwrap()).unwrap();
}

/// `s` asks the preset's predictions first (a choice, then a number), the
/// run answers them, the overlay says right or wrong with the lesson, and
/// the progress file keeps them; `s` does not ask again, `P` does, and a
/// cancelled run records nothing.
#[test]
fn a_prediction_is_asked_measured_shown_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let meta = meta_with_quick(2);
    let mut a = app_with(dir.path(), &meta, 120, 40);
    key(&mut a, KeyCode::Char('s'));
    assert!(!d(&mut a).running(), "the questions come first");
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Predict before you run · 1 of 2") && s.contains("After two steps, what held-out"), "{s}");
    assert!(s.contains("1 below 0.5") && s.contains("2 0.5 or more"), "{s}");
    // 2 then 1 moves the choice; Enter answers.
    key(&mut a, KeyCode::Char('2'));
    key(&mut a, KeyCode::Char('1'));
    key(&mut a, KeyCode::Enter);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("2 of 2") && s.contains("What is the final loss?"), "{s}");
    // A number question: letters other than e are refused, and `q` is no quit here.
    key(&mut a, KeyCode::Char('q'));
    assert!(!a.should_quit());
    assert!(draw(&mut a, 120, 40).contains("only a number"));
    key(&mut a, KeyCode::Char('3'));
    key(&mut a, KeyCode::Enter);
    assert!(d(&mut a).running(), "the last answer starts the run");
    assert!(a.flash.as_deref().unwrap_or("").contains("2 predictions"), "{:?}", a.flash);
    wait_for_run(&mut a);

    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Your predictions"), "{s}");
    assert!(s.contains("you predicted below 0.5 · measured") && s.contains("(below 0.5) — right"), "{s}");
    assert!(s.contains("you predicted 3 · measured") && s.contains("Two optimizer steps teach"), "{s}");
    let recorded = &a.store.progress.predictions;
    assert_eq!(recorded.len(), 2, "{recorded:?}");
    assert!(recorded.iter().all(|r| r.drill == "sft-basics" && r.preset == "quick" && r.track == 0));
    let acc = recorded.iter().find(|r| r.id == "acc").unwrap();
    assert!(acc.answer == "below 0.5" && acc.right && acc.measured < 0.5, "{acc:?}");
    assert_eq!(recorded.iter().find(|r| r.id == "final_loss").unwrap().answer, "3");
    assert!(a.store.progress.predicted("sft-basics", "quick", "acc"));
    // Saved: a new store on the same file reads them.
    let again = Store::open(&dir.path().join("progress.json"), chrono::Utc::now());
    assert_eq!(again.progress.predictions.len(), 2);

    // The overlay is read at 60×16 too (scrolled), and nothing is drawn past the edge.
    let lines = common::screen_lines(&mut a, 60, 16);
    assert!(lines.join("\n").contains("Your predictions"), "{}", lines.join("\n"));
    for l in &lines {
        assert_eq!(unicode_width::UnicodeWidthStr::width(l.as_str()), 60);
    }
    for _ in 0..30 {
        key(&mut a, KeyCode::Down);
    }
    assert!(draw(&mut a, 60, 16).contains("log of the vocabulary"), "the end is reached by scrolling");
    // Enter dismisses it; the log keeps the verdicts.
    key(&mut a, KeyCode::Enter);
    assert!(d(&mut a).outcomes.is_none());
    assert!(d(&mut a).view.logs.iter().any(|l| l.starts_with("prediction acc: you predicted below 0.5")));

    // Answered: s starts at once (a long run, so that x cancels it before it ends).
    d(&mut a).params.insert("steps".into(), ParamValue::Int(20_000));
    key(&mut a, KeyCode::Char('s'));
    assert!(d(&mut a).running() && d(&mut a).asking.is_none());
    key(&mut a, KeyCode::Char('x'));
    wait_for_run(&mut a);
    // An edited run does not answer questions about the preset: P says so, s asks nothing.
    key(&mut a, KeyCode::Char('P'));
    assert!(d(&mut a).asking.is_none());
    assert!(a.flash.as_deref().unwrap_or("").contains("as declared; edited here: steps"), "{:?}", a.flash);
    assert_eq!(a.store.progress.predictions.len(), 2);
    // The help lists P.
    key(&mut a, KeyCode::Char('?'));
    assert!(draw(&mut a, 120, 40).contains("predict again"));
}

/// The claims pane hides the claims' texts and thresholds until the preset's
/// predictions are answered or skipped, at 120×40 and at 60×16.
#[test]
fn the_claims_are_hidden_until_the_predictions_are_in() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app_with(dir.path(), &meta_with_quick(20_000), 120, 40);
    for (w, h) in [(120, 40), (60, 16)] {
        let s = draw(&mut a, w, h);
        assert!(s.contains("○ claim 1") && s.contains("○ claim 2"), "{s}");
        assert!(!s.contains("exact-match") && !s.contains("≥ 0.95") && !s.contains("≤ 0.25"), "{s}");
    }
    assert!(draw(&mut a, 120, 40).contains("hidden until this preset's"));
    // Still hidden while the questions are asked.
    key(&mut a, KeyCode::Char('s'));
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("1 of 2") && !s.contains("≥ 0.95") && !s.contains("exact-match"), "{s}");
    // One answered, one skipped: the run starts and the claims show.
    key(&mut a, KeyCode::Enter);
    key(&mut a, KeyCode::Tab);
    assert!(d(&mut a).running());
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("exact-match") && s.contains("pending (≥ 0.95)") && !s.contains("○ claim 1"), "{s}");
    key(&mut a, KeyCode::Char('x'));
    wait_for_run(&mut a);
    // A preset without predictions hides nothing.
    let mut a = app_with(dir.path(), &DrillMeta::parse(&bare_toml(), "# sft-basics").unwrap(), 120, 40);
    assert!(draw(&mut a, 120, 40).contains("pending (≥ 0.95)"));
}

/// Esc skips every question: the run starts, and `s` does not ask them again on this screen.
#[test]
fn esc_skips_the_questions_and_starts_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = app_with(dir.path(), &meta_with_quick(20_000), 80, 24);
    key(&mut a, KeyCode::Char('s'));
    let lines = common::screen_lines(&mut a, 80, 24);
    assert!(lines[23].contains("Tab") && lines[23].contains("skip all"), "footer: {}", lines[23]);
    key(&mut a, KeyCode::Esc);
    assert!(d(&mut a).running() && d(&mut a).asking.is_none());
    key(&mut a, KeyCode::Char('x'));
    wait_for_run(&mut a);
    key(&mut a, KeyCode::Char('s'));
    assert!(d(&mut a).running(), "skipped here: not asked again");
    key(&mut a, KeyCode::Char('x'));
    wait_for_run(&mut a);
    assert!(a.store.progress.predictions.is_empty());
    // P asks again; answered, then the run cancelled: nothing is recorded.
    key(&mut a, KeyCode::Char('P'));
    assert!(draw(&mut a, 80, 24).contains("1 of 2"));
    key(&mut a, KeyCode::Enter);
    key(&mut a, KeyCode::Tab);
    assert!(d(&mut a).running());
    key(&mut a, KeyCode::Char('x'));
    wait_for_run(&mut a);
    assert!(a.store.progress.predictions.is_empty(), "a cancelled run records nothing");
    assert!(d(&mut a).outcomes.is_none());
}

/// A reopened drill shows its newest run: charts, claims with the `why`
/// under a ✗, "last run: … · 1 claim failed", and `e` exports it.
#[test]
fn a_reopened_drill_shows_its_last_run_and_a_failed_claim_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let meta = meta();
    let runs = dir.path().join("runs");
    saved(
        &runs,
        "2026-11-24T09-00-00",
        1,
        vec![claim(&meta, "heldout_accuracy", 0.97, true), claim(&meta, "loss_drop", 0.1, true)],
    );
    saved(
        &runs,
        "2026-11-25T10-30-00",
        1,
        vec![claim(&meta, "heldout_accuracy", 0.97, true), claim(&meta, "loss_drop", 0.62, false)],
    );
    let mut a = app_with(dir.path(), &meta, 120, 40);
    wait_for_load(&mut a);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("last run: 2026-11-25 10:30 · 1 claim failed"), "{s}");
    assert!(!s.contains("No run yet") && !s.contains("no run yet"), "{s}");
    assert!(s.contains(" loss "), "charts:\n{s}");
    assert!(d(&mut a).previous.is_some(), "drawn over the run before it");
    assert!(s.contains("✗ final loss") && s.contains("0.6200 ≤ 0.25"), "{s}");
    assert!(s.contains("what the claim shows: The loss"), "what the claim shows, under the ✗:\n{s}");
    assert!(s.contains("1 claim failed") && s.contains("what each claim shows"), "status:\n{s}");
    key(&mut a, KeyCode::Char('3'));
    assert!(draw(&mut a, 120, 40).contains("✗ loss_drop — what the claim shows: The loss barely fell"));
    key(&mut a, KeyCode::Char('e'));
    key(&mut a, KeyCode::Enter); // the first item of the export menu: the PNG
                                 // The PNG is drawn off the UI thread: the result comes with a tick.
    common::settle(&mut a);
    let flash = a.flash.clone().unwrap_or_default();
    assert!(flash.starts_with("exported ") && flash.contains("2026-11-25T10-30-00"), "{flash}");
    // At 60×16 the why is still there (wrapped), nothing past the edge.
    let lines = common::screen_lines(&mut a, 60, 16);
    for l in &lines {
        assert_eq!(unicode_width::UnicodeWidthStr::width(l.as_str()), 60);
    }
    // Opening the drill marks it as the place to continue.
    let mut a = app_with(dir.path(), &meta, 120, 40);
    a.follow(agentlab::markdown::Target::Lab(agentlab::content::Link::Drill("sft-basics".into())));
    let place = a.store.progress.resume.as_ref().map(|r| r.place.clone());
    assert_eq!(place, Some(agentlab::progress::store::Place::Drill { id: "sft-basics".into() }));
}

/// `b` lists the breaking settings; Enter runs one over the same seed,
/// drawn over the last passing run of the seed, the claims showing both
/// values. A drill without breaking settings says so.
#[test]
fn b_breaks_a_claim_on_purpose_and_compares_with_the_last_passing_run() {
    let dir = tempfile::tempdir().unwrap();
    let meta = meta();
    let runs = dir.path().join("runs");
    saved(
        &runs,
        "2026-11-24T09-00-00",
        1,
        vec![claim(&meta, "heldout_accuracy", 0.97, true), claim(&meta, "loss_drop", 0.1, true)],
    );
    saved(
        &runs,
        "2026-11-24T10-00-00",
        2,
        vec![claim(&meta, "heldout_accuracy", 0.98, true), claim(&meta, "loss_drop", 0.05, true)],
    );
    let mut a = app_with(dir.path(), &meta, 120, 40);
    wait_for_load(&mut a);
    d(&mut a).params.insert("holdout".into(), ParamValue::Int(50));
    key(&mut a, KeyCode::Char('b'));
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Break a claim") && s.contains("loss_drop · steps = 2"), "{s}");
    assert!(s.contains("two steps: loss_drop reads about 0.9"), "{s}");
    // Predictions are not asked for an experiment.
    key(&mut a, KeyCode::Enter);
    assert!(d(&mut a).running() && d(&mut a).asking.is_none());
    assert_eq!(d(&mut a).params["steps"], ParamValue::Int(2));
    let flash = a.flash.clone().unwrap_or_default();
    assert!(
        flash.contains("breaking loss_drop with steps = 2 (seed 1)") && flash.contains("2026-11-24T09-00-00"),
        "{flash}"
    );
    wait_for_run(&mut a);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("(was 0.1000)") && s.contains("(was 0.9700)"), "both values:\n{s}");
    assert_eq!(d(&mut a).compare.as_ref().unwrap().0, "2026-11-24T09-00-00", "the passing run of seed 1");
    assert!(d(&mut a).previous.is_some());
    assert!(s.contains("grey = last passing run of seed 1"), "{s}");

    // No breaking settings: said so.
    let plain = DrillMeta::parse(&bare_toml(), "# x").unwrap();
    let dir2 = tempfile::tempdir().unwrap();
    let mut a = app_with(dir2.path(), &plain, 80, 24);
    key(&mut a, KeyCode::Char('b'));
    assert!(a.flash.as_deref().unwrap_or("").contains("declares no breaking settings"), "{:?}", a.flash);
    assert!(d(&mut a).breaking.is_none());
}

/// `agentlab drill run ID --predict` asks on stdin and tells after the run.
#[test]
fn drill_run_predict_asks_on_stdin_and_tells_after() {
    use std::io::Write;
    use std::process::Stdio;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let content = tempfile::tempdir().unwrap();
    for sub in ["cheatsheets", "quizzes", "drills", "exercises"] {
        copy_dir(&root.join(sub), &content.path().join(sub));
    }
    std::fs::write(content.path().join("drills/sft-basics/drill.toml"), toml_with_quick(2)).unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut child = common::agentlab(home.path())
        .args(["--content", content.path().to_str().unwrap()])
        .args(["drill", "run", "sft-basics", "--predict"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A wrong pick is asked again; then a number.
    child.stdin.take().unwrap().write_all(b"7\n1\n3\n").unwrap();
    let o = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("Predict before you run") && out.contains("1) below 0.5"), "{out}");
    assert!(out.contains("from 1 to 2"), "{out}");
    assert!(out.contains("you predicted below 0.5 · measured") && out.contains("— right"), "{out}");
    assert!(out.contains("you predicted 3 · measured") && out.contains("log of the vocabulary"), "{out}");
    let progress = std::fs::read_to_string(home.path().join("progress.json")).unwrap();
    assert!(progress.contains("\"final_loss\"") && progress.contains("\"acc\""), "{progress}");
    // An edited run is not asked: its numbers would not answer questions about the preset.
    let o = common::agentlab(home.path())
        .args(["--content", content.path().to_str().unwrap()])
        .args(["drill", "run", "sft-basics", "--set", "steps=3", "--predict"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("as declared"));
    // Without --predict nothing is asked.
    let o = common::agentlab(home.path())
        .args(["--content", content.path().to_str().unwrap()])
        .args(["drill", "run", "sft-basics", "--set", "steps=2", "--set", "holdout=50"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&o.stdout).contains("Predict"));
}

/// Copy the English content (the test rewrites a drill.toml, which its
/// translation would no longer match; an English-only tree is valid).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let p = e.path();
        if agentlab::content::translation::lang_of_path(&p.to_string_lossy()).is_some() {
            continue;
        }
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}
