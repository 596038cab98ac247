//! Continual-learning primitives: the diagonal Fisher, the EWC penalty (and
//! its online form), replay buffers, model merging (and a GPT's weights as
//! one flat vector), the accuracy-matrix metrics, and the
//! keep-best bookkeeping of a self-refinement loop.
//! Cheatsheet: `[sheet:5]`.

pub mod ewc;
pub mod fisher;
pub mod gpt_weights;
pub mod keep_best;
pub mod merge;
pub mod metrics;
pub mod replay;

pub use ewc::{ewc_penalty, Ewc, OnlineEwc};
pub use fisher::{diagonal_fisher, true_fisher_probe, Fisher};
pub use keep_best::KeepBest;
pub use metrics::AccuracyMatrix;
pub use replay::{ReplayBuffer, Reservoir, RingBuffer};
