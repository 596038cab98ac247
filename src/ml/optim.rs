//! Optimisation: AdamW, global grad-norm clipping, warmup + cosine LR,
//! gradient accumulation and the NaN/Inf guard.
//!
//! AdamW (Loshchilov & Hutter, arXiv:1711.05101), per parameter θ with grad g:
//!
//! ```text
//! m ← β₁ m + (1−β₁) g          v ← β₂ v + (1−β₂) g²
//! m̂ = m / (1−β₁ᵗ)              v̂ = v / (1−β₂ᵗ)
//! θ ← θ − lr·( m̂ / (√v̂ + ε) + wd·θ )        (decoupled decay, matrices only)
//! ```

use candle_core::backprop::GradStore;
use candle_core::{Result, Tensor, Var};

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdamWConfig {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: f64,
}

impl Default for AdamWConfig {
    fn default() -> Self {
        AdamWConfig { lr: 1e-3, beta1: 0.9, beta2: 0.95, eps: 1e-8, weight_decay: 0.01 }
    }
}

pub struct AdamW {
    pub cfg: AdamWConfig,
    vars: Vec<Var>,
    m: Vec<Tensor>,
    v: Vec<Tensor>,
    t: u32,
}

impl AdamW {
    pub fn new(vars: Vec<Var>, cfg: AdamWConfig) -> Result<AdamW> {
        let m = vars.iter().map(|v| v.as_tensor().zeros_like()).collect::<Result<Vec<_>>>()?;
        let v = vars.iter().map(|v| v.as_tensor().zeros_like()).collect::<Result<Vec<_>>>()?;
        Ok(AdamW { cfg, vars, m, v, t: 0 })
    }

    pub fn vars(&self) -> &[Var] {
        &self.vars
    }

    pub fn set_lr(&mut self, lr: f64) {
        self.cfg.lr = lr;
    }

    /// One update from `grads`. Parameters without a gradient are left alone
    /// (a frozen part of the graph, or a token that never occurred).
    pub fn step(&mut self, grads: &GradStore) -> Result<()> {
        self.t += 1;
        let AdamWConfig { lr, beta1, beta2, eps, weight_decay } = self.cfg;
        let bc1 = 1.0 - beta1.powi(self.t as i32);
        let bc2 = 1.0 - beta2.powi(self.t as i32);
        for ((var, m), v) in self.vars.iter().zip(self.m.iter_mut()).zip(self.v.iter_mut()) {
            let Some(g) = grads.get(var.as_tensor()) else { continue };
            *m = ((&*m * beta1)? + (g * (1.0 - beta1))?)?;
            *v = ((&*v * beta2)? + (g.sqr()? * (1.0 - beta2))?)?;
            let step = ((&*m / bc1)? / ((&*v / bc2)?.sqrt()? + eps)?)?;
            let theta = var.as_tensor();
            // Decay matrices only: biases, norm gains and 1-D tables are not regularised.
            let decayed = if theta.rank() >= 2 && weight_decay > 0.0 {
                (theta * (1.0 - lr * weight_decay))?
            } else {
                theta.clone()
            };
            var.set(&(decayed - (step * lr)?)?)?;
        }
        Ok(())
    }
}

/// Global L2 norm of the gradients of `vars`; if above `max_norm`, scale them
/// down so it equals `max_norm`. Returns the norm before clipping.
pub fn clip_grad_norm(grads: &mut GradStore, vars: &[Var], max_norm: f64) -> Result<f64> {
    let mut sq = 0.0f64;
    for v in vars {
        if let Some(g) = grads.get(v.as_tensor()) {
            sq += g.sqr()?.sum_all()?.to_dtype(candle_core::DType::F64)?.to_scalar::<f64>()?;
        }
    }
    let norm = sq.sqrt();
    if norm.is_finite() && norm > max_norm && max_norm > 0.0 {
        let scale = max_norm / (norm + 1e-6);
        for v in vars {
            if let Some(g) = grads.remove(v.as_tensor()) {
                grads.insert(v.as_tensor(), (g * scale)?);
            }
        }
    }
    Ok(norm)
}

/// Linear warmup to `peak`, then cosine decay to `min` at `total` steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LrSchedule {
    pub peak: f64,
    pub min: f64,
    pub warmup: usize,
    pub total: usize,
}

impl LrSchedule {
    pub fn constant(lr: f64) -> LrSchedule {
        LrSchedule { peak: lr, min: lr, warmup: 0, total: 1 }
    }

    pub fn at(&self, step: usize) -> f64 {
        if step < self.warmup {
            return self.peak * (step + 1) as f64 / self.warmup as f64;
        }
        let span = self.total.saturating_sub(self.warmup).max(1);
        let progress = ((step - self.warmup) as f64 / span as f64).min(1.0);
        self.min + 0.5 * (self.peak - self.min) * (1.0 + (std::f64::consts::PI * progress).cos())
    }
}

/// Sums gradients of several micro-batches before one optimizer step.
#[derive(Default)]
pub struct GradAccum {
    sums: Vec<(Var, Tensor)>,
}

impl GradAccum {
    pub fn add(&mut self, grads: &GradStore, vars: &[Var], weight: f64) -> Result<()> {
        for v in vars {
            if let Some(g) = grads.get(v.as_tensor()) {
                let g = (g * weight)?;
                match self.sums.iter_mut().find(|(w, _)| w.as_tensor().id() == v.as_tensor().id()) {
                    Some((_, s)) => *s = (&*s + g)?,
                    None => self.sums.push((v.clone(), g)),
                }
            }
        }
        Ok(())
    }

