//! pass@k and pass^k from n samples of which c are correct.
//!
//! pass@k — the chance that at least one of k samples drawn without
//! replacement from the n is correct (Chen et al., arXiv:2107.03374):
//!
//! ```text
//! pass@k = 1 − C(n−c, k) / C(n, k) = 1 − Π_{i=n−c+1}^{n} (1 − k/i)
//! ```
//!
//! The product form never builds huge binomials. pass^k — the chance that
//! *all* k draws are correct (τ-bench's reliability metric, arXiv:2406.12045):
//! `C(c, k) / C(n, k) = Π_{i=0}^{k−1} (c−i)/(n−i)`.
//!
//! Two ways to get pass@k wrong or right by brute force, for comparison:
//!
//! * [`pass_at_k_naive`] — the plug-in `1 − (1 − c/n)^k`: k draws *with*
//!   replacement from the n samples. It can draw the same wrong sample twice,
//!   so it is never above the unbiased value, and it is biased low for the
//!   true pass@k (Jensen: `(1 − x)^k` is convex).
//! * [`pass_at_k_monte_carlo`] — draw random k-subsets of the n samples and
//!   count the share holding a correct one. Without replacement its
//!   expectation *is* the unbiased estimator; with replacement, the plug-in.
//!
//! ```
//! use agentlab::eval::{pass_at_k, pass_at_k_naive, pass_hat_k};
//! assert!((pass_at_k(10, 3, 1) - 0.3).abs() < 1e-12);
//! assert_eq!(pass_at_k(5, 0, 3), 0.0);
//! assert!((pass_hat_k(10, 3, 2) - 3.0 * 2.0 / (10.0 * 9.0)).abs() < 1e-12);
//! // n = 10, c = 3, k = 2: the unbiased 1 − 21/45 against the plug-in 1 − 0.7².
//! assert!((pass_at_k(10, 3, 2) - 24.0 / 45.0).abs() < 1e-12);
//! assert!((pass_at_k_naive(10, 3, 2) - 0.51).abs() < 1e-12);
//! ```

use super::bootstrap::Bootstrap;
use crate::ml::rng::Rng;
use crate::numbers::mean;

pub fn pass_at_k(n: usize, c: usize, k: usize) -> f64 {
    assert!(c <= n && k <= n && k >= 1, "need 1 ≤ k ≤ n and c ≤ n");
    if n - c < k {
        return 1.0;
    }
    let mut prod = 1.0;
    for i in (n - c + 1)..=n {
        prod *= 1.0 - k as f64 / i as f64;
    }
    1.0 - prod
}

pub fn pass_hat_k(n: usize, c: usize, k: usize) -> f64 {
    assert!(c <= n && k <= n && k >= 1, "need 1 ≤ k ≤ n and c ≤ n");
    if c < k {
        return 0.0;
    }
    (0..k).map(|i| (c - i) as f64 / (n - i) as f64).product()
}

/// The plug-in `1 − (1 − c/n)^k` (biased low; for comparison only).
pub fn pass_at_k_naive(n: usize, c: usize, k: usize) -> f64 {
    assert!(c <= n && n >= 1 && k >= 1, "need n ≥ 1, k ≥ 1 and c ≤ n");
    1.0 - (1.0 - c as f64 / n as f64).powi(k as i32)
}

/// How a Monte-Carlo check draws its k samples from the n.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Draw {
    /// k distinct samples (a random k-subset): what pass@k means.
    WithoutReplacement,
    /// k independent picks, repeats allowed: what the plug-in computes.
    WithReplacement,
}

/// The share of `draws` random draws of k of the samples (`correct[i]`:
/// sample i passed) that hold at least one correct sample.
pub fn pass_at_k_monte_carlo(correct: &[bool], k: usize, draws: usize, how: Draw, rng: &mut Rng) -> f64 {
    let n = correct.len();
    assert!(k >= 1 && k <= n && draws >= 1, "need 1 ≤ k ≤ n and draws ≥ 1");
    let mut idx: Vec<usize> = (0..n).collect();
    let mut hits = 0usize;
    for _ in 0..draws {
        let hit = match how {
            Draw::WithReplacement => (0..k).any(|_| correct[rng.below(n)]),
            Draw::WithoutReplacement => {
                // A partial Fisher–Yates shuffle: the first k slots are a uniform k-subset.
                let mut any = false;
                for i in 0..k {
                    let j = i + rng.below(n - i);
                    idx.swap(i, j);
                    any |= correct[idx[i]];
                }
                any
            }
        };
        hits += usize::from(hit);
    }
    hits as f64 / draws as f64
}

