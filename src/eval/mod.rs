//! Evaluation helpers: the unbiased pass@k estimator, pass^k, the plug-in and
//! a Monte-Carlo check to compare them with, bootstrap intervals over
//! problems, and answer extraction. Cheatsheet: `[sheet:2]`.

pub mod bootstrap;
pub mod extract;
pub mod passk;

pub use bootstrap::{Bootstrap, Interval};
pub use extract::{extract_answer, Extractor};
pub use passk::{
    monte_carlo_by_k, pass_at_k, pass_at_k_monte_carlo, pass_at_k_naive, pass_hat_k, Counts, Draw, EstimatorGaps,
};
