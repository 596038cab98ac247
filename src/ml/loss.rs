//! Losses on logits.
//!
//! `masked_cross_entropy` is next-token cross-entropy with PyTorch's ignore
//! index −100: positions labelled −100 (prompt, padding, *environment
//! observations*) contribute nothing, and the mean is over the kept tokens
//! only, so a batch that is mostly observations is not diluted:
//!
//! ```text
//! L = −(1/|K|) Σ_{t∈K} log softmax(z_t)[y_t],   K = { t : y_t ≠ −100 }
//! ```
//!
//! With every position masked the loss is 0 (never NaN). The cheatsheet
//! section `[sheet:0#sft-with-label-masking]` works an example by hand.

use candle_core::{DType, Result, Tensor, D};

/// Label value that masks a position out of the loss.
pub const IGNORE: i64 = -100;

/// Mean next-token CE over kept positions. `logits: [B,T,V]`, `labels: [B,T]` (i64, −100 = ignore).
pub fn masked_cross_entropy(logits: &Tensor, labels: &Tensor) -> Result<Tensor> {
    let (sum, count) = masked_ce_sum(logits, labels)?;
    sum / count.max(1.0)
}

/// Sum of CE over kept positions and the number of kept positions
/// (for gradient accumulation across micro-batches with different counts).
pub fn masked_ce_sum(logits: &Tensor, labels: &Tensor) -> Result<(Tensor, f64)> {
    let v = logits.dim(D::Minus1)?;
    let logits = logits.reshape(((), v))?;
    let labels = labels.flatten_all()?.to_dtype(DType::I64)?;
    let keep = labels.ge(0i64)?; // u8 mask
    let safe = keep.where_cond(&labels, &labels.zeros_like()?)?.to_dtype(DType::U32)?;
    let logp = super::ops::log_softmax(&logits)?;
    let picked = logp.gather(&safe.unsqueeze(1)?, 1)?.squeeze(1)?; // [N]
    let keep_f = keep.to_dtype(logits.dtype())?;
    let count = keep_f.sum_all()?.to_dtype(DType::F64)?.to_scalar::<f64>()?;
    let sum = (picked * keep_f)?.sum_all()?.neg()?;
    Ok((sum, count))
}

/// Log-probability of each given token: `log softmax(logits)[tokens]`, `[B,T,V] × [B,T] → [B,T]`.
pub fn token_logprobs(logits: &Tensor, tokens: &Tensor) -> Result<Tensor> {
    pick_tokens(&super::ops::log_softmax(logits)?, tokens)
}

/// The entries `logp[.., tokens[..]]` of log-probabilities `[.., V]`: `[..]`.
pub fn pick_tokens(logp: &Tensor, tokens: &Tensor) -> Result<Tensor> {
    // gather needs contiguous operands; callers often pass shifted views (`narrow`).
    let index = tokens.to_dtype(DType::U32)?.contiguous()?.unsqueeze(D::Minus1)?;
    logp.gather(&index, D::Minus1)?.squeeze(D::Minus1)
}

/// Build `[B,T]` next-token labels from sequences and per-token "train on this" flags:
/// `labels[b][t] = seq[b][t+1]` if `train[b][t+1]`, else −100. Rows are padded to `t_len`.
pub fn next_token_labels(seqs: &[Vec<u32>], train: &[Vec<bool>], t_len: usize) -> Vec<i64> {
    let mut out = vec![IGNORE; seqs.len() * t_len];
    for (b, (s, m)) in seqs.iter().zip(train).enumerate() {
        for t in 0..t_len.min(s.len().saturating_sub(1)) {
            if m[t + 1] {
                out[b * t_len + t] = s[t + 1] as i64;
            }
        }
    }
    out
}

/// Entropy of the next-token distribution, `H = −Σ_v p_v log p_v` with
/// `p = softmax(z)`, in nats: `[.., V]` logits → `[..]` entropies. A
/// collapsing policy shows entropy falling towards 0; the drills chart it
/// (`rl::entropy` re-exports this).
pub fn entropy_from_logits(logits: &Tensor) -> Result<Tensor> {
    entropy_from_logprobs(&candle_nn::ops::log_softmax(logits, D::Minus1)?)
}

/// `[.., V]` log-probabilities (a log-softmax already computed) → `[..]` entropies.
pub fn entropy_from_logprobs(logp: &Tensor) -> Result<Tensor> {
    (logp.exp()? * logp)?.sum(D::Minus1)?.neg()
}

