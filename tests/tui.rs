//! Screens drawn into ratatui's TestBackend, driven by key events.

mod common;

use agentlab::content::Content;
use agentlab::tui::App;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use common::isolated_home;

/// A fresh app that has been drawn once, as the event loop does before any key.
fn app_at(w: u16, h: u16) -> App {
    isolated_home();
    let mut a = App::new(Content::embedded().unwrap());
    draw(&mut a, w, h);
    a
}

fn app() -> App {
    app_at(80, 24)
}

fn draw(app: &mut App, w: u16, h: u16) -> Vec<String> {
    common::screen_lines(app, w, h)
}

fn key(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn keys(app: &mut App, s: &str) {
    for c in s.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn screen(lines: &[String]) -> String {
    lines.join("\n")
}

#[test]
fn home_lists_tracks_drills_and_keys_at_80x24() {
    let mut a = app();
    let lines = draw(&mut a, 80, 24);
    let s = screen(&lines);
    assert!(lines[0].contains("agentlab") && lines[0].contains("Home"));
    for t in ["0 Prerequisites", "3 Agentic & Long", "7 Agent Safety"] {
        assert!(s.contains(t), "{t} missing:\n{s}");
    }
    assert!(s.contains("sft-basics"));
    assert!(lines[23].contains("Enter") && lines[23].contains("quit"), "footer: {}", lines[23]);
    // The details pane follows the selection.
    key(&mut a, KeyCode::Down);
    assert!(screen(&draw(&mut a, 80, 24)).contains("Track 1 · Agent Foundations"));
}

/// The home screen's drill details tell claims from observations, and say
/// which presets a claim is about.
#[test]
fn home_drill_details_mark_observations_and_presets() {
    let mut a = app_at(200, 45);
    key(&mut a, KeyCode::Tab);
    let mut s = String::new();
    for _ in 0..30 {
        s = screen(&draw(&mut a, 200, 45));
        if s.contains("Self-Refine and STaR") {
            break;
        }
        key(&mut a, KeyCode::Down);
    }
    assert!(s.contains("Track 6 · 3 claims, 2 observations"), "{s}");
    assert_eq!(s.matches("  ○ ").count(), 2, "two observations: {s}");
    assert_eq!(s.matches("  • ").count(), 3, "three claims: {s}");
    assert!(s.contains("· observation"), "{s}");
    // One observation is not "1 observations".
    key(&mut a, KeyCode::Down);
    let s = screen(&draw(&mut a, 200, 45));
    assert!(s.contains("GRPO with verifiable rewards") && s.contains("6 claims, 1 observation ·"), "{s}");
}

#[test]
fn reader_opens_track_3_and_searches_at_80x24() {
    let mut a = app();
    for _ in 0..3 {
        key(&mut a, KeyCode::Char('j'));
    }
    key(&mut a, KeyCode::Enter);
    let lines = draw(&mut a, 80, 24);
    assert!(lines[0].contains("3 · Agentic & Long-horizon RL"), "{}", lines[0]);
    assert!(lines[1].contains("Agentic & Long-horizon RL"), "title on the first text line: {}", lines[1]);
    // At 80 columns the contents pane is hidden; the text uses the width.
    assert!(!screen(&lines).contains("Contents"));
    for l in &lines {
        assert_eq!(unicode_width::UnicodeWidthStr::width(l.as_str()), 80);
    }
    // Search moves to a hit and reports the count in the status line.
    key(&mut a, KeyCode::Char('/'));
    keys(&mut a, "group-relative");
    key(&mut a, KeyCode::Enter);
    let lines = draw(&mut a, 80, 24);
    assert!(screen(&lines).to_lowercase().contains("group-relative"), "{}", screen(&lines));
    assert!(lines[22].contains("/group-relative: 1/"), "status: {}", lines[22]);
    assert!(lines[23].contains("1 match for \"group-relative\""), "flash (one hit, in the singular): {}", lines[23]);
    // Esc clears the search, then goes back home.
    key(&mut a, KeyCode::Esc);
    key(&mut a, KeyCode::Esc);
    assert_eq!(a.stack.len(), 1, "back on Home");
}

#[test]
fn reader_contents_pane_jumps_at_120x40() {
    let mut a = app_at(120, 40);
    for _ in 0..3 {
        key(&mut a, KeyCode::Char('j'));
    }
    key(&mut a, KeyCode::Enter);
    let lines = draw(&mut a, 120, 40);
    assert!(screen(&lines).contains("Contents"));
    key(&mut a, KeyCode::Char('h'));
    let target =
        a.content.sheet(3).unwrap().sections.iter().position(|s| s.title == "Group-relative advantages").unwrap();
    for _ in 0..target {
        key(&mut a, KeyCode::Char('j'));
    }
    key(&mut a, KeyCode::Enter);
    let lines = draw(&mut a, 120, 40);
    assert!(lines[1].contains("Group-relative advantages"), "jumped: {}", lines[1]);
    assert!(lines[38].contains("Group-relative advantages"), "status names the section: {}", lines[38]);
}

#[test]
fn links_are_selected_with_tab_and_followed_with_enter() {
    let mut a = app_at(100, 30);
    for _ in 0..3 {
        key(&mut a, KeyCode::Char('j'));
    }
    key(&mut a, KeyCode::Enter);
    draw(&mut a, 100, 30);
    key(&mut a, KeyCode::Tab);
    key(&mut a, KeyCode::Enter);
    let lines = draw(&mut a, 100, 30);
    // The first link of the sheet leads to another sheet: the breadcrumb grows.
    assert_eq!(a.stack.len(), 3, "{}", lines[0]);
    assert!(lines[0].matches('›').count() == 3, "{}", lines[0]);
    key(&mut a, KeyCode::Backspace);
    assert_eq!(a.stack.len(), 2);
}

#[test]
fn answers_fold_open_with_o() {
    let mut a = app_at(100, 30);
    for _ in 0..3 {
        key(&mut a, KeyCode::Char('j'));
    }
    key(&mut a, KeyCode::Enter);
    draw(&mut a, 100, 30);
    key(&mut a, KeyCode::Char('/'));
    keys(&mut a, "(o: open)");
    key(&mut a, KeyCode::Enter);
    let before = screen(&draw(&mut a, 100, 30));
    assert!(before.contains("▶ Answers"), "{before}");
    key(&mut a, KeyCode::Char('o'));
    let after = screen(&draw(&mut a, 100, 30));
    assert!(after.contains("▼ Answers"), "{after}");
}

#[test]
fn help_overlay_lists_keys_and_closes() {
    let mut a = app();
    key(&mut a, KeyCode::Char('?'));
    let s = screen(&draw(&mut a, 80, 24));
    assert!(s.contains("Help") && s.contains("Tab") && s.contains("Ctrl-C"), "{s}");
    key(&mut a, KeyCode::Esc);
    assert!(!screen(&draw(&mut a, 80, 24)).contains("Esc to close"));
}

#[test]
fn tiny_terminal_asks_to_enlarge_and_never_panics() {
    let mut a = app();
    for (w, h) in [(20, 5), (59, 30), (120, 10), (1, 1)] {
        let s = screen(&draw(&mut a, w, h));
        if w > 30 {
            assert!(s.contains("too small"), "{w}×{h}: {s}");
        }
    }
    // Keys are ignored (but q still quits) while too small, and the reader survives resizes.
    draw(&mut a, 120, 40);
    for _ in 0..3 {
        key(&mut a, KeyCode::Char('j'));
    }
    key(&mut a, KeyCode::Enter);
    draw(&mut a, 120, 40);
    key(&mut a, KeyCode::Char('G'));
    draw(&mut a, 20, 5);
    let s = screen(&draw(&mut a, 80, 24));
    assert!(s.contains("100%"), "still at the end after the resize: {s}");
    key(&mut a, KeyCode::Char('q'));
    assert!(a.should_quit());
}

#[test]
fn ctrl_c_quits_even_while_typing() {
    let mut a = app();
    key(&mut a, KeyCode::Enter);
    key(&mut a, KeyCode::Char('/'));
    keys(&mut a, "abc");
    a.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    assert!(a.should_quit());
}

fn open_drill(a: &mut App, id: &str) {
    let s = a.drill_screen(id).unwrap();
    a.stack.push(s);
}

/// The drill on top with its predictions skipped for every preset (its
/// claims are hidden until then).
fn skip_predictions(a: &mut App) {
    use agentlab::tui::screens::Screen;
    if let Some(Screen::Drill(d)) = a.stack.last_mut() {
        let presets: Vec<String> = d.meta.presets.keys().cloned().collect();
        for p in d.meta.predictions.clone() {
            for preset in &presets {
                d.skipped.insert((preset.clone(), p.id.clone()));
            }
        }
    }
}

#[test]
fn drill_screen_shows_config_charts_claims_and_progress() {
    use agentlab::drills::{ClaimResult, Event};
    use agentlab::tui::screens::Screen;
    let home = tempfile::tempdir().unwrap();
    let mut a = app_at(120, 40);
    a.runs_root = home.path().join("runs");
    open_drill(&mut a, "sft-basics");
    let s = screen(&draw(&mut a, 120, 40));
    assert!(s.contains("Config · quick") && s.contains("lr") && s.contains("0.003"), "{s}");
    // Its predictions are not answered yet: the claims are hidden…
    assert!(s.contains("○ claim 1") && !s.contains("≥ 0.95"), "claims hidden before predictions:\n{s}");
    // …until they are skipped (or answered).
    if let Some(Screen::Drill(d)) = a.stack.last_mut() {
        for p in d.meta.predictions.clone() {
            d.skipped.insert(("quick".into(), p.id));
        }
    }
    let s = screen(&draw(&mut a, 120, 40));
    assert!(s.contains("pending (≥ 0.95)"), "claims start pending:\n{s}");
    assert!(s.contains("No run yet"), "{s}");
    // Feed the screen what a run would send.
    if let Some(Screen::Drill(d)) = a.stack.last_mut() {
        d.view.apply(Event::Phase("train".into()));
        for step in 0..50u64 {
            d.view.apply(Event::Metric {
                step,
                name: "loss".into(),
                value: 3.0 / (1.0 + step as f64),
                t: step as f64 * 0.1,
            });
            d.view.apply(Event::Metric {
                step,
                name: "heldout_acc".into(),
                value: step as f64 / 50.0,
                t: step as f64 * 0.1,
            });
            d.view.apply(Event::Progress { step: step + 1, total: 100, tokens: (step + 1) * 1000 });
        }
        let meta = d.meta.clone();
        let c = meta.claim("heldout_accuracy").unwrap();
        d.view.apply(Event::Claim(ClaimResult {
            id: c.id.clone(),
            text: c.text.clone(),
            measured: 0.97,
            op: c.op,
            threshold: c.threshold,
            pass: true,
            observation: false,
        }));
    }
    let lines = draw(&mut a, 120, 40);
    let s = screen(&lines);
    assert!(s.contains(" loss ") && s.contains(" heldout_acc "), "chart titles:\n{s}");
    assert!(s.contains('⣀') || s.contains('⠉') || s.contains('⠒'), "braille curve drawn:\n{s}");
    assert!(s.contains("✓ exact-match") && s.contains("0.9700 ≥ 0.95"), "claim result:\n{s}");
    assert!(s.contains("train · step 50/100"), "gauge:\n{s}");
    // Smoothing toggles are reported in the chart status line.
    assert!(s.contains("EMA 0.900"));
    key(&mut a, KeyCode::Char('m'));
    assert!(screen(&draw(&mut a, 120, 40)).contains("· raw (m"));
    // The log tab shows the phase.
    key(&mut a, KeyCode::Char('3'));
    assert!(screen(&draw(&mut a, 120, 40)).contains("── train"));
}

#[test]
fn drill_parameters_are_edited_and_bad_values_refused() {
    use agentlab::content::ParamValue;
    use agentlab::tui::screens::Screen;
    let mut a = app_at(120, 40);
    open_drill(&mut a, "sft-basics");
    // Move to `lr` (third parameter) and type a bad value.
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Enter);
    for _ in 0..10 {
        key(&mut a, KeyCode::Backspace);
    }
    keys(&mut a, "fast");
    key(&mut a, KeyCode::Enter);
    assert!(a.flash.as_deref().unwrap_or("").contains("not a number"), "{:?}", a.flash);
    for _ in 0..4 {
        key(&mut a, KeyCode::Backspace);
    }
    keys(&mut a, "5e-4");
    key(&mut a, KeyCode::Enter);
    let Some(Screen::Drill(d)) = a.stack.last() else { panic!() };
    assert_eq!(d.params["lr"], ParamValue::Float(5e-4));
    assert!(d.editing.is_none());
    // Booleans toggle with Enter.
    for _ in 0..5 {
        key(&mut a, KeyCode::Down);
    }
    key(&mut a, KeyCode::Enter);
    let Some(Screen::Drill(d)) = a.stack.last() else { panic!() };
    assert_eq!(d.params["reverse_answer"], ParamValue::Bool(false));
    // The header says the preset was edited, and which keys.
    let s = screen(&draw(&mut a, 120, 40));
    assert!(s.contains("Config · quick, 2 edited"), "{s}");
    assert!(s.contains("preset quick, edited: lr, reverse_answer"), "{s}");
    // The README is one key away, and Esc comes back to the drill.
    key(&mut a, KeyCode::Char('r'));
    assert!(matches!(a.stack.last(), Some(Screen::Reader(_))));
    key(&mut a, KeyCode::Esc);
    assert!(matches!(a.stack.last(), Some(Screen::Drill(_))));
}

// ---------------------------------------------------------------- quiz, review, progress

use agentlab::content::{Answer, Level, Link};
use agentlab::markdown::Target;
use agentlab::progress::{Rating, Store};
use agentlab::tui::screens::Screen;
use chrono::{DateTime, Duration, TimeZone, Utc};

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 4, 1, 9, 0, 0).unwrap()
}

