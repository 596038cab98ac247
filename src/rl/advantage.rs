//! Advantages from a *group* of samples for the same prompt — no critic.
//!
//! GRPO (Shao et al., arXiv:2402.03300) normalises each reward by its group:
//!
//! ```text
//! Â_i = (r_i − mean(r)) / (std(r) + ε)        (MeanStd; std over the group, ddof 0)
//! Â_i =  r_i − mean(r)                          (MeanOnly: Dr. GRPO, arXiv:2503.20783)
//! ```
//!
//! RLOO (arXiv:2402.14740) uses the mean of the *other* samples as baseline:
//! `Â_i = r_i − (Σ_{j≠i} r_j)/(G − 1)`, which equals `G/(G−1)·(r_i − mean)`.
//!
//! A group whose rewards are all equal (all right, or all wrong) gives zero
//! advantage everywhere: it teaches nothing, which is why drills chart the
//! fraction of zero-std groups. A group of one gives zero too.
//!
//! Note on conventions: TRL divides by the sample std (ddof 1), which scales a
//! group of G by √((G−1)/G) relative to ddof 0; the direction of every
//! update is the same.
//!
//! ```
//! use agentlab::rl::{group_advantages, rloo_advantages, GroupNorm};
//! let a = group_advantages(&[1.0, 0.0, 0.0, 1.0], GroupNorm::MeanStd);
//! assert!((a[0] - 1.0).abs() < 1e-4 && (a[1] + 1.0).abs() < 1e-4);
//! assert_eq!(rloo_advantages(&[1.0, 2.0, 3.0]), vec![-1.5, 0.0, 1.5]);
//! ```

/// Added to the std so that a near-constant group does not explode.
pub const STD_EPS: f32 = 1e-6;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupNorm {
    /// GRPO: subtract the group mean, divide by the group std.
    MeanStd,
    /// Dr. GRPO: subtract the mean only (no per-group rescaling of hard or easy prompts).
    MeanOnly,
}

/// Which baseline a policy-gradient drill uses (a drill parameter, spelt as
/// in `drill.toml`: `grpo`, `dr-grpo`, `rloo`, `reinforce`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Baseline {
    /// Plain REINFORCE: the advantage is the return itself.
    Reinforce,
    /// GRPO: group mean and std.
    Grpo,
    /// Dr. GRPO: group mean only.
    DrGrpo,
    /// Leave-one-out mean of the group.
    Rloo,
}

impl Baseline {
    /// Advantages of a group: `Â_i = (r_i − b_i) / s`.
    pub fn advantages(self, rewards: &[f32]) -> Vec<f32> {
        match self {
            Baseline::Reinforce => rewards.to_vec(),
            Baseline::Grpo => group_advantages(rewards, GroupNorm::MeanStd),
            Baseline::DrGrpo => group_advantages(rewards, GroupNorm::MeanOnly),
            Baseline::Rloo => rloo_advantages(rewards),
        }
    }

    /// The same rule as a per-sample baseline `b_i` and a common scale `s`, so
    /// that other returns of the same episode (a later turn's return-to-go)
    /// can be measured against it: `Â = (G − b_i) / s`.
    pub fn baseline_and_scale(self, rewards: &[f32]) -> (Vec<f32>, f32) {
        let g = rewards.len();
        if g < 2 && self != Baseline::Reinforce {
            return (rewards.to_vec(), 1.0);
        }
        match self {
            Baseline::Reinforce => (vec![0.0; g], 1.0),
            Baseline::DrGrpo => (vec![mean_std(rewards).0; g], 1.0),
            Baseline::Grpo => {
                let (mu, sd) = mean_std(rewards);
                (vec![mu; g], sd + STD_EPS)
            }
            Baseline::Rloo => {
                let total: f32 = rewards.iter().sum();
                (rewards.iter().map(|r| (total - r) / (g - 1) as f32).collect(), 1.0)
            }
        }
    }
}

/// Mean and population standard deviation (ddof 0).
pub fn mean_std(xs: &[f32]) -> (f32, f32) {
    let mu = xs.iter().sum::<f32>() / xs.len().max(1) as f32;
    let var = xs.iter().map(|r| (r - mu).powi(2)).sum::<f32>() / xs.len().max(1) as f32;
    (mu, var.sqrt())
}

pub fn group_advantages(rewards: &[f32], norm: GroupNorm) -> Vec<f32> {
    if rewards.len() < 2 {
        return vec![0.0; rewards.len()];
    }
    let (mu, sd) = mean_std(rewards);
    match norm {
        GroupNorm::MeanOnly => rewards.iter().map(|r| r - mu).collect(),
        GroupNorm::MeanStd => rewards.iter().map(|r| (r - mu) / (sd + STD_EPS)).collect(),
    }
}

pub fn rloo_advantages(rewards: &[f32]) -> Vec<f32> {
    let g = rewards.len();
    if g < 2 {
        return vec![0.0; g];
    }
    let total: f32 = rewards.iter().sum();
    rewards.iter().map(|r| r - (total - r) / (g - 1) as f32).collect()
}

