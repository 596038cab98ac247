//! Model merging in weight space: combine models fine-tuned from one base
//! into one model, without training.
//!
//! Everything here works on flat vectors — one entry per weight, in the same
//! order for every model (a [`FlatWeights`] flattens a model's named tensors
//! and remembers where each tensor lies, so per-layer statistics stay
//! possible). With θ₀ the base and θᵢ the model fine-tuned on task i, the
//! **task vector** is τᵢ = θᵢ − θ₀ ("Editing Models with Task Arithmetic",
//! arXiv:2212.04089). The merges:
//!
//! * **uniform averaging** — θ = (1/n) Σ θᵢ (a "model soup",
//!   arXiv:2203.05482). From a shared base it equals θ₀ + (1/n) Σ τᵢ: task
//!   arithmetic with λ = 1/n, so each task keeps only 1/n of its update.
//! * **task arithmetic** — θ = θ₀ + λ Σ τᵢ.
//! * **TIES-merging** ("TIES-Merging: Resolving Interference When Merging
//!   Models", arXiv:2306.01708) — *trim* each τᵢ to its top-k% entries by
//!   magnitude (the rest set to 0), *elect* a sign per entry, γ = sgn(Σᵢ τ̂ᵢ)
//!   (the side with the larger summed magnitude wins), then the *disjoint
//!   mean*: average only the τ̂ᵢ that are non-zero and agree with γ;
//!   θ = θ₀ + λ·τ_m.
//! * **DARE** ("Language Models are Super Mario", arXiv:2311.03099) — drop
//!   each entry of each τᵢ with probability p and rescale the survivors by
//!   1/(1−p), so E[τ̃ᵢ] = τᵢ; then add: θ = θ₀ + λ Σ τ̃ᵢ.
//!
//! Merging only works when the models share a loss basin: fine-tuned
//! briefly from the same base, their task vectors are small and roughly
//! additive. Two models trained from different initialisations (or the same
//! network with its hidden units permuted — the same function in other
//! coordinates) average into noise: entry i of one model is not entry i of
//! the other. The `model-merging` drill shows both.

use crate::ml::rng::Rng;

/// A model's weights flattened into one vector, with each named tensor's
/// place in it. Names are kept in sorted order so two models of the same
/// shape line up entry by entry.
#[derive(Debug, Clone, PartialEq)]
pub struct FlatWeights {
    /// (name, offset, length) of each tensor, sorted by name.
    pub layout: Vec<(String, usize, usize)>,
    pub data: Vec<f32>,
}

impl FlatWeights {
    /// Flatten named tensors (already flat), in name order.
    pub fn new(named: impl IntoIterator<Item = (String, Vec<f32>)>) -> FlatWeights {
        let mut named: Vec<(String, Vec<f32>)> = named.into_iter().collect();
        named.sort_by(|a, b| a.0.cmp(&b.0));
        let mut layout = Vec::with_capacity(named.len());
        let mut data = Vec::new();
        for (name, v) in named {
            layout.push((name, data.len(), v.len()));
            data.extend(v);
        }
        FlatWeights { layout, data }
    }

    /// The same layout with other values (a merge result).
    pub fn with_data(&self, data: Vec<f32>) -> FlatWeights {
        assert_eq!(data.len(), self.data.len(), "a merge must keep the number of weights");
        FlatWeights { layout: self.layout.clone(), data }
    }

    /// The entries of one tensor.
    pub fn tensor(&self, name: &str) -> Option<&[f32]> {
        self.layout.iter().find(|(n, ..)| n == name).map(|&(_, o, l)| &self.data[o..o + l])
    }

    /// Whether two models have the same tensors with the same sizes.
    pub fn same_layout(&self, other: &FlatWeights) -> bool {
        self.layout == other.layout
    }
}

/// τ = θ_fine − θ_base.
pub fn task_vector(base: &[f32], fine: &[f32]) -> Vec<f32> {
    assert_eq!(base.len(), fine.len(), "task vector of models of different sizes");
    fine.iter().zip(base).map(|(f, b)| f - b).collect()
}

/// θ₀ + Σ scaleᵢ·vᵢ — the one place a merge writes weights.
fn base_plus(base: &[f32], parts: &[(f32, &[f32])]) -> Vec<f32> {
    let mut out = base.to_vec();
    for (scale, v) in parts {
        assert_eq!(v.len(), out.len(), "merging vectors of different sizes");
        for (o, x) in out.iter_mut().zip(v.iter()) {
            *o += scale * x;
        }
    }
    out
}