/// The Monte-Carlo pass@k for k = 1..=n, each the mean over problems of
/// [`pass_at_k_monte_carlo`] (`correct[problem][sample]`); k outer, problems inner.
pub fn monte_carlo_by_k(correct: &[Vec<bool>], n: usize, draws: usize, how: Draw, rng: &mut Rng) -> Vec<f64> {
    let mut per_k = |k| correct.iter().map(|s| pass_at_k_monte_carlo(s, k, draws, how, rng)).collect::<Vec<_>>();
    (1..=n).map(|k| mean(&per_k(k))).collect()
}

/// Per-problem correct counts c of n samples, and what they give over k = 1..n.
#[derive(Debug, Clone, PartialEq)]
pub struct Counts {
    pub n: usize,
    pub c: Vec<usize>,
}

impl Counts {
    /// From `correct[problem][sample]`.
    pub fn of(correct: &[Vec<bool>]) -> Counts {
        Counts {
            n: correct.first().map_or(0, Vec::len),
            c: correct.iter().map(|s| s.iter().filter(|&&x| x).count()).collect(),
        }
    }

    /// One value per problem of `f(n, c, k)` (`f`: [`pass_at_k`], [`pass_hat_k`], …).
    pub fn per_problem(&self, k: usize, f: fn(usize, usize, usize) -> f64) -> Vec<f64> {
        self.c.iter().map(|&c| f(self.n, c, k)).collect()
    }

    /// The mean over problems of `f(n, c, k)`.
    pub fn mean(&self, k: usize, f: fn(usize, usize, usize) -> f64) -> f64 {
        mean(&self.per_problem(k, f))
    }
}

/// How far the unbiased estimator and the plug-in sit from a Monte-Carlo
/// pass@k, over k = 1..n.
#[derive(Debug, Clone, PartialEq)]
pub struct EstimatorGaps {
    /// Largest |unbiased − Monte Carlo| over k.
    pub unbiased_off: f64,
    /// Largest Monte Carlo − plug-in over k, and where.
    pub naive_below: f64,
    pub naive_k: usize,
    /// The same in half-widths of the unbiased estimate's interval (at
    /// `level`) at that k, over the k where it has a width.
    pub unbiased_off_hw: f64,
    pub naive_below_hw: f64,
    /// The Monte-Carlo pass@k, `mc[k − 1]`.
    pub mc: Vec<f64>,
}