/// An app on its own temporary progress file, at a fixed time.
fn study_app(dir: &std::path::Path, w: u16, h: u16) -> App {
    isolated_home();
    let store = Store::open(&dir.join("progress.json"), t0());
    let mut a = App::with_store(Content::embedded().unwrap(), store);
    a.now_override = Some(t0());
    a.refresh_summary();
    draw(&mut a, w, h);
    a
}

/// The letters of the right choices of the item on the quiz screen, as shown
/// (the options are shuffled per showing).
fn right_letters(a: &App) -> String {
    use agentlab::tui::screens::Screen;
    let q = match a.stack.last() {
        Some(Screen::Quiz(q)) => q.question.as_ref(),
        Some(Screen::Review(r)) => r.question.as_ref(),
        _ => panic!("not on the quiz or review"),
    };
    match &q.expect("a question").item.answer {
        Answer::Choice { correct, .. } => correct.iter().map(|&i| (b'a' + i as u8) as char).collect(),
        _ => panic!("not a choice item"),
    }
}

#[test]
fn quiz_screen_asks_grades_and_saves_ratings() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = study_app(dir.path(), 100, 30);
    // Home → track 3 → z opens the quiz setup with track 3 selected.
    let home = screen(&draw(&mut a, 100, 30));
    assert!(home.contains("z") && home.contains("quiz") && home.contains("review") && home.contains("progress"));
    for _ in 0..3 {
        key(&mut a, KeyCode::Char('j'));
    }
    key(&mut a, KeyCode::Char('z'));
    let s = screen(&draw(&mut a, 100, 30));
    let n = a.content.items().filter(|i| i.track == 3 && i.level == Level::L1).count();
    assert!(s.contains("1. Track") && s.contains("2. Level") && s.contains("▶ 3 Agentic"), "{s}");
    assert!(s.contains(&format!("Track 3 · L1 concept · {n} items")), "{s}");
    key(&mut a, KeyCode::Enter);
    let lines = draw(&mut a, 100, 30);
    let s = screen(&lines);
    assert!(lines[0].contains("Quiz · track 3 · L1"), "{}", lines[0]);
    assert!(s.contains(&format!("item 1/{n}")) && s.contains("track 3 Agentic") && s.contains("L1 concept"), "{s}");
    assert!(s.contains(") A separate reward model") && s.contains("Press the letter of your answer (a–d)"), "{s}");
    // The help overlay lists every quiz key.
    key(&mut a, KeyCode::Char('?'));
    let s = screen(&draw(&mut a, 100, 30));
    assert!(s.contains("Quiz keys") && s.contains("✅ know · ⚠ fuzzy · ❌ don't") && s.contains("J K"), "{s}");
    key(&mut a, KeyCode::Esc);
    // A single-answer choice is graded at once.
    let k = right_letters(&a);
    keys(&mut a, &k);
    let s = screen(&draw(&mut a, 100, 30));
    assert!(s.contains("✓ Correct") && s.contains("Why") && s.contains("Rate yourself"), "{s}");
    assert!(s.contains(" s  Agentic & Long-horizon RL § ") && s.contains(" d  drill:"), "links: {s}");
    key(&mut a, KeyCode::Char('1'));
    assert_eq!(a.store.progress.items["arl-l1-critic-free"].last_rating(), Some(Rating::Know));
    assert!(dir.path().join("progress.json").exists(), "saved at once");
    // Several correct: toggle, then Enter.
    let s = screen(&draw(&mut a, 100, 30));
    assert!(s.contains(&format!("item 2/{n}")) && s.contains("[ ] "), "{s}");
    let several = right_letters(&a);
    assert!(several.len() > 1, "{several}");
    keys(&mut a, &several);
    let s = screen(&draw(&mut a, 100, 30));
    assert!(s.contains("[x] ") && s.contains("Toggle the correct choices"), "{s}");
    key(&mut a, KeyCode::Enter);
    assert!(screen(&draw(&mut a, 100, 30)).contains("✓ Correct"));
    key(&mut a, KeyCode::Char('2'));
    // A wrong answer cannot be rated ✅.
    let right = right_letters(&a);
    let wrong = if right == "a" { "b" } else { "a" };
    keys(&mut a, wrong);
    let s = screen(&draw(&mut a, 100, 30));
    assert!(s.contains("✗ Not quite") && s.contains(&format!("✓ {right}) Nothing")), "{s}");
    assert!(s.contains(&format!("✗ {wrong})")), "{s}");
    key(&mut a, KeyCode::Char('1'));
    // Said once, next to the ratings, not also in the status line.
    assert_eq!(a.flash, None);
    let s = screen(&draw(&mut a, 100, 30));
    assert_eq!(s.matches("cannot be ✅").count(), 1, "{s}");
    assert!(s.contains(&format!("item 3/{n}")), "still on the same item");
    key(&mut a, KeyCode::Char('3'));
    assert!(screen(&draw(&mut a, 100, 30)).contains(&format!("item 4/{n}")));
    assert_eq!(a.store.progress.items.len(), 3);
    // The saved file has what the screen recorded.
    let on_disk = Store::open(&dir.path().join("progress.json"), t0());
    assert_eq!(on_disk.progress, a.store.progress);
    // Esc leaves; Home now shows a mastery bar for track 3.
    key(&mut a, KeyCode::Esc);
    key(&mut a, KeyCode::Esc);
    let lines = draw(&mut a, 100, 30);
    let row = lines.iter().find(|l| l.contains("3 Agentic")).unwrap();
    let all = a.content.items().filter(|i| i.track == 3).count();
    let pct = format!("{}%", (100.0 / all as f64).round());
    assert!(row.contains(&pct) && !row.contains("not started"), "mastery bar on Home (1 of {all} ✅): {row}");
}

