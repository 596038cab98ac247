//! The GRPO objective (Shao et al., "DeepSeekMath", arXiv:2402.03300) and
//! its Dr. GRPO correction (Liu et al., "Understanding R1-Zero-Like
//! Training", arXiv:2503.20783), per token, as one function.
//!
//! For a prompt, G completions `o_1 … o_G` are sampled from the policy that
//! is about to be updated (`π_old`) and scored `r_1 … r_G` by a verifier. Each
//! completion gets one advantage for all of its tokens, from its group
//! ([`advantage`](super::advantage)):
//!
//! ```text
//! GRPO:      Â_i = (r_i − mean(r)) / (std(r) + ε)
//! Dr. GRPO:  Â_i =  r_i − mean(r)
//! ```
//!
//! Per token, the clipped surrogate of PPO minus a KL penalty to the frozen
//! reference, with the k3 estimator ([`kl`](super::kl)):
//!
//! ```text
//! ρ_{i,t} = π(o_{i,t}) / π_old(o_{i,t})
//! J_{i,t} = min(ρ Â_i, clip(ρ, 1−ε, 1+ε) Â_i) − β · k3(π, π_ref)_{i,t}
//! ```
//!
//! and the two ways of averaging them:
//!
//! ```text
//! GRPO:      J = (1/G) Σ_i (1/|o_i|) Σ_t J_{i,t}     (each completion weighs the same)
//! Dr. GRPO:  J = (1/(G·L)) Σ_i Σ_t J_{i,t}           (L a constant: each token weighs the same)
//! ```
//!
//! The `1/|o_i|` of GRPO gives a long completion's tokens less weight each,
//! so among wrong answers (Â < 0) the long ones are penalised less per token —
//! a pull towards longer wrong answers that Dr. GRPO removes, with the
//! division by the group std (which up-weights prompts that are nearly
//! always right or nearly always wrong). The loss is `−J`.

use candle_core::{Result, Tensor};
use serde::Deserialize;

use super::advantage::{group_advantages, GroupNorm};
use super::kl::kl_k3;
use super::pg::{aggregate, Aggregation};
use super::ppo::{clip_stats, clipped_surrogate};

/// Which GRPO (a drill parameter: `grpo`, `dr-grpo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GrpoVariant {
    /// Mean-std advantages, length-normalised per completion.
    Grpo,
    /// Mean-only advantages, a constant normaliser.
    DrGrpo,
}

impl GrpoVariant {
    pub fn norm(self) -> GroupNorm {
        match self {
            GrpoVariant::Grpo => GroupNorm::MeanStd,
            GrpoVariant::DrGrpo => GroupNorm::MeanOnly,
        }
    }

    /// The advantages of one group's rewards.
    pub fn advantages(self, rewards: &[f32]) -> Vec<f32> {
        group_advantages(rewards, self.norm())
    }
}

/// The loss to minimise and what to chart about it.
pub struct GrpoOut {
    pub loss: Tensor,
    /// Mean k3 estimate of KL(π ‖ π_ref) over completion tokens.
    pub kl: f64,
    /// Share of completion tokens where the clip was active.
    pub clip_ratio: f64,
}

/// `Σ_{i,t} m·v / (B·L)`: a masked sum over a constant, Dr. GRPO's normaliser.
pub fn constant_norm(values: &Tensor, mask: &Tensor, max_len: usize) -> Result<Tensor> {
    let b = values.dim(0)?;
    values.mul(mask)?.sum_all()? / (b * max_len.max(1)) as f64
}