/// Uniform average of models: (1/n) Σ θᵢ.
pub fn uniform_average(models: &[&[f32]]) -> Vec<f32> {
    assert!(!models.is_empty(), "averaging no models");
    let n = models.len() as f32;
    let zero = vec![0.0; models[0].len()];
    let parts: Vec<(f32, &[f32])> = models.iter().map(|m| (1.0 / n, *m)).collect();
    base_plus(&zero, &parts)
}

/// Task arithmetic: θ₀ + λ Σ τᵢ.
pub fn task_arithmetic(base: &[f32], taus: &[&[f32]], lambda: f32) -> Vec<f32> {
    let parts: Vec<(f32, &[f32])> = taus.iter().map(|t| (lambda, *t)).collect();
    base_plus(base, &parts)
}

/// The magnitude an entry must reach to be among the top `keep` fraction of
/// `v` by |value| (`keep` in [0, 1]). Returns `None` when nothing is kept.
/// Entries tied with the threshold are all kept, so slightly more than
/// `keep` may survive when magnitudes repeat.
pub fn magnitude_threshold(v: &[f32], keep: f64) -> Option<f32> {
    let k = ((keep.clamp(0.0, 1.0) * v.len() as f64).round() as usize).min(v.len());
    if k == 0 {
        return None;
    }
    let mut mags: Vec<f32> = v.iter().map(|x| x.abs()).collect();
    // The k-th largest magnitude: sort descending (total order, NaN-safe).
    mags.sort_by(|a, b| b.total_cmp(a));
    Some(mags[k - 1])
}

/// TIES step 1, *trim*: keep the top `keep` fraction of entries by
/// magnitude, set the others to 0. Zero entries are never "kept".
pub fn trim_top_k(tau: &[f32], keep: f64) -> Vec<f32> {
    match magnitude_threshold(tau, keep) {
        None => vec![0.0; tau.len()],
        Some(t) => tau.iter().map(|&x| if x != 0.0 && x.abs() >= t { x } else { 0.0 }).collect(),
    }
}

/// TIES step 2, *elect*: per entry, the sign of Σᵢ τ̂ᵢ — the sign whose
/// entries have the larger total magnitude. +1, −1, or 0 where they cancel
/// (or all are 0).
pub fn elect_sign(trimmed: &[&[f32]]) -> Vec<f32> {
    assert!(!trimmed.is_empty(), "electing a sign from no task vectors");
    (0..trimmed[0].len())
        .map(|j| {
            let s: f32 = trimmed.iter().map(|t| t[j]).sum();
            if s > 0.0 {
                1.0
            } else if s < 0.0 {
                -1.0
            } else {
                0.0
            }
        })
        .collect()
}

/// TIES step 3, *disjoint mean*: per entry, the mean of the τ̂ᵢ that are
/// non-zero and share the elected sign; 0 where none does.
pub fn disjoint_mean(trimmed: &[&[f32]], signs: &[f32]) -> Vec<f32> {
    signs
        .iter()
        .enumerate()
        .map(|(j, &g)| {
            let agree: Vec<f32> = trimmed.iter().map(|t| t[j]).filter(|&x| x != 0.0 && x * g > 0.0).collect();
            if agree.is_empty() {
                0.0
            } else {
                agree.iter().sum::<f32>() / agree.len() as f32
            }
        })
        .collect()
}

/// The merged task vector of TIES (trim, elect, disjoint mean), before λ.
pub fn ties_vector(taus: &[&[f32]], keep: f64) -> Vec<f32> {
    let trimmed: Vec<Vec<f32>> = taus.iter().map(|t| trim_top_k(t, keep)).collect();
    let refs: Vec<&[f32]> = trimmed.iter().map(|t| t.as_slice()).collect();
    let signs = elect_sign(&refs);
    disjoint_mean(&refs, &signs)
}

/// TIES-merging: θ₀ + λ·ties_vector(τ, keep).
pub fn ties_merge(base: &[f32], taus: &[&[f32]], keep: f64, lambda: f32) -> Vec<f32> {
    let tau_m = ties_vector(taus, keep);
    base_plus(base, &[(lambda, &tau_m)])
}

