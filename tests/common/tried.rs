//! What the Try tests share: the binary's output, keys on the TUI, and
//! polling the drill screen while a Try session answers on its thread.
#![allow(dead_code)] // not every test binary that shares `common` uses each

use std::path::Path;
use std::process::Output;

use agentlab::tui::screens::drill;
use agentlab::tui::screens::Screen;
use agentlab::tui::App;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// `agentlab ARGS…` with its data directory at `home`.
pub fn run(home: &Path, args: &[&str]) -> Output {
    super::agentlab(home).args(args).output().unwrap()
}

pub fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn key(app: &mut App, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

pub fn drill_state(app: &mut App) -> &mut drill::State {
    match app.stack.last_mut() {
        Some(Screen::Drill(d)) => d,
        _ => panic!("not on a drill screen"),
    }
}

/// Poll the drill screen (as the event loop's ticks do) until `done`, for at
/// most `secs` seconds (a guard against a hang, not a timing).
pub fn wait(app: &mut App, secs: u64, done: impl Fn(&drill::State) -> bool) {
    let start = std::time::Instant::now();
    loop {
        let _ = super::screen_lines(app, 120, 40);
        app.on_tick();
        if done(drill_state(app)) {
            return;
        }
        assert!(start.elapsed().as_secs() < secs, "timed out waiting");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
