//! Entropy of the next-token distribution from logits:
//! `H = −Σ_v p_v log p_v` with `p = softmax(z)`, in nats. A collapsing policy
//! shows entropy falling towards 0; the drills chart it.

use candle_core::{Result, Tensor, D};

/// `[.., V]` logits → `[..]` entropies.
pub fn entropy_from_logits(logits: &Tensor) -> Result<Tensor> {
    entropy_from_logprobs(&candle_nn::ops::log_softmax(logits, D::Minus1)?)
}

/// `[.., V]` log-probabilities (a log-softmax already computed) → `[..]` entropies.
pub fn entropy_from_logprobs(logp: &Tensor) -> Result<Tensor> {
    (logp.exp()? * logp)?.sum(D::Minus1)?.neg()
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn uniform_is_log_v_and_peaked_is_near_zero() {
        let z = Tensor::new(&[[0.0f32; 4], [50.0, 0.0, 0.0, 0.0]], &Device::Cpu).unwrap();
        let h = entropy_from_logits(&z).unwrap().to_vec1::<f32>().unwrap();
        assert!((h[0] - 4f32.ln()).abs() < 1e-6);
        assert!(h[1] < 1e-6);
    }
}
