//! Generalised advantage estimation (Schulman et al., arXiv:1506.02438).
//!
//! ```text
//! δ_t = r_t + γ (1 − done_t) V(s_{t+1}) − V(s_t)
//! Â_t = δ_t + γ λ (1 − done_t) Â_{t+1}
//! ```
//!
//! λ = 0 gives the one-step TD error δ_t (low variance, biased by V);
//! λ = 1 gives the Monte-Carlo return minus V (unbiased, high variance).
//! `done_t` cuts the recursion at episode ends inside a rollout; `last_value`
//! bootstraps the step after the rollout (0 if it ended). Returns for the
//! value loss are `Â + V`.

#[derive(Debug, Clone, PartialEq)]
pub struct Gae {
    pub advantages: Vec<f32>,
    pub returns: Vec<f32>,
}

pub fn gae(rewards: &[f32], values: &[f32], dones: &[bool], last_value: f32, gamma: f32, lambda: f32) -> Gae {
    let n = rewards.len();
    assert_eq!(values.len(), n, "one value per step");
    assert_eq!(dones.len(), n, "one done flag per step");
    let mut adv = vec![0.0; n];
    let mut next_adv = 0.0;
    for t in (0..n).rev() {
        let not_done = if dones[t] { 0.0 } else { 1.0 };
        let next_value = if t + 1 < n { values[t + 1] } else { last_value };
        let delta = rewards[t] + gamma * not_done * next_value - values[t];
        next_adv = delta + gamma * lambda * not_done * next_adv;
        adv[t] = next_adv;
    }
    let returns = adv.iter().zip(values).map(|(a, v)| a + v).collect();
    Gae { advantages: adv, returns }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rl::discounted_returns;

    const R: [f32; 4] = [1.0, 0.0, -0.5, 2.0];
    const V: [f32; 4] = [0.3, 0.1, 0.4, -0.2];

    #[test]
    fn lambda_zero_is_one_step_td() {
        let g = gae(&R, &V, &[false; 4], 0.7, 0.9, 0.0);
        for t in 0..4 {
            let next = if t < 3 { V[t + 1] } else { 0.7 };
            assert!((g.advantages[t] - (R[t] + 0.9 * next - V[t])).abs() < 1e-6);
        }
    }

    #[test]
    fn lambda_one_is_monte_carlo_minus_value() {
        // Episode ends at the last step: no bootstrap.
        let g = gae(&R, &V, &[false, false, false, true], 123.0, 0.9, 1.0);
        let mc = discounted_returns(&R, 0.9);
        for t in 0..4 {
            assert!((g.advantages[t] - (mc[t] - V[t])).abs() < 1e-5, "t={t}");
            assert!((g.returns[t] - mc[t]).abs() < 1e-5);
        }
    }

    #[test]
    fn done_cuts_the_recursion() {
        // Two episodes of two steps in one rollout: the first must not see the second.
        let g = gae(&R, &V, &[false, true, false, false], 0.0, 1.0, 1.0);
        let first = gae(&R[..2], &V[..2], &[false, true], 0.0, 1.0, 1.0);
        assert_eq!(&g.advantages[..2], &first.advantages[..]);
    }
}
