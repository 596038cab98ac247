//! The real binary in a pseudo-terminal: a signal ends the TUI with the
//! terminal as it was (canonical mode and echo back on, the alternate screen
//! left, the cursor shown), not raw and blank.
#![cfg(unix)]

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{native_pty_system, CommandBuilder, PtySize};

/// (ICANON, ECHO) of the terminal whose master side is `fd`.
fn modes(fd: std::os::unix::io::RawFd) -> (bool, bool) {
    // SAFETY: tcgetattr writes a termios struct for a valid fd; a zeroed one is a valid starting value.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    assert_eq!(unsafe { libc::tcgetattr(fd, &mut t) }, 0, "tcgetattr on the pty");
    (t.c_lflag & libc::ICANON != 0, t.c_lflag & libc::ECHO != 0)
}

/// Wait for `cond`, failing after a generous safety net (not a speed test).
fn wait_for(what: &str, mut cond: impl FnMut() -> bool) {
    let start = Instant::now();
    while !cond() {
        assert!(start.elapsed() < Duration::from_secs(60), "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn find_last(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

/// Start the TUI in `home`, wait for its first screen, type `keys` and wait
/// for `then` on the screen, send `signal`; return the exit code and
/// everything it wrote, after checking the terminal modes.
fn tui_ended_by(signal: libc::c_int, home: &Path, keys: &[u8], then: &str) -> (u32, Vec<u8>) {
    let pair = native_pty_system()
        .openpty(PtySize { rows: 24, cols: 80, pixel_width: 0, pixel_height: 0 })
        .expect("a pseudo-terminal");
    let fd = pair.master.as_raw_fd().expect("the master's fd");
    assert_eq!(modes(fd), (true, true), "a fresh pty is canonical with echo");

    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_agentlab"));
    cmd.env("AGENTLAB_HOME", home);
    cmd.env("AGENTLAB_LANG", "en");
    cmd.env("TERM", "xterm-256color");
    cmd.cwd(home);
    let mut child = pair.slave.spawn_command(cmd).expect("spawn agentlab");
    drop(pair.slave);
    let pid = child.process_id().expect("a pid") as libc::pid_t;

    let output = Arc::new(Mutex::new(Vec::new()));
    let mut reader = pair.master.try_clone_reader().unwrap();
    let sink = output.clone();
    let reading = std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        // Ends at EOF, or EIO once the child has closed the terminal.
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    let shows = |text: &str| {
        let out = output.lock().unwrap();
        out.windows(text.len()).any(|w| w == text.as_bytes())
    };

    wait_for("the first screen", || shows("Home"));
    assert_eq!(modes(fd), (false, false), "the TUI runs in raw mode");
    let mut writer = pair.master.take_writer().unwrap();
    for k in keys {
        writer.write_all(&[*k]).unwrap();
        writer.flush().unwrap();
        // One key per frame, as a person types.
        std::thread::sleep(Duration::from_millis(50));
    }
    wait_for(then, || shows(then));

    // SAFETY: kill sends a signal to the child we started.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    let mut status = None;
    wait_for("the process to exit", || {
        status = child.try_wait().unwrap();
        status.is_some()
    });
    let status = status.unwrap();
    assert_eq!(modes(fd), (true, true), "canonical mode and echo are back");
    drop(writer);
    drop(pair.master);
    let _ = reading.join();
    let out = output.lock().unwrap().clone();
    (status.exit_code(), out)
}

/// The output ends with the alternate screen left and the cursor shown.
fn assert_restored(out: &[u8], signal: libc::c_int) {
    let entered = find_last(out, b"\x1b[?1049h").expect("entered the alternate screen");
    let left = find_last(out, b"\x1b[?1049l").expect("left the alternate screen");
    assert!(left > entered, "signal {signal}: the alternate screen is left at the end");
    let hidden = find_last(out, b"\x1b[?25l").expect("the cursor was hidden while drawing");
    let shown = find_last(out, b"\x1b[?25h").expect("the cursor is shown again");
    assert!(shown > hidden, "signal {signal}: the cursor is shown at the end");
}

#[test]
fn sigterm_sighup_and_sigint_restore_the_terminal() {
    for (signal, code) in [(libc::SIGTERM, 143), (libc::SIGHUP, 129), (libc::SIGINT, 130)] {
        let home = tempfile::tempdir().unwrap();
        let (exit, out) = tui_ended_by(signal, home.path(), b"", "Home");
        assert_eq!(exit, code, "signal {signal}: exit 128 + its number, after cleaning up");
        assert_restored(&out, signal);
    }
}

/// SIGTERM while a drill trains: the run is cancelled, waited for and saved
/// as cancelled (not left without a report), and the terminal is restored.
#[test]
fn sigterm_during_a_run_saves_it_as_cancelled() {
    let home = tempfile::tempdir().unwrap();
    // Home → the drills list (Tab) → the first drill (Enter) → start (s), its
    // predictions skipped (Esc: skip all and run).
    let (exit, out) = tui_ended_by(libc::SIGTERM, home.path(), b"\t\rs\x1b", "started:");
    assert_eq!(exit, 143);
    assert_restored(&out, libc::SIGTERM);
    let text = String::from_utf8_lossy(&out);
    // The first drill of the list: whichever drill sorts first in track 0.
    let drill = text
        .split("agentlab: run of ")
        .nth(1)
        .and_then(|rest| rest.split_once(" cancelled: saved in "))
        .map(|(id, _)| id.to_string())
        .unwrap_or_else(|| panic!("no 'run of … cancelled: saved in' line: {text}"));
    let runs: Vec<_> =
        std::fs::read_dir(home.path().join("runs").join(&drill)).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(runs.len(), 1);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(runs[0].join("report.json")).expect("report.json")).unwrap();
    assert_eq!(report["status"]["status"], "cancelled");
}
