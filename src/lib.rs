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
pub mod graduate;
pub mod i18n;
pub mod markdown;
pub mod ml;
pub mod numbers;
pub mod paths;
pub mod plot;
pub mod progress;
pub mod rl;
pub mod runner;
pub mod textsafe;
pub mod tui;

// candle allocates a fresh buffer for nearly every op; glibc maps and unmaps
// the large ones each time (page faults were a third of a training step).
// mimalloc keeps them. It also serves the tests, which train too.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Keep the pages mimalloc frees mapped instead of returning them to the OS
/// after 10 ms (its default). A training step frees and allocates the same
/// buffers again — the gradient store holds a few copies of every parameter —
/// and a returned page costs a page fault and zeroing when it comes back: at
/// config M that was 4–9 ms of a 270 ms step (`agentlab bench --profile`,
/// "backward: the rest"). The price: the process keeps its peak memory until
/// it exits. Called once at start-up and by every fused model (the tests).
pub fn tune_allocator() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // `mi_option_purge_delay` in mimalloc.h's `mi_option_t` (the same index in
    // the 2.x and 3.x headers; the crate names no constant for it): −1 never purges.
    const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    ONCE.call_once(|| {
        // SAFETY: setting an option is allowed at any time; it is read when pages are freed.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) }
    });
}
