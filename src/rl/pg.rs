//! The masked policy-gradient loss.
//!
//! ```text
//! L = − Σ_{b,t} m_{b,t} · Â_{b,t} · log π(a_{b,t} | s_{b,t}) / N
//! ```
//!
//! `m` is 1 on tokens the *agent* produced and 0 on everything else: prompt,
//! padding, and the observation tokens the environment wrote. Without the
//! mask the model is pushed to raise the probability of text it did not
//! choose (tool outputs, retrieved passages) — the failure studied in track 3
//! (`[sheet:3#masking-observation-tokens]`). The gradient at masked tokens is
//! exactly zero, which a test checks by finite differences.
//!
//! Aggregation: `TokenMean` divides by the number of agent tokens in the batch
//! (every token weighs the same; long answers weigh more in total);
//! `SeqMean` averages within each sequence first, then over sequences (each
//! sample weighs the same; tokens of long answers weigh less — the length bias
//! Dr. GRPO points out).
//!
//! The value of this loss is *not* a progress signal: with zero-mean
//! advantages it hovers around 0 whether or not the policy improves. Watch
//! the reward.

use candle_core::{Result, Tensor, D};

/// How a per-token loss is averaged (a drill parameter: `token-mean`, `seq-mean`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aggregation {
    TokenMean,
    SeqMean,
}

/// `logp`, `advantages`, `mask`: `[B,T]` (mask as 0/1 floats). Returns a scalar.
pub fn masked_pg_loss(logp: &Tensor, advantages: &Tensor, mask: &Tensor, agg: Aggregation) -> Result<Tensor> {
    // `aggregate` multiplies by the mask: masked tokens are 0 and carry no gradient.
    aggregate(&(logp * advantages)?, mask, agg)?.neg()
}

/// Masked mean of per-token `values` `[B,T]`: the mask is applied here, so
/// values at masked positions (padding, prompt, observations) may be anything
/// finite and never count.
///
/// ```text
/// TokenMean:  Σ_{b,t} m·v / Σ_{b,t} m
/// SeqMean:    (1/B') Σ_b ( Σ_t m·v / Σ_t m )     B' = sequences with at least one masked-in token
/// ```
pub fn aggregate(values: &Tensor, mask: &Tensor, agg: Aggregation) -> Result<Tensor> {
    let masked = values.mul(mask)?;
    match agg {
        Aggregation::TokenMean => {
            let n = mask.sum_all()?.to_scalar::<f32>()?.max(1.0) as f64;
            masked.sum_all()? / n
        }
        Aggregation::SeqMean => {
            let per_seq_n = mask.sum(D::Minus1)?; // [B]
            let lens: Vec<f32> = per_seq_n.to_vec1()?;
            let seqs = lens.iter().filter(|&&n| n > 0.0).count().max(1) as f64;
            let safe = per_seq_n.clamp(1.0, f32::MAX)?;
            (masked.sum(D::Minus1)? / safe)?.sum_all()? / seqs
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var};

    type Grid = Vec<Vec<f32>>;

    fn setup() -> (Grid, Grid, Grid) {
        let logp = vec![vec![-0.5, -1.2, -0.3, -2.0], vec![-0.9, -0.1, -1.5, -0.7]];
        let adv = vec![vec![1.0, 1.0, 1.0, 1.0], vec![-0.5, -0.5, -0.5, -0.5]];
        let mask = vec![vec![0.0, 1.0, 1.0, 0.0], vec![1.0, 1.0, 1.0, 1.0]];
        (logp, adv, mask)
    }

    fn reference(logp: &[Vec<f32>], adv: &[Vec<f32>], mask: &[Vec<f32>], agg: Aggregation) -> f64 {
        match agg {
            Aggregation::TokenMean => {
                let (mut s, mut n) = (0.0, 0.0);
                for b in 0..2 {
                    for t in 0..4 {
                        s += (mask[b][t] * adv[b][t] * logp[b][t]) as f64;
                        n += mask[b][t] as f64;
                    }
                }
                -s / n
            }
            Aggregation::SeqMean => {
                let mut total = 0.0;
                for b in 0..2 {
                    let n: f32 = mask[b].iter().sum();
                    let s: f32 = (0..4).map(|t| mask[b][t] * adv[b][t] * logp[b][t]).sum();
                    total += (s / n) as f64;
                }
                -total / 2.0
            }
        }
    }

    #[test]
    fn values_and_finite_difference_gradients() {
        let (logp, adv, mask) = setup();
        let d = Device::Cpu;
        for agg in [Aggregation::TokenMean, Aggregation::SeqMean] {
            let lv = Var::new(logp.clone(), &d).unwrap();
            let a = Tensor::new(adv.clone(), &d).unwrap();
            let m = Tensor::new(mask.clone(), &d).unwrap();
            let loss = masked_pg_loss(lv.as_tensor(), &a, &m, agg).unwrap();
            let got = loss.to_scalar::<f32>().unwrap() as f64;
            assert!((got - reference(&logp, &adv, &mask, agg)).abs() < 1e-6, "{agg:?}");
            let g = loss.backward().unwrap().get(lv.as_tensor()).unwrap().to_vec2::<f32>().unwrap();
            let h = 1e-3;
            for b in 0..2 {
                for t in 0..4 {
                    let mut p = logp.clone();
                    p[b][t] += h;
                    let mut q = logp.clone();
                    q[b][t] -= h;
                    let fd = (reference(&p, &adv, &mask, agg) - reference(&q, &adv, &mask, agg)) / (2.0 * h as f64);
                    assert!((g[b][t] as f64 - fd).abs() < 1e-3, "{agg:?} b{b} t{t}");
                    if mask[b][t] == 0.0 {
                        assert_eq!(g[b][t], 0.0, "masked tokens get exactly zero gradient");
                    }
                }
            }
        }
    }

    #[test]
    fn aggregate_masks_by_itself() {
        // Per-token KL-like values, nonzero everywhere, including masked positions.
        let v = vec![vec![0.5f32, -0.2, 0.3, 9.0], vec![0.1, 0.4, -7.0, 0.2]];
        let m = vec![vec![1.0f32, 1.0, 1.0, 0.0], vec![1.0, 1.0, 0.0, 0.0]];
        let d = Device::Cpu;
        let (vt, mt) = (Tensor::new(v.clone(), &d).unwrap(), Tensor::new(m.clone(), &d).unwrap());
        // By hand: token mean over the five kept values; sequence mean of (0.6/3, 0.5/2).
        let token = (0.5 - 0.2 + 0.3 + 0.1 + 0.4) / 5.0;
        let seq = ((0.5 - 0.2 + 0.3) / 3.0 + (0.1 + 0.4) / 2.0) / 2.0;
        let got = |agg| aggregate(&vt, &mt, agg).unwrap().to_scalar::<f32>().unwrap() as f64;
        assert!((got(Aggregation::TokenMean) - token).abs() < 1e-6, "{}", got(Aggregation::TokenMean));
        assert!((got(Aggregation::SeqMean) - seq).abs() < 1e-6, "{}", got(Aggregation::SeqMean));
        // A sequence with no kept token does not count in the sequence mean.
        let m0 = Tensor::new(vec![vec![1.0f32, 1.0, 1.0, 0.0], vec![0.0; 4]], &d).unwrap();
        let s0 = aggregate(&vt, &m0, Aggregation::SeqMean).unwrap().to_scalar::<f32>().unwrap() as f64;
        assert!((s0 - 0.2).abs() < 1e-6, "{s0}");
    }
}