use common::quiz_over;

#[test]
fn numeric_order_and_open_items_are_answered_on_screen() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = study_app(dir.path(), 100, 36);
    let find = |k: agentlab::content::Kind| a.content.items().find(|i| i.answer.kind() == k).unwrap().clone();
    let (num, ord, open) = (
        find(agentlab::content::Kind::Numeric),
        find(agentlab::content::Kind::Order),
        find(agentlab::content::Kind::Open),
    );
    quiz_over(&mut a, &[&num.id, &ord.id, &open.id]);
    // Numeric: letters are refused, the number is typed, Enter grades with the tolerance.
    let Answer::Numeric { value, .. } = num.answer else { panic!() };
    let s = screen(&draw(&mut a, 100, 36));
    assert!(s.contains("item 1/3") && s.contains("numeric") && s.contains("Your answer: █"), "{s}");
    key(&mut a, KeyCode::Char('x'));
    assert!(screen(&draw(&mut a, 100, 36)).contains("only a number"));
    keys(&mut a, "q?"); // typed, not quit/help: then refused as non-numbers
    assert!(!a.should_quit() && !a.help);
    keys(&mut a, &value.to_string());
    key(&mut a, KeyCode::Enter);
    let s = screen(&draw(&mut a, 100, 36));
    assert!(s.contains("✓ Correct") && s.contains("Expected:"), "{s}");
    key(&mut a, KeyCode::Char('1'));
    // Order: shown shuffled; J moves the selected step down; Enter grades.
    let Answer::Order { steps } = &ord.answer else { panic!() };
    let s = screen(&draw(&mut a, 100, 36));
    assert!(s.contains("item 2/3") && s.contains("Put the steps in order") && s.contains("J/K move it"), "{s}");
    // Sort by moving: bubble each correct step up to its place.
    for target in 0..steps.len() {
        let Some(Screen::Quiz(q)) = a.stack.last() else { panic!() };
        let q = q.question.as_ref().unwrap();
        let at = q.arrangement.iter().position(|&s| s == target).unwrap();
        for _ in 0..at {
            key(&mut a, KeyCode::Down);
        }
        for _ in target..at {
            key(&mut a, KeyCode::Char('K'));
        }
        for _ in 0..steps.len() {
            key(&mut a, KeyCode::Up);
        }
    }
    key(&mut a, KeyCode::Enter);
    let s = screen(&draw(&mut a, 100, 36));
    assert!(s.contains("✓ Correct") && s.contains("Correct order:"), "{s}");
    key(&mut a, KeyCode::Char('2'));
    // Open: notes are typed (q is a letter here), Enter reveals the reference; any rating is allowed.
    let s = screen(&draw(&mut a, 100, 36));
    assert!(s.contains("item 3/3") && s.contains("Enter to reveal"), "{s}");
    keys(&mut a, "quick note");
    key(&mut a, KeyCode::Enter);
    let s = screen(&draw(&mut a, 100, 36));
    assert!(s.contains("Reference answer") && s.contains("quick note"), "{s}");
    key(&mut a, KeyCode::Char('3'));
    // The end: score and a second pass with the ⚠/❌ items only.
    let s = screen(&draw(&mut a, 100, 36));
    assert!(s.contains("Auto-graded: 2/2 correct") && s.contains("✅ 1 know · ⚠ 1 fuzzy · ❌ 1"), "{s}");
    assert!(s.contains("a goes over the 2 items rated ⚠/❌"), "{s}");
    key(&mut a, KeyCode::Char('a'));
    let s = screen(&draw(&mut a, 100, 36));
    assert!(s.contains("item 1/2") && s.contains("pass 2"), "{s}");
}

#[test]
fn reader_quiz_links_open_the_quiz_for_that_track_and_level() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = study_app(dir.path(), 100, 30);
    a.follow(Target::Lab(Link::Quiz { track: 3, level: Some(Level::L2) }));
    let s = screen(&draw(&mut a, 100, 30));
    let n = a.content.items().filter(|i| i.track == 3 && i.level == Level::L2).count();
    assert!(s.contains(&format!("item 1/{n}")) && s.contains("L2 implementation"), "{s}");
    a.follow(Target::Lab(Link::Quiz { track: 5, level: None }));
    let s = screen(&draw(&mut a, 100, 30));
    assert!(s.contains("▶ 5 Continual") && s.contains("Enter starts the quiz"), "setup for the track: {s}");
}

#[test]
fn review_screen_shows_due_items_and_brings_back_weak_ones() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = study_app(dir.path(), 100, 30);
    let ids: Vec<String> =
        a.content.items().filter(|i| i.track == 3 && i.level == Level::L1).take(3).map(|i| i.id.clone()).collect();
    let earlier = t0() - Duration::days(10);
    a.store.record(&ids[0], 3, Level::L1, Some(true), Rating::Know, earlier).unwrap();
    a.store.record(&ids[1], 3, Level::L1, Some(true), Rating::Know, earlier).unwrap();
    a.store.record(&ids[2], 3, Level::L1, None, Rating::Fuzzy, t0() - Duration::hours(1)).unwrap();
    a.refresh_summary();
    let s = screen(&draw(&mut a, 100, 30));
    assert!(s.contains("2 due for review (r)") && s.contains("2 due"), "Home shows the due count:\n{s}");
    key(&mut a, KeyCode::Char('r'));
    let lines = draw(&mut a, 100, 30);
    let s = screen(&lines);
    assert!(s.contains("review 1/2") && s.contains("due now") && s.contains("retention 0.90"), "{s}");
    assert!(lines[29].contains("more ⚠/❌") && lines[29].contains("retention"), "footer: {}", lines[29]);
    // First due item: ⚠; second: ✅. Pass 2 brings back only the ⚠ one.
    // (The options are shuffled per showing: the right letters are read off the screen.)
    let k = right_letters(&a);
    keys(&mut a, &k);
    key(&mut a, KeyCode::Char('2'));
    let k = right_letters(&a);
    keys(&mut a, &k);
    key(&mut a, KeyCode::Enter);
    key(&mut a, KeyCode::Char('1'));
    let s = screen(&draw(&mut a, 100, 30));
    assert!(s.contains("review 1/1") && s.contains("pass 2"), "{s}");
    assert!(s.contains("In GRPO, what plays the role"), "the ⚠ item is back: {s}");
    let k = right_letters(&a);
    keys(&mut a, &k);
    key(&mut a, KeyCode::Char('1'));
    let s = screen(&draw(&mut a, 100, 30));
    assert!(s.contains("Done: 2 items reviewed, 3 ratings") && s.contains("1 item rated ⚠/❌ is not due yet"), "{s}");
    // m adds the not-yet-due ⚠ item; +/- change the retention, saved.
    key(&mut a, KeyCode::Char('+'));
    assert_eq!(a.store.progress.settings.desired_retention, 0.91);
    assert_eq!(Store::open(&dir.path().join("progress.json"), t0()).progress.settings.desired_retention, 0.91);
    key(&mut a, KeyCode::Char('m'));
    let s = screen(&draw(&mut a, 100, 30));
    assert!(s.contains("not yet due (⚠/❌)") && s.contains("Every sample in a GRPO group"), "{s}");
    assert!(s.contains("retention 0.91"), "{s}");
}

#[test]
fn progress_screen_shows_mastery_due_history_and_drills() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = study_app(dir.path(), 120, 40);
    let l1: Vec<String> =
        a.content.items().filter(|i| i.track == 3 && i.level == Level::L1).map(|i| i.id.clone()).collect();
    for id in &l1[..4] {
        a.store.record(id, 3, Level::L1, Some(true), Rating::Know, t0() - Duration::hours(2)).unwrap();
    }
    a.store.record(&l1[4], 3, Level::L1, Some(false), Rating::Dont, t0() - Duration::days(1)).unwrap();
    key(&mut a, KeyCode::Char('p'));
    let lines = draw(&mut a, 120, 40);
    let s = screen(&lines);
    assert!(lines[0].contains("Progress"), "{}", lines[0]);
    assert!(s.contains("Mastery") && s.contains("L1 concept") && s.contains("L3 research"), "{s}");
    let row = lines.iter().find(|l| l.contains("3 Agentic")).unwrap();
    let pct = format!("{}%", (400.0 / l1.len() as f64).round());
    assert!(row.contains(&pct), "4 of {} L1 items ✅ and not due: {row}", l1.len());
    let drills = format!("0/{}", a.content.drills_of(3).count());
    assert!(row.contains(&drills), "drills passed of the track: {row}");
    assert!(s.contains("Due now: 1") && s.contains("Next 7 days: 4"), "{s}");
    assert!(s.contains("03-31") && s.contains("04-01 ████") && s.contains("4/0/0"), "history:\n{s}");
    assert!(s.contains("0/0/1"), "yesterday's ❌:\n{s}");
    assert!(s.contains("Desired retention 0.90") && s.contains("progress.json"), "{s}");
    assert!(lines[39].contains("review") && lines[39].contains("Esc"), "footer: {}", lines[39]);
    key(&mut a, KeyCode::Char('r'));
    assert!(matches!(a.stack.last(), Some(Screen::Review(_))));
}

#[test]
fn a_bad_progress_file_is_reported_on_the_status_line_and_the_app_starts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("progress.json"), r#"{"version": 99}"#).unwrap();
    let mut a = study_app(dir.path(), 100, 30);
    let lines = draw(&mut a, 100, 30);
    let footer = lines[lines.len() - 2..].join(" ");
    assert!(footer.contains("newer agentlab"), "status line: {footer}");
    // Left where it is, as it was: this build never writes a newer agentlab's file.
    assert_eq!(std::fs::read_to_string(dir.path().join("progress.json")).unwrap(), r#"{"version": 99}"#);
    key(&mut a, KeyCode::Char('p'));
    assert!(screen(&draw(&mut a, 100, 30)).contains("newer agentlab"), "also on the progress screen");
}

