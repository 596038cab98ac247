//! PPO's clipped surrogate (Schulman et al., arXiv:1707.06347), per token.
//!
//! ```text
//! ρ = π(a|s) / π_old(a|s) = exp(logp − old_logp)
//! L = − mean_m  min( ρ Â,  clip(ρ, 1−ε, 1+ε) Â )
//! ```
//!
//! The clip removes the incentive to move ρ beyond 1±ε in the direction the
//! advantage favours; the `min` keeps the pessimistic bound. Diagnostics:
//! `clip_frac`, the share of agent tokens where clipping was active, and
//! `approx_kl`, the k3 estimate of KL(π_old ‖ π) from the same tokens. When π
//! equals π_old, ρ = 1 everywhere: clip fraction 0, approx KL 0, and the loss
//! equals the plain policy-gradient loss.

use candle_core::{Result, Tensor};

use super::pg::{aggregate, Aggregation};

pub struct PpoLoss {
    pub loss: Tensor,
    pub clip_frac: f64,
    pub approx_kl: f64,
}

pub fn ppo_clip_loss(
    logp: &Tensor,
    old_logp: &Tensor,
    adv: &Tensor,
    mask: &Tensor,
    eps: f64,
    agg: Aggregation,
) -> Result<PpoLoss> {
    let objective = clipped_surrogate(logp, old_logp, adv, eps)?;
    let loss = aggregate(&objective, mask, agg)?.neg()?;
    let (clip_frac, approx_kl) = clip_stats(logp, old_logp, adv, mask, eps)?;
    Ok(PpoLoss { loss, clip_frac, approx_kl })
}

/// Diagnostics of a clipped update, no gradient: the share of masked-in
/// tokens where the clip is active, and the k3 estimate of KL(π_old ‖ π).
pub fn clip_stats(logp: &Tensor, old_logp: &Tensor, adv: &Tensor, mask: &Tensor, eps: f64) -> Result<(f64, f64)> {
    let log_ratio = (logp - old_logp)?;
    let ratio = log_ratio.exp()?;
    let r: Vec<f32> = ratio.flatten_all()?.to_vec1()?;
    let a: Vec<f32> = adv.flatten_all()?.to_vec1()?;
    let m: Vec<f32> = mask.flatten_all()?.to_vec1()?;
    let lr: Vec<f32> = log_ratio.flatten_all()?.to_vec1()?;
    let (mut clipped, mut kl, mut n) = (0.0, 0.0, 0.0);
    for i in 0..r.len() {
        if m[i] == 0.0 {
            continue;
        }
        n += 1.0;
        let hi = r[i] as f64 > 1.0 + eps && a[i] > 0.0;
        let lo = (r[i] as f64) < 1.0 - eps && a[i] < 0.0;
        if hi || lo {
            clipped += 1.0;
        }
        // k3 with samples from π_old: (ρ − 1) − log ρ ≥ 0.
        kl += (r[i] as f64 - 1.0) - lr[i] as f64;
    }
    let n = f64::max(n, 1.0);
    Ok((clipped / n, kl / n))
}

/// The clipped objective per token, `min(ρÂ, clip(ρ, 1−ε, 1+ε)Â)` `[B,T]`,
/// before any masking or averaging (GRPO and Dr. GRPO average it differently).
pub fn clipped_surrogate(logp: &Tensor, old_logp: &Tensor, adv: &Tensor, eps: f64) -> Result<Tensor> {
    let ratio = (logp - old_logp)?.exp()?;
    let surr1 = (&ratio * adv)?;
    let surr2 = (ratio.clamp(1.0 - eps, 1.0 + eps)? * adv)?;
    surr1.minimum(&surr2)
}

/// The clipped objective for one token, as a number (used by the quizzes).
pub fn clip_objective(ratio: f64, advantage: f64, eps: f64) -> f64 {
    let clipped = ratio.clamp(1.0 - eps, 1.0 + eps);
    (ratio * advantage).min(clipped * advantage)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rl::masked_pg_loss;
    use candle_core::Device;

    #[test]
    fn identical_policies_clip_nothing_and_give_the_plain_pg_gradient() {
        let d = Device::Cpu;
        let raw = [[-0.5f32, -1.0, -0.2], [-2.0, -0.1, -0.7]];
        let adv = Tensor::new(&[[1.0f32, 1.0, 1.0], [-2.0, -2.0, -2.0]], &d).unwrap();
        let mask = Tensor::new(&[[1.0f32, 1.0, 0.0], [1.0, 1.0, 1.0]], &d).unwrap();
        let lp = candle_core::Var::new(&raw, &d).unwrap();
        let old = Tensor::new(&raw, &d).unwrap();
        let out = ppo_clip_loss(lp.as_tensor(), &old, &adv, &mask, 0.2, Aggregation::TokenMean).unwrap();
        assert_eq!(out.clip_frac, 0.0);
        assert!(out.approx_kl.abs() < 1e-9);
        // At ρ = 1, ∇ρÂ = Â∇log π: the same gradient as the plain masked PG loss.
        let g_ppo = out.loss.backward().unwrap().get(lp.as_tensor()).unwrap().to_vec2::<f32>().unwrap();
        let pg = masked_pg_loss(lp.as_tensor(), &adv, &mask, Aggregation::TokenMean).unwrap();
        let g_pg = pg.backward().unwrap().get(lp.as_tensor()).unwrap().to_vec2::<f32>().unwrap();
        for (a, b) in g_ppo.iter().flatten().zip(g_pg.iter().flatten()) {
            assert!((a - b).abs() < 1e-6, "{g_ppo:?} vs {g_pg:?}");
        }
    }

    #[test]
    fn clipping_cases() {
        // Positive advantage: gains stop at 1+ε.
        assert!((clip_objective(1.5, 2.0, 0.2) - 2.4).abs() < 1e-12);
        assert!((clip_objective(0.5, 2.0, 0.2) - 1.0).abs() < 1e-12); // pessimistic: unclipped is lower
                                                                      // Negative advantage: the penalty is not capped when ρ grows.
        assert!((clip_objective(1.5, -1.0, 0.2) + 1.5).abs() < 1e-12);
        assert!((clip_objective(0.5, -1.0, 0.2) + 0.8).abs() < 1e-12);
    }

    #[test]
    fn clip_fraction_counts_active_clips() {
        let d = Device::Cpu;
        let old = Tensor::new(&[[0.0f32, 0.0, 0.0, 0.0]], &d).unwrap();
        let new = Tensor::new(&[[0.5f32, -0.5, 0.05, 0.5]], &d).unwrap(); // ρ ≈ 1.65, 0.61, 1.05, 1.65
        let adv = Tensor::new(&[[1.0f32, -1.0, 1.0, -1.0]], &d).unwrap();
        let mask = Tensor::new(&[[1.0f32, 1.0, 1.0, 1.0]], &d).unwrap();
        let out = ppo_clip_loss(&new, &old, &adv, &mask, 0.2, Aggregation::TokenMean).unwrap();
        assert!((out.clip_frac - 0.5).abs() < 1e-9, "{}", out.clip_frac);
        assert!(out.approx_kl > 0.0);
    }
}