/// How informative the groups of one RL step were.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupSpread {
    /// Mean over groups of the std of the episodes' totals.
    pub mean_std: f64,
    /// Share of groups whose totals all agree (std < 1e-6).
    pub zero_std_share: f64,
}

/// Per-turn advantages of multi-turn episodes, group by group (`group`
/// consecutive episodes per question): each turn's return `returns[i][t]`
/// (its return-to-go, or the episode total) measured against the baseline
/// the group gives the episodes' totals `returns[i][0]` (0 for an empty
/// episode): `Â_t = (G_t − b_i) / s`.
pub fn turn_advantages(returns: &[Vec<f32>], group: usize, baseline: Baseline) -> (Vec<Vec<f32>>, GroupSpread) {
    let mut adv = Vec::with_capacity(returns.len());
    let (mut zero_std, mut stds) = (0usize, Vec::new());
    for g in returns.chunks(group) {
        let totals: Vec<f32> = g.iter().map(|r| r.first().copied().unwrap_or(0.0)).collect();
        let (_, sd) = mean_std(&totals);
        stds.push(sd as f64);
        zero_std += usize::from(sd < 1e-6);
        // A group whose episodes all score the same carries no signal for a
        // group baseline: every advantage in it is zero. (Without this, GRPO's
        // division by a std of ~0 would blow up float noise and the later
        // turns' returns-to-go.)
        let silent = sd < 1e-4 && baseline != Baseline::Reinforce;
        let (base, scale) = baseline.baseline_and_scale(&totals);
        for (r, b_i) in g.iter().zip(&base) {
            adv.push(r.iter().map(|g_t| if silent { 0.0 } else { (g_t - b_i) / scale }).collect());
        }
    }
    let groups = stds.len().max(1) as f64;
    let spread = GroupSpread { mean_std: stds.iter().sum::<f64>() / groups, zero_std_share: zero_std as f64 / groups };
    (adv, spread)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_of_one_and_constant_group_give_zero() {
        assert_eq!(group_advantages(&[0.7], GroupNorm::MeanStd), vec![0.0]);
        assert_eq!(group_advantages(&[1.0, 1.0, 1.0], GroupNorm::MeanStd), vec![0.0; 3]);
        assert_eq!(group_advantages(&[0.2; 4], GroupNorm::MeanOnly), vec![0.0; 4]);
        assert_eq!(rloo_advantages(&[5.0]), vec![0.0]);
    }

    #[test]
    fn zero_mean_unit_std_and_rank_order_preserved() {
        let r = [0.3f32, 2.0, -1.0, 0.9, 0.0, 1.5];
        let a = group_advantages(&r, GroupNorm::MeanStd);
        let m: f32 = a.iter().sum::<f32>() / a.len() as f32;
        let sd = (a.iter().map(|x| (x - m).powi(2)).sum::<f32>() / a.len() as f32).sqrt();
        assert!(m.abs() < 1e-5 && (sd - 1.0).abs() < 1e-4);
        for i in 0..r.len() {
            for j in 0..r.len() {
                assert_eq!(r[i] < r[j], a[i] < a[j], "order of {i},{j}");
            }
        }
    }

    #[test]
    fn baseline_and_scale_reproduce_the_advantages() {
        let r = [0.9f32, 1.1, -0.2, 1.1, 0.3];
        for b in [Baseline::Reinforce, Baseline::Grpo, Baseline::DrGrpo, Baseline::Rloo] {
            let (base, s) = b.baseline_and_scale(&r);
            let via: Vec<f32> = r.iter().zip(&base).map(|(x, bi)| (x - bi) / s).collect();
            for (a, c) in via.iter().zip(b.advantages(&r)) {
                assert!((a - c).abs() < 1e-5, "{b:?}");
            }
        }
    }

    #[test]
    fn rloo_is_scaled_mean_baseline() {
        assert_eq!(rloo_advantages(&[1.0, 2.0, 3.0]), vec![-1.5, 0.0, 1.5]);
        let r = [0.0f32, 1.0, 1.0, 0.0, 1.0];
        let mo = group_advantages(&r, GroupNorm::MeanOnly);
        for (a, b) in rloo_advantages(&r).iter().zip(mo) {
            assert!((a - b * 5.0 / 4.0).abs() < 1e-6);
        }
    }

    #[test]
    fn turn_advantages_measure_every_turn_against_the_group_total() {
        // Group 1: totals 1.0 and 0.0, mean 0.5 (Dr. GRPO); group 2 agrees: silent.
        let returns = vec![vec![1.0, 0.5], vec![0.0], vec![1.0], vec![1.0]];
        let (adv, spread) = turn_advantages(&returns, 2, Baseline::DrGrpo);
        assert_eq!(adv, vec![vec![0.5, 0.0], vec![-0.5], vec![0.0], vec![0.0]]);
        assert_eq!(spread, GroupSpread { mean_std: 0.25, zero_std_share: 0.5 });
        // REINFORCE has no group baseline: a silent group still gets its returns.
        assert_eq!(turn_advantages(&returns, 2, Baseline::Reinforce).0[2], vec![1.0]);
    }
}