/// A saved sft-basics run of 800 steps, killed (no report) or ended.
fn saved_run(runs_root: &std::path::Path, name: &str, steps: u64, report: Option<agentlab::drills::Report>) {
    common::saved_run(runs_root, name, steps, 800, report);
}

// ---------------------------------------------------------------- drill sweeps

mod sweeps {
    use super::*;
    use agentlab::content::DrillMeta;
    use agentlab::drills::{ClaimResult, Drill, Event, ParamMap, RunCtx, RunStatus};
    use agentlab::runner::sweep::{ClaimValue, SeedResult, Sweep};
    use agentlab::tui::screens::drill::{self, SweepView};

    /// The sft-basics drill screen on temporary data dirs, drawn at `w`×`h`.
    fn sweep_app(w: u16, h: u16) -> (App, tempfile::TempDir) {
        let home = tempfile::tempdir().unwrap();
        let mut a = app_at(w, h);
        a.runs_root = home.path().join("runs");
        a.sweeps_root = home.path().join("sweeps");
        open_drill(&mut a, "sft-basics");
        (a, home)
    }

    fn drill_mut(a: &mut App) -> &mut drill::State {
        match a.stack.last_mut() {
            Some(Screen::Drill(d)) => d,
            _ => panic!("not on a drill screen"),
        }
    }

    /// A seed where every claim holds except those named in `failed`.
    fn seed(meta: &DrillMeta, seed: u64, failed: &[&str]) -> SeedResult {
        let claims: Vec<ClaimValue> = meta
            .claims
            .iter()
            .map(|c| {
                let pass = !failed.contains(&c.id.as_str());
                let measured = match (c.id.as_str(), pass) {
                    ("heldout_accuracy", true) => 0.97,
                    ("heldout_accuracy", false) => 0.61,
                    (_, true) => 0.12,
                    (_, false) => 0.4,
                };
                ClaimValue { id: c.id.clone(), measured, pass }
            })
            .collect();
        let held = meta.claims.iter().zip(&claims).all(|(c, v)| v.pass || c.observation);
        let status = if held { RunStatus::Passed } else { RunStatus::ClaimsFailed };
        SeedResult { seed, status, wall_s: 10.0 + seed as f64, claims, run_dir: Default::default() }
    }

