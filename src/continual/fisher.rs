//! The diagonal empirical Fisher information:
//!
//! ```text
//! F_i = (1/N) Σ_n ( ∂ log p(y_n | x_n; θ) / ∂θ_i )²
//! ```
//!
//! one squared *per-sample* gradient per parameter, averaged. (Squaring the
//! gradient of a batch mean would instead give the square of the mean
//! gradient, which is near zero at a minimum — a common bug.) "Empirical"
//! because y_n is the data's label, not a sample from the model; the true
//! Fisher would sample y from p(·|x; θ). Every entry is ≥ 0 by construction
//! of a square, and large entries mark parameters the task depends on.

use std::collections::BTreeMap;

use candle_core::{DType, Result, Tensor, Var, D};

use super::merge::layer_of;
use crate::ml::rng::Rng;

/// One layer's Fisher entries: their sum, how many there are, the largest.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerFisher {
    pub layer: String,
    pub sum: f64,
    pub params: usize,
    pub max: f64,
}

impl LayerFisher {
    pub fn mean(&self) -> f64 {
        self.sum / self.params as f64
    }
}

/// Per-parameter Fisher diagonals, keyed by parameter name.
#[derive(Debug, Clone)]
pub struct Fisher {
    pub diag: BTreeMap<String, Tensor>,
    pub samples: usize,
}

impl Fisher {
    /// Per layer (its tensors grouped by [`layer_of`], in name order): the
    /// number of entries, their mean and their max — which parts of the
    /// network the task leans on (the view of the ewc-replay drill).
    pub fn by_layer(&self) -> Result<Vec<LayerFisher>> {
        let mut layers: Vec<LayerFisher> = Vec::new();
        for (name, f) in &self.diag {
            let v: Vec<f32> = f.flatten_all()?.to_vec1()?;
            let sum: f64 = v.iter().map(|x| *x as f64).sum();
            let max = v.iter().cloned().fold(0.0f32, f32::max) as f64;
            let layer = layer_of(name);
            match layers.iter_mut().find(|l| l.layer == layer) {
                Some(l) => {
                    l.sum += sum;
                    l.params += v.len();
                    l.max = l.max.max(max);
                }
                None => layers.push(LayerFisher { layer, sum, params: v.len(), max }),
            }
        }
        Ok(layers)
    }

    pub fn min_entry(&self) -> Result<f64> {
        let mut m = f64::INFINITY;
        for f in self.diag.values() {
            m = m.min(f.flatten_all()?.min(0)?.to_scalar::<f32>()? as f64);
        }
        Ok(m)
    }

    /// Mean of all entries, over every parameter.
    pub fn mean_entry(&self) -> Result<f64> {
        let (mut sum, mut n) = (0.0, 0usize);
        for f in self.diag.values() {
            sum += f.sum_all()?.to_dtype(DType::F64)?.to_scalar::<f64>()?;
            n += f.elem_count();
        }
        Ok(sum / n.max(1) as f64)
    }

    /// For each `frac`, the share of the Fisher's total mass held by the
    /// largest `frac` of its entries (0.01 → the top 1% of weights). Near 1
    /// means a few weights carry all the importance; `frac` itself means every
    /// weight counts the same.
    pub fn top_shares(&self, fracs: &[f64]) -> Result<Vec<f64>> {
        let mut all: Vec<f32> = Vec::new();
        for f in self.diag.values() {
            all.extend(f.flatten_all()?.to_vec1::<f32>()?);
        }
        let total: f64 = all.iter().map(|x| *x as f64).sum();
        if all.is_empty() || total <= 0.0 {
            return Ok(vec![0.0; fracs.len()]);
        }
        all.sort_by(|a, b| b.total_cmp(a));
        Ok(fracs
            .iter()
            .map(|frac| {
                let k = ((frac * all.len() as f64).ceil() as usize).clamp(1, all.len());
                all[..k].iter().map(|x| *x as f64).sum::<f64>() / total
            })
            .collect())
    }

