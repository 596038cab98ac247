//! Reinforcement-learning primitives, written to be read.
//!
//! Pure functions over plain slices (per-trajectory quantities) or candle
//! tensors (per-token losses that need gradients). The drills call these; the
//! cheatsheets of tracks 0 and 3 point here; the quizzes' numeric answers are
//! recomputed from them by a test.

pub mod advantage;
pub mod dpo;
pub mod entropy;
pub mod gae;
pub mod grpo;
pub mod info_nce;
pub mod kl;
pub mod pg;
pub mod ppo;
pub mod returns;
pub mod reward_model;
pub mod rollout;
pub mod sequences;
pub mod token_batch;

pub use advantage::{group_advantages, rloo_advantages, GroupNorm};
pub use pg::{masked_pg_loss, Aggregation};
pub use returns::discounted_returns;