    /// The text of the right pane (from column `from`), borders dropped, one line.
    fn pane_text(lines: &[String], from: usize) -> String {
        let text: Vec<String> =
            lines.iter().map(|l| l.chars().skip(from).filter(|c| !"│╭╮╰╯─".contains(*c)).collect::<String>()).collect();
        text.join(" ").split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn a_sweep_draws_held_counts_and_per_seed_rows_at_80x24_and_120x40() {
        let (mut a, _home) = sweep_app(80, 24);
        let d = drill_mut(&mut a);
        let meta = d.meta.clone();
        d.sweep = Some(SweepView::live(&meta, d.sweep_config()));
        let results: Vec<SeedResult> =
            (1..=20).map(|s| seed(&meta, s, if s == 7 { &["heldout_accuracy"] } else { &[] })).collect();
        for r in &results {
            d.apply_sweep_result(r);
        }
        key(&mut a, KeyCode::Char('5'));
        let lines = draw(&mut a, 80, 24);
        let s = screen(&lines);
        assert!(s.contains("5 Sweep") && s.contains("seeds 20/20") && s.contains("running"), "header:\n{s}");
        assert!(s.contains("heldout_accuracy") && s.contains("19/20") && s.contains("20/20"), "summary:\n{s}");
        assert!(s.contains("≥ 0.95") && s.contains("≤ 0.25") && s.contains("0.952"), "thresholds, mean:\n{s}");
        // Newest at the bottom: seed 20 is shown, seed 1 is scrolled away.
        assert!(s.contains("per seed · ") && s.contains("of 20"), "{s}");
        let last = lines.iter().rfind(|l| l.contains('✓')).unwrap();
        assert!(last.contains(" 20 ") && last.contains("passed") && last.contains("0.970 ✓"), "{last}");
        assert!(s.contains("median 20.5 s a run") && s.contains("sweep running · 20/20 seeds done"), "gauge:\n{s}");
        assert!(!s.contains("left"), "nothing left to run:\n{s}");
        // `5` focused the pane: ↑ scrolls back to the first seeds.
        for _ in 0..30 {
            key(&mut a, KeyCode::Up);
        }
        assert!(screen(&draw(&mut a, 80, 24)).contains("per seed · 1–"), "scrolled to the top");

        // The finished sweep, as the worker sends it, at 120×40.
        let d = drill_mut(&mut a);
        d.set_sweep(Sweep::summarise(&meta, d.sweep_config(), results, 260.0), None);
        let lines = draw(&mut a, 120, 40);
        let s = screen(&lines);
        assert!(s.contains("seeds 20/20") && s.contains("4 min elapsed") && s.contains("done"), "header:\n{s}");
        assert!(s.contains("median 20.5 s a run"), "{s}");
        assert!(s.contains("19/20") && s.contains("0.610") && s.contains("0.970"), "summary:\n{s}");
        let seven = lines.iter().find(|l| l.contains("claim failed")).unwrap();
        assert!(seven.contains(" 7 ") && seven.contains("0.610 ✗") && seven.contains("0.120 ✓"), "{seven}");
        assert_eq!(lines.iter().filter(|l| l.contains("passed")).count(), 19, "every seed shown:\n{s}");
        // Nothing drawn past the edge, at either size.
        for (w, h) in [(80, 24), (120, 40), (60, 16)] {
            for l in draw(&mut a, w, h) {
                assert_eq!(unicode_width::UnicodeWidthStr::width(l.as_str()), w as usize);
            }
        }
    }

    #[test]
    fn an_observation_is_a_circle_never_a_tick_or_a_cross() {
        let (mut a, _home) = sweep_app(120, 40);
        let d = drill_mut(&mut a);
        d.meta.claims[1].observation = true;
        let meta = d.meta.clone();
        // The claims panel: a measured observation is ○ with its value, even below its threshold.
        let c = meta.claim("loss_drop").unwrap();
        d.view.apply(Event::Claim(ClaimResult {
            id: c.id.clone(),
            text: c.text.clone(),
            measured: 0.4,
            op: c.op,
            threshold: c.threshold,
            pass: false,
            observation: true,
        }));
        let s = screen(&draw(&mut a, 120, 40));
        assert!(s.contains("○ final loss") && s.contains("0.4000 observed (≤ 0.25)"), "{s}");
        assert!(!s.contains('✓') && !s.contains('✗'), "no verdict:\n{s}");
        // The sweep: "(observation)", a rate and · per seed, no ✓/✗ for it.
        let d = drill_mut(&mut a);
        d.sweep_seeds = 4;
        let results: Vec<SeedResult> =
            (1..=4).map(|s| seed(&meta, s, if s <= 3 { &["loss_drop"] } else { &[] })).collect();
        d.set_sweep(Sweep::summarise(&meta, d.sweep_config(), results, 50.0), None);
        key(&mut a, KeyCode::Char('5'));
        let lines = draw(&mut a, 120, 40);
        let s = screen(&lines);
        let row = lines.iter().find(|l| l.contains("loss_drop")).unwrap();
        assert!(row.contains("(observation)") && row.contains("25%") && !row.contains("1/4"), "{row}");
        let seeds: Vec<&String> = lines.iter().filter(|l| l.contains("0.400 ·")).collect();
        assert_eq!(seeds.len(), 3, "{s}");
        assert!(seeds.iter().all(|l| !l.contains('✗')), "{s}");
        assert!(s.contains("4/4"), "the claim keeps its count:\n{s}");
        // At 80 columns the mark goes under the id rather than cutting it.
        let s = screen(&draw(&mut a, 80, 24));
        assert!(s.contains("loss_drop") && s.contains("(observation)"), "{s}");
    }

    /// A drill that runs until cancelled.
    struct UntilCancelled;
    impl Drill for UntilCancelled {
        fn id(&self) -> &'static str {
            "sft-basics"
        }
        fn check(&self, _: &ParamMap) -> Result<(), String> {
            Ok(())
        }
        fn run(&self, ctx: &mut RunCtx) -> anyhow::Result<()> {
            loop {
                ctx.check_cancel()?;
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
    }

    #[test]
    fn a_sweep_is_refused_while_a_run_is_going() {
        let (mut a, home) = sweep_app(80, 24);
        start_endless_run(&mut a, home.path());
        key(&mut a, KeyCode::Char('S'));
        let flash = a.flash.clone().unwrap_or_default();
        assert!(flash.contains("a run is already going") && flash.contains("x cancels"), "{flash}");
        let d = drill_mut(&mut a);
        assert!(d.sweep.is_none() && d.sweep_job.is_none() && d.tab == drill::Tab::Charts);
        // x cancels the run; the screen sees it end.
        key(&mut a, KeyCode::Char('x'));
        let d = drill_mut(&mut a);
        let t = std::time::Instant::now();
        while d.running() && t.elapsed().as_secs() < 10 {
            d.poll();
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(!d.running(), "the run ended");
    }

    #[test]
    fn the_empty_sweep_tab_explains_and_sweep_seeds_are_edited() {
        let (mut a, _home) = sweep_app(80, 24);
        let lines = draw(&mut a, 80, 24);
        let footer = &lines[23];
        assert!(footer.contains(" S ") && footer.contains("sweep") && footer.contains("1-6"), "{footer}");
        assert!(footer.contains("quit"), "the footer fits at 80 columns: {footer}");
        key(&mut a, KeyCode::Char('5'));
        let lines = draw(&mut a, 80, 24);
        let text = pane_text(&lines[3..22], 30);
        assert!(
            text.contains(
                "A sweep runs this configuration for seeds 1–20 and shows how often each claim holds. \
                 Variance across seeds is part of RL: a claim that holds for one seed may fail for the next. \
                 Press S to start (about 20 × the run time)."
            ),
            "{}",
            screen(&lines)
        );
        // "sweep seeds" is the row under "seed": 1 to 200 (Tab: back to the config).
        key(&mut a, KeyCode::Tab);
        let rows = drill_mut(&mut a).meta.params.len() + 1;
        for _ in 0..rows {
            key(&mut a, KeyCode::Down);
        }
        let s = screen(&draw(&mut a, 80, 24));
        assert!(s.contains("sweep seeds") && s.contains("S sweeps seeds 1–N (N ≤ 200)"), "{s}");
        for (typed, refused) in [("0", true), ("201", true), ("many", true), ("5", false)] {
            key(&mut a, KeyCode::Enter);
            for _ in 0..8 {
                key(&mut a, KeyCode::Backspace);
            }
            keys(&mut a, typed);
            key(&mut a, KeyCode::Enter);
            let flash = a.flash.clone().unwrap_or_default();
            assert_eq!(flash.contains("from 1 to 200"), refused, "{typed}: {flash}");
            if refused {
                key(&mut a, KeyCode::Esc);
            }
        }
        assert_eq!(drill_mut(&mut a).sweep_seeds, 5);
        let text = pane_text(&draw(&mut a, 80, 24)[3..22], 30);
        assert!(text.contains("seeds 1–5 and") && text.contains("(about 5 × the run time)"), "{text}");
        // The help lists the sweep keys.
        key(&mut a, KeyCode::Char('?'));
        let s = screen(&draw(&mut a, 80, 24));
        assert!(s.contains("sweep: the same run for seeds 1–N") && s.contains("1 2 3 4 5"), "{s}");
    }

    /// A run of [`UntilCancelled`] on the drill screen of `a`.
    fn start_endless_run(a: &mut App, home: &std::path::Path) {
        let d = drill_mut(a);
        let config = agentlab::runner::RunConfig {
            drill: "sft-basics".into(),
            preset: "quick".into(),
            seed: 1,
            device: agentlab::ml::device::DeviceChoice::Cpu,
            params: d.params.clone(),
            uses: Default::default(),
            keep: true,
        };
        d.run = Some(agentlab::runner::start_with(&UntilCancelled, &d.meta, config, &home.join("runs")).unwrap());
    }

    #[test]
    fn q_during_a_run_asks_first_and_quitting_saves_the_run_as_cancelled() {
        let (mut a, home) = sweep_app(80, 24);
        // Nothing running: q quits at once.
        key(&mut a, KeyCode::Char('q'));
        assert!(a.should_quit());
        let (mut a, home2) = sweep_app(80, 24);
        drop(home2);
        start_endless_run(&mut a, home.path());
        assert_eq!(a.work_under_way(), Some("a run"));
        // q asks on the footer, in one line that fits 80 columns.
        key(&mut a, KeyCode::Char('q'));
        assert!(!a.should_quit(), "a run is going: q asks first");
        let lines = draw(&mut a, 80, 24);
        assert_eq!(
            lines[23].trim_end(),
            " a run is going: q again quits (run saved as cancelled), any other key stays",
            "{}",
            screen(&lines)
        );
        // Any other key stays, and does nothing else.
        let cursor = drill_mut(&mut a).cursor;
        key(&mut a, KeyCode::Down);
        assert!(!a.should_quit() && a.confirm_quit.is_none());
        assert_eq!(drill_mut(&mut a).cursor, cursor, "the key that answered is not also a move");
        assert!(drill_mut(&mut a).running(), "the run goes on");
        assert!(draw(&mut a, 80, 24)[23].contains("not quitting"));
        // q, q quits; shutting down cancels the run, which saves itself as cancelled.
        key(&mut a, KeyCode::Char('q'));
        key(&mut a, KeyCode::Char('q'));
        assert!(a.should_quit());
        let dir = drill_mut(&mut a).run.as_ref().unwrap().dir.clone();
        let notes = a.shutdown(std::time::Instant::now() + std::time::Duration::from_secs(30));
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].starts_with("run of sft-basics cancelled: saved in "), "{notes:?}");
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
        assert_eq!(report["status"]["status"], "cancelled");
    }

    /// Opening saved runs from the Runs tab: `4` focuses the list, Enter opens
    /// the run under the cursor, and the gauge says how the run ended.
    #[test]
    fn saved_runs_say_how_they_ended() {
        let (mut a, home) = sweep_app(100, 30);
        let runs = home.path().join("runs");
        saved_run(&runs, "2026-01-01T00-00-00", 231, None);
        let failed = agentlab::drills::Report {
            drill: "sft-basics".into(),
            preset: "quick".into(),
            seed: 1,
            status: agentlab::drills::RunStatus::Failed("out of memory".into()),
            claims: vec![],
            wall_s: 0.5,
            finals: Default::default(),
            phases: Vec::new(),
        };
        saved_run(&runs, "2026-01-02T00-00-00", 0, Some(failed));
        key(&mut a, KeyCode::Char('4'));
        let s = screen(&draw(&mut a, 100, 30));
        assert!(s.contains("▶─ Runs"), "the Runs pane has the focus, and shows it:\n{s}");
        // Newest first: the failed run (read off the UI thread: shown after a tick).
        key(&mut a, KeyCode::Enter);
        common::settle(&mut a);
        let s = screen(&draw(&mut a, 100, 30));
        assert!(s.contains("failed before its first metric point: out of memory"), "{s}");
        assert!(!s.contains("No run yet"), "{s}");
        key(&mut a, KeyCode::Char('4'));
        key(&mut a, KeyCode::Down);
        key(&mut a, KeyCode::Enter);
        common::settle(&mut a);
        let s = screen(&draw(&mut a, 100, 30));
        assert!(s.contains("interrupted at step 231 of 800 (train)"), "{s}");
        assert!(!s.contains("ETA"), "a killed run is not training:\n{s}");
        // Its claims were never measured: not "pending" as if they were coming.
        assert!(s.contains("not measured") && !s.contains("pending ("), "{s}");
    }

    /// "cancelling…" is about the run: it goes when the run has ended.
    #[test]
    fn a_run_status_line_goes_when_the_run_ends() {
        let (mut a, home) = sweep_app(80, 24);
        start_endless_run(&mut a, home.path());
        key(&mut a, KeyCode::Char('x'));
        assert!(draw(&mut a, 80, 24)[23].contains("cancelling"));
        let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while drill_mut(&mut a).running() && std::time::Instant::now() < until {
            a.on_tick();
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        a.on_tick();
        assert!(!drill_mut(&mut a).running());
        let lines = draw(&mut a, 80, 24);
        assert!(!lines[23].contains("cancelling") && a.flash.is_none(), "{}", lines[23]);
    }

    #[test]
    fn ctrl_c_quits_at_once_even_while_a_run_is_going() {
        let (mut a, home) = sweep_app(80, 24);
        start_endless_run(&mut a, home.path());
        a.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
        assert!(a.should_quit() && a.confirm_quit.is_none());
        let notes = a.shutdown(std::time::Instant::now() + std::time::Duration::from_secs(30));
        assert!(notes[0].contains("cancelled"), "{notes:?}");
    }
}

/// Lab links in an explanation read as the reader shows them, not as markup.
#[test]
fn quiz_explanations_show_link_labels_not_markup() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = study_app(dir.path(), 120, 40);
    quiz_over(&mut a, &["af-l1-observation-source"]);
    key(&mut a, KeyCode::Char('b'));
    let s = screen(&draw(&mut a, 120, 40));
    assert!(s.contains("it. →") && s.contains("drill: ReAct tool-call loop"), "{s}");
    assert!(!s.contains("[drill:"), "{s}");
}

/// While a search is typed, `q` and `?` are letters: the footer offers Ctrl-C.
#[test]
fn the_footer_does_not_offer_q_while_typing() {
    let mut a = app();
    key(&mut a, KeyCode::Enter);
    let lines = draw(&mut a, 160, 24);
    assert!(lines[23].contains(" q  quit") && lines[23].contains(" ?  help"), "{}", lines[23]);
    key(&mut a, KeyCode::Char('/'));
    let lines = draw(&mut a, 160, 24);
    assert!(lines[23].contains("Ctrl-C  quit") && !lines[23].contains(" q  quit"), "{}", lines[23]);
    assert!(!lines[23].contains(" ?  help"), "{}", lines[23]);
}

/// A drill's README is "README" in the breadcrumb, not the drill again.
#[test]
fn a_drill_readme_has_its_own_breadcrumb() {
    let mut a = app();
    open_drill(&mut a, "sft-basics");
    key(&mut a, KeyCode::Char('r'));
    let lines = draw(&mut a, 100, 30);
    assert!(lines[0].contains("drill sft-basics › README"), "{}", lines[0]);
    assert_eq!(lines[0].matches("sft-basics").count(), 1, "{}", lines[0]);
}

/// At the smallest size the table does not fit: it opens at the first track
/// with answers, and ↑↓/PgUp/PgDn scroll it.
#[test]
fn progress_scrolls_at_60x16_and_opens_at_the_data() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = study_app(dir.path(), 60, 16);
    let id = a.content.items().find(|i| i.track == 5).unwrap().id.clone();
    a.store.record(&id, 5, Level::L1, Some(true), Rating::Know, t0() - Duration::hours(2)).unwrap();
    key(&mut a, KeyCode::Char('p'));
    let s = screen(&draw(&mut a, 60, 16));
    assert!(s.contains("5 Continu"), "the track with data is shown:\n{s}");
    assert!(s.contains("↑↓ scroll"), "{s}");
    key(&mut a, KeyCode::Char('g'));
    let s = screen(&draw(&mut a, 60, 16));
    assert!(s.contains("0 Prereq") && !s.contains("5 Continu"), "{s}");
    key(&mut a, KeyCode::PageDown);
    key(&mut a, KeyCode::PageDown);
    let s = screen(&draw(&mut a, 60, 16));
    assert!(s.contains("7 Agent S"), "scrolled to the last track:\n{s}");
}