    /// How far the weights moved from `anchor` (θ* of the task), split by how
    /// much the task leans on them: the mean squared change `(θ − θ*)²` over
    /// the weights whose Fisher entry is in the top `frac` of all entries,
    /// and over the rest. EWC's penalty weighs each change by F, so under EWC
    /// the first number stays small while the second may grow; plain
    /// fine-tuning moves both alike.
    pub fn drift_by_importance(
        &self,
        frac: f64,
        anchor: &BTreeMap<String, Tensor>,
        now: &BTreeMap<String, Tensor>,
    ) -> Result<(f64, f64)> {
        let mut entries: Vec<f32> = Vec::new();
        for f in self.diag.values() {
            entries.extend(f.flatten_all()?.to_vec1::<f32>()?);
        }
        if entries.is_empty() {
            return Ok((0.0, 0.0));
        }
        entries.sort_by(|a, b| b.total_cmp(a));
        let k = ((frac * entries.len() as f64).ceil() as usize).clamp(1, entries.len());
        let cut = entries[k - 1];
        let (mut top, mut n_top, mut rest, mut n_rest) = (0.0f64, 0usize, 0.0f64, 0usize);
        for (name, f) in &self.diag {
            let (Some(a), Some(v)) = (anchor.get(name), now.get(name)) else { continue };
            let f = f.flatten_all()?.to_vec1::<f32>()?;
            let a = a.flatten_all()?.to_vec1::<f32>()?;
            let v = v.flatten_all()?.to_vec1::<f32>()?;
            for ((fi, ai), vi) in f.iter().zip(&a).zip(&v) {
                let d2 = ((vi - ai) as f64).powi(2);
                if *fi >= cut && n_top < k {
                    top += d2;
                    n_top += 1;
                } else {
                    rest += d2;
                    n_rest += 1;
                }
            }
        }
        Ok((top / n_top.max(1) as f64, rest / n_rest.max(1) as f64))
    }

    /// `F / mean(F)`: the same ranking of parameters with mean entry 1.
    ///
    /// The raw scale of an empirical Fisher follows the loss: once a model
    /// fits its task almost perfectly, per-sample gradients (and so F) shrink
    /// towards 0 by orders of magnitude from one run to the next. Normalised,
    /// λ means "how much stronger than an average parameter's pull" and the
    /// same λ works across seeds. A zero Fisher is returned unchanged.
    pub fn normalized(&self) -> Result<Fisher> {
        let mean = self.mean_entry()?;
        if mean <= 0.0 || !mean.is_finite() {
            return Ok(self.clone());
        }
        let diag = self.diag.iter().map(|(k, f)| Ok((k.clone(), (f / mean)?))).collect::<Result<_>>()?;
        Ok(Fisher { diag, samples: self.samples })
    }

    /// `self·decay + other`, for online accumulation over tasks.
    pub fn decayed_sum(&self, decay: f64, other: &Fisher) -> Result<Fisher> {
        let mut diag = BTreeMap::new();
        for (k, f) in &other.diag {
            let v = match self.diag.get(k) {
                Some(old) => ((old * decay)? + f)?,
                None => f.clone(),
            };
            diag.insert(k.clone(), v);
        }
        Ok(Fisher { diag, samples: self.samples + other.samples })
    }
}

/// Estimate the diagonal Fisher of `vars` from `n` per-sample losses.
/// `sample_loss(i)` must return the negative log-likelihood of sample `i` alone.
pub fn diagonal_fisher<F>(vars: &BTreeMap<String, Var>, n: usize, mut sample_loss: F) -> Result<Fisher>
where
    F: FnMut(usize) -> Result<Tensor>,
{
    let mut sums: BTreeMap<String, Tensor> = BTreeMap::new();
    for (name, v) in vars {
        sums.insert(name.clone(), v.as_tensor().zeros_like()?);
    }
    for i in 0..n {
        let grads = sample_loss(i)?.backward()?;
        for (name, v) in vars {
            if let Some(g) = grads.get(v.as_tensor()) {
                let s = sums.get_mut(name).expect("initialised above");
                *s = (&*s + g.sqr()?)?;
            }
        }
    }
    let scale = 1.0 / n.max(1) as f64;
    let diag = sums.into_iter().map(|(k, s)| Ok((k, (s * scale)?))).collect::<Result<BTreeMap<_, _>>>()?;
    Ok(Fisher { diag, samples: n })
}

