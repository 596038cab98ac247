//! Work a key starts that reads or writes files — opening a saved run
//! (Enter on the Runs tab), exporting a PNG (`e`), reading and checking
//! the learner's function (`u`, and `t` on an exercise), the run a `b` run
//! is compared with, the newest saved sweep as the screen opens, the
//! unfinished sweep `S` continues (and the seeds it has done) — done on
//! a thread of its own, so the screen keeps drawing and answering keys
//! while the disk works. The key says what is under way; [`State::poll`](super::State::poll)
//! applies the result when it arrives and says how it went (a notice on
//! the status line).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, TryRecvError};

use crate::drills::ClaimResult;
use crate::exercises::plug::UsedScript;
use crate::runner::sweep::{self, SweepConfig};
use crate::runner::{Point, RunRecord};

use super::RunView;

/// What a job does (at most one of each of `Open`, `Use` and `Compare`
/// is wanted at a time: a newer one replaces it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Open,
    Export,
    Use,
    Compare,
    LastSweep,
    SweepStart,
    Diff,
    Pin,
}

/// The series of a run's charts, by name.
pub(super) type Series = Vec<(String, Vec<Point>)>;

/// Two runs compared: run A's view, run B's series, what differs.
pub(super) type Compared = (Box<RunView>, Option<Series>, Box<crate::runner::diff::RunDiff>);

/// A job's result, back on the UI thread.
pub(super) enum Done {
    /// A saved run read: its view and the series of the run before it, or why it could not be read.
    Opened { record: Box<RunRecord>, result: Result<(Box<RunView>, Option<Series>), String> },
    /// The PNG export ended: what to tell the learner.
    Exported(String),
    /// The learner's function of exercise `id`: the plug to train with
    /// (`None` when it cannot be used) and what to tell the learner.
    Used { id: String, plug: Option<BTreeMap<String, UsedScript>>, message: String },
    /// The newest saved sweep of the drill, if it has one.
    LastSweep(Option<Box<super::SweepView>>),
    /// The sweep `S` asked for, ready to start: its record (fresh, or the
    /// unfinished one of the same configuration) and its view.
    SweepReady { config: SweepConfig, record: sweep::Record, view: Box<super::SweepView> },
    /// The run a `b` run is compared with, read for the run saved in `run`
    /// (`series`: `None` when it could not be read: then it is not compared).
    Compared { run: PathBuf, series: Option<Series>, name: String, claims: Vec<ClaimResult> },
    /// Two marked runs compared: run A's view, run B's series (its overlay), the diff.
    Diffed { a: Box<RunRecord>, b_name: String, result: Result<Compared, String> },
    /// A run pinned or unpinned: what to tell the learner.
    Pinned(String),
}

/// A job under way.
pub(super) struct Job {
    pub kind: Kind,
    /// What is under way, for the status line ("exporting the charts to PNG…").
    pub what: String,
    rx: Receiver<Done>,
}

impl Job {
    /// Run `work` on a thread of its own.
    pub fn spawn(kind: Kind, what: String, work: impl FnOnce() -> Done + Send + 'static) -> Job {
        let (tx, rx) = mpsc::channel();
        // What it says (messages, log lines) is in the screen's language.
        let lang = crate::i18n::current();
        std::thread::spawn(move || {
            crate::i18n::set(lang);
            // The screen may be gone (or want another result) by now: nobody to tell.
            let _ = tx.send(work());
        });
        Job { kind, what, rx }
    }

    /// The result, once the job is done: `Empty` while it works,
    /// `Disconnected` when its thread died without one.
    pub fn try_take(&self) -> Result<Done, TryRecvError> {
        self.rx.try_recv()
    }

    /// Wait up to `limit` for the result (quitting: an export finishes writing).
    pub fn wait(&self, limit: std::time::Duration) -> Option<Done> {
        self.rx.recv_timeout(limit).ok()
    }
}