/// Home shows one ▶: the focused list's.
#[test]
fn home_shows_one_selection_at_a_time() {
    let mut a = app();
    let s = screen(&draw(&mut a, 80, 24));
    assert_eq!(s.matches('▶').count(), 1, "{s}");
    key(&mut a, KeyCode::Tab);
    let s = screen(&draw(&mut a, 80, 24));
    assert_eq!(s.matches('▶').count(), 1, "{s}");
}

/// Claim texts are the lesson: wrapped in the claims panel, never cut, for
/// each preset the claims of that preset (the `real` preset's are longer).
#[test]
fn claim_texts_are_wrapped_not_cut() {
    let mut a = app_at(120, 40);
    open_drill(&mut a, "self-refine-loop");
    skip_predictions(&mut a);
    for preset in ["quick", "real"] {
        let lines = draw(&mut a, 120, 40);
        assert!(lines.iter().any(|l| l.contains(&format!("preset {preset}"))), "{}", lines.join("\n"));
        let start = lines.iter().position(|l| l.contains("╭ Claims")).expect("a claims panel");
        let panel: Vec<String> = lines[start + 1..]
            .iter()
            .take_while(|l| !l.starts_with('╰'))
            .map(|l| l.chars().skip(1).take_while(|&c| c != '│').collect::<String>())
            .collect();
        let text = panel.join(" ").split_whitespace().collect::<Vec<_>>().join(" ");
        let claims = &a.content.drill("self-refine-loop").unwrap().claims;
        for c in claims.iter().filter(|c| c.applies_to(preset)) {
            assert!(text.contains(&c.text), "{preset}: claim {} cut:\n{}", c.id, panel.join("\n"));
        }
        key(&mut a, KeyCode::Char('p'));
    }
}

/// A long choice wraps under its own text, not under its letter.
#[test]
fn wrapped_choices_are_indented() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = study_app(dir.path(), 60, 20);
    quiz_over(&mut a, &["af-l1-observation-source"]);
    let lines = draw(&mut a, 60, 20);
    let i = lines.iter().position(|l| l.contains("a) The model, because")).expect("choice a");
    assert!(lines[i + 1].starts_with("     ") && !lines[i + 1].trim().is_empty(), "{}\n{}", lines[i], lines[i + 1]);
    assert!(lines[i + 1].trim_start().starts_with(|c: char| c.is_lowercase()), "{}", lines[i + 1]);
}

/// Feed the open drill screen what a run would send.
fn feed(a: &mut App, events: Vec<agentlab::drills::Event>) {
    use agentlab::tui::screens::Screen;
    match a.stack.last_mut() {
        Some(Screen::Drill(d)) => events.into_iter().for_each(|e| d.view.apply(e)),
        _ => panic!("not on a drill screen"),
    }
}

use common::pane_rows;

#[test]
fn teaching_view_titles_and_table_cells_are_never_cut() {
    use agentlab::drills::{Event, View};
    let title = "held-out episodes of the masked model, first eight";
    let header: Vec<String> = ["step", "writes Observation", "reward"].map(String::from).to_vec();
    let rows = vec![
        vec!["1".to_string(), "Observation: 42".to_string(), "1.0".to_string()],
        vec!["2".to_string(), "Thought: 7+5".to_string(), "0.0".to_string()],
    ];
    let table = View::Table { title: title.into(), header: header.clone(), rows: rows.clone() };
    let text = View::Text { title: "notes".into(), body: "b".into() };
    for (w, h) in [(60, 16), (80, 24), (120, 40)] {
        let mut a = app_at(w, h);
        open_drill(&mut a, "react-tool-call-loop");
        feed(&mut a, vec![Event::View(table.clone()), Event::View(text.clone())]);
        key(&mut a, KeyCode::Char('2'));
        let lines = draw(&mut a, w, h);
        let s = screen(&lines);
        // The position and the key are always on the border, never cut.
        assert!(s.contains("(1/2, ↑↓)"), "{w}×{h}:\n{s}");
        let pane = pane_rows(&lines, "(1/2, ↑↓)");
        let words: String = pane.join(" ").split_whitespace().collect::<Vec<_>>().join(" ");
        // Cut on the border, the title is given in full inside.
        assert!(words.contains(title) || lines.iter().any(|l| l.contains(title)), "{w}×{h}: title\n{s}");
        // Every character of every cell is on screen (a cell may wrap, never ends in …).
        assert!(!pane.iter().any(|r| r.contains('…')), "{w}×{h}: a cell was cut\n{s}");
        let squeezed: String = pane.concat().chars().filter(|c| !c.is_whitespace()).collect();
        for cell in header.iter().chain(rows.iter().flatten()) {
            for word in cell.split_whitespace() {
                let pieces_found = squeezed.contains(word)
                    || word.len() > 6 && squeezed.contains(&word[..6]) && squeezed.contains(&word[word.len() - 3..]);
                assert!(pieces_found, "{w}×{h}: {word:?} missing\n{s}");
            }
        }
        if w >= 80 {
            assert!(s.contains("writes Observation"), "{w}×{h}: room by content\n{s}");
        }
    }
}

#[test]
fn the_run_gauge_drops_whole_parts_rather_than_cutting_them() {
    use agentlab::drills::Event;
    for (w, h) in [(60, 16), (80, 24), (120, 40)] {
        let mut a = app_at(w, h);
        open_drill(&mut a, "sft-basics");
        feed(
            &mut a,
            vec![
                Event::Started {
                    drill: "sft-basics".into(),
                    preset: "quick".into(),
                    seed: 1,
                    device: "cpu (2 threads)".into(),
                    params: Default::default(),
                },
                Event::Phase("train".into()),
                Event::Progress { step: 40, total: 100, tokens: 4000 },
            ],
        );
        let lines = draw(&mut a, w, h);
        let gauge = &lines[h as usize - 2];
        assert!(gauge.contains("train · step 40/100"), "{w}×{h}: {gauge}");
        assert!(gauge.contains("cpu (2 threads)") || !gauge.contains("cpu"), "{w}×{h}: cut part: {gauge}");
        if w >= 80 {
            assert!(gauge.contains("cpu (2 threads)"), "{w}×{h}: room for the device: {gauge}");
        }
    }
}

#[test]
fn long_contents_entries_wrap_in_the_reader() {
    use agentlab::content::Link;
    use agentlab::markdown::Target;
    let mut long_seen = 0;
    for track in 0..8u8 {
        let mut a = app_at(120, 40);
        a.follow(Target::Lab(Link::Sheet { track, section: None }));
        let lines = draw(&mut a, 120, 40);
        let pane = pane_rows(&lines, "Contents");
        assert!(!pane.iter().any(|r| r.contains('…')), "track {track}:\n{}", pane.join("\n"));
        let words: Vec<&str> =
            pane.iter().flat_map(|r| r.split_whitespace()).filter(|w| !["▶", "›"].contains(w)).collect();
        let words = words.join(" ");
        let sheet = a.content.sheets.iter().find(|s| s.meta.track == track).unwrap();
        let headings: Vec<String> = sheet
            .body
            .lines()
            .filter(|l| l.starts_with("## ") || l.starts_with("### "))
            .map(|l| l.trim_start_matches('#').trim().to_string())
            .collect();
        // The first entries (at most three rows each) are on screen whole, however long.
        for h in headings.iter().take(pane.len() / 3) {
            assert!(words.contains(h.as_str()), "track {track}: {h:?} cut in\n{}", pane.join("\n"));
            long_seen += usize::from(h.chars().count() > 32);
        }
    }
    assert!(long_seen > 0, "some entry was long enough to wrap");
}

#[test]
fn a_long_status_message_is_told_in_full() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("a-rather-long-folder-name-for-the-learner-state").join("and-deeper");
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(deep.join("progress.json"), "{ not json").unwrap();
    let mut a = study_app(&deep, 60, 16);
    let lines = draw(&mut a, 60, 16);
    let footer: String = lines.iter().skip_while(|l| !l.contains("corrupt")).map(|l| l.trim()).collect();
    let kept = deep
        .read_dir()
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().contains(".corrupt-"))
        .unwrap();
    assert!(footer.contains(&kept.display().to_string()), "the path it kept the file at:\n{}", lines.join("\n"));
}

/// Screens and widgets depend on the action and theme modules, never on the app.
#[test]
fn screens_and_widgets_never_import_the_app() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui");
    let mut files = Vec::new();
    for dir in ["screens", "screens/drill", "widgets"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    assert!(files.len() >= 10, "{files:?}");
    for p in files {
        let text = std::fs::read_to_string(&p).unwrap();
        for bad in ["tui::app", "super::app", "tui::ui", "tui::screens::"] {
            let uses = text.lines().filter(|l| l.trim_start().starts_with("use ") && l.contains(bad)).count();
            assert_eq!(uses, 0, "{} imports {bad}", p.display());
        }
    }
}

