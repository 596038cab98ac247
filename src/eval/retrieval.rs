//! Retrieval, measured: a BM25 index written out by hand (the lexical
//! baseline), and recall@k from any retriever's scores.
//!
//! BM25 (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25
//! and Beyond", 2009) scores a document `d` for a query `q` as
//!
//! ```text
//! score(q, d) = Σ_{w ∈ q}  idf(w) · f(w, d)·(k1 + 1) / (f(w, d) + k1·(1 − b + b·|d|/avgdl))
//! idf(w)      = ln(1 + (N − n(w) + 0.5) / (n(w) + 0.5))
//! ```
//!
//! with `f(w, d)` the count of `w` in `d`, `n(w)` the documents that hold
//! `w`, `N` the documents. A query word no document holds adds nothing: a
//! synonym is invisible to it.
//!
//! Ties are common for BM25 (a query that shares no word with any tool scores
//! 0 everywhere), so [`recall_at_k`] and [`top1_share`] break them uniformly
//! at random, in expectation: no retriever gains from the order of the list.

use std::collections::BTreeMap;

/// A BM25 index over word lists.
#[derive(Debug, Clone)]
pub struct Bm25 {
    k1: f64,
    b: f64,
    /// Per word: the documents that hold it and its count there (an inverted index).
    postings: BTreeMap<String, Vec<(usize, usize)>>,
    lens: Vec<f64>,
    avgdl: f64,
    idf: BTreeMap<String, f64>,
}

impl Bm25 {
    /// The usual constants: `k1 = 1.2`, `b = 0.75`.
    pub fn new(docs: &[Vec<&str>]) -> Bm25 {
        Bm25::with(docs, 1.2, 0.75)
    }

    pub fn with(docs: &[Vec<&str>], k1: f64, b: f64) -> Bm25 {
        let mut postings: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
        for (i, d) in docs.iter().enumerate() {
            let mut c: BTreeMap<&str, usize> = BTreeMap::new();
            for w in d {
                *c.entry(w).or_default() += 1;
            }
            for (w, f) in c {
                postings.entry(w.to_string()).or_default().push((i, f));
            }
        }
        let n = docs.len() as f64;
        // n(w) is the length of w's posting list.
        let idf = postings
            .iter()
            .map(|(w, p)| (w.clone(), (1.0 + (n - p.len() as f64 + 0.5) / (p.len() as f64 + 0.5)).ln()))
            .collect();
        let lens: Vec<f64> = docs.iter().map(|d| d.len() as f64).collect();
        let avgdl = lens.iter().sum::<f64>() / n.max(1.0);
        Bm25 { k1, b, postings, lens, avgdl, idf }
    }

    /// The score of every document for `query`.
    pub fn scores(&self, query: &[&str]) -> Vec<f64> {
        let mut out = vec![0.0; self.lens.len()];
        for w in query {
            let (Some(&idf), Some(docs)) = (self.idf.get(*w), self.postings.get(*w)) else { continue };
            for &(i, f) in docs {
                let f = f as f64;
                let norm = self.k1 * (1.0 - self.b + self.b * self.lens[i] / self.avgdl);
                out[i] += idf * f * (self.k1 + 1.0) / (f + norm);
            }
        }
        out
    }
}

/// Whether `target` is among the `k` best of `scores`, in expectation over a
/// uniform tie-break: with `g` scores strictly above the target's and `e`
/// others equal to it, `clamp((k − g) / (e + 1), 0, 1)`.
pub fn recall_at_k(scores: &[f64], target: usize, k: usize) -> f64 {
    let s = scores[target];
    let g = scores.iter().filter(|&&x| x > s).count();
    let e = scores.iter().filter(|&&x| x == s).count() - 1;
    ((k as f64 - g as f64) / (e as f64 + 1.0)).clamp(0.0, 1.0)
}

/// The share of the top-scored set (all the maxima; a tie is broken
/// uniformly) that `pred` holds: the chance that the top-1 pick satisfies it.
pub fn top1_share(scores: &[f64], pred: impl Fn(usize) -> bool) -> f64 {
    let top = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let best: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] == top).collect();
    best.iter().filter(|&&i| pred(i)).count() as f64 / best.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bm25_matches_a_hand_computation() {
        let docs = vec![vec!["a", "b", "b"], vec!["a", "c"], vec!["c"]];
        let idx = Bm25::new(&docs);
        let s = idx.scores(&["b", "zzz"]);
        // n(b) = 1 of N = 3: idf = ln(1 + 2.5/1.5); |d| = 3, avgdl = 2.
        let idf = (1.0f64 + 2.5 / 1.5).ln();
        let norm = 1.2 * (1.0 - 0.75 + 0.75 * 3.0 / 2.0);
        assert!((s[0] - idf * 2.0 * 2.2 / (2.0 + norm)).abs() < 1e-12);
        assert_eq!(&s[1..], &[0.0, 0.0]);
    }

    #[test]
    fn recall_breaks_ties_in_expectation() {
        assert_eq!(recall_at_k(&[0.0, 0.0, 0.0, 0.0], 2, 1), 0.25);
        assert_eq!(recall_at_k(&[0.0, 0.0, 0.0, 0.0], 2, 2), 0.5);
        assert_eq!(recall_at_k(&[3.0, 1.0, 2.0], 2, 1), 0.0);
        assert_eq!(recall_at_k(&[3.0, 1.0, 2.0], 2, 2), 1.0);
        assert_eq!(top1_share(&[1.0, 5.0, 5.0], |i| i == 1), 0.5);
    }
}