impl EstimatorGaps {
    pub fn of(c: &Counts, mc: Vec<f64>, boot: &Bootstrap, level: f64) -> EstimatorGaps {
        let mut e = EstimatorGaps {
            unbiased_off: 0.0,
            naive_below: f64::NEG_INFINITY,
            naive_k: 1,
            unbiased_off_hw: 0.0,
            naive_below_hw: f64::NEG_INFINITY,
            mc,
        };
        for k in 1..=e.mc.len() {
            let (unbiased, naive, m) = (c.mean(k, pass_at_k), c.mean(k, pass_at_k_naive), e.mc[k - 1]);
            e.unbiased_off = e.unbiased_off.max((unbiased - m).abs());
            if m - naive > e.naive_below {
                e.naive_below = m - naive;
                e.naive_k = k;
            }
            // In half-widths of the unbiased estimate's interval at this k (where
            // it has a width: at large k every problem may read 1).
            let half = boot.interval(&c.per_problem(k, pass_at_k), level).width() / 2.0;
            if half > 0.0 {
                e.unbiased_off_hw = e.unbiased_off_hw.max((unbiased - m).abs() / half);
                e.naive_below_hw = e.naive_below_hw.max((m - naive) / half);
            }
        }
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binom(n: usize, k: usize) -> f64 {
        if k > n {
            return 0.0;
        }
        (0..k).map(|i| (n - i) as f64 / (i + 1) as f64).product()
    }

    #[test]
    fn agrees_with_binomials() {
        for n in 1..=12 {
            for c in 0..=n {
                for k in 1..=n {
                    let want = 1.0 - binom(n - c, k) / binom(n, k);
                    assert!((pass_at_k(n, c, k) - want).abs() < 1e-12, "n{n} c{c} k{k}");
                    let hat = binom(c, k) / binom(n, k);
                    assert!((pass_hat_k(n, c, k) - hat).abs() < 1e-12);
                }
            }
        }
    }

    #[test]
    fn edge_cases() {
        assert_eq!(pass_at_k(7, 0, 7), 0.0); // c = 0
        assert_eq!(pass_at_k(7, 1, 7), 1.0); // n = k with one correct
        assert_eq!(pass_at_k(7, 7, 1), 1.0);
        assert_eq!(pass_hat_k(7, 7, 7), 1.0);
        assert_eq!(pass_hat_k(7, 6, 7), 0.0);
    }

    #[test]
    fn plug_in_by_hand() {
        // The cheatsheet's table: n = 10, c = 3.
        assert!((pass_at_k_naive(10, 3, 1) - 0.3).abs() < 1e-12);
        assert!((pass_at_k_naive(10, 3, 2) - 0.51).abs() < 1e-12);
        assert!((pass_at_k_naive(10, 3, 5) - (1.0 - 0.16807)).abs() < 1e-12);
        // n = 4, c = 1, k = 2: 1 − 0.75² = 0.4375, unbiased 1 − C(3,2)/C(4,2) = 0.5.
        assert!((pass_at_k_naive(4, 1, 2) - 0.4375).abs() < 1e-12);
        assert!((pass_at_k(4, 1, 2) - 0.5).abs() < 1e-12);
        // Never above the unbiased value, equal at k = 1, c = 0 and c = n.
        for n in 1..=12 {
            for c in 0..=n {
                for k in 1..=n {
                    assert!(pass_at_k_naive(n, c, k) <= pass_at_k(n, c, k) + 1e-12, "n{n} c{c} k{k}");
                }
                assert!((pass_at_k_naive(n, c, 1) - pass_at_k(n, c, 1)).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn monte_carlo_finds_each_estimator() {
        let mut rng = Rng::new(11);
        // One correct sample of four, k = 2: every subset of 2 holds it with
        // probability 1/2; two independent picks with 1 − 0.75² = 0.4375.
        let one_of_four = [false, true, false, false];
        let without = pass_at_k_monte_carlo(&one_of_four, 2, 200_000, Draw::WithoutReplacement, &mut rng);
        let with = pass_at_k_monte_carlo(&one_of_four, 2, 200_000, Draw::WithReplacement, &mut rng);
        // Standard error ≈ √(0.25 / 200 000) ≈ 0.0011.
        assert!((without - 0.5).abs() < 0.006, "{without}");
        assert!((with - 0.4375).abs() < 0.006, "{with}");
        // Certain cases are exact.
        for how in [Draw::WithoutReplacement, Draw::WithReplacement] {
            assert_eq!(pass_at_k_monte_carlo(&[false; 5], 3, 100, how, &mut rng), 0.0);
            assert_eq!(pass_at_k_monte_carlo(&[true; 5], 3, 100, how, &mut rng), 1.0);
        }
        // Without replacement, k > n − c always finds a correct sample (n = 5, c = 3, k = 3).
        let three = [true, false, true, false, true];
        assert_eq!(pass_at_k_monte_carlo(&three, 3, 500, Draw::WithoutReplacement, &mut rng), 1.0);
        assert!(pass_at_k_monte_carlo(&three, 3, 500, Draw::WithReplacement, &mut rng) < 1.0);
    }

    #[test]
    fn counts_and_estimator_gaps() {
        let c = Counts::of(&[vec![true, false, false, false], vec![true, true, false, true]]);
        assert_eq!((c.n, c.c.clone()), (4, vec![1, 3]));
        assert!((c.mean(1, pass_at_k) - 0.5).abs() < 1e-12);
        let boot = Bootstrap::from_resamples(2, vec![vec![0, 0], vec![1, 1]]);
        // A Monte-Carlo draw that agrees with the unbiased estimator exactly.
        let mc: Vec<f64> = (1..=4).map(|k| c.mean(k, pass_at_k)).collect();
        let e = EstimatorGaps::of(&c, mc, &boot, 0.95);
        assert_eq!(e.unbiased_off, 0.0);
        // The plug-in is below at every k > 1, most at k = n = 4 here.
        assert!(e.naive_below > 0.0 && e.naive_k == 4, "{e:?}");
        let correct = vec![vec![true, false, false]; 3];
        let mut rng = Rng::new(3);
        let by_k = monte_carlo_by_k(&correct, 3, 2000, Draw::WithoutReplacement, &mut rng);
        assert_eq!(by_k.len(), 3);
        assert!((by_k[0] - 1.0 / 3.0).abs() < 0.05 && by_k[2] == 1.0, "{by_k:?}");
    }
}