/// At the smallest size every tab key, the run's status word and the quit key stay in sight.
#[test]
fn tabs_runs_and_footer_fit_at_60_columns() {
    let home = tempfile::tempdir().unwrap();
    let mut a = app_at(60, 16);
    a.runs_root = home.path().join("runs");
    saved_run(&a.runs_root, "2026-11-23T18-15-12", 52, None);
    open_drill(&mut a, "sft-basics");
    key(&mut a, KeyCode::Char('4'));
    let lines = draw(&mut a, 60, 16);
    let s = screen(&lines);
    let tabs = lines.iter().find(|l| l.contains("4 Runs")).unwrap_or_else(|| panic!("{s}"));
    for k in ["1", "2", "3", "5"] {
        assert!(tabs.contains(&format!(" {k} ")), "tab {k} in sight: {tabs}");
    }
    assert!(s.contains("11-23 18:15:12") && s.contains("interrupted"), "{s}");
    assert!(lines[15].contains("q  quit") && lines[15].contains("?  help"), "footer: {}", lines[15]);
    for (w, h) in [(80, 24), (120, 40)] {
        let s = screen(&draw(&mut a, w, h));
        assert!(s.contains("1 Charts") && s.contains("5 Sweep") && s.contains("interrupted"), "{w}×{h}:\n{s}");
    }
}

/// A drill with more claims than its panel holds says where all of them are.
#[test]
fn a_full_claims_panel_points_to_the_log() {
    let mut a = app_at(120, 40);
    open_drill(&mut a, "dpo-pairs");
    skip_predictions(&mut a);
    let s = screen(&draw(&mut a, 120, 40));
    assert!(s.contains("Claims · all in 3 Log"), "{s}");
    let mut a = app_at(120, 40);
    open_drill(&mut a, "sft-basics");
    skip_predictions(&mut a);
    let s = screen(&draw(&mut a, 120, 40));
    assert!(s.contains("╭ Claims ─") && !s.contains("all in 3 Log"), "{s}");
}

/// A teaching view longer than its pane scrolls with PgDn / PgUp.
#[test]
fn long_teaching_views_scroll() {
    use agentlab::drills::{Event, View};
    let rows: Vec<Vec<String>> = (1..=12).map(|i| vec![format!("row{i}"), format!("{i}.0")]).collect();
    let table = View::Table { title: "samples".into(), header: vec!["name".into(), "value".into()], rows };
    let mut a = app_at(60, 16);
    open_drill(&mut a, "sft-basics");
    feed(&mut a, vec![Event::View(table)]);
    key(&mut a, KeyCode::Char('2'));
    let s = screen(&draw(&mut a, 60, 16));
    assert!(s.contains("row1 ") && !s.contains("row12"), "{s}");
    key(&mut a, KeyCode::PageDown);
    key(&mut a, KeyCode::PageDown);
    let s = screen(&draw(&mut a, 60, 16));
    assert!(s.contains("row12") && !s.contains("row1 "), "{s}");
    key(&mut a, KeyCode::PageUp);
    key(&mut a, KeyCode::PageUp);
    assert!(screen(&draw(&mut a, 60, 16)).contains("row1 "));
}

/// The footer says what Enter does on the focused pane: edit a parameter
/// in the config, open the run under the cursor in the Runs list.
#[test]
fn the_footer_says_what_enter_does_where_the_focus_is() {
    let home = tempfile::tempdir().unwrap();
    let mut a = app_at(80, 24);
    a.runs_root = home.path().join("runs");
    saved_run(&a.runs_root, "2026-11-23T18-15-12", 52, None);
    open_drill(&mut a, "sft-basics");
    let footer = |a: &mut App, w: u16, h: u16| draw(a, w, h)[h as usize - 1].clone();
    for (w, h) in [(80, 24), (120, 40)] {
        let f = footer(&mut a, w, h);
        assert!(f.contains("Enter  edit") && f.contains("q  quit"), "{w}×{h} config: {f}");
    }
    key(&mut a, KeyCode::Char('4'));
    for (w, h) in [(60, 16), (80, 24), (120, 40)] {
        let f = footer(&mut a, w, h);
        assert!(!f.contains("edit") && f.contains("q  quit"), "{w}×{h} runs: {f}");
        if w >= 80 {
            assert!(f.contains("Enter  open run") && f.contains("Tab  config"), "{w}×{h} runs: {f}");
        }
    }
    // A pane with nothing to open: no Enter offered, and Enter does not edit
    // the config behind the learner's back; Tab goes back to the config.
    key(&mut a, KeyCode::Char('3'));
    let f = footer(&mut a, 80, 24);
    assert!(!f.contains("Enter") && f.contains("Tab  config"), "log: {f}");
    key(&mut a, KeyCode::Enter);
    let Some(Screen::Drill(d)) = a.stack.last() else { panic!() };
    assert!(d.editing.is_none(), "Enter on the log started an edit");
    assert!(a.flash.as_deref().unwrap_or("").contains("Tab moves the focus to the config"), "{:?}", a.flash);
    key(&mut a, KeyCode::Tab);
    assert!(footer(&mut a, 80, 24).contains("Enter  edit"), "back on the config");
}

/// A saved run records its parameters: the Runs list and the opened run
/// say when they differ from the run's preset, and which.
#[test]
fn a_saved_run_says_which_parameters_were_edited() {
    let home = tempfile::tempdir().unwrap();
    let mut a = app_at(120, 40);
    a.runs_root = home.path().join("runs");
    let edited = common::saved_run(&a.runs_root, "2026-11-24T09-00-00", 40, 3000, None);
    std::fs::write(
        edited.join("config.toml"),
        "drill = \"sft-basics\"\npreset = \"quick\"\nseed = 1\ndevice = \"cpu\"\n\n[params]\nsteps = 3000\nlr = 0.003\n",
    )
    .unwrap();
    saved_run(&a.runs_root, "2026-11-23T18-15-12", 52, None);
    open_drill(&mut a, "sft-basics");
    key(&mut a, KeyCode::Char('4'));
    let lines = draw(&mut a, 120, 40);
    let row = |name: &str| lines.iter().find(|l| l.contains(name)).unwrap_or_else(|| panic!("{name}")).clone();
    assert!(row("2026-11-24T09-00-00").contains("quick · steps=3000"), "{}", screen(&lines));
    assert!(!row("2026-11-23T18-15-12").contains("steps="), "{}", screen(&lines));
    // Newest first: Enter opens the edited run; the header names its edits
    // (the config pane keeps the preset's values for the next run).
    key(&mut a, KeyCode::Enter);
    common::settle(&mut a);
    let s = screen(&draw(&mut a, 120, 40));
    assert!(s.contains("saved run 2026-11-24T09-00-00 (quick, edited: steps)"), "{s}");
    assert!(s.contains("interrupted at step 40 of 3000"), "{s}");
    assert!(s.contains("Config · quick ─"), "the config pane is unedited:\n{s}");
}

/// `z` quizzes the track of what the ▶ is on: a track, or a drill's track.
#[test]
fn z_quizzes_the_selected_item() {
    let mut a = app();
    keys(&mut a, "jz");
    let s = screen(&draw(&mut a, 80, 24));
    assert!(s.contains("▶ 1 Agent Foundations"), "{s}");
    key(&mut a, KeyCode::Esc);
    // Tab: the drills list has the ▶; z takes the fourth drill's track.
    key(&mut a, KeyCode::Tab);
    keys(&mut a, "gjjjz");
    let drill = a.content.drills[3].clone();
    let s = screen(&draw(&mut a, 80, 24));
    let t = agentlab::content::TRACKS.iter().find(|t| t.number == drill.track).unwrap();
    assert!(s.contains(&format!("▶ {} {}", t.number, t.title)), "{} is in track {}:\n{s}", drill.id, t.number);
}

/// Home counts a sheet's sections as `agentlab sheets` does: its `##` headings.
#[test]
fn home_counts_sections_like_the_sheets_command() {
    let mut a = app_at(120, 40);
    let s = screen(&draw(&mut a, 120, 40));
    let body = &a.content.sheet(0).unwrap().body;
    let mut fenced = false;
    let mut n = 0;
    for l in body.lines() {
        if l.starts_with("```") || l.starts_with("~~~") {
            fenced = !fenced;
        }
        n += usize::from(!fenced && l.starts_with("## "));
    }
    assert!(n > 5 && s.contains(&format!("Cheatsheet: {n} sections")), "{n}:\n{s}");
}

/// The roadmap table names each track once (a sheet link is the track's title).
#[test]
fn the_roadmap_names_each_track_once() {
    let mut a = app_at(140, 90);
    a.follow(Target::Lab(Link::Sheet { track: 0, section: Some("how-the-eight-tracks-connect".into()) }));
    let s = screen(&draw(&mut a, 140, 90));
    let rows: Vec<&str> = s.lines().filter(|l| l.contains("→ sheet:")).collect();
    assert_eq!(rows.len(), 8, "the table is on screen:\n{s}");
    for (row, t) in rows.iter().zip(agentlab::content::TRACKS) {
        // A long title wraps in its cell: its first word follows the arrow, and it is said once.
        let first = t.title.split_whitespace().next().unwrap();
        assert!(row.contains(&format!("│ {} │ → sheet: {first}", t.number)), "{row}");
        assert!(row.matches(first).count() == 1 && !s.contains(&format!("{0} {0}", t.title)), "{row}");
    }
}

/// The Progress table's last column (exercises done) is whole at 60 columns
/// as at wider sizes: the track title gives way, not the numbers.
#[test]
fn the_progress_table_keeps_every_column_whole() {
    for (w, h) in [(60, 16), (80, 24), (120, 40)] {
        let dir = tempfile::tempdir().unwrap();
        let mut a = study_app(dir.path(), w, h);
        let id = a.content.items().find(|i| i.track == 5).unwrap().id.clone();
        a.store.record(&id, 5, Level::L1, Some(true), Rating::Know, t0() - Duration::hours(2)).unwrap();
        key(&mut a, KeyCode::Char('p'));
        let lines = draw(&mut a, w, h);
        let inside = |l: &String| l.trim_end().trim_end_matches('│').trim_end().to_string();
        let header = lines.iter().find(|l| l.contains("L1 conc")).unwrap_or_else(|| panic!("{}", screen(&lines)));
        assert!(inside(header).ends_with("drills exer."), "{w}×{h}: {header}");
        let exercises = a.content.exercises.iter().filter(|x| x.track == 5).count();
        let row = lines.iter().find(|l| l.contains("│5 ")).unwrap_or_else(|| panic!("{}", screen(&lines)));
        assert!(inside(row).ends_with(&format!("0/{exercises}")), "{w}×{h}: {row}");
    }
}

