//! Estimators of KL(π ‖ π_ref) from tokens sampled from π (Schulman,
//! "Approximating KL divergence", 2020). With `x = log π_ref(a) − log π(a)`:
//!
//! ```text
//! k1 = −x                  unbiased, high variance, can be negative
//! k2 = x² / 2              biased, low variance, ≥ 0
//! k3 = (eˣ − 1) − x        unbiased, low variance, ≥ 0   (GRPO's KL term)
//! ```
//!
//! [`kl_exact`] needs no estimator: with the whole next-token distributions of
//! both models at a position it sums `Σ_v π(v) (log π(v) − log π_ref(v))`.
//!
//! The estimators take per-token log-probs `[B,T]` and return per-token estimates;
//! `pg::aggregate(&kl, &mask, agg)` takes their masked mean (it applies the
//! mask itself).

use candle_core::{Result, Tensor, D};

pub fn kl_k1(logp: &Tensor, ref_logp: &Tensor) -> Result<Tensor> {
    logp - ref_logp
}

pub fn kl_k2(logp: &Tensor, ref_logp: &Tensor) -> Result<Tensor> {
    (ref_logp - logp)?.sqr()? * 0.5
}

pub fn kl_k3(logp: &Tensor, ref_logp: &Tensor) -> Result<Tensor> {
    let x = (ref_logp - logp)?;
    (x.exp()? - 1.0)? - x
}

/// Exact KL(π ‖ π_ref) of the next-token distributions, `[.., V]` logits of
/// each model → `[..]` (nats). Summed over a response's positions along
/// samples of π, it is a low-variance estimate of the sequence-level KL.
pub fn kl_exact(logits: &Tensor, ref_logits: &Tensor) -> Result<Tensor> {
    let lp = candle_nn::ops::log_softmax(logits, D::Minus1)?;
    let lq = candle_nn::ops::log_softmax(ref_logits, D::Minus1)?;
    (lp.exp()? * (&lp - lq)?)?.sum(D::Minus1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn estimators_average_to_the_true_kl() {
        // π = [0.5, 0.3, 0.2], π_ref = [0.2, 0.5, 0.3]; exact KL(π‖π_ref) = Σ π log(π/π_ref).
        let p = [0.5f64, 0.3, 0.2];
        let q = [0.2f64, 0.5, 0.3];
        let exact: f64 = (0..3).map(|i| p[i] * (p[i] / q[i]).ln()).sum();
        let lp = Tensor::new(&[p[0].ln() as f32, p[1].ln() as f32, p[2].ln() as f32], &Device::Cpu).unwrap();
        let lq = Tensor::new(&[q[0].ln() as f32, q[1].ln() as f32, q[2].ln() as f32], &Device::Cpu).unwrap();
        // Expectation under π, computed exactly by weighting each outcome.
        let expect = |t: Tensor| -> f64 { t.to_vec1::<f32>().unwrap().iter().zip(p).map(|(v, w)| *v as f64 * w).sum() };
        assert!((expect(kl_k1(&lp, &lq).unwrap()) - exact).abs() < 1e-6);
        assert!((expect(kl_k3(&lp, &lq).unwrap()) - exact).abs() < 1e-6);
        let k3: Vec<f32> = kl_k3(&lp, &lq).unwrap().to_vec1().unwrap();
        assert!(k3.iter().all(|v| *v >= 0.0));
        let k1: Vec<f32> = kl_k1(&lp, &lq).unwrap().to_vec1().unwrap();
        assert!(k1.iter().any(|v| *v < 0.0), "k1 can be negative per sample");
        assert!(kl_k2(&lp, &lp).unwrap().to_vec1::<f32>().unwrap().iter().all(|v| *v == 0.0));
    }

    #[test]
    fn exact_kl_matches_the_sum() {
        let p = [0.5f64, 0.3, 0.2];
        let q = [0.2f64, 0.5, 0.3];
        let exact: f64 = (0..3).map(|i| p[i] * (p[i] / q[i]).ln()).sum();
        // Logits up to a constant: log-probs plus 7 and minus 2.
        let zp = Tensor::new(&[[p[0].ln() as f32 + 7.0, p[1].ln() as f32 + 7.0, p[2].ln() as f32 + 7.0]], &Device::Cpu);
        let zq = Tensor::new(&[[q[0].ln() as f32 - 2.0, q[1].ln() as f32 - 2.0, q[2].ln() as f32 - 2.0]], &Device::Cpu);
        let k = kl_exact(&zp.unwrap(), &zq.unwrap()).unwrap().to_vec1::<f32>().unwrap();
        assert!((k[0] as f64 - exact).abs() < 1e-6, "{k:?} vs {exact}");
        let z = Tensor::new(&[[1.0f32, -3.0, 0.5]], &Device::Cpu).unwrap();
        assert!(kl_exact(&z, &z).unwrap().to_vec1::<f32>().unwrap()[0].abs() < 1e-7);
    }
}
