//! Evaluation helpers: the unbiased pass@k estimator, pass^k, the plug-in and
//! a Monte-Carlo check to compare them with, bootstrap intervals over
//! problems, answer extraction, and a model's batched episodes in the ReAct
//! loop ([`react_loop`]) and in the QA world ([`qa_loop`]). Cheatsheet: `[sheet:2]`.

pub mod bootstrap;
pub mod extract;
pub mod passk;
pub mod qa_loop;
pub mod react_loop;
pub mod retrieval;

pub use bootstrap::{Bootstrap, Interval};
pub use extract::{extract_answer, Extractor};
pub use passk::{
    monte_carlo_by_k, pass_at_k, pass_at_k_monte_carlo, pass_at_k_naive, pass_hat_k, Counts, Draw, EstimatorGaps,
};

/// A model, its tokenizer and its format: what an agent loop needs to let it act.
#[derive(Clone, Copy)]
pub struct Lm<'a> {
    pub model: &'a dyn crate::ml::lm::CausalLm,
    pub tok: &'a crate::ml::tokenizer::Bpe,
    pub fmt: &'a crate::envs::format::Format,
}