/// DARE on one task vector: drop each entry with probability `p`, scale
/// the survivors by 1/(1−p) (expectation unchanged). `p` in [0, 1); every
/// draw comes from `rng`, entry by entry in order.
pub fn dare(tau: &[f32], p: f64, rng: &mut Rng) -> Vec<f32> {
    assert!((0.0..1.0).contains(&p), "DARE drop rate must lie in [0, 1), got {p}");
    let scale = (1.0 / (1.0 - p)) as f32;
    tau.iter().map(|&x| if rng.bool(p) { 0.0 } else { x * scale }).collect()
}

/// DARE merge: θ₀ + λ Σᵢ dare(τᵢ).
pub fn dare_merge(base: &[f32], taus: &[&[f32]], p: f64, lambda: f32, rng: &mut Rng) -> Vec<f32> {
    let dropped: Vec<Vec<f32>> = taus.iter().map(|t| dare(t, p, rng)).collect();
    let parts: Vec<(f32, &[f32])> = dropped.iter().map(|d| (lambda, d.as_slice())).collect();
    base_plus(base, &parts)
}

/// Sign conflicts between two task vectors: (entries where both are
/// non-zero and their signs differ, entries where both are non-zero).
pub fn sign_conflicts(a: &[f32], b: &[f32]) -> (usize, usize) {
    let mut conflicts = 0;
    let mut both = 0;
    for (x, y) in a.iter().zip(b) {
        if *x != 0.0 && *y != 0.0 {
            both += 1;
            if (*x > 0.0) != (*y > 0.0) {
                conflicts += 1;
            }
        }
    }
    (conflicts, both)
}

/// Cosine similarity of two vectors (0 when either is all zeros).
pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    let dot: f64 = a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum();
    let na: f64 = a.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    let nb: f64 = b.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

/// L2 norm.
pub fn norm(v: &[f32]) -> f64 {
    v.iter().map(|x| (*x as f64).powi(2)).sum::<f64>().sqrt()
}

/// Short layer names for per-layer tables: `blocks.3.mlp.fc.weight` →
/// `block 3 mlp`, `wte.weight` → `wte`.
pub fn layer_of(name: &str) -> String {
    match name.split('.').collect::<Vec<_>>().as_slice() {
        ["blocks", i, part, ..] => format!("block {i} {part}"),
        [first, ..] => first.to_string(),
        [] => name.to_string(),
    }
}

/// Sign conflicts between two task vectors in one layer (or in all weights).
#[derive(Debug, Clone, PartialEq)]
pub struct LayerConflicts {
    pub layer: String,
    /// Entries where both task vectors are non-zero and of opposite sign,
    pub conflicts: usize,
    /// of the entries where both are non-zero;
    pub both: usize,
    /// the same after TIES trims each to its top entries.
    pub conflicts_kept: usize,
    pub both_kept: usize,
    pub params: usize,
}

impl LayerConflicts {
    /// The share of the entries both moved whose signs conflict (0 when none).
    pub fn share(&self) -> f64 {
        share(self.conflicts, self.both)
    }

    /// The same among the entries both keep after the trim.
    pub fn share_kept(&self) -> f64 {
        share(self.conflicts_kept, self.both_kept)
    }
}

fn share(c: usize, n: usize) -> f64 {
    if n > 0 {
        c as f64 / n as f64
    } else {
        0.0
    }
}