/// [`masked_cross_entropy`] computed by hand from the logits (`[B][T][V]`)
/// and labels (`[B][T]`): −log softmax at the label, the log-sum-exp in f64,
/// averaged over the kept positions only. Returns (the loss, the share of
/// positions kept). A reference to check the tensor version against.
pub fn masked_ce_by_hand(logits: &[Vec<Vec<f32>>], labels: &[Vec<i64>]) -> (f64, f64) {
    let (mut sum, mut kept, mut all) = (0.0, 0usize, 0usize);
    for (lb, yb) in logits.iter().zip(labels) {
        for (z, &y) in lb.iter().zip(yb) {
            all += 1;
            if y < 0 {
                continue;
            }
            let m = z.iter().cloned().fold(f32::MIN, f32::max) as f64;
            let lse = m + z.iter().map(|&v| (v as f64 - m).exp()).sum::<f64>().ln();
            sum += lse - z[y as usize] as f64;
            kept += 1;
        }
    }
    (sum / kept.max(1) as f64, kept as f64 / all.max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Var};

    fn logits() -> Tensor {
        let data: Vec<f32> = (0..2 * 3 * 4).map(|i| ((i * 7 % 11) as f32 - 5.0) / 3.0).collect();
        Tensor::from_vec(data, (2, 3, 4), &Device::Cpu).unwrap()
    }

    #[test]
    fn mean_is_over_kept_tokens_only() {
        let labels = [[1i64, -100, 3], [-100, 0, -100]];
        let lt = Tensor::new(&labels, &Device::Cpu).unwrap();
        let got = masked_cross_entropy(&logits(), &lt).unwrap().to_scalar::<f32>().unwrap() as f64;
        let (want, kept) = masked_ce_by_hand(&logits().to_vec3::<f32>().unwrap(), &labels.map(|r| r.to_vec()));
        assert_eq!(kept, 0.5);
        assert!((got - want).abs() < 1e-5, "{got} vs {want}");
    }

    #[test]
    fn all_masked_is_zero_not_nan() {
        let lt = Tensor::new(&[[-100i64; 3]; 2], &Device::Cpu).unwrap();
        let v = Var::from_tensor(&logits()).unwrap();
        let loss = masked_cross_entropy(v.as_tensor(), &lt).unwrap();
        assert_eq!(loss.to_scalar::<f32>().unwrap(), 0.0);
        let g = loss.backward().unwrap();
        let grad = g.get(v.as_tensor()).unwrap().flatten_all().unwrap().to_vec1::<f32>().unwrap();
        assert!(grad.iter().all(|x| *x == 0.0));
    }

    #[test]
    fn gradient_matches_finite_differences_and_masked_positions_get_none() {
        let labels = [[2i64, -100, 0], [1, 3, -100]];
        let lt = Tensor::new(&labels, &Device::Cpu).unwrap();
        let base = logits().to_vec3::<f32>().unwrap();
        let reference =
            |l: &[Vec<Vec<f32>>], labels: &[[i64; 3]; 2]| masked_ce_by_hand(l, &labels.map(|r| r.to_vec())).0;
        let v = Var::from_tensor(&logits()).unwrap();
        let grad = masked_cross_entropy(v.as_tensor(), &lt).unwrap().backward().unwrap();
        let g = grad.get(v.as_tensor()).unwrap().to_vec3::<f32>().unwrap();
        let h = 1e-3f32;
        for b in 0..2 {
            for t in 0..3 {
                for k in 0..4 {
                    let mut plus = base.clone();
                    plus[b][t][k] += h;
                    let mut minus = base.clone();
                    minus[b][t][k] -= h;
                    let fd = (reference(&plus, &labels) - reference(&minus, &labels)) / (2.0 * h as f64);
                    assert!((g[b][t][k] as f64 - fd).abs() < 1e-3, "b{b} t{t} k{k}: {} vs {fd}", g[b][t][k]);
                    if labels[b][t] < 0 {
                        assert_eq!(g[b][t][k], 0.0, "masked position must get exactly zero gradient");
                    }
                }
            }
        }
    }

    #[test]
    fn token_logprobs_gathers_the_right_entries() {
        let l = logits();
        let toks = Tensor::new(&[[0u32, 1, 2], [3, 3, 0]], &Device::Cpu).unwrap();
        let lp = token_logprobs(&l, &toks).unwrap().to_vec2::<f32>().unwrap();
        let raw = l.to_vec3::<f32>().unwrap();
        let z = &raw[1][0];
        let lse = z.iter().map(|v| v.exp()).sum::<f32>().ln();
        assert!((lp[1][0] - (z[3] - lse)).abs() < 1e-5);
    }

    #[test]
    fn labels_shift_and_mask() {
        let seqs = vec![vec![5, 6, 7, 8]];
        let train = vec![vec![false, false, true, true]];
        assert_eq!(next_token_labels(&seqs, &train, 4), vec![-100, 7, 8, -100]);
    }

    #[test]
    fn entropy_uniform_is_log_v_and_peaked_is_near_zero() {
        let z = Tensor::new(&[[0.0f32; 4], [50.0, 0.0, 0.0, 0.0]], &Device::Cpu).unwrap();
        let h = entropy_from_logits(&z).unwrap().to_vec1::<f32>().unwrap();
        assert!((h[0] - 4f32.ln()).abs() < 1e-6);
        assert!(h[1] < 1e-6);
    }
}
