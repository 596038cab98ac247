//! The arithmetic of rollout systems: batching trajectories of mixed length
//! (the padding each batching costs), the simulated clock of a synchronous
//! and an asynchronous trainer, and how far a stale behaviour policy μ has
//! drifted from the policy π being trained. Used by `rollout-infra`.

use candle_core::{Result, Tensor};

use crate::ml::tokenizer::PAD;
use crate::numbers::mean;

/// A multi-turn trajectory: its tokens and where each turn ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trajectory {
    pub tokens: Vec<u32>,
    pub turn_ends: Vec<usize>,
}

impl Trajectory {
    /// Trajectories of `turns[j]` turns each, every turn a prompt and its
    /// completion, taken in order from `prompts` and `outs`.
    pub fn assemble(turns: &[usize], prompts: &[Vec<u32>], outs: &[Vec<u32>]) -> Vec<Trajectory> {
        let mut turn = prompts.iter().zip(outs);
        turns
            .iter()
            .map(|&n| {
                let mut t = Trajectory { tokens: Vec::new(), turn_ends: Vec::new() };
                for (pr, o) in turn.by_ref().take(n) {
                    t.tokens.extend(pr.iter().chain(o));
                    t.turn_ends.push(t.tokens.len());
                }
                t
            })
            .collect()
    }

    /// The tokens of `rows` of `trajs`, each right-padded with `PAD` to the
    /// longest of them: `rows.len() × longest` ids, and `longest`.
    pub fn padded(trajs: &[Trajectory], rows: &[usize]) -> (Vec<u32>, usize) {
        let longest = rows.iter().map(|&i| trajs[i].tokens.len()).max().unwrap_or(1);
        let padded = |i: usize| trajs[i].tokens.iter().copied().chain(std::iter::repeat(PAD)).take(longest);
        (rows.iter().flat_map(|&i| padded(i)).collect(), longest)
    }
}

/// Batches of trajectory indices: in arrival order, or sorted by length
/// within each window of `window` trajectories first (window = batch: the
/// same batches as arrival order).
pub fn batches(lengths: &[usize], batch: usize, window: Option<usize>) -> Vec<Vec<usize>> {
    let order: Vec<usize> = (0..lengths.len()).collect();
    let w = window.unwrap_or(batch);
    order
        .chunks(w)
        .flat_map(|chunk| {
            let mut c = chunk.to_vec();
            if window.is_some() {
                c.sort_by_key(|&i| (lengths[i], i));
            }
            c.chunks(batch).map(<[usize]>::to_vec).collect::<Vec<_>>()
        })
        .collect()
}

/// What a batching costs, counted.
#[derive(Debug, Clone, PartialEq)]
pub struct Batching {
    pub real: usize,
    pub padded: usize,
    /// KV cache each batch reserves for its longest row, summed over batches.
    pub kv_reserved: usize,
    pub per_batch_padded: Vec<usize>,
}

impl Batching {
    /// The cost of `batches` of trajectories with these `lengths`;
    /// `kv_bytes(seq_len, rows)` is the KV cache a batch reserves.
    pub fn of(lengths: &[usize], batches: &[Vec<usize>], kv_bytes: impl Fn(usize, usize) -> usize) -> Batching {
        let mut b = Batching { real: 0, padded: 0, kv_reserved: 0, per_batch_padded: vec![] };
        for rows in batches {
            let longest = rows.iter().map(|&i| lengths[i]).max().unwrap_or(0);
            let real: usize = rows.iter().map(|&i| lengths[i]).sum();
            b.real += real;
            b.padded += rows.len() * longest - real;
            b.per_batch_padded.push(rows.len() * longest - real);
            b.kv_reserved += kv_bytes(longest, rows.len());
        }
        b
    }

    /// Padded tokens ÷ all tokens.
    pub fn share(&self) -> f64 {
        self.padded as f64 / (self.real + self.padded).max(1) as f64
    }
}

/// The first `shown` batches drawn to scale, at most 8 rows each: a `█` per
/// 2 real tokens, a `·` per 2 padded ones up to the batch's longest row.
pub fn batch_picture(lengths: &[usize], batches: &[Vec<usize>], shown: usize) -> String {
    let mut out = String::new();
    for (j, rows) in batches.iter().enumerate().take(shown) {
        let l = rows.iter().map(|&i| lengths[i]).max().unwrap_or(0);
        out.push_str(&format!("batch {} (longest {l})\n", j + 1));
        for &i in rows.iter().take(8) {
            let scale = |n: usize| n.div_ceil(2);
            out.push_str(&format!("  {}{}\n", "█".repeat(scale(lengths[i])), "·".repeat(scale(l) - scale(lengths[i]))));
        }
    }
    out
}

/// One update's measurements.
#[derive(Debug, Clone, Copy, Default)]
pub struct StepStat {
    /// Seconds spent sampling the batch (wall clock).
    pub gen_s: f64,
    /// Seconds spent on the update: log-probs and `ppo_epochs` passes (wall clock).
    pub train_s: f64,
    /// Before the first update on the batch, π against the behaviour policy μ:
    /// share of tokens where the clip is active,
    pub clip: f64,
    /// mean |π/μ − 1|,
    pub drift: f64,
    /// and the k3 estimate of KL(μ ‖ π).
    pub kl: f64,
    /// Mean exact reward of the batch.
    pub reward: f64,
}

