//! Entropy of the next-token distribution from logits:
//! `H = −Σ_v p_v log p_v` with `p = softmax(z)`, in nats. A collapsing policy
//! shows entropy falling towards 0; the drills chart it. Computed in the
//! lower layer, `ml::loss`, which the language models use too.

pub use crate::ml::loss::{entropy_from_logits, entropy_from_logprobs};
