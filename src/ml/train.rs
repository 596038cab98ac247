//! One training step for every drill: check the loss, backward, clip, check
//! the gradient, set the learning rate from the schedule, AdamW.
//!
//! ```text
//! loss ──finite?──▶ ∇ = backward(loss) ──▶ ‖∇‖ ──finite?──▶ clip to max_norm ──▶ lr = schedule(t) ──▶ AdamW
//! ```
//!
//! Both checks happen *before* the parameters move, so a diverged step
//! (a NaN loss, an ∞ EWC penalty, an overflowing gradient) stops the run with
//! the step number and leaves the model as it was after the last good step.
//! The loss passed in is the whole objective (task loss plus any penalty or
//! KL term): what is checked is what is optimised.
//!
//! `sft-basics` writes these lines out one by one (`src/drills/sft_basics.rs`)
//! as the lesson that shows them; every other drill calls [`Trainer::step`].

use anyhow::Result;
use candle_core::{Tensor, Var};

use super::data::{batch, Example};
use super::lm::CausalLm;
use super::optim::{check_finite, clip_grad_norm, AdamW, AdamWConfig, LrSchedule};

/// How a [`Trainer`] updates its parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainConfig {
    pub schedule: LrSchedule,
    /// Global gradient-norm clipping (`None`: no clipping).
    pub clip: Option<f64>,
    /// Decoupled AdamW weight decay on matrices.
    pub weight_decay: f64,
}

impl TrainConfig {
    /// Warmup over `warmup` steps to `lr`, cosine decay to `lr / 10` at
    /// `total`, clipping at 1, no weight decay: what the drills use.
    pub fn cosine(lr: f64, warmup: usize, total: usize) -> TrainConfig {
        TrainConfig {
            schedule: LrSchedule { peak: lr, min: lr * 0.1, warmup, total },
            clip: Some(1.0),
            weight_decay: 0.0,
        }
    }

    /// A constant learning rate, clipping at 1, no weight decay.
    pub fn constant(lr: f64) -> TrainConfig {
        TrainConfig { schedule: LrSchedule::constant(lr), clip: Some(1.0), weight_decay: 0.0 }
    }
}

/// What one step measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepStats {
    /// The objective that was minimised.
    pub loss: f64,
    /// Global gradient norm before clipping.
    pub grad_norm: f64,
    /// Learning rate of this step.
    pub lr: f64,
}

/// An optimizer over a fixed set of parameters with its schedule and step count.
pub struct Trainer {
    vars: Vec<Var>,
    opt: AdamW,
    cfg: TrainConfig,
    steps: usize,
    /// The step at which the current schedule started.
    origin: usize,
}

impl Trainer {
    pub fn new(vars: Vec<Var>, cfg: TrainConfig) -> Result<Trainer> {
        let opt = AdamW::new(
            vars.clone(),
            AdamWConfig { lr: cfg.schedule.at(0), weight_decay: cfg.weight_decay, ..Default::default() },
        )?;
        Ok(Trainer { vars, opt, cfg, steps: 0, origin: 0 })
    }

    /// Trains every parameter `model` exposes as trainable.
    pub fn for_model(model: &dyn CausalLm, cfg: TrainConfig) -> Result<Trainer> {
        Trainer::new(model.trainable_vars(), cfg)
    }

    /// Start a new learning-rate schedule from the next step, keeping the
    /// optimizer's moments (a new stage of training for the same model).
    pub fn set_schedule(&mut self, schedule: LrSchedule) {
        self.cfg.schedule = schedule;
        self.origin = self.steps;
    }

    /// Steps taken so far.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// Minimise `loss` (a scalar) by one step. `what` names it in the error
    /// that stops a diverged run ("RL loss", "loss + EWC penalty", …).
    pub fn step(&mut self, loss: &Tensor, what: &str) -> Result<StepStats> {
        let value = check_finite(what, loss.to_scalar::<f32>()? as f64, self.steps)?;
        let mut grads = loss.backward()?;
        let norm = clip_grad_norm(&mut grads, &self.vars, self.cfg.clip.unwrap_or(0.0))?;
        check_finite(&format!("gradient norm of the {what}"), norm, self.steps)?;
        let lr = self.cfg.schedule.at(self.steps - self.origin);
        self.opt.set_lr(lr);
        self.opt.step(&grads)?;
        self.steps += 1;
        Ok(StepStats { loss: value, grad_norm: norm, lr })
    }

    /// One SFT step: masked next-token cross-entropy of `model` on `examples`.
    pub fn sft_step(&mut self, model: &dyn CausalLm, examples: &[&Example]) -> Result<StepStats> {
        let (x, y) = batch(examples, model.device())?;
        let loss = model.masked_loss(&x, &y)?;
        self.step(&loss, "loss")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ml::optim::NonFinite;
    use candle_core::Device;

    #[test]
    fn a_step_follows_the_schedule_and_lowers_a_quadratic() {
        let x = Var::new(&[3.0f32, -4.0], &Device::Cpu).unwrap();
        let cfg = TrainConfig::cosine(0.1, 2, 50);
        let mut t = Trainer::new(vec![x.clone()], cfg).unwrap();
        let mut first = None;
        for i in 0..50 {
            let loss = x.as_tensor().sqr().unwrap().sum_all().unwrap();
            let s = t.step(&loss, "loss").unwrap();
            assert_eq!(s.lr, cfg.schedule.at(i));
            first.get_or_insert(s.loss);
        }
        let last = x.as_tensor().sqr().unwrap().sum_all().unwrap().to_scalar::<f32>().unwrap() as f64;
        assert!(last < first.unwrap() / 10.0, "{last}");
        assert_eq!(t.steps(), 50);
    }

    #[test]
    fn a_non_finite_objective_stops_before_the_parameters_move() {
        let x = Var::new(&[1.0f32, 2.0], &Device::Cpu).unwrap();
        let mut t = Trainer::new(vec![x.clone()], TrainConfig::constant(0.1)).unwrap();
        // A finite task loss plus an infinite penalty: the sum is what is checked.
        let task = x.as_tensor().sqr().unwrap().sum_all().unwrap();
        let penalty = (x.as_tensor().sum_all().unwrap() * f64::INFINITY).unwrap();
        let err = t.step(&(task + penalty).unwrap(), "loss + EWC penalty").unwrap_err();
        let nf = err.downcast_ref::<NonFinite>().expect("a NonFinite error");
        assert_eq!((nf.step, nf.what.as_str()), (0, "loss + EWC penalty"));
        assert_eq!(x.as_tensor().to_vec1::<f32>().unwrap(), vec![1.0, 2.0]);
        assert_eq!(t.steps(), 0);
    }

    #[test]
    fn an_infinite_gradient_stops_before_the_parameters_move() {
        // √x at x = 0: the loss is finite (0), its gradient 1/(2√x) is not.
        let x = Var::new(&[0.0f32, 1.0], &Device::Cpu).unwrap();
        let mut t = Trainer::new(vec![x.clone()], TrainConfig::constant(0.1)).unwrap();
        let loss = x.as_tensor().sqrt().unwrap().sum_all().unwrap();
        let err = t.step(&loss, "loss").unwrap_err();
        assert!(err.to_string().contains("gradient norm of the loss"), "{err}");
        assert_eq!(x.as_tensor().to_vec1::<f32>().unwrap(), vec![0.0, 1.0]);
    }
}
