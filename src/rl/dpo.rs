//! Direct preference optimisation (Rafailov et al., arXiv:2305.18290).
//!
//! The KL-regularised objective `max E[r] − β KL(π ‖ π_ref)` has the optimum
//! `π*(y|x) ∝ π_ref(y|x) exp(r(x,y)/β)`, so `r = β log π*/π_ref + const`.
//! Plugging that implicit reward into Bradley–Terry gives, per pair:
//!
//! ```text
//! h = β [ (log π(y_w) − log π_ref(y_w)) − (log π(y_l) − log π_ref(y_l)) ]
//! L_DPO = −log σ(h)                  L_IPO = (h/β − 1/(2β))²
//! ```
//!
//! Inputs are *sequence* log-probs (sums over the response tokens) `[B]`.
//! Implicit rewards `β(log π − log π_ref)` for chosen and rejected are
//! reported, with the accuracy (chosen > rejected). When the policy equals the
//! reference, h = 0 and the DPO loss is ln 2 ≈ 0.693.

use candle_core::{Result, Tensor, D};

use crate::ml::rng::Rng;

/// The preference loss (a drill parameter: `sigmoid`, `ipo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DpoVariant {
    /// DPO: `−log σ(h)`.
    Sigmoid,
    /// IPO (Azar et al., arXiv:2310.12036): `(h/β − 1/(2β))²`, a squared loss
    /// to a finite target margin that does not push the margin to ∞.
    Ipo,
}

pub struct DpoOut {
    pub loss: Tensor,
    pub chosen_reward: Vec<f32>,
    pub rejected_reward: Vec<f32>,
    pub accuracy: f64,
}

impl DpoOut {
    /// Per pair, the implicit-reward margin `h = r̂_w − r̂_l` (β already in it).
    pub fn margins(&self) -> Vec<f32> {
        self.chosen_reward.iter().zip(&self.rejected_reward).map(|(c, r)| c - r).collect()
    }
}

/// The weight of a pair in the DPO gradient, `σ(−h)`: about ½ for a pair the
/// implicit rewards do not yet order, near 0 for one they order by a wide
/// margin, near 1 for one they order the wrong way.
pub fn grad_weight(margin: f64) -> f64 {
    1.0 / (1.0 + margin.exp())
}

/// Sequence log-probs `[B]`: the sum of the per-token log-probs `[B,T]` over
/// the response tokens (`mask` 1 there, 0 on prompt and padding).
pub fn sequence_logps(token_logp: &Tensor, mask: &Tensor) -> Result<Tensor> {
    (token_logp * mask)?.sum(D::Minus1)
}

/// What the verifier's verdicts on one prompt's samples give DPO.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairPick {
    /// Indices of a right sample (chosen) and a wrong one (rejected).
    Pair { chosen: usize, rejected: usize },
    /// Every sample right: no preference to learn, the prompt is dropped.
    AllRight,
    /// Every sample wrong: no preference either.
    AllWrong,
}

/// One preference pair from a group of samples judged right or wrong: a
/// right one chosen at random against a wrong one chosen at random.
pub fn pick_pair(correct: &[bool], rng: &mut Rng) -> PairPick {
    let right: Vec<usize> = (0..correct.len()).filter(|&i| correct[i]).collect();
    let wrong: Vec<usize> = (0..correct.len()).filter(|&i| !correct[i]).collect();
    match (right.is_empty(), wrong.is_empty()) {
        (false, false) => PairPick::Pair { chosen: *rng.choose(&right), rejected: *rng.choose(&wrong) },
        (false, true) => PairPick::AllRight,
        _ => PairPick::AllWrong,
    }
}

/// `−log σ(x)` computed stably: `max(−x, 0) + log(1 + e^{−|x|})`.
pub fn neg_log_sigmoid(x: &Tensor) -> Result<Tensor> {
    let pos = x.neg()?.relu()?;
    pos + ((x.abs()?.neg()?.exp()? + 1.0)?.log()?)
}

