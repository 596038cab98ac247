//! Elastic weight consolidation (Kirkpatrick et al., arXiv:1612.00796).
//!
//! After task A, remember θ* and the Fisher F; while training task B add
//!
//! ```text
//! Ω(θ) = λ/2 · Σ_i F_i (θ_i − θ*_i)²
//! ```
//!
//! a quadratic pull back towards θ*, strong where F says task A is
//! sensitive, weak elsewhere. λ = 0 is naive fine-tuning; a very large λ
//! freezes the important weights and task B cannot be learned (the
//! stability–plasticity trade-off the ewc-replay drill lets you try).
//!
//! Online EWC (Schwarz et al., arXiv:1805.06370) keeps one running Fisher
//! `F ← γ F + F_new` and the latest anchor instead of one penalty per task.

use std::collections::BTreeMap;

use candle_core::{Result, Tensor, Var};

use super::fisher::Fisher;

/// `λ/2 Σ F (θ − θ*)²` over the named parameters present in both maps.
pub fn ewc_penalty(
    vars: &BTreeMap<String, Var>,
    fisher: &Fisher,
    anchor: &BTreeMap<String, Tensor>,
    lambda: f64,
) -> Result<Tensor> {
    let mut total: Option<Tensor> = None;
    for (name, v) in vars {
        let (Some(f), Some(star)) = (fisher.diag.get(name), anchor.get(name)) else { continue };
        let term = (v.as_tensor() - star)?.sqr()?.mul(f)?.sum_all()?;
        total = Some(match total {
            Some(t) => (t + term)?,
            None => term,
        });
    }
    match total {
        Some(t) => t * (lambda / 2.0),
        None => Tensor::new(0f32, &candle_core::Device::Cpu),
    }
}

/// One consolidated task: its Fisher and its parameters after training.
#[derive(Debug, Clone)]
pub struct Ewc {
    pub fisher: Fisher,
    pub anchor: BTreeMap<String, Tensor>,
}

impl Ewc {
    /// Snapshot the current parameters as θ* (detached copies).
    pub fn new(vars: &BTreeMap<String, Var>, fisher: Fisher) -> Result<Ewc> {
        let anchor =
            vars.iter().map(|(k, v)| Ok((k.clone(), v.as_tensor().detach().copy()?))).collect::<Result<_>>()?;
        Ok(Ewc { fisher, anchor })
    }

    pub fn penalty(&self, vars: &BTreeMap<String, Var>, lambda: f64) -> Result<Tensor> {
        ewc_penalty(vars, &self.fisher, &self.anchor, lambda)
    }
}

/// Online EWC over a sequence of tasks.
#[derive(Debug, Clone, Default)]
pub struct OnlineEwc {
    pub decay: f64,
    pub state: Option<Ewc>,
}

impl OnlineEwc {
    pub fn new(decay: f64) -> OnlineEwc {
        OnlineEwc { decay, state: None }
    }

    /// Fold a finished task in: `F ← γF + F_new`, θ* ← current θ.
    pub fn consolidate(&mut self, vars: &BTreeMap<String, Var>, fisher: Fisher) -> Result<()> {
        let fisher = match &self.state {
            Some(prev) => prev.fisher.decayed_sum(self.decay, &fisher)?,
            None => fisher,
        };
        self.state = Some(Ewc::new(vars, fisher)?);
        Ok(())
    }

    pub fn penalty(&self, vars: &BTreeMap<String, Var>, lambda: f64) -> Result<Option<Tensor>> {
        self.state.as_ref().map(|s| s.penalty(vars, lambda)).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn penalty_matches_the_formula_and_pulls_back() {
        let d = Device::Cpu;
        let w = Var::new(&[1.0f32, 2.0, 3.0], &d).unwrap();
        let vars = BTreeMap::from([("w".to_string(), w.clone())]);
        let fisher = Fisher {
            diag: BTreeMap::from([("w".to_string(), Tensor::new(&[1.0f32, 0.0, 4.0], &d).unwrap())]),
            samples: 1,
        };
        let anchor = BTreeMap::from([("w".to_string(), Tensor::new(&[0.0f32, 0.0, 2.0], &d).unwrap())]);
        // λ/2 Σ F(θ−θ*)² = 0.5·2·(1·1 + 0·4 + 4·1) = 5.
        let p = ewc_penalty(&vars, &fisher, &anchor, 2.0).unwrap();
        assert!((p.to_scalar::<f32>().unwrap() - 5.0).abs() < 1e-6);
        // Gradient λ F (θ − θ*) points away from the anchor; zero where F = 0.
        let g = p.backward().unwrap().get(w.as_tensor()).unwrap().to_vec1::<f32>().unwrap();
        assert_eq!(g, vec![2.0, 0.0, 8.0]);
    }

    #[test]
    fn online_accumulation_decays_the_old_fisher() {
        let d = Device::Cpu;
        let w = Var::new(&[0.0f32], &d).unwrap();
        let vars = BTreeMap::from([("w".to_string(), w.clone())]);
        let f =
            |x: f32| Fisher { diag: BTreeMap::from([("w".to_string(), Tensor::new(&[x], &d).unwrap())]), samples: 1 };
        let mut online = OnlineEwc::new(0.5);
        online.consolidate(&vars, f(4.0)).unwrap();
        online.consolidate(&vars, f(1.0)).unwrap();
        let got = online.state.unwrap().fisher.diag["w"].to_vec1::<f32>().unwrap();
        assert_eq!(got, vec![3.0]);
    }
}
