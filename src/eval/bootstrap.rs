//! Percentile bootstrap confidence intervals over problems.
//!
//! A benchmark score is a mean over problems of a per-problem value (its
//! pass@k estimate, say). The problems are a sample of the problems one
//! could have asked, and that sampling is usually the largest source of
//! uncertainty. The bootstrap redraws the problem set: B resamples of P
//! problems drawn with replacement, the score recomputed on each; the
//! interval is the middle `level` share of those B scores.
//!
//! One [`Bootstrap`] holds the resamples and applies the *same* ones to every
//! statistic, so intervals of two scores on the same problems are paired:
//! the interval of a difference is the interval of the per-problem
//! differences.
//!
//! ```
//! use agentlab::eval::bootstrap::{percentile, Bootstrap};
//! assert_eq!(percentile(&[1.0, 2.0, 3.0, 4.0], 0.25), 1.75);
//! // Two resamples of three problems, given by hand: {0,0,1} and {1,2,2}.
//! let b = Bootstrap::from_resamples(3, vec![vec![0, 0, 1], vec![1, 2, 2]]);
//! let i = b.interval(&[0.0, 0.3, 0.9], 1.0);
//! assert!((i.estimate - 0.4).abs() < 1e-12); // the plain mean
//! assert!((i.lo - 0.1).abs() < 1e-12 && (i.hi - 0.7).abs() < 1e-12);
//! ```

use crate::ml::rng::Rng;

/// An estimate and its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// The statistic on the problems as they are (the plain mean).
    pub estimate: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Interval {
    pub fn width(&self) -> f64 {
        self.hi - self.lo
    }

    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }

    /// `0.412 [0.380, 0.445]`: the estimate and its interval, three decimals.
    pub fn text(&self) -> String {
        format!("{:.3} [{:.3}, {:.3}]", self.estimate, self.lo, self.hi)
    }

    /// `+0.031 [-0.010, +0.052]`: the same with signs, for a difference.
    pub fn signed_text(&self) -> String {
        format!("{:+.3} [{:+.3}, {:+.3}]", self.estimate, self.lo, self.hi)
    }
}

/// B resamples of `items` problems, drawn with replacement.
#[derive(Debug, Clone)]
pub struct Bootstrap {
    items: usize,
    resamples: Vec<Vec<usize>>,
}

impl Bootstrap {
    /// `resamples` resamples of `items` problems from `rng`.
    pub fn new(items: usize, resamples: usize, rng: &mut Rng) -> Bootstrap {
        assert!(items >= 1 && resamples >= 1, "a bootstrap needs problems and resamples");
        let resamples = (0..resamples).map(|_| (0..items).map(|_| rng.below(items)).collect()).collect();
        Bootstrap { items, resamples }
    }

    /// Resamples given as lists of problem indices (for tests and worked examples).
    pub fn from_resamples(items: usize, resamples: Vec<Vec<usize>>) -> Bootstrap {
        assert!(!resamples.is_empty() && resamples.iter().all(|r| !r.is_empty() && r.iter().all(|&i| i < items)));
        Bootstrap { items, resamples }
    }

    pub fn resamples(&self) -> usize {
        self.resamples.len()
    }

    /// The mean of `values` (one per problem) and its percentile interval at
    /// `level` (0.95: the 2.5th to the 97.5th percentile of the resampled means).
    pub fn interval(&self, values: &[f64], level: f64) -> Interval {
        assert_eq!(values.len(), self.items, "one value per problem");
        assert!((0.0..=1.0).contains(&level));
        let mut means: Vec<f64> =
            self.resamples.iter().map(|r| r.iter().map(|&i| values[i]).sum::<f64>() / r.len() as f64).collect();
        means.sort_by(f64::total_cmp);
        let tail = (1.0 - level) / 2.0;
        Interval {
            estimate: values.iter().sum::<f64>() / values.len() as f64,
            lo: percentile(&means, tail),
            hi: percentile(&means, 1.0 - tail),
        }
    }
}