pub fn dpo_loss(
    policy_chosen: &Tensor,
    policy_rejected: &Tensor,
    ref_chosen: &Tensor,
    ref_rejected: &Tensor,
    beta: f64,
    variant: DpoVariant,
) -> Result<DpoOut> {
    let chosen_ratio = (policy_chosen - ref_chosen)?;
    let rejected_ratio = (policy_rejected - ref_rejected)?;
    let margin = (&chosen_ratio - &rejected_ratio)?; // h / β
    let loss = match variant {
        DpoVariant::Sigmoid => neg_log_sigmoid(&(&margin * beta)?)?.mean_all()?,
        DpoVariant::Ipo => (margin - 1.0 / (2.0 * beta))?.sqr()?.mean_all()?,
    };
    let chosen_reward: Vec<f32> = (chosen_ratio * beta)?.to_vec1()?;
    let rejected_reward: Vec<f32> = (rejected_ratio * beta)?.to_vec1()?;
    let wins = chosen_reward.iter().zip(&rejected_reward).filter(|(c, r)| c > r).count();
    let accuracy = wins as f64 / chosen_reward.len().max(1) as f64;
    Ok(DpoOut { loss, chosen_reward, rejected_reward, accuracy })
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    fn t(v: &[f32]) -> Tensor {
        Tensor::new(v, &Device::Cpu).unwrap()
    }

    #[test]
    fn equal_log_ratios_give_ln2() {
        let out = dpo_loss(
            &t(&[-5.0, -3.0]),
            &t(&[-6.0, -2.0]),
            &t(&[-5.0, -3.0]),
            &t(&[-6.0, -2.0]),
            0.1,
            DpoVariant::Sigmoid,
        )
        .unwrap();
        assert!((out.loss.to_scalar::<f32>().unwrap() - std::f32::consts::LN_2).abs() < 1e-6);
        assert_eq!(out.accuracy, 0.0);
    }

    #[test]
    fn matches_a_hand_computed_pair() {
        // β=0.5, chosen ratio +1, rejected ratio −1 → h = 1 → −log σ(1) = 0.31326.
        let out = dpo_loss(&t(&[-4.0]), &t(&[-7.0]), &t(&[-5.0]), &t(&[-6.0]), 0.5, DpoVariant::Sigmoid).unwrap();
        assert!((out.loss.to_scalar::<f32>().unwrap() - 0.313_261_7).abs() < 1e-5);
        assert_eq!(out.accuracy, 1.0);
        assert!((out.chosen_reward[0] - 0.5).abs() < 1e-6 && (out.rejected_reward[0] + 0.5).abs() < 1e-6);
        // IPO: (2 − 1/(2·0.5))² = 1.
        let ipo = dpo_loss(&t(&[-4.0]), &t(&[-7.0]), &t(&[-5.0]), &t(&[-6.0]), 0.5, DpoVariant::Ipo).unwrap();
        assert!((ipo.loss.to_scalar::<f32>().unwrap() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn margins_and_gradient_weights() {
        let out = dpo_loss(&t(&[-12.0]), &t(&[-15.0]), &t(&[-13.0]), &t(&[-14.0]), 0.1, DpoVariant::Sigmoid).unwrap();
        assert!((out.margins()[0] - 0.2).abs() < 1e-6);
        assert!((grad_weight(0.2) - 0.450_166).abs() < 1e-5);
        assert!((grad_weight(0.0) - 0.5).abs() < 1e-12 && grad_weight(20.0) < 1e-8 && grad_weight(-20.0) > 0.999);
    }

    #[test]
    fn sequence_logps_sum_the_response_only() {
        let lp = Tensor::new(&[[-1.0f32, -2.0, -3.0], [-0.5, -0.5, -9.0]], &Device::Cpu).unwrap();
        let m = Tensor::new(&[[0.0f32, 1.0, 1.0], [1.0, 1.0, 0.0]], &Device::Cpu).unwrap();
        assert_eq!(sequence_logps(&lp, &m).unwrap().to_vec1::<f32>().unwrap(), vec![-5.0, -1.0]);
    }

    #[test]
    fn pairs_need_a_right_and_a_wrong_sample() {
        let mut rng = Rng::new(3);
        assert_eq!(pick_pair(&[true, true], &mut rng), PairPick::AllRight);
        assert_eq!(pick_pair(&[false, false, false], &mut rng), PairPick::AllWrong);
        assert_eq!(pick_pair(&[], &mut rng), PairPick::AllWrong);
        for _ in 0..20 {
            match pick_pair(&[false, true, false, true], &mut rng) {
                PairPick::Pair { chosen, rejected } => assert!(chosen % 2 == 1 && rejected % 2 == 0),
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn stable_for_large_margins() {
        let v = neg_log_sigmoid(&t(&[-100.0, 100.0])).unwrap().to_vec1::<f32>().unwrap();
        assert!((v[0] - 100.0).abs() < 1e-3 && v[1] < 1e-30 + 1e-6);
    }
}