/// Means over the updates whose rollouts are fully k stale (t ≥ k).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub clip: f64,
    pub drift: f64,
    pub kl: f64,
    pub reward: f64,
}

impl Summary {
    /// The means over `steps[k..]` (the last step alone if there are no more than k).
    pub fn of(steps: &[StepStat], k: usize) -> Summary {
        let s = &steps[k.min(steps.len().saturating_sub(1))..];
        let m = |f: fn(&StepStat) -> f64| mean(&s.iter().map(f).collect::<Vec<_>>());
        Summary { clip: m(|x| x.clip), drift: m(|x| x.drift), kl: m(|x| x.kl), reward: m(|x| x.reward) }
    }
}

/// When each update finishes when generation may run up to `k` policy
/// versions ahead of training (k = 0: synchronous), from measured per-update
/// costs. Batch t needs policy version t − k (version v exists once update
/// v − 1 is done; version 0 at time 0); update t needs batch t and update t − 1.
pub fn schedule(steps: &[StepStat], k: usize) -> Vec<f64> {
    let mut train_end: Vec<f64> = Vec::with_capacity(steps.len());
    let mut gen_end = 0.0f64;
    for (t, s) in steps.iter().enumerate() {
        let ready = if t > k { train_end[t - k - 1] } else { 0.0 };
        gen_end = gen_end.max(ready) + s.gen_s;
        let prev = train_end.last().copied().unwrap_or(0.0);
        train_end.push(prev.max(gen_end) + s.train_s);
    }
    train_end
}

/// The seconds a run spent generating and training, summed over its updates.
pub fn phase_seconds(steps: &[StepStat]) -> (f64, f64) {
    (steps.iter().map(|s| s.gen_s).sum::<f64>(), steps.iter().map(|s| s.train_s).sum::<f64>())
}

/// When the last update finishes on the [`schedule`] with `k` versions of lead (0 without updates).
pub fn finish_time(steps: &[StepStat], k: usize) -> f64 {
    schedule(steps, k).last().copied().unwrap_or(0.0)
}

/// Mean |exp(logp − mu) − 1| over the masked tokens.
pub fn drift(logp: &Tensor, mu: &Tensor, mask: &Tensor) -> Result<f64> {
    let d = ((logp - mu)?.exp()? - 1.0)?.abs()?;
    let total = d.mul(mask)?.sum_all()?.to_scalar::<f32>()? as f64;
    Ok(total / (mask.sum_all()?.to_scalar::<f32>()? as f64).max(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn bucketing_sorts_within_windows() {
        let lengths = [5, 1, 4, 2, 9, 3];
        assert_eq!(batches(&lengths, 2, None), vec![vec![0, 1], vec![2, 3], vec![4, 5]]);
        assert_eq!(batches(&lengths, 2, Some(4)), vec![vec![1, 3], vec![2, 0], vec![5, 4]]);
        let fixed = Batching::of(&lengths, &batches(&lengths, 2, None), |l, b| l * b);
        assert_eq!((fixed.real, fixed.padded, fixed.kv_reserved), (24, 12, 36));
        assert_eq!(fixed.per_batch_padded, vec![4, 2, 6]);
        assert!((fixed.share() - 12.0 / 36.0).abs() < 1e-12);
    }

    #[test]
    fn trajectories_and_their_picture() {
        let (prompts, outs) = (vec![vec![1, 2], vec![3], vec![4]], vec![vec![9], vec![8, 7], vec![6]]);
        let t = Trajectory::assemble(&[2, 1], &prompts, &outs);
        assert_eq!(t[0], Trajectory { tokens: vec![1, 2, 9, 3, 8, 7], turn_ends: vec![3, 6] });
        assert_eq!(t[1], Trajectory { tokens: vec![4, 6], turn_ends: vec![2] });
        assert_eq!(Trajectory::padded(&t, &[1, 0]), (vec![4, 6, PAD, PAD, PAD, PAD, 1, 2, 9, 3, 8, 7], 6));
        let picture = batch_picture(&[4, 1, 3], &[vec![0, 1], vec![2]], 1);
        assert_eq!(picture, "batch 1 (longest 4)\n  ██\n  █·\n");
    }

    #[test]
    fn async_overlaps_generation_with_training() {
        let steps = vec![StepStat { gen_s: 1.0, train_s: 1.0, ..Default::default() }; 3];
        assert_eq!(schedule(&steps, 0), vec![2.0, 4.0, 6.0]);
        assert_eq!(schedule(&steps, 1), vec![2.0, 3.0, 4.0]);
        assert_eq!((finish_time(&steps, 1), finish_time(&[], 1)), (4.0, 0.0));
        assert_eq!(phase_seconds(&steps), (3.0, 3.0));
        let stats: Vec<StepStat> = (0..4).map(|i| StepStat { clip: i as f64, ..Default::default() }).collect();
        assert_eq!(Summary::of(&stats, 2).clip, 2.5);
    }

    #[test]
    fn drift_is_zero_on_policy() {
        let d = Device::Cpu;
        let lp = Tensor::new(&[[-1.0f32, -2.0]], &d).unwrap();
        let mask = Tensor::new(&[[1.0f32, 0.0]], &d).unwrap();
        assert_eq!(drift(&lp, &lp, &mask).unwrap(), 0.0);
        let mu = Tensor::new(&[[-1.0f32 - 2f32.ln(), -2.0]], &d).unwrap();
        assert!((drift(&lp, &mu, &mask).unwrap() - 1.0).abs() < 1e-5);
    }
}
