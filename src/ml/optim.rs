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
    /// CPU moments, updated in place by [`InPlaceAdamW`] (empty on other devices).
    moments: Vec<std::sync::Mutex<(Vec<f32>, Vec<f32>)>>,
    t: u32,
}

impl AdamW {
    pub fn new(vars: Vec<Var>, cfg: AdamWConfig) -> Result<AdamW> {
        let cpu = vars.iter().all(|v| v.device().is_cpu() && v.dtype() == candle_core::DType::F32);
        if cpu {
            let moments = vars
                .iter()
                .map(|v| std::sync::Mutex::new((vec![0f32; v.elem_count()], vec![0f32; v.elem_count()])))
                .collect();
            return Ok(AdamW { cfg, vars, m: Vec::new(), v: Vec::new(), moments, t: 0 });
        }
        let m = vars.iter().map(|v| v.as_tensor().zeros_like()).collect::<Result<Vec<_>>>()?;
        let v = vars.iter().map(|v| v.as_tensor().zeros_like()).collect::<Result<Vec<_>>>()?;
        Ok(AdamW { cfg, vars, m, v, moments: Vec::new(), t: 0 })
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
        if !self.moments.is_empty() {
            // CPU: the same update, one pass over each parameter, in place.
            for (var, mv) in self.vars.iter().zip(&self.moments) {
                let Some(g) = grads.get(var.as_tensor()) else { continue };
                let decay = if var.rank() >= 2 { weight_decay } else { 0.0 };
                let op = InPlaceAdamW { moments: mv, lr, beta1, beta2, eps, decay, bc1, bc2 };
                var.as_tensor().inplace_op2(g, &op)?;
            }
            return Ok(());
        }
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

/// One AdamW update of a CPU parameter in place: reads the gradient, updates
/// the moments and the weights in a single pass (the composed version above
/// allocates about ten temporaries per parameter per step).
struct InPlaceAdamW<'a> {
    moments: &'a std::sync::Mutex<(Vec<f32>, Vec<f32>)>,
    lr: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
    decay: f64,
    bc1: f64,
    bc2: f64,
}

impl candle_core::InplaceOp2 for InPlaceAdamW<'_> {
    fn name(&self) -> &'static str {
        "adamw-inplace"
    }

    fn cpu_fwd(
        &self,
        s1: &mut candle_core::CpuStorage,
        l1: &candle_core::Layout,
        s2: &candle_core::CpuStorage,
        l2: &candle_core::Layout,
    ) -> Result<()> {
        use rayon::prelude::*;
        let (Some((a0, a1)), Some((g0, g1))) = (l1.contiguous_offsets(), l2.contiguous_offsets()) else {
            candle_core::bail!("adamw: parameter and gradient must be contiguous");
        };
        let candle_core::CpuStorage::F32(theta) = s1 else { candle_core::bail!("adamw: f32 parameters only") };
        let theta = &mut theta[a0..a1];
        let grad = &s2.as_slice::<f32>()?[g0..g1];
        let mut guard = self.moments.lock().expect("adamw moments");
        let (m, v) = &mut *guard;
        let (b1, b2, eps) = (self.beta1 as f32, self.beta2 as f32, self.eps as f32);
        let (step, shrink) = ((self.lr / self.bc1) as f32, (1.0 - self.lr * self.decay) as f32);
        let inv_bc2 = (1.0 / self.bc2) as f32;
        let hp = AdamHyper { b1, b2, eps, step, shrink, inv_bc2 };
        const CHUNK: usize = 1 << 14;
        if theta.len() > 2 * CHUNK {
            theta
                .par_chunks_mut(CHUNK)
                .zip(grad.par_chunks(CHUNK))
                .zip(m.par_chunks_mut(CHUNK))
                .zip(v.par_chunks_mut(CHUNK))
                .for_each(|(((th, g), m), v)| adam_chunk(th, g, m, v, hp));
        } else {
            adam_chunk(theta, grad, m, v, hp);
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
struct AdamHyper {
    b1: f32,
    b2: f32,
    eps: f32,
    /// lr / (1 − β₁ᵗ)
    step: f32,
    /// 1 − lr·wd (decoupled weight decay)
    shrink: f32,
    /// 1 / (1 − β₂ᵗ)
    inv_bc2: f32,
}

crate::ml::fused::simd::multiversion! {
    fn adam_chunk(th: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32], hp: AdamHyper) {
        for i in 0..th.len() {
            m[i] = hp.b1 * m[i] + (1.0 - hp.b1) * g[i];
            v[i] = hp.b2 * v[i] + (1.0 - hp.b2) * g[i] * g[i];
            th[i] = th[i] * hp.shrink - hp.step * m[i] / ((v[i] * hp.inv_bc2).sqrt() + hp.eps);
        }
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
    fn in_place_cpu_update_matches_the_formula() {
        // Three steps of the in-place CPU path against the update written out in f64.
        let x = Var::new(&[[0.5f32, -1.0], [2.0, 0.25]], &Device::Cpu).unwrap();
        let b = Var::new(&[0.3f32, -0.7], &Device::Cpu).unwrap();
        let cfg = AdamWConfig { lr: 0.05, beta1: 0.8, beta2: 0.9, eps: 1e-6, weight_decay: 0.1 };
        let mut opt = AdamW::new(vec![x.clone(), b.clone()], cfg).unwrap();
        let (mut xr, mut br) = (vec![0.5f64, -1.0, 2.0, 0.25], vec![0.3f64, -0.7]);
        let (mut mx, mut vx, mut mb, mut vb) = (vec![0.0; 4], vec![0.0; 4], vec![0.0; 2], vec![0.0; 2]);
        for t in 1..=3 {
            // loss = Σ x³/3 + Σ b²  → grads x², 2b
            let loss = ((x.as_tensor().powf(3.0).unwrap().sum_all().unwrap() / 3.0).unwrap()
                + b.as_tensor().sqr().unwrap().sum_all().unwrap())
            .unwrap();
            opt.step(&loss.backward().unwrap()).unwrap();
            let (bc1, bc2) = (1.0 - 0.8f64.powi(t), 1.0 - 0.9f64.powi(t));
            for i in 0..4 {
                let g = xr[i] * xr[i];
                mx[i] = 0.8 * mx[i] + 0.2 * g;
                vx[i] = 0.9 * vx[i] + 0.1 * g * g;
                xr[i] = xr[i] * (1.0 - 0.05 * 0.1) - 0.05 * (mx[i] / bc1) / ((vx[i] / bc2).sqrt() + 1e-6);
            }
            for i in 0..2 {
                let g = 2.0 * br[i];
                mb[i] = 0.8 * mb[i] + 0.2 * g;
                vb[i] = 0.9 * vb[i] + 0.1 * g * g;
                br[i] -= 0.05 * (mb[i] / bc1) / ((vb[i] / bc2).sqrt() + 1e-6); // no decay on vectors
            }
        }
        let got: Vec<f32> = x.as_tensor().flatten_all().unwrap().to_vec1().unwrap();
        for (a, w) in got.iter().zip(&xr) {
            assert!((*a as f64 - w).abs() < 1e-5, "{got:?} vs {xr:?}");
        }
        let got: Vec<f32> = b.as_tensor().to_vec1().unwrap();
        for (a, w) in got.iter().zip(&br) {
            assert!((*a as f64 - w).abs() < 1e-5, "{got:?} vs {br:?}");
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
