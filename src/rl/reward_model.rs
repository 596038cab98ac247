//! Reward modelling and best-of-n: the Bradley–Terry loss a reward model is
//! trained with, and the best-of-n quantities over-optimisation is read from
//! ("Scaling Laws for Reward Model Overoptimization", Gao, Schulman &
//! Hilton, arXiv:2210.10760).
//!
//! * [`bt_loss`]: `−log σ(r_c − r_r)` averaged over a batch of pairs, stable
//!   for any margin; [`bt_loss_one`] is the same for one pair, in f64.
//! * [`best_of_n_curve`]: the expected value of the sample that the proxy
//!   ranks best among `n` drawn without replacement from `N` samples, for
//!   every `n` in `1..=N`, from the same samples (no re-sampling).
//! * [`kl_bon`]: the KL of the best-of-n policy to the sampling policy,
//!   `ln n − (n − 1)/n`.

use candle_core::{Result, Tensor};

use super::dpo::neg_log_sigmoid;

/// Bradley–Terry loss of a batch of pairs: mean of `−log σ(r_c − r_r)`.
pub fn bt_loss(chosen: &Tensor, rejected: &Tensor) -> Result<Tensor> {
    neg_log_sigmoid(&(chosen - rejected)?)?.mean_all()
}

/// `−log σ(r_c − r_r)` of one pair: `max(−h, 0) + ln(1 + e^(−|h|))`.
pub fn bt_loss_one(r_chosen: f64, r_rejected: f64) -> f64 {
    let h = r_chosen - r_rejected;
    (-h).max(0.0) + (-h.abs()).exp().ln_1p()
}

/// `KL(π_bon ‖ π) = ln n − (n − 1)/n` nats (the analytic form for
/// best-of-n over distinct samples).
pub fn kl_bon(n: usize) -> f64 {
    let n = n.max(1) as f64;
    n.ln() - (n - 1.0) / n
}

/// `value` of the best-of-n pick by `proxy`, for `n = 1..=N` (`N` =
/// `proxy.len()`): index `n − 1` holds the expectation over all `n`-subsets of
/// the `N` samples of the value of the subset's highest-proxy sample.
///
/// Sorted by proxy ascending, the `i`-th sample (1-based) is the subset's
/// best exactly when it is in the subset and the other `n − 1` come from the
/// `i − 1` below it: weight `C(i−1, n−1) / C(N, n)`. Samples with equal proxy
/// share their values (a tie is broken uniformly at random).
pub fn best_of_n_curve(proxy: &[f64], value: &[f64]) -> Vec<f64> {
    assert_eq!(proxy.len(), value.len(), "one value per sample");
    let big_n = proxy.len();
    let mut order: Vec<usize> = (0..big_n).collect();
    order.sort_by(|&a, &b| proxy[a].total_cmp(&proxy[b]).then(a.cmp(&b)));
    let mut v: Vec<f64> = order.iter().map(|&i| value[i]).collect();
    let mut start = 0;
    while start < big_n {
        let mut end = start + 1;
        while end < big_n && proxy[order[end]] == proxy[order[start]] {
            end += 1;
        }
        let m = v[start..end].iter().sum::<f64>() / (end - start) as f64;
        v[start..end].iter_mut().for_each(|x| *x = m);
        start = end;
    }
    let ln_fact: Vec<f64> = std::iter::once(0.0)
        .chain((1..=big_n).scan(0.0, |acc, k| {
            *acc += (k as f64).ln();
            Some(*acc)
        }))
        .collect();
    let ln_choose = |n: usize, k: usize| ln_fact[n] - ln_fact[k] - ln_fact[n - k];
    (1..=big_n)
        .map(|n| {
            let total = ln_choose(big_n, n);
            (n..=big_n).map(|i| v[i - 1] * (ln_choose(i - 1, n - 1) - total).exp()).sum()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_of_one_is_the_mean_and_best_of_all_is_the_top() {
        let proxy = [0.3, -1.0, 2.0, 0.5];
        let value = [1.0, 0.0, 4.0, 2.0];
        let c = best_of_n_curve(&proxy, &value);
        assert!((c[0] - 7.0 / 4.0).abs() < 1e-12);
        assert!((c[3] - 4.0).abs() < 1e-12);
        // n = 2: pairs of 4 (6 of them); the top sample wins the 3 pairs that hold it.
        // Sorted values 0, 1, 2, 4 → (0·0 + 1·1 + 2·2 + 4·3) / 6.
        assert!((c[1] - 17.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn best_of_n_matches_enumeration_with_ties() {
        let proxy = [1.0, 1.0, 0.0, 2.0, 0.5];
        let value = [3.0, 1.0, 5.0, -1.0, 0.0];
        let c = best_of_n_curve(&proxy, &value);
        // Enumerate every 3-subset; a tie at the top is split evenly.
        let mut sum = 0.0;
        let mut count = 0.0;
        for a in 0..5 {
            for b in a + 1..5 {
                for d in b + 1..5 {
                    let s = [a, b, d];
                    let top = s.iter().map(|&i| proxy[i]).fold(f64::MIN, f64::max);
                    let best: Vec<f64> = s.iter().filter(|&&i| proxy[i] == top).map(|&i| value[i]).collect();
                    sum += best.iter().sum::<f64>() / best.len() as f64;
                    count += 1.0;
                }
            }
        }
        assert!((c[2] - sum / count).abs() < 1e-12, "{} vs {}", c[2], sum / count);
    }

    #[test]
    fn kl_bon_and_the_stable_loss() {
        assert_eq!(kl_bon(1), 0.0);
        assert!((kl_bon(2) - (2f64.ln() - 0.5)).abs() < 1e-12);
        assert!((bt_loss_one(0.0, 0.0) - 2f64.ln()).abs() < 1e-12);
        assert!((bt_loss_one(-800.0, 0.0) - 800.0).abs() < 1e-9);
        assert!(bt_loss_one(300.0, 0.0) < 1e-100);
    }
}
