//! The Exercises screens in ratatui's TestBackend: the list, one exercise
//! (task, code, check, hints), training a drill with the learner's function.

mod common;

use agentlab::content::Content;
use agentlab::tui::screens::Screen;
use agentlab::tui::App;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// One temporary data dir for this test binary (never the real home).
fn home() -> &'static std::path::Path {
    static HOME: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    HOME.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        std::env::set_var("AGENTLAB_HOME", d.path());
        d
    })
    .path()
}

fn draw(app: &mut App, w: u16, h: u16) -> String {
    common::screen_lines(app, w, h).join("\n")
}

fn key(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn app() -> App {
    home();
    let mut a = App::new(Content::embedded().unwrap());
    draw(&mut a, 80, 24);
    a
}

/// Open exercise `id` from Home through the list.
fn open(a: &mut App, id: &str) {
    key(a, KeyCode::Char('e'));
    assert!(matches!(a.screen(), Screen::Exercises(_)));
    let pos = a.content.exercises.iter().position(|x| x.id == id).unwrap();
    for _ in 0..pos {
        key(a, KeyCode::Down);
    }
    key(a, KeyCode::Enter);
    assert!(matches!(a.screen(), Screen::Exercise(x) if x.meta.id == id), "{}", a.screen().title());
}

#[test]
fn the_list_shows_every_exercise_per_track_and_what_trains_a_drill() {
    let mut a = app();
    key(&mut a, KeyCode::Char('e'));
    let s = draw(&mut a, 120, 40);
    assert!(s.contains(&format!(" of {} done", a.content.exercises.len())), "{s}");
    for t in ["track 0 · Prerequisites", "track 3 · Agentic", "track 5 · Continual"] {
        assert!(s.contains(t), "{t}:\n{s}");
    }
    assert!(s.contains("Discounted returns  → trains turn-credit-assignment"), "{s}");
    assert!(s.contains("Reservoir sampling"), "{s}");
    // The smallest terminal draws it too.
    let small = draw(&mut a, 60, 16);
    assert!(small.contains("Exercises"), "{small}");
}

#[test]
fn an_exercise_is_checked_hinted_and_recorded_at_three_sizes() {
    let mut a = app();
    open(&mut a, "rloo-advantages");
    for (w, h) in [(60, 16), (80, 24), (120, 40)] {
        let s = draw(&mut a, w, h);
        assert!(s.contains("your code") && s.contains("check"), "{w}x{h}:\n{s}");
    }
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("not checked yet"), "{s}");
    assert!(s.contains("fn rloo_advantages(rewards)"), "the stub is shown:\n{s}");
    // The stub fails, with the first failing case.
    key(&mut a, KeyCode::Char('c'));
    common::settle(&mut a);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("FAIL  rloo-advantages"), "{s}");
    assert!(s.contains("first failing case: edge:"), "{s}");
    assert!(s.contains("expected:") && s.contains("got:"), "{s}");
    // Hints one at a time; the solution only after the last.
    key(&mut a, KeyCode::Char('S'));
    assert!(a.flash.as_deref().unwrap_or("").contains("after the last hint"), "{:?}", a.flash);
    key(&mut a, KeyCode::Char('h'));
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("Hint 1/3"), "{s}");
    // Write the solution into the learner's file, as an editor would, and check again.
    let x = a.content.exercise("rloo-advantages").unwrap().clone();
    std::fs::write(home().join("exercises/rloo-advantages.rhai"), &x.solution).unwrap();
    key(&mut a, KeyCode::Char('c'));
    common::settle(&mut a);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("PASS  rloo-advantages: all"), "{s}");
    assert!(s.contains("passed!"), "the status line says so:\n{s}");
    assert!(a.store.progress.exercise_done("rloo-advantages"));
    key(&mut a, KeyCode::Esc);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains(&format!("1 of {} done", a.content.exercises.len())), "{s}");
    // Progress counts it for track 3.
    assert_eq!(a.summary.tracks[3].exercises_done, 1);
}