/// A text parameter (a drill's `model`) is typed in the config pane: any
/// letter is text (not a key command), the value is checked on Enter (an
/// unknown model, a text too long), and a long value shows its end.
#[test]
fn a_text_parameter_is_typed_in_the_config_pane() {
    use agentlab::content::{DrillMeta, ParamValue};
    use agentlab::tui::screens::{drill, Screen};
    let toml = "id = \"text-test\"\ntitle = \"Text\"\ntrack = 1\nobjective = \"o\"\n\n\
        [[param]]\nkey = \"model\"\nkind = \"text\"\ndefault = \"tiny\"\n\
        help = \"tiny, a registered name, a FILE.gguf or a DIR\"\n\n\
        [[param]]\nkey = \"tag\"\nkind = \"text\"\ndefault = \"a\"\nmax_len = 5\nhelp = \"a short label\"\n\n\
        [presets.quick]\n\n[[claim]]\nid = \"c\"\ntext = \"c\"\nop = \">=\"\nthreshold = 0.5\n";
    let meta = DrillMeta::parse(toml, "# test drill").unwrap();
    let mut a = app_at(80, 24);
    let home = tempfile::tempdir().unwrap();
    let state = drill::State::new(&meta, home.path().join("runs"), home.path().join("sweeps"), a.device);
    a.stack.push(Screen::Drill(Box::new(state)));
    let d = |a: &App| match a.stack.last() {
        Some(Screen::Drill(d)) => d.params.clone(),
        _ => panic!("not on the drill screen"),
    };
    let s = screen(&draw(&mut a, 80, 24));
    assert!(s.contains("model") && s.contains("tiny") && s.contains("a registered name"), "{s}");

    // Enter opens the editor on the current value; s, q and ? are letters here.
    key(&mut a, KeyCode::Enter);
    for _ in 0..4 {
        key(&mut a, KeyCode::Backspace);
    }
    keys(&mut a, "sq?");
    assert!(!a.should_quit() && !a.help);
    assert!(screen(&draw(&mut a, 80, 24)).contains("sq?█"));
    key(&mut a, KeyCode::Enter);
    let flash = a.flash.clone().unwrap_or_default();
    assert!(flash.contains("no model named \"sq?\"") && flash.contains("scripts/get-smollm2.sh"), "{flash}");
    assert_eq!(d(&a)["model"], ParamValue::Text("tiny".into()), "refused: unchanged");

    // A path to a GGUF file is taken; a long one shows its end while typed.
    let dir = tempfile::tempdir().unwrap();
    let long = dir.path().join("a-rather-long-folder-name-for-a-model").join("SmolLM2-135M-Instruct.Q4_1.gguf");
    std::fs::create_dir_all(long.parent().unwrap()).unwrap();
    let mut bytes = b"GGUF".to_vec();
    bytes.extend([3, 0, 0, 0]);
    std::fs::write(&long, bytes).unwrap();
    for _ in 0..3 {
        key(&mut a, KeyCode::Backspace);
    }
    keys(&mut a, long.to_str().unwrap());
    let s = screen(&draw(&mut a, 80, 24));
    assert!(s.contains("…") && s.contains("Q4_1.gguf█"), "the end of the typed path:\n{s}");
    key(&mut a, KeyCode::Enter);
    assert_eq!(d(&a)["model"], ParamValue::Text(long.to_str().unwrap().into()));
    // Back to tiny.
    key(&mut a, KeyCode::Enter);
    for _ in 0..long.to_str().unwrap().chars().count() {
        key(&mut a, KeyCode::Backspace);
    }
    keys(&mut a, "tiny");
    key(&mut a, KeyCode::Enter);
    assert_eq!(d(&a)["model"], ParamValue::Text("tiny".into()));

    // max_len: too long is refused with the limit; Esc leaves the value as it was.
    key(&mut a, KeyCode::Down);
    key(&mut a, KeyCode::Enter);
    keys(&mut a, "bcdef");
    key(&mut a, KeyCode::Enter);
    assert!(a.flash.as_deref().unwrap_or("").contains("at most 5"), "{:?}", a.flash);
    key(&mut a, KeyCode::Esc);
    assert_eq!(d(&a)["tag"], ParamValue::Text("a".into()));
    key(&mut a, KeyCode::Enter);
    keys(&mut a, "bcd");
    key(&mut a, KeyCode::Enter);
    assert_eq!(d(&a)["tag"], ParamValue::Text("abcd".into()));
    assert!(screen(&draw(&mut a, 80, 24)).contains("Config · quick, 1 edited"));
}

/// A fresh data directory: Home says where to start (at 120×40 and 60×16),
/// the line goes once something is done, and `?` lists F2.
#[test]
fn a_fresh_home_says_where_to_start_and_the_help_lists_f2() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = study_app(dir.path(), 120, 40);
    let s = screen(&draw(&mut a, 120, 40));
    assert!(s.contains("New here? n starts track 0's first step; S plans a 30-minute session"), "{s}");
    // At 60×16 the line sits atop the details, and the drill list keeps more than one row.
    let small = screen(&draw(&mut a, 60, 16));
    assert!(small.contains("New here?"), "{small}");
    let drill_rows = a.content.drills.iter().filter(|d| small.contains(&format!("{} {}", d.track, d.id))).count();
    assert!(drill_rows >= 2, "the drill list shows {drill_rows} row(s):\n{small}");
    key(&mut a, KeyCode::Char('?'));
    let s = screen(&draw(&mut a, 120, 40));
    assert!(s.contains("F2") && s.contains("switch the language"), "{s}");
    key(&mut a, KeyCode::Esc);
    let item = a.content.items().find(|i| i.track == 0).unwrap().clone();
    a.store.record(&item.id, 0, item.level, Some(true), Rating::Know, t0()).unwrap();
    a.refresh_summary();
    assert!(!screen(&draw(&mut a, 120, 40)).contains("New here?"));
}

/// Before `s`: how long the preset's run takes (its measured time), and a
/// claims pane whose title does not send the learner to a log that has no
/// claims yet while they are hidden (60×16 and 120×40).
#[test]
fn a_drill_says_how_long_s_takes_and_its_hidden_claims_title_says_hidden() {
    for (w, h) in [(60, 16), (120, 40)] {
        let home = tempfile::tempdir().unwrap();
        let mut a = app_at(w, h);
        a.runs_root = home.path().join("runs");
        open_drill(&mut a, "grpo-rlvr");
        let lines = draw(&mut a, w, h);
        let s = screen(&lines);
        assert!(s.contains("Claims · hidden") && !s.contains("all in 3 Log"), "{w}×{h}:\n{s}");
        let gauge = &lines[h as usize - 2];
        assert!(gauge.contains("s starts a run (about 12s)"), "{w}×{h}: {gauge}");
        // …and on the preset's line, which stays in sight when a past run is shown.
        assert!(lines.iter().any(|l| l.contains("preset quick (about 12s a run)")), "{w}×{h}:\n{s}");
        skip_predictions(&mut a);
        assert!(!screen(&draw(&mut a, w, h)).contains("Claims · hidden"));
    }
}

/// A ✗ in a run made with changed settings says "because: …": the settings
/// against the preset, and where the claim's `breaks_with` lists the one
/// applied, its measured effect (200×60); a run with the preset's values
/// gets no such line.
#[test]
fn a_failed_claim_says_because_of_the_settings_changed() {
    use agentlab::content::ParamValue;
    use agentlab::drills::{ClaimResult, Event};
    use agentlab::tui::screens::Screen;
    let home = tempfile::tempdir().unwrap();
    let mut a = app_at(200, 60);
    a.runs_root = home.path().join("runs");
    open_drill(&mut a, "sft-basics");
    skip_predictions(&mut a);
    let fail = |meta: &agentlab::content::DrillMeta, id: &str, measured: f64| {
        let c = meta.claim(id).unwrap();
        Event::Claim(ClaimResult {
            id: c.id.clone(),
            text: c.text.clone(),
            measured,
            op: c.op,
            threshold: c.threshold,
            pass: false,
            observation: false,
        })
    };
    let shown = |a: &mut App, edits: &[(&str, ParamValue)]| {
        if let Some(Screen::Drill(d)) = a.stack.last_mut() {
            let mut params = d.meta.preset_values("quick").unwrap();
            for (k, v) in edits {
                params.insert(k.to_string(), v.clone());
            }
            d.viewing = Some("a saved run".into());
            d.viewed_preset = Some("quick".into());
            d.viewed_config = Some(("quick".into(), params));
            d.view = Default::default();
            let meta = d.meta.clone();
            d.view.apply(fail(&meta, "loss_drop", 0.41));
            d.view.apply(fail(&meta, "heldout_accuracy", 0.12));
        }
        // The claims pane's text, its wrapped lines joined (the left column, inside its borders).
        let lines = draw(a, 200, 60);
        let pane: Vec<&str> = lines.iter().filter_map(|l| l.split('│').nth(1)).collect();
        pane.join(" ").split_whitespace().collect::<Vec<_>>().join(" ")
    };
    let s = shown(&mut a, &[("mask_prompt", ParamValue::Bool(false)), ("steps", ParamValue::Int(30))]);
    let flat = &s;
    assert!(flat.contains("because: steps = 30 (preset 800), mask_prompt = false (preset true)"), "{s}");
    assert!(flat.contains("Measured with mask_prompt = false: holds on 0 of 4 seeds"), "{s}");
    let s = shown(&mut a, &[]);
    assert!(s.contains('✗') && !s.contains("because:"), "{s}");
}
