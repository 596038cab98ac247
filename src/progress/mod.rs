//! Persistent learner state and review scheduling: what a learner answered,
//! how they rated it, and when each item comes back. No UI here:
//! the TUI screens and the headless commands call into these modules, and
//! every function that needs the time takes `now` as an argument.
//!
//! - [`grade`]: grading answers of each kind, parsing typed answers.
//! - [`schedule`]: the ✅/⚠️/❌ rating and the FSRS schedule it drives.
//! - [`store`]: the versioned `progress.json`, atomic writes, checked before each write, bad files moved aside.
//! - [`session`]: what to ask next (quiz selection, review queue, passes).
//! - [`summary`]: mastery, due counts, history, drills passed.
//! - [`study`]: each track's study path, what is next, a session's plan and tally.

pub mod grade;
pub mod schedule;
pub mod session;
pub mod store;
pub mod study;
pub mod summary;

pub use schedule::{Rating, Sched};
pub use store::{Progress, Store};
pub use summary::Summary;