/// The GRPO loss of a batch of completions. Every input is `[B,T]`: the
/// log-probs of the sampled tokens under the policy (with gradient), under
/// the sampling policy and the reference (without), each row's advantage
/// repeated over its tokens, and the mask of completion tokens. `max_len` is
/// Dr. GRPO's constant (the generation budget).
#[allow(clippy::too_many_arguments)]
pub fn grpo_loss(
    logp: &Tensor,
    old_logp: &Tensor,
    ref_logp: &Tensor,
    adv: &Tensor,
    mask: &Tensor,
    variant: GrpoVariant,
    eps: f64,
    beta: f64,
    max_len: usize,
) -> Result<GrpoOut> {
    let k3 = kl_k3(logp, ref_logp)?;
    let per_token = (clipped_surrogate(logp, old_logp, adv, eps)? - (&k3 * beta)?)?;
    let objective = match variant {
        GrpoVariant::Grpo => aggregate(&per_token, mask, Aggregation::SeqMean)?,
        GrpoVariant::DrGrpo => constant_norm(&per_token, mask, max_len)?,
    };
    let kl = aggregate(&k3.detach(), mask, Aggregation::TokenMean)?.to_scalar::<f32>()? as f64;
    let (clip_ratio, _) = clip_stats(logp, old_logp, adv, mask, eps)?;
    Ok(GrpoOut { loss: objective.neg()?, kl, clip_ratio })
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var};

    fn t(v: [[f32; 4]; 2]) -> Tensor {
        Tensor::new(&v, &Device::Cpu).unwrap()
    }

    /// Two completions, one of 1 token and one of 4, with advantages +1 and −1.
    fn setup() -> (Var, Tensor, Tensor) {
        let raw = [[-0.5f32, -9.0, -9.0, -9.0], [-0.2, -1.0, -0.3, -2.0]];
        let adv = t([[1.0; 4], [-1.0; 4]]);
        let mask = t([[1.0, 0.0, 0.0, 0.0], [1.0; 4]]);
        (Var::new(&raw, &Device::Cpu).unwrap(), adv, mask)
    }

    fn grads(variant: GrpoVariant) -> Vec<Vec<f32>> {
        let (lp, adv, mask) = setup();
        let same = lp.as_tensor().detach();
        let out = grpo_loss(lp.as_tensor(), &same, &same, &adv, &mask, variant, 0.2, 0.1, 4).unwrap();
        assert!(out.kl.abs() < 1e-9 && out.clip_ratio == 0.0);
        out.loss.backward().unwrap().get(lp.as_tensor()).unwrap().to_vec2().unwrap()
    }

    #[test]
    fn grpo_weighs_completions_and_dr_grpo_weighs_tokens() {
        // At π = π_old = π_ref the gradient of −J w.r.t. log π(o_t) is −Â_i · weight.
        let g = grads(GrpoVariant::Grpo);
        // GRPO: weight 1/(G·|o_i|): the short answer's token 1/2, each long-answer token 1/8.
        assert!((g[0][0] + 0.5).abs() < 1e-6, "{g:?}");
        for t in 0..4 {
            assert!((g[1][t] - 0.125).abs() < 1e-6, "{g:?}");
        }
        assert_eq!(&g[0][1..], &[0.0; 3], "padding gets no gradient");
        // Dr. GRPO: weight 1/(G·L) = 1/8 for every token.
        let d = grads(GrpoVariant::DrGrpo);
        assert!((d[0][0] + 0.125).abs() < 1e-6 && d[1].iter().all(|x| (x - 0.125).abs() < 1e-6), "{d:?}");
    }

    #[test]
    fn the_kl_term_pulls_back_to_the_reference() {
        let (lp, adv, mask) = setup();
        let zero = (&adv * 0.0).unwrap();
        // The policy put more mass than the reference on the sampled tokens.
        let reference = (lp.as_tensor().detach() - 0.5).unwrap();
        let old = lp.as_tensor().detach();
        let out = grpo_loss(lp.as_tensor(), &old, &reference, &zero, &mask, GrpoVariant::DrGrpo, 0.2, 1.0, 4).unwrap();
        // k3 at x = −0.5: e^{−0.5} − 1 + 0.5.
        let k3 = (-0.5f64).exp() - 0.5;
        assert!((out.kl - k3).abs() < 1e-5, "{}", out.kl);
        let g = out.loss.backward().unwrap().get(lp.as_tensor()).unwrap().to_vec2::<f32>().unwrap();
        // d k3 / d logp = 1 − e^{x} > 0: descending the loss lowers log π towards the reference.
        assert!(g[1].iter().all(|x| *x > 0.0), "{g:?}");
    }

    #[test]
    fn variants_use_their_group_norm() {
        let r = [1.0f32, 0.0, 0.0, 0.0];
        assert!((GrpoVariant::Grpo.advantages(&r)[0] - 3f32.sqrt()).abs() < 1e-4);
        assert!((GrpoVariant::DrGrpo.advantages(&r)[0] - 0.75).abs() < 1e-6);
    }
}
