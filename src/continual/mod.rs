//! Continual-learning primitives: the diagonal Fisher, the EWC penalty (and
//! its online form), replay buffers, and the accuracy-matrix metrics.
//! Cheatsheet: `[sheet:5]`.

pub mod ewc;
pub mod fisher;
pub mod metrics;
pub mod replay;

pub use ewc::{ewc_penalty, Ewc, OnlineEwc};
pub use fisher::{diagonal_fisher, Fisher};
pub use metrics::AccuracyMatrix;
pub use replay::{Reservoir, RingBuffer};