    /// Hand the sums over as a GradStore, ready for clipping and a step.
    pub fn finish(self, into: &mut GradStore) {
        for (v, g) in self.sums {
            into.insert(v.as_tensor(), g);
        }
    }
}

/// A loss that stopped being a number. The runner stops the run with this message.
#[derive(Debug, Clone, PartialEq)]
pub struct NonFinite {
    pub step: usize,
    pub what: String,
    pub value: f64,
}

impl std::fmt::Display for NonFinite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} became {} at step {}: training diverged — lower the learning rate or enable clipping",
            self.what, self.value, self.step
        )
    }
}

impl std::error::Error for NonFinite {}

/// Stop a run whose loss is NaN or ±∞.
pub fn check_finite(what: &str, value: f64, step: usize) -> std::result::Result<f64, NonFinite> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(NonFinite { step, what: what.to_string(), value })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn adamw_first_step_moves_by_lr_times_sign() {
        // With bias correction, step 1 is lr · g/|g| (up to ε) for every coordinate.
        let x = Var::new(&[1.0f32, -2.0, 3.0], &Device::Cpu).unwrap();
        let cfg = AdamWConfig { lr: 0.1, weight_decay: 0.0, ..Default::default() };
        let mut opt = AdamW::new(vec![x.clone()], cfg).unwrap();
        let loss = (x.as_tensor().sqr().unwrap().sum_all().unwrap() * 0.5).unwrap(); // grad = x
        let g = loss.backward().unwrap();
        opt.step(&g).unwrap();
        let got = x.as_tensor().to_vec1::<f32>().unwrap();
        for (a, b) in got.iter().zip([0.9f32, -1.9, 2.9]) {
            assert!((a - b).abs() < 1e-5, "{got:?}");
        }
    }

    #[test]
    fn adamw_minimises_a_quadratic() {
        let x = Var::new(&[3.0f32, -4.0], &Device::Cpu).unwrap();
        let mut opt = AdamW::new(vec![x.clone()], AdamWConfig { lr: 0.05, ..Default::default() }).unwrap();
        for _ in 0..500 {
            let loss = x.as_tensor().sqr().unwrap().sum_all().unwrap();
            opt.step(&loss.backward().unwrap()).unwrap();
        }
        let v = x.as_tensor().to_vec1::<f32>().unwrap();
        assert!(v.iter().all(|a| a.abs() < 0.05), "{v:?}");
    }

    #[test]
    fn clipping_rescales_to_max_norm() {
        let x = Var::new(&[3.0f32, 4.0], &Device::Cpu).unwrap();
        let loss = (x.as_tensor().sqr().unwrap().sum_all().unwrap() * 0.5).unwrap(); // grad = (3,4), norm 5
        let mut g = loss.backward().unwrap();
        let n = clip_grad_norm(&mut g, std::slice::from_ref(&x), 1.0).unwrap();
        assert!((n - 5.0).abs() < 1e-6);
        let clipped = g.get(x.as_tensor()).unwrap().to_vec1::<f32>().unwrap();
        assert!((clipped[0] - 0.6).abs() < 1e-4 && (clipped[1] - 0.8).abs() < 1e-4, "{clipped:?}");
    }

    #[test]
    fn schedule_warms_up_then_decays_to_min() {
        let s = LrSchedule { peak: 1.0, min: 0.1, warmup: 10, total: 110 };
        assert!((s.at(0) - 0.1).abs() < 1e-12);
        assert!((s.at(9) - 1.0).abs() < 1e-12);
        assert!((s.at(60) - 0.55).abs() < 1e-12);
        assert!((s.at(110) - 0.1).abs() < 1e-12);
        assert!((s.at(500) - 0.1).abs() < 1e-12);
    }

    #[test]
    fn accumulation_equals_one_big_batch() {
        let x = Var::new(&[1.0f32, 2.0], &Device::Cpu).unwrap();
        let a = Tensor::new(&[1.0f32, 0.0], &Device::Cpu).unwrap();
        let b = Tensor::new(&[0.0f32, 3.0], &Device::Cpu).unwrap();
        let mut acc = GradAccum::default();
        for d in [&a, &b] {
            let l = (x.as_tensor() * d).unwrap().sum_all().unwrap();
            acc.add(&l.backward().unwrap(), std::slice::from_ref(&x), 0.5).unwrap();
        }
        let full = (((x.as_tensor() * &a).unwrap().sum_all().unwrap()
            + (x.as_tensor() * &b).unwrap().sum_all().unwrap())
        .unwrap()
            * 0.5)
            .unwrap();
        let want = full.backward().unwrap().get(x.as_tensor()).unwrap().to_vec1::<f32>().unwrap();
        let mut store = full.backward().unwrap();
        store.remove(x.as_tensor());
        acc.finish(&mut store);
        assert_eq!(store.get(x.as_tensor()).unwrap().to_vec1::<f32>().unwrap(), want);
    }

    #[test]
    fn nan_is_reported_with_the_step() {
        let e = check_finite("loss", f64::NAN, 37).unwrap_err();
        assert!(e.to_string().contains("step 37"));
        assert_eq!(check_finite("loss", 1.5, 1).unwrap(), 1.5);
    }
}
