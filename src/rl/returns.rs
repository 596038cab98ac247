//! Discounted returns: `G_t = r_t + γ G_{t+1}`, with `G_T = 0` after the last step.
//!
//! For an agent, a "step" is usually a *turn* (one action and its observation),
//! so γ discounts turns, not tokens. γ = 1 gives every turn the whole
//! episode's reward (trajectory-level credit); γ = 0 gives each turn only its
//! own reward. Cheatsheet: `[sheet:3]`.
//!
//! ```
//! use agentlab::rl::discounted_returns;
//! // Three turns, reward only at the end, γ = 0.9: G = [0.81, 0.9, 1.0].
//! let g = discounted_returns(&[0.0, 0.0, 1.0], 0.9);
//! assert!((g[0] - 0.81).abs() < 1e-6 && (g[1] - 0.9).abs() < 1e-6 && g[2] == 1.0);
//! ```

/// Returns for one episode, computed backwards in one pass.
pub fn discounted_returns(rewards: &[f32], gamma: f32) -> Vec<f32> {
    let mut out = vec![0.0; rewards.len()];
    let mut g = 0.0;
    for t in (0..rewards.len()).rev() {
        g = rewards[t] + gamma * g;
        out[t] = g;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_zero_is_the_immediate_reward() {
        assert_eq!(discounted_returns(&[1.0, -2.0, 3.0], 0.0), vec![1.0, -2.0, 3.0]);
    }

    #[test]
    fn gamma_one_is_the_sum_of_what_follows() {
        assert_eq!(discounted_returns(&[1.0, -2.0, 3.0], 1.0), vec![2.0, 1.0, 3.0]);
    }

    #[test]
    fn matches_the_closed_form() {
        let r = [0.5f32, 0.0, -1.0, 2.0];
        let g = discounted_returns(&r, 0.8);
        for (t, got) in g.iter().enumerate() {
            let want: f32 = (t..r.len()).map(|k| 0.8f32.powi((k - t) as i32) * r[k]).sum();
            assert!((got - want).abs() < 1e-6);
        }
        assert!(discounted_returns(&[], 0.9).is_empty());
    }
}
