//! agentlab: a terminal learning lab for LLM agent post-training.
//!
//! The library holds everything; `src/main.rs` is a thin CLI over it.
//! Boundaries: `rl`, `continual`, `ml` and `eval` are pure and know nothing
//! of the UI (they could be used from another program); `drills` run
//! training and emit events; `runner` runs a drill on a thread and saves its
//! events; the TUI and the headless CLI only consume those events. Content
//! (cheatsheets, quizzes, drill metadata) is parsed and validated in
//! `content`, learner state lives in `progress`.

pub mod bench;
pub mod cli;
pub mod content;
pub mod continual;
pub mod doctor;
pub mod drills;
pub mod envs;
pub mod eval;
pub mod exercises;
pub mod fsutil;
pub mod markdown;
pub mod ml;
pub mod numbers;
pub mod paths;
pub mod plot;
pub mod progress;
pub mod rl;
pub mod runner;
pub mod tui;

// candle allocates a fresh buffer for nearly every op; glibc maps and unmaps
// the large ones each time (page faults were a third of a training step).
// mimalloc keeps them. It also serves the tests, which train too.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
