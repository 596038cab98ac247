//! InfoNCE: the contrastive loss a bi-encoder retriever is trained with
//! ("Representation Learning with Contrastive Predictive Coding", van den
//! Oord, Li & Vinyals, arXiv:1807.03748; in dense retrieval "Dense Passage
//! Retrieval for Open-Domain Question Answering", Karpukhin et al.,
//! arXiv:2004.04906).
//!
//! A query `q_i` and `C` candidates `t_j` (its own tool at index `p(i)`, the
//! rest negatives: the other queries' tools in the batch, plus any hard
//! negatives), with similarities `s_ij = cos(q_i, t_j)` and temperature `τ`:
//!
//! ```text
//! L_i = −log( e^(s_i,p(i)/τ) / Σ_j e^(s_ij/τ) ) = logsumexp_j(s_ij/τ) − s_i,p(i)/τ
//! ∂L_i/∂s_ij = (softmax_j(s_i·/τ) − [j = p(i)]) / τ
//! ```
//!
//! It is cross-entropy over "which candidate is mine". The gradient pushes
//! each negative down in proportion to its softmax weight: with a small `τ`
//! the negatives that score close to the positive (the hard ones) take
//! nearly all of it; with a large `τ` every negative weighs the same and the
//! loss stops looking at the hard ones.

use candle_core::{Result, Tensor, D};

/// Mean InfoNCE loss of a batch: `sims` is `[B, C]`, `positive[i]` the column
/// of row `i`'s own candidate. The log-sum-exp subtracts each row's maximum
/// first, so no `e^x` overflows whatever `τ`.
pub fn info_nce_loss(sims: &Tensor, positive: &[u32], tau: f64) -> Result<Tensor> {
    let logits = (sims / tau)?;
    let max = logits.max_keepdim(D::Minus1)?.detach();
    let lse = (logits.broadcast_sub(&max)?.exp()?.sum_keepdim(D::Minus1)?.log()? + &max)?;
    let idx = Tensor::from_vec(positive.to_vec(), (positive.len(), 1), sims.device())?;
    let pos = logits.gather(&idx, D::Minus1)?;
    (lse - pos)?.mean_all()
}

/// InfoNCE loss of one query row, in f64: `logsumexp(sims/τ) − sims[positive]/τ`.
pub fn info_nce_one(sims: &[f64], positive: usize, tau: f64) -> f64 {
    let m = sims.iter().copied().fold(f64::NEG_INFINITY, f64::max) / tau;
    let lse = m + sims.iter().map(|s| (s / tau - m).exp()).sum::<f64>().ln();
    lse - sims[positive] / tau
}

/// The softmax weight each candidate of one row gets (what scales its gradient).
pub fn candidate_weights(sims: &[f64], tau: f64) -> Vec<f64> {
    let m = sims.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = sims.iter().map(|s| ((s - m) / tau).exp()).collect();
    let z: f64 = e.iter().sum();
    e.into_iter().map(|x| x / z).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var};

    #[test]
    fn one_row_by_hand_and_stable() {
        // Two equal candidates: ln 2 whatever τ.
        assert!((info_nce_one(&[0.3, 0.3], 0, 0.1) - 2f64.ln()).abs() < 1e-12);
        // sims (0.9, 0.1, 0.5), τ = 0.5: logits 1.8, 0.2, 1.0.
        let want = (1.8f64.exp() + 0.2f64.exp() + 1.0f64.exp()).ln() - 1.8;
        assert!((info_nce_one(&[0.9, 0.1, 0.5], 0, 0.5) - want).abs() < 1e-12);
        // τ = 1e-3: the naive form overflows (e^900); this one reads (0.9 − 0.1)/τ = 800.
        assert!((info_nce_one(&[0.1, 0.9], 0, 1e-3) - 800.0).abs() < 1e-6);
        assert!(info_nce_one(&[0.9, 0.1], 0, 1e-3) < 1e-100);
    }

    #[test]
    fn the_batch_loss_matches_rows_and_its_gradient_is_softmax_minus_one_hot() {
        let rows = [[0.9f32, 0.1, 0.5], [0.2, -0.4, 0.7]];
        let pos = [0u32, 2];
        let tau = 0.25;
        let s = Var::new(&rows, &Device::Cpu).unwrap();
        let loss = info_nce_loss(s.as_tensor(), &pos, tau).unwrap();
        let rows64: Vec<Vec<f64>> = rows.iter().map(|r| r.iter().map(|&x| x as f64).collect()).collect();
        let want = (info_nce_one(&rows64[0], 0, tau) + info_nce_one(&rows64[1], 2, tau)) / 2.0;
        assert!((loss.to_scalar::<f32>().unwrap() as f64 - want).abs() < 1e-5);
        let g = loss.backward().unwrap().get(s.as_tensor()).unwrap().to_vec2::<f32>().unwrap();
        for (i, row) in rows64.iter().enumerate() {
            let w = candidate_weights(row, tau);
            for j in 0..3 {
                let hot = if j == pos[i] as usize { 1.0 } else { 0.0 };
                let want = (w[j] - hot) / tau / 2.0;
                assert!((g[i][j] as f64 - want).abs() < 1e-5, "{i} {j}: {} vs {want}", g[i][j]);
            }
        }
    }

    #[test]
    fn a_small_temperature_puts_the_weight_on_the_hard_negative() {
        // Positive 0.8, a hard negative at 0.7, three easy ones at 0.0.
        let sims = [0.8, 0.7, 0.0, 0.0, 0.0];
        let cold = candidate_weights(&sims, 0.05);
        let hot = candidate_weights(&sims, 5.0);
        assert!(cold[1] / cold[2] > 1e5);
        assert!(hot[1] / hot[2] < 1.2);
    }
}