#[test]
fn a_failed_check_puts_the_linked_quiz_items_into_review() {
    let mut a = app();
    open(&mut a, "k3-kl");
    key(&mut a, KeyCode::Char('R'));
    assert!(a.flash.as_deref().unwrap_or("").contains("after a failed check"), "{:?}", a.flash);
    key(&mut a, KeyCode::Char('c'));
    common::settle(&mut a);
    key(&mut a, KeyCode::Char('R'));
    let quiz = a.content.exercise("k3-kl").unwrap().quiz.clone();
    for id in &quiz {
        assert!(a.store.progress.flagged.contains_key(id), "{id} not flagged");
    }
    let due = agentlab::progress::session::due_now(&a.store.progress, &a.content, a.now());
    for id in &quiz {
        assert!(due.contains(id), "{id} is not due for review: {due:?}");
    }
}

#[test]
fn t_opens_the_drill_set_to_train_with_your_function_and_u_cycles() {
    let mut a = app();
    open(&mut a, "grpo-advantages");
    key(&mut a, KeyCode::Char('t'));
    // The learner's file is read and checked off the UI thread: plugged in after a tick.
    common::settle(&mut a);
    let Screen::Drill(d) = a.screen() else { panic!("{}", a.screen().title()) };
    assert_eq!(d.meta.id, "grpo-rlvr");
    assert!(d.uses.contains_key("grpo-advantages"));
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("with your grpo-advantages"), "{s}");
    assert!(s.contains("FAILS its check"), "the stub fails and the learner is told:\n{s}");
    // u goes on to the next exercise of this drill (asking to write it first
    // while its file does not exist), then back to the lab's.
    let dr = a.content.exercise("dr-grpo-advantages").unwrap().clone();
    if !agentlab::exercises::file(&dr.id).unwrap().exists() {
        key(&mut a, KeyCode::Char('u'));
        common::settle(&mut a);
        assert!(a.flash.as_deref().unwrap_or("").contains("write your dr-grpo-advantages first"), "{:?}", a.flash);
        agentlab::exercises::ensure_file(&dr.id, &dr.stub).unwrap();
        // Nothing is plugged now: u starts over at grpo-advantages.
        key(&mut a, KeyCode::Char('u'));
        common::settle(&mut a);
        let Screen::Drill(d) = a.screen() else { panic!() };
        assert!(d.uses.contains_key("grpo-advantages"), "{:?}", d.uses.keys());
    }
    key(&mut a, KeyCode::Char('u'));
    common::settle(&mut a);
    let Screen::Drill(d) = a.screen() else { panic!() };
    assert!(d.uses.contains_key("dr-grpo-advantages"), "{:?}", d.uses.keys());
    key(&mut a, KeyCode::Char('u'));
    let Screen::Drill(d) = a.screen() else { panic!() };
    assert!(d.uses.is_empty());
    let s = draw(&mut a, 120, 40);
    assert!(!s.contains("with your"), "{s}");
}

#[test]
fn a_checked_only_exercise_says_no_drill_trains_with_it() {
    let mut a = app();
    open(&mut a, "pass-at-k");
    key(&mut a, KeyCode::Char('t'));
    assert!(matches!(a.screen(), Screen::Exercise(_)));
    assert!(a.flash.as_deref().unwrap_or("").contains("checked only"), "{:?}", a.flash);
}

#[test]
fn the_list_shows_the_ids_the_cli_takes() {
    let mut a = app();
    key(&mut a, KeyCode::Char('e'));
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("agentlab exercise check ID"), "{s}");
    for x in a.content.exercises.clone() {
        assert!(s.contains(&format!("{}  ", x.id)), "{}:\n{s}", x.id);
    }
    assert!(s.contains("discounted-returns  Discounted returns  → trains turn-credit-assignment"), "{s}");
}

#[test]
fn a_hint_and_the_solution_are_scrolled_into_view_at_both_sizes() {
    for (w, h) in [(120, 40), (60, 16)] {
        let mut a = app();
        open(&mut a, "ppo-clip");
        let n = a.content.exercise("ppo-clip").unwrap().hints.len();
        let s = draw(&mut a, w, h);
        assert!(!s.contains("Hint 1/"), "{w}x{h}:\n{s}");
        for k in 1..=n {
            key(&mut a, KeyCode::Char('h'));
            let s = draw(&mut a, w, h);
            assert!(s.contains(&format!("Hint {k}/{n}.")), "{w}x{h}, hint {k} not in view:\n{s}");
        }
        key(&mut a, KeyCode::Char('S'));
        let s = draw(&mut a, w, h);
        assert!(s.contains("A solution") && s.contains(" rhai ") && !s.contains(" rust "), "{w}x{h}:\n{s}");
        assert!(s.contains("fn ppo_clip("), "{w}x{h}: the solution's code in view:\n{s}");
        // Scrolling still works from there; S hides it again.
        key(&mut a, KeyCode::PageUp);
        key(&mut a, KeyCode::Char('S'));
        assert!(!draw(&mut a, w, h).contains("A solution"));
    }
}

