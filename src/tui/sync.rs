//! What the TUI shows of progress, kept in step with the files on disk: the
//! progress file another agentlab saved (a headless quiz, an exercise check
//! from the CLI), and the runs another process finished. Home and every
//! open Progress screen show one summary ([`crate::progress::summary::summarize`]).

use std::time::{Duration, Instant};

use super::app::App;
use super::screens::Screen;

/// How often the run history is read again while Home or Progress is shown.
pub const RUNS_EVERY: Duration = Duration::from_secs(2);

impl App {
    /// Bring the progress figures up to date: the progress file read again
    /// if another process saved it (this session's unsaved changes kept on
    /// top), and, while Home or Progress is shown, the drills passed read
    /// again from the runs: at once when `runs_now` (the screen was just
    /// opened or come back to), else at most every [`RUNS_EVERY`]. When
    /// anything changed, Home's summary and every open Progress screen are
    /// recomputed. Returns whether they were. Called on every tick and key.
    pub fn sync_progress(&mut self, runs_now: bool) -> bool {
        let mut changed = self.store.reload_if_changed();
        // A periodic read that finished on its own thread.
        if let Some(rx) = &self.runs_scan {
            match rx.try_recv() {
                Ok((passed, last)) => {
                    self.runs_scan = None;
                    changed |= passed != self.drills_passed || last != self.drills_last;
                    self.drills_passed = passed;
                    self.drills_last = last;
                }
                Err(std::sync::mpsc::TryRecvError::Empty) => {}
                Err(std::sync::mpsc::TryRecvError::Disconnected) => self.runs_scan = None,
            }
        }
        let figures_shown = matches!(self.screen(), Screen::Home(_) | Screen::Progress(_));
        let stale = self.runs_read.is_none_or(|t| t.elapsed() >= RUNS_EVERY);
        if figures_shown && runs_now {
            changed |= self.read_runs();
        } else if figures_shown && stale && self.runs_scan.is_none() {
            self.scan_runs();
        }
        if changed {
            self.refresh_summary();
        }
        changed
    }

    /// Read the drills passed from the run history now; whether they changed.
    pub fn read_runs(&mut self) -> bool {
        let passed = crate::progress::summary::drills_passed(&self.content, &self.runs_root);
        let ids: Vec<String> = self.content.drills.iter().map(|d| d.id.clone()).collect();
        let last = crate::progress::summary::last_runs_of(&ids, &self.runs_root);
        self.runs_read = Some(Instant::now());
        let changed = passed != self.drills_passed || last != self.drills_last;
        self.drills_passed = passed;
        self.drills_last = last;
        changed
    }

    /// Start reading the drills passed on a thread of its own; a later
    /// `sync_progress` takes the result. (The history is read only from
    /// regular files: see `progress::summary::drills_passed`.)
    fn scan_runs(&mut self) {
        let (tx, rx) = std::sync::mpsc::channel();
        let ids: Vec<String> = self.content.drills.iter().map(|d| d.id.clone()).collect();
        let root = self.runs_root.clone();
        let started = std::thread::Builder::new().name("runs-scan".into()).spawn(move || {
            let passed = crate::progress::summary::drills_passed_of(&ids, &root);
            let _ = tx.send((passed, crate::progress::summary::last_runs_of(&ids, &root)));
        });
        self.runs_read = Some(Instant::now());
        if started.is_ok() {
            self.runs_scan = Some(rx);
        }
    }

    /// Every Progress screen on the stack shows Home's summary (and the file's notice).
    pub(crate) fn refresh_progress_screens(&mut self) {
        for s in self.stack.iter_mut() {
            if let Screen::Progress(p) = s {
                p.summary = self.summary.clone();
                p.notice = self.store.notice.clone();
            }
        }
    }
}
