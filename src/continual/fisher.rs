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

use candle_core::{Result, Tensor, Var};

/// Per-parameter Fisher diagonals, keyed by parameter name.
#[derive(Debug, Clone)]
pub struct Fisher {
    pub diag: BTreeMap<String, Tensor>,
    pub samples: usize,
}

impl Fisher {
    /// Mean and max of each parameter's Fisher entries (the "what does the task
    /// depend on" view of the ewc-replay drill).
    pub fn summary(&self) -> Result<Vec<(String, f64, f64)>> {
        let mut out = Vec::new();
        for (name, f) in &self.diag {
            let v: Vec<f32> = f.flatten_all()?.to_vec1()?;
            let mean = v.iter().map(|x| *x as f64).sum::<f64>() / v.len().max(1) as f64;
            let max = v.iter().cloned().fold(0.0f32, f32::max) as f64;
            out.push((name.clone(), mean, max));
        }
        Ok(out)
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
            sum += f.sum_all()?.to_dtype(candle_core::DType::F64)?.to_scalar::<f64>()?;
            n += f.elem_count();
        }
        Ok(sum / n.max(1) as f64)
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
}
