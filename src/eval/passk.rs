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
//! ```
//! use agentlab::eval::{pass_at_k, pass_hat_k};
//! assert!((pass_at_k(10, 3, 1) - 0.3).abs() < 1e-12);
//! assert_eq!(pass_at_k(5, 0, 3), 0.0);
//! assert!((pass_hat_k(10, 3, 2) - 3.0 * 2.0 / (10.0 * 9.0)).abs() < 1e-12);
//! ```

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
}