#[test]
fn the_footer_offers_only_what_works() {
    let mut a = app();
    open(&mut a, "ppo-clip");
    let foot = common::screen_lines(&mut a, 120, 40).pop().unwrap();
    assert!(foot.contains("h  hint") && !foot.contains("train"), "ppo-clip trains no drill: {foot}");
    key(&mut a, KeyCode::Char('?'));
    let s = draw(&mut a, 120, 40);
    assert!(!s.contains("train the drill"), "{s}");
    key(&mut a, KeyCode::Esc);
    key(&mut a, KeyCode::Esc);
    key(&mut a, KeyCode::Esc);
    open(&mut a, "grpo-advantages");
    let foot = common::screen_lines(&mut a, 120, 40).pop().unwrap();
    assert!(foot.contains("t  train"), "{foot}");
}

#[test]
fn check_output_is_wrapped_not_cut() {
    let mut a = app();
    open(&mut a, "discounted-returns");
    // The stub returns an empty array: the reason is longer than the pane.
    key(&mut a, KeyCode::Char('c'));
    common::settle(&mut a);
    for (w, h) in [(120, 40), (80, 24)] {
        let s = draw(&mut a, w, h);
        // Wrapped onto a continued line, indented: nothing cut at the pane's edge.
        let text: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains("returned an array") && text.contains("of 0; it must have 4"), "{w}x{h}:\n{s}");
        assert!(s.contains("FAIL  discounted-returns") && s.contains("got:      error"), "{w}x{h}:\n{s}");
    }
}

#[test]
fn c_checks_on_a_thread_of_its_own_and_keys_still_answer_meanwhile() {
    let mut a = app();
    open(&mut a, "gae");
    key(&mut a, KeyCode::Char('c'));
    // The key only starts the check: the result is taken at a later tick.
    assert_eq!(a.flash.as_deref(), Some("checking your file…"));
    assert!(matches!(a.screen(), Screen::Exercise(x) if x.checking() && x.report.is_none()));
    assert!(draw(&mut a, 120, 40).contains("checking your file…"));
    // A second c waits for the first; a hint opens meanwhile.
    key(&mut a, KeyCode::Char('c'));
    assert_eq!(a.flash.as_deref(), Some("a check is already under way"));
    key(&mut a, KeyCode::Char('h'));
    assert!(draw(&mut a, 120, 40).contains("Hint 1/"));
    common::settle(&mut a);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("FAIL  gae") && !s.contains("checking your file…"), "{s}");
    assert!(a.flash.as_deref().unwrap_or("").starts_with("not yet"), "{:?}", a.flash);
    assert!(!a.store.progress.exercise_done("gae"));
}

fn d_checking(a: &App) -> bool {
    matches!(a.screen(), Screen::Exercise(x) if x.checking())
}

/// A save from another window (an editor beside the TUI) is checked while
/// the exercise is open, without a key.
#[test]
fn a_save_while_the_exercise_is_open_is_checked() {
    let mut a = app();
    open(&mut a, "dpo-loss");
    draw(&mut a, 120, 40);
    let x = a.content.exercise("dpo-loss").unwrap().clone();
    // A tick with nothing saved checks nothing.
    a.on_tick();
    assert!(!draw(&mut a, 120, 40).contains("FAIL"));
    // The stub saved again (a pass would change the other tests' count of exercises done).
    std::fs::write(home().join("exercises/dpo-loss.rhai"), format!("{}\n// saved again\n", x.stub)).unwrap();
    a.on_tick();
    assert!(a.flash.as_deref().unwrap_or("").contains("saved: checking"), "{:?}", a.flash);
    common::settle(&mut a);
    let s = draw(&mut a, 120, 40);
    assert!(s.contains("FAIL  dpo-loss: passed") && s.contains("first failure: case"), "{s}");
    assert!(!a.store.progress.exercise_done("dpo-loss"));
    // Checked once: another tick with nothing new saved does not check again.
    a.on_tick();
    assert!(!d_checking(&a));
}
