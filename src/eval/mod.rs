//! Evaluation helpers: the unbiased pass@k estimator, pass^k, and answer
//! extraction. Cheatsheet: `[sheet:2]`.

pub mod extract;
pub mod passk;

pub use extract::extract_answer;
pub use passk::{pass_at_k, pass_hat_k};