/// Sign conflicts between τ_a and τ_b, per layer of `w`'s layout (its
/// tensors summed by [`layer_of`], in layout order) and over all weights
/// (`"all"`): among all entries, and among those TIES keeps after trimming
/// each vector to its top `keep` fraction.
pub fn layer_conflicts(w: &FlatWeights, ta: &[f32], tb: &[f32], keep: f64) -> (Vec<LayerConflicts>, LayerConflicts) {
    let (ka, kb) = (trim_top_k(ta, keep), trim_top_k(tb, keep));
    let mut rows: Vec<LayerConflicts> = Vec::new();
    for (name, off, len) in &w.layout {
        let r = *off..off + len;
        let (conflicts, both) = sign_conflicts(&ta[r.clone()], &tb[r.clone()]);
        let (conflicts_kept, both_kept) = sign_conflicts(&ka[r.clone()], &kb[r.clone()]);
        let here = LayerConflicts { layer: layer_of(name), conflicts, both, conflicts_kept, both_kept, params: *len };
        match rows.iter_mut().find(|x| x.layer == here.layer) {
            Some(e) => {
                e.conflicts += here.conflicts;
                e.both += here.both;
                e.conflicts_kept += here.conflicts_kept;
                e.both_kept += here.both_kept;
                e.params += here.params;
            }
            None => rows.push(here),
        }
    }
    let ((conflicts, both), (conflicts_kept, both_kept)) = (sign_conflicts(ta, tb), sign_conflicts(&ka, &kb));
    let all = LayerConflicts { layer: "all".into(), conflicts, both, conflicts_kept, both_kept, params: w.data.len() };
    (rows, all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f32], b: &[f32]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6)
    }

    #[test]
    fn task_vectors_average_and_arithmetic_by_hand() {
        let base = [1.0, 1.0, 1.0];
        let a = [2.0, 1.0, 0.0];
        let b = [1.0, 3.0, 0.0];
        let ta = task_vector(&base, &a);
        let tb = task_vector(&base, &b);
        assert_eq!(ta, vec![1.0, 0.0, -1.0]);
        assert_eq!(tb, vec![0.0, 2.0, -1.0]);
        // Averaging = task arithmetic with λ = 1/2 from a shared base.
        assert!(close(&uniform_average(&[&a, &b]), &[1.5, 2.0, 0.0]));
        assert!(close(&task_arithmetic(&base, &[&ta, &tb], 0.5), &[1.5, 2.0, 0.0]));
        // λ = 1 keeps both updates whole: 1 + (1 + 0), 1 + (0 + 2), 1 + (−1 − 1).
        assert!(close(&task_arithmetic(&base, &[&ta, &tb], 1.0), &[2.0, 3.0, -1.0]));
        // λ = 0 is the base.
        assert!(close(&task_arithmetic(&base, &[&ta, &tb], 0.0), &base));
    }

    #[test]
    fn trim_keeps_the_largest_magnitudes() {
        let t = [0.1, -0.5, 0.3, -0.05, 0.0, 0.4];
        // Top 50% of 6 = 3 entries: |−0.5|, |0.4|, |0.3|.
        assert_eq!(trim_top_k(&t, 0.5), vec![0.0, -0.5, 0.3, 0.0, 0.0, 0.4]);
        assert_eq!(trim_top_k(&t, 1.0 / 6.0), vec![0.0, -0.5, 0.0, 0.0, 0.0, 0.0]);
        // Keeping everything keeps everything; keeping nothing zeroes it.
        assert_eq!(trim_top_k(&t, 1.0), t.to_vec());
        assert_eq!(trim_top_k(&t, 0.0), vec![0.0; 6]);
        assert_eq!(magnitude_threshold(&t, 0.0), None);
    }

    #[test]
    fn ties_by_hand_on_three_vectors() {
        // Three task vectors of 4 entries, trim to the top 50% (2 each).
        let t1 = [0.5, -0.1, 0.3, 0.0];
        let t2 = [-0.2, 0.4, 0.35, -0.05];
        let t3 = [0.1, -0.6, -0.25, 0.2];
        // Trimmed: t1 keeps 0.5, 0.3; t2 keeps 0.4, 0.35; t3 keeps −0.6, −0.25.
        let tr: Vec<Vec<f32>> = [&t1[..], &t2, &t3].iter().map(|t| trim_top_k(t, 0.5)).collect();
        assert_eq!(tr[0], vec![0.5, 0.0, 0.3, 0.0]);
        assert_eq!(tr[1], vec![0.0, 0.4, 0.35, 0.0]);
        assert_eq!(tr[2], vec![0.0, -0.6, -0.25, 0.0]);
        let refs: Vec<&[f32]> = tr.iter().map(|t| t.as_slice()).collect();
        // Sums: 0.5, −0.2, 0.4, 0 → signs +, −, +, 0.
        let g = elect_sign(&refs);
        assert_eq!(g, vec![1.0, -1.0, 1.0, 0.0]);
        // Disjoint mean: 0.5 alone; −0.6 alone (0.4 disagrees); mean(0.3, 0.35); nothing.
        let m = disjoint_mean(&refs, &g);
        assert!(close(&m, &[0.5, -0.6, 0.325, 0.0]), "{m:?}");
        assert!(close(&ties_vector(&[&t1, &t2, &t3], 0.5), &m));
        let base = [1.0, 1.0, 1.0, 1.0];
        assert!(close(&ties_merge(&base, &[&t1, &t2, &t3], 0.5, 2.0), &[2.0, -0.2, 1.65, 1.0]));
        // A trim that keeps nothing merges back to the base.
        assert!(close(&ties_merge(&base, &[&t1, &t2, &t3], 0.0, 1.0), &base));
    }

    #[test]
    fn ties_without_trim_differs_from_the_plain_mean_only_where_signs_conflict() {
        let a = [0.2, 0.4, -0.3];
        let b = [0.4, -0.1, -0.1];
        // Entry 0 agrees: mean 0.3. Entry 1: +0.4 beats −0.1, so 0.4 (the
        // plain mean would be 0.15). Entry 2 agrees: −0.2.
        assert!(close(&ties_vector(&[&a, &b], 1.0), &[0.3, 0.4, -0.2]));
        assert_eq!(sign_conflicts(&a, &b), (1, 3));
    }

    #[test]
    fn dare_drops_and_rescales_keeping_the_expectation() {
        let tau = vec![0.2f32; 20_000];
        let mut rng = Rng::new(7);
        let d = dare(&tau, 0.9, &mut rng);
        let kept = d.iter().filter(|x| **x != 0.0).count();
        // About 10% survive, each scaled to 0.2 / 0.1 = 2.
        assert!((1700..2300).contains(&kept), "{kept}");
        assert!(d.iter().all(|x| *x == 0.0 || (x - 2.0).abs() < 1e-5));
        let mean: f32 = d.iter().sum::<f32>() / d.len() as f32;
        assert!((mean - 0.2).abs() < 0.02, "{mean}");
        // p = 0 is the identity; the same seed gives the same mask.
        assert_eq!(dare(&tau[..5], 0.0, &mut Rng::new(1)), tau[..5].to_vec());
        assert_eq!(dare(&tau, 0.5, &mut Rng::new(3)), dare(&tau, 0.5, &mut Rng::new(3)));
        let base = vec![1.0f32; 3];
        let merged = dare_merge(&base, &[&[0.5, 0.5, 0.5]], 0.0, 2.0, &mut Rng::new(1));
        assert!(close(&merged, &[2.0, 2.0, 2.0]));
    }

    #[test]
    fn flat_weights_line_up_by_name() {
        let a = FlatWeights::new([("b".to_string(), vec![3.0, 4.0]), ("a".to_string(), vec![1.0])]);
        assert_eq!(a.data, vec![1.0, 3.0, 4.0]);
        assert_eq!(a.tensor("b"), Some(&[3.0f32, 4.0][..]));
        let b = a.with_data(vec![0.0, 0.0, 1.0]);
        assert!(a.same_layout(&b));
        assert!((cosine(&a.data, &b.data) - 4.0 / 26f64.sqrt()).abs() < 1e-9);
        assert_eq!(norm(&[3.0, 4.0]), 5.0);
    }

    #[test]
    fn conflicts_are_summed_per_layer() {
        assert_eq!(layer_of("blocks.3.mlp.fc.weight"), "block 3 mlp");
        assert_eq!(layer_of("wte.weight"), "wte");
        let w = FlatWeights::new([
            ("blocks.0.mlp.fc.weight".to_string(), vec![0.0; 2]),
            ("blocks.0.mlp.proj.weight".to_string(), vec![0.0; 2]),
            ("wte.weight".to_string(), vec![0.0; 2]),
        ]);
        let ta = [1.0, -1.0, 0.1, 1.0, 2.0, 0.0];
        let tb = [-1.0, -1.0, -0.1, 1.0, -2.0, 1.0];
        let (rows, all) = layer_conflicts(&w, &ta, &tb, 0.5);
        assert_eq!(rows.len(), 2);
        // block 0 mlp: entries 0..4 all moved in both; 0 and 2 conflict.
        assert_eq!((rows[0].layer.as_str(), rows[0].conflicts, rows[0].both, rows[0].params), ("block 0 mlp", 2, 4, 4));
        assert_eq!(rows[0].share(), 0.5);
        // wte: entry 4 conflicts, entry 5 did not move in τ_a.
        assert_eq!((rows[1].conflicts, rows[1].both), (1, 1));
        assert_eq!((all.conflicts, all.both, all.params), (3, 5, 6));
        // Kept: the top half of each by magnitude (ties with the threshold 1 kept too):
        // both keep entries 0, 1, 3 and 4, and 0 and 4 conflict.
        assert_eq!((all.conflicts_kept, all.both_kept), (2, 4));
        assert_eq!(LayerConflicts { both: 0, ..all }.share(), 0.0);
    }
}