/// A per-sample loss whose squared gradient is, in expectation, the diagonal
/// of the *true* Fisher summed over the kept positions:
///
/// ```text
/// E_ξ[(∂ℓ/∂θ_i)²] = Σ_t Σ_k p_tk (∂ log p_tk / ∂θ_i)²,   ℓ = Σ_t Σ_k ξ_tk √p_tk · log p_tk
/// ```
///
/// with ξ_tk = ±1 at random and p_tk the model's own (detached)
/// probabilities: the cross terms k ≠ k' and t ≠ t' vanish because
/// E[ξ_tk ξ_t'k'] = 0. The true Fisher takes the expectation over labels
/// drawn from the model instead of the data's labels; one backward pass per
/// sample, like the empirical Fisher, but its scale is linear in the
/// model's remaining uncertainty where the empirical one is quadratic.
/// `logits: [B,T,V]`, `labels: [B,T]` (−100 = not scored).
pub fn true_fisher_probe(logits: &Tensor, labels: &Tensor, rng: &mut Rng) -> Result<Tensor> {
    let v = logits.dim(D::Minus1)?;
    let logp = candle_nn::ops::log_softmax(&logits.reshape(((), v))?, D::Minus1)?; // [N,V]
    let keep = labels.flatten_all()?.ge(0i64)?.to_dtype(logp.dtype())?.unsqueeze(1)?; // [N,1]
    let signs: Vec<f32> = (0..logp.elem_count()).map(|_| if rng.bool(0.5) { 1.0 } else { -1.0 }).collect();
    let signs = Tensor::from_vec(signs, logp.shape(), logp.device())?;
    // ξ·√p·keep, a constant: the gradient flows through log p only.
    let weights = logp.detach().exp()?.sqrt()?.mul(&signs)?.broadcast_mul(&keep)?;
    (logp * weights)?.sum_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn matches_squared_per_sample_gradients_by_hand() {
        // Linear model ŷ = w·x with squared loss ½(w·x − y)²: ∂/∂w = (w·x − y)·x.
        let w = Var::new(&[0.5f32, -1.0], &Device::Cpu).unwrap();
        let xs = [[1.0f32, 2.0], [3.0, -1.0], [0.0, 1.0]];
        let ys = [1.0f32, 0.0, 2.0];
        let vars = BTreeMap::from([("w".to_string(), w.clone())]);
        let f = diagonal_fisher(&vars, 3, |i| {
            let x = Tensor::new(&xs[i], &Device::Cpu)?;
            let pred = (w.as_tensor() * x)?.sum_all()?;
            (pred - ys[i] as f64)?.sqr()? * 0.5
        })
        .unwrap();
        let mut want = [0.0f32; 2];
        for i in 0..3 {
            let r = 0.5 * xs[i][0] - xs[i][1] - ys[i];
            for j in 0..2 {
                want[j] += (r * xs[i][j]).powi(2) / 3.0;
            }
        }
        let got = f.diag["w"].to_vec1::<f32>().unwrap();
        assert!((got[0] - want[0]).abs() < 1e-5 && (got[1] - want[1]).abs() < 1e-5, "{got:?} vs {want:?}");
        assert!(f.min_entry().unwrap() >= 0.0);
    }

    #[test]
    fn by_layer_groups_the_tensors_of_a_layer() {
        let t = |v: &[f32]| Tensor::new(v, &Device::Cpu).unwrap();
        let diag = BTreeMap::from([
            ("blocks.0.mlp.fc.weight".to_string(), t(&[1.0, 3.0])),
            ("blocks.0.mlp.proj.weight".to_string(), t(&[2.0])),
            ("wte.weight".to_string(), t(&[4.0, 0.0])),
        ]);
        let layers = Fisher { diag, samples: 1 }.by_layer().unwrap();
        let got: Vec<(&str, usize, f64, f64)> =
            layers.iter().map(|l| (l.layer.as_str(), l.params, l.mean(), l.max)).collect();
        assert_eq!(got, vec![("block 0 mlp", 3, 2.0, 3.0), ("wte", 2, 2.0, 4.0)]);
    }

    #[test]
    fn true_fisher_probe_squares_to_the_true_fisher_on_average() {
        // Softmax regression, logits z_t = W x_t for two scored positions and
        // one masked one. Exact true Fisher: Σ_t Σ_k p_tk (∂ log p_tk / ∂W)²,
        // one backward pass per (t, k). The probe must match it on average.
        let d = Device::Cpu;
        let w = Var::new(&[[0.5f32, -1.0, 0.2], [0.1, 0.3, -0.4], [-0.6, 0.2, 0.9], [0.0, 0.7, 0.1]], &d).unwrap();
        let xs = Tensor::new(&[[1.0f32, 0.5, -1.0], [0.2, -0.3, 2.0], [1.5, 1.0, 0.0]], &d).unwrap(); // [T=3, in=3]
        let logits = || xs.matmul(&w.as_tensor().t().unwrap()).unwrap().unsqueeze(0).unwrap(); // [1,3,V=4]
        let labels = Tensor::new(&[[2i64, -100, 0]], &d).unwrap();
        let mut exact = vec![0f64; 12];
        let logp = candle_nn::ops::log_softmax(&logits(), D::Minus1).unwrap();
        let p: Vec<Vec<f32>> = logp.exp().unwrap().squeeze(0).unwrap().to_vec2().unwrap();
        for t in [0usize, 2] {
            for (k, &pk) in p[t].iter().enumerate() {
                let lp = candle_nn::ops::log_softmax(&logits(), D::Minus1).unwrap().get(0).unwrap().get(t).unwrap();
                let g = lp.get(k).unwrap().backward().unwrap();
                let g: Vec<f32> = g.get(w.as_tensor()).unwrap().flatten_all().unwrap().to_vec1().unwrap();
                for (e, gi) in exact.iter_mut().zip(g) {
                    *e += pk as f64 * (gi as f64).powi(2);
                }
            }
        }
        let vars = BTreeMap::from([("w".to_string(), w.clone())]);
        let mut rng = Rng::new(5);
        let n = 4000;
        let f = diagonal_fisher(&vars, n, |_| true_fisher_probe(&logits(), &labels, &mut rng)).unwrap();
        let got: Vec<f32> = f.diag["w"].flatten_all().unwrap().to_vec1().unwrap();
        let scale = exact.iter().cloned().fold(0.0, f64::max);
        for (g, e) in got.iter().zip(&exact) {
            assert!((*g as f64 - e).abs() < 0.06 * scale, "probe {got:?}\nexact {exact:?}");
        }
        // The empirical Fisher of the same data is a different matrix.
        let emp = diagonal_fisher(&vars, 1, |_| {
            let lp = candle_nn::ops::log_softmax(&logits(), D::Minus1)?.squeeze(0)?;
            lp.get(0)?.get(2)? + lp.get(2)?.get(0)?
        })
        .unwrap();
        let emp: Vec<f32> = emp.diag["w"].flatten_all().unwrap().to_vec1().unwrap();
        assert!(emp.iter().zip(&exact).any(|(a, b)| (*a as f64 - b).abs() > 0.1 * scale));
    }

    #[test]
    fn top_shares_sum_the_largest_entries() {
        let d = Device::Cpu;
        // Ten entries across two tensors, total 20: the largest is 11.
        let f = Fisher {
            diag: BTreeMap::from([
                ("a".to_string(), Tensor::new(&[11.0f32, 1.0, 1.0, 1.0, 1.0], &d).unwrap()),
                ("b".to_string(), Tensor::new(&[1.0f32, 1.0, 1.0, 1.0, 1.0], &d).unwrap()),
            ]),
            samples: 1,
        };
        let got = f.top_shares(&[0.1, 0.3, 1.0]).unwrap();
        assert_eq!(got, vec![11.0 / 20.0, 13.0 / 20.0, 1.0]);
    }

    #[test]
    fn normalised_fisher_has_mean_one_and_keeps_ratios() {
        let d = Device::Cpu;
        let f = Fisher {
            diag: BTreeMap::from([
                ("a".to_string(), Tensor::new(&[1e-9f32, 3e-9], &d).unwrap()),
                ("b".to_string(), Tensor::new(&[0.0f32, 4e-9], &d).unwrap()),
            ]),
            samples: 2,
        };
        assert!((f.mean_entry().unwrap() - 2e-9).abs() < 1e-15);
        let n = f.normalized().unwrap();
        assert_eq!(n.diag["a"].to_vec1::<f32>().unwrap(), vec![0.5, 1.5]);
        assert_eq!(n.diag["b"].to_vec1::<f32>().unwrap(), vec![0.0, 2.0]);
    }

    #[test]
    fn drift_splits_by_importance() {
        let d = Device::Cpu;
        let fisher = Fisher {
            diag: [("w".to_string(), Tensor::new(&[10.0f32, 1.0, 1.0, 1.0], &d).unwrap())].into(),
            samples: 1,
        };
        let anchor = [("w".to_string(), Tensor::new(&[0.0f32, 0.0, 0.0, 0.0], &d).unwrap())].into();
        let now = [("w".to_string(), Tensor::new(&[1.0f32, 2.0, -2.0, 2.0], &d).unwrap())].into();
        // The top quarter is the first weight (moved by 1); the rest moved by 2 each.
        let (top, rest) = fisher.drift_by_importance(0.25, &anchor, &now).unwrap();
        assert!((top - 1.0).abs() < 1e-9 && (rest - 4.0).abs() < 1e-9, "{top} {rest}");
    }
}