/// The q-quantile of sorted values, interpolating linearly between order
/// statistics: position q·(m − 1) of m values (numpy's default).
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    assert!(!sorted.is_empty() && (0.0..=1.0).contains(&q));
    let pos = q * (sorted.len() - 1) as f64;
    let (i, frac) = (pos.floor() as usize, pos.fract());
    match sorted.get(i + 1) {
        Some(next) => sorted[i] + frac * (next - sorted[i]),
        None => sorted[i],
    }
}

/// The median of unsorted values (the 0.5 [`percentile`]).
pub fn median(xs: &[f64]) -> f64 {
    let mut s = xs.to_vec();
    s.sort_by(f64::total_cmp);
    percentile(&s, 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_by_hand() {
        let xs = [1.0, 2.0, 3.0, 4.0, 10.0];
        assert_eq!(percentile(&xs, 0.0), 1.0);
        assert_eq!(percentile(&xs, 1.0), 10.0);
        assert_eq!(percentile(&xs, 0.5), 3.0);
        // Position 0.9 · 4 = 3.6: 4 + 0.6 · (10 − 4) = 7.6.
        assert!((percentile(&xs, 0.9) - 7.6).abs() < 1e-12);
        assert_eq!(percentile(&[5.0], 0.3), 5.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        let i = Interval { estimate: 0.5, lo: -0.25, hi: 0.75 };
        assert_eq!((i.text(), i.signed_text()), ("0.500 [-0.250, 0.750]".into(), "+0.500 [-0.250, +0.750]".into()));
    }

    #[test]
    fn intervals_by_hand() {
        // Four resamples of four problems with values 0, 0, 1, 1 (mean 0.5).
        // Resampled means: 0, 1/4, 3/4, 1 (sorted).
        let b =
            Bootstrap::from_resamples(4, vec![vec![0, 0, 1, 1], vec![2, 3, 2, 3], vec![0, 2, 2, 3], vec![0, 1, 1, 2]]);
        let v = [0.0, 0.0, 1.0, 1.0];
        let full = b.interval(&v, 1.0);
        assert_eq!((full.estimate, full.lo, full.hi), (0.5, 0.0, 1.0));
        // level 0.5: quantiles 0.25 and 0.75 of [0, .25, .75, 1] at positions
        // 0.75 and 2.25: 0.1875 and 0.8125.
        let mid = b.interval(&v, 0.5);
        assert!((mid.lo - 0.1875).abs() < 1e-12 && (mid.hi - 0.8125).abs() < 1e-12, "{mid:?}");
        assert!((mid.width() - 0.625).abs() < 1e-12);
        assert!(mid.contains(0.5) && !mid.contains(0.9));
    }

    #[test]
    fn paired_differences_cancel_what_problems_share() {
        // Two scores that differ by exactly 0.1 on every problem: the
        // interval of their difference has width 0, whatever the spread.
        let mut rng = Rng::new(4);
        let b = Bootstrap::new(50, 400, &mut rng);
        let a: Vec<f64> = (0..50).map(|i| (i % 7) as f64 / 7.0).collect();
        let shifted: Vec<f64> = a.iter().map(|x| x + 0.1).collect();
        let d: Vec<f64> = shifted.iter().zip(&a).map(|(s, x)| s - x).collect();
        let ia = b.interval(&a, 0.95);
        let id = b.interval(&d, 0.95);
        assert!(ia.width() > 0.05, "{ia:?}");
        assert!(id.width() < 1e-12 && (id.estimate - 0.1).abs() < 1e-12, "{id:?}");
        // A constant has a zero-width interval at its value.
        let c = b.interval(&[0.25; 50], 0.95);
        assert_eq!((c.lo, c.hi), (0.25, 0.25));
    }

    #[test]
    fn the_interval_covers_the_mean_about_as_often_as_it_says() {
        // 200 benchmarks of 60 problems, each passing with probability 0.3:
        // the 90% interval should hold 0.3 on roughly 90% of them.
        let mut rng = Rng::new(9);
        let mut hits = 0;
        for _ in 0..200 {
            let v: Vec<f64> = (0..60).map(|_| f64::from(u8::from(rng.bool(0.3)))).collect();
            let b = Bootstrap::new(60, 300, &mut rng);
            hits += usize::from(b.interval(&v, 0.9).contains(0.3));
        }
        assert!((160..=196).contains(&hits), "{hits}/200");
    }
}
