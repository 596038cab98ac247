//! Screens drawn into ratatui's TestBackend, driven by key events.

use agentlab::content::Content;
use agentlab::tui::{ui, App};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use ratatui::Terminal;

/// A fresh app that has been drawn once, as the event loop does before any key.
fn app_at(w: u16, h: u16) -> App {
    let mut a = App::new(Content::embedded().unwrap());
    draw(&mut a, w, h);
    a
}

fn app() -> App {
    app_at(80, 24)
}

fn draw(app: &mut App, w: u16, h: u16) -> Vec<String> {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    term.draw(|f| {
        app.prepare(f.area());
        ui::draw(f, app);
    })
    .unwrap();
    let buf = term.backend().buffer().clone();
    (0..h).map(|y| (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect::<String>()).collect()
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
    assert!(lines[23].contains("matches"), "flash: {}", lines[23]);
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
    assert!(s.contains("pending (≥ 0.8)"), "claims start pending:\n{s}");
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
            measured: 0.93,
            op: c.op,
            threshold: c.threshold,
            pass: true,
        }));
    }
    let lines = draw(&mut a, 120, 40);
    let s = screen(&lines);
    assert!(s.contains(" loss ") && s.contains(" heldout_acc "), "chart titles:\n{s}");
    assert!(s.contains('⣀') || s.contains('⠉') || s.contains('⠒'), "braille curve drawn:\n{s}");
    assert!(s.contains("✓ exact-match") && s.contains("0.9300 ≥ 0.8"), "claim result:\n{s}");
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
    // The README is one key away, and Esc comes back to the drill.
    key(&mut a, KeyCode::Char('r'));
    assert!(matches!(a.stack.last(), Some(Screen::Reader(_))));
    key(&mut a, KeyCode::Esc);
    assert!(matches!(a.stack.last(), Some(Screen::Drill(_))));
}
