//! The drill screen's charts, log, gauge and config pane drawn into
//! ratatui's TestBackend: compared series in one chart with a legend at
//! every size, axes that name their quantity, whole log lines, no figure
//! that is always zero, and a config list that says it scrolls.

mod common;

use agentlab::content::Content;
use agentlab::drills::Event;
use agentlab::runner::Point;
use agentlab::tui::screens::{drill, Screen};
use agentlab::tui::App;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use common::isolated_home;

/// The drill screen of `id` on empty run and sweep dirs, drawn once at `w`×`h`.
fn drill_app(id: &str, w: u16, h: u16) -> (App, tempfile::TempDir) {
    isolated_home();
    let home = tempfile::tempdir().unwrap();
    let mut a = App::new(Content::embedded().unwrap());
    a.runs_root = home.path().join("runs");
    a.sweeps_root = home.path().join("sweeps");
    let s = a.drill_screen(id).unwrap();
    a.stack.push(s);
    draw(&mut a, w, h);
    (a, home)
}

fn draw(app: &mut App, w: u16, h: u16) -> Vec<String> {
    common::screen_lines(app, w, h)
}

fn key(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn drill_mut(a: &mut App) -> &mut drill::State {
    match a.stack.last_mut() {
        Some(Screen::Drill(d)) => d,
        _ => panic!("not on a drill screen"),
    }
}

fn feed(a: &mut App, events: Vec<Event>) {
    let d = drill_mut(a);
    events.into_iter().for_each(|e| d.view.apply(e));
}

use common::pane_rows;

fn screen(lines: &[String]) -> String {
    lines.join("\n")
}

/// pass@k against k for three temperatures, as pass-at-k-harness sends it.
fn pass_at_k_events() -> Vec<Event> {
    let mut out = vec![Event::Phase("score".into())];
    for (t, p1) in [("T=0.25", 0.55), ("T=1", 0.41), ("T=1.5", 0.25)] {
        for k in 1..=16u64 {
            let v = 1.0 - (1.0 - p1) * (1.0 - k as f64 / 20.0);
            out.push(Event::Metric { step: k, name: format!("pass@k/{t}"), value: v, t: 0.0 });
        }
    }
    out
}

/// The three temperatures are one chart with a legend, over k, at 60×16 and 120×40;
/// the status line says x is k, not step.
#[test]
fn compared_series_share_a_chart_with_a_legend_at_every_size() {
    let (mut a, _home) = drill_app("pass-at-k-harness", 120, 40);
    feed(&mut a, pass_at_k_events());
    for (w, h) in [(120, 40), (60, 16), (200, 60)] {
        let lines = draw(&mut a, w, h);
        let s = screen(&lines);
        assert_eq!(s.matches("pass@k against k").count(), 1, "one chart for the three at {w}×{h}:\n{s}");
        for label in ["━ T=0.25", "━ T=1", "━ T=1.5"] {
            assert!(s.contains(label), "legend {label} at {w}×{h}:\n{s}");
        }
        assert!(s.contains("k 16") && !s.contains("step 16"), "x labelled k at {w}×{h}:\n{s}");
        assert!(!s.contains("grey"), "no previous run, no grey in the legend:\n{s}");
        for l in &lines {
            assert_eq!(unicode_width::UnicodeWidthStr::width(l.as_str()), w as usize, "{l}");
        }
    }
    let s = screen(&draw(&mut a, 120, 40));
    assert!(s.contains("page 1/1") && s.contains("x k (w)") && !s.contains("x step"), "{s}");
    // Seconds on the x axis when asked.
    key(&mut a, KeyCode::Char('w'));
    let s = screen(&draw(&mut a, 120, 40));
    assert!(s.contains("x s (w)") && s.contains("0 s"), "{s}");
}

/// The previous run's grey curves are named in the legend at 60×16 too,
/// for a lone series as for a group.
#[test]
fn the_previous_run_is_labelled_at_every_size() {
    let (mut a, _home) = drill_app("pass-at-k-harness", 60, 16);
    feed(&mut a, pass_at_k_events());
    let prev: Vec<(String, Vec<Point>)> = ["pass@k/T=1", "sft/loss"]
        .iter()
        .map(|n| (n.to_string(), (1..=16).map(|k| Point { step: k as f64, t: 0.0, value: 0.5 }).collect()))
        .collect();
    drill_mut(&mut a).previous = Some(prev);
    for (w, h) in [(60, 16), (120, 40)] {
        let s = screen(&draw(&mut a, w, h));
        assert!(s.contains("grey: previous run"), "at {w}×{h}:\n{s}");
    }
    // A lone series with a previous run: the legend is that one line.
    let (mut a, _home) = drill_app("sft-basics", 60, 16);
    feed(
        &mut a,
        (1..=40u64).map(|s| Event::Metric { step: s, name: "loss".into(), value: 3.0 / s as f64, t: 0.0 }).collect(),
    );
    drill_mut(&mut a).previous =
        Some(vec![("loss".into(), (1..=40).map(|s| Point { step: s as f64, t: 0.0, value: 2.0 }).collect())]);
    let s = screen(&draw(&mut a, 60, 16));
    assert!(s.contains(" loss ") && s.contains("grey: previous run") && s.contains("step 40"), "{s}");
}

/// A long log line is wrapped, continuation indented, at 60 columns; the
/// newest line is seen while following.
#[test]
fn the_log_wraps_long_lines_and_follows_the_end() {
    let (mut a, _home) = drill_app("sft-basics", 60, 16);
    let long = "claim refine_gain: 0.0130 ≥ 0.01 → pass, measured over 350 final answers kept by the verifier";
    let mut events: Vec<Event> = (0..30).map(|i| Event::Log(format!("line {i}"))).collect();
    events.push(Event::Log(long.into()));
    feed(&mut a, events);
    key(&mut a, KeyCode::Char('3'));
    let lines = draw(&mut a, 60, 16);
    let s = screen(&lines);
    let pane: Vec<String> = pane_rows(&lines, "Log (").into_iter().map(|l| l.trim_end().to_string()).collect();
    let start = pane.iter().position(|l| l.starts_with("claim refine_gain")).unwrap_or_else(|| panic!("{s}"));
    let mut joined = pane[start].clone();
    for l in &pane[start + 1..] {
        assert!(l.starts_with("  ") && !l.trim().is_empty(), "continuation indented: {l:?}\n{s}");
        joined.push(' ');
        joined.push_str(l.trim());
    }
    assert_eq!(joined, long, "every word kept, in order:\n{s}");
    assert!(pane.len() - start >= 3, "wrapped over several rows:\n{s}");
    assert!(s.contains("following") && s.contains("line 29"), "{s}");
    // Scrolled up one entry: the long line is below the view, line 29 ends it.
    key(&mut a, KeyCode::Up);
    let s = screen(&draw(&mut a, 60, 16));
    assert!(s.contains("line 29") && !s.contains("refine_gain") && s.contains("scrolled"), "{s}");
}

/// No "tok/s" from a drill whose progress counts no tokens; a space
/// between the bar and its text.
#[test]
fn the_gauge_shows_no_throughput_when_no_tokens_are_counted() {
    let (mut a, _home) = drill_app("self-refine-loop", 120, 40);
    feed(&mut a, vec![Event::Phase("STaR round 1".into()), Event::Progress { step: 1, total: 4, tokens: 0 }]);
    std::thread::sleep(std::time::Duration::from_millis(300));
    feed(&mut a, vec![Event::Progress { step: 2, total: 4, tokens: 0 }]);
    let lines = draw(&mut a, 120, 40);
    let gauge = lines.iter().find(|l| l.contains("STaR round 1 · step 2/4")).expect("gauge");
    assert!(!gauge.contains("tok/s"), "{gauge}");
    let at = gauge.find("STaR").unwrap();
    assert_eq!(&gauge[..at].chars().last(), &Some(' '), "a space before the text: {gauge}");
    // Counted tokens do show.
    feed(&mut a, vec![Event::Progress { step: 3, total: 4, tokens: 5000 }]);
    std::thread::sleep(std::time::Duration::from_millis(300));
    feed(&mut a, vec![Event::Progress { step: 4, total: 5, tokens: 10_000 }]);
    let s = screen(&draw(&mut a, 120, 40));
    assert!(s.contains("K tok/s"), "{s}");
}

/// pass-at-k-harness at 120×40: the config list says how many rows are
/// below, the seed and the preset are in its title, the status line under
/// the objective is seen; at 60×16 too, with more than one config row.
#[test]
fn the_config_scrolls_visibly_and_the_status_line_stays() {
    let (mut a, _home) = drill_app("pass-at-k-harness", 120, 40);
    let lines = draw(&mut a, 120, 40);
    let s = screen(&lines);
    assert!(s.contains("Config · quick ─") && s.contains(" seed 1 ╮"), "preset and seed in the title:\n{s}");
    assert!(s.contains("↓ ") && s.contains(" more"), "scroll indicator:\n{s}");
    assert!(s.contains("track 2 · preset quick (about 8s a run) · no run yet"), "status line:\n{s}");
    assert!(s.contains("(r: README)"), "the objective is capped:\n{s}");
    // Down to the seed: the window follows, and says what is above.
    for _ in 0..30 {
        key(&mut a, KeyCode::Down);
    }
    let s = screen(&draw(&mut a, 120, 40));
    assert!(s.contains("seed        1") && s.contains("↑ ") && s.contains("above"), "{s}");
    let (mut a, _home) = drill_app("pass-at-k-harness", 60, 16);
    let lines = draw(&mut a, 60, 16);
    let s = screen(&lines);
    assert!(s.contains("track 2 · preset quick"), "status line at 60×16:\n{s}");
    assert!(s.contains("samples") && s.contains("problems"), "two config rows at 60×16:\n{s}");
    assert!(s.contains("Config · quick ─") && s.contains(" seed 1 ╮") && s.contains("more"), "{s}");
}
