//! Multi-turn episodes as one policy-gradient batch: every episode's tokens
//! in a row, with per-token loss mask and advantage.
//!
//! An episode is its role-tagged token segments, exactly as sampled. The
//! loss mask is 1 on the agent's tokens (and on the world's observations
//! too when they are not masked); each token carries the advantage of the
//! agent turn it belongs to (the world's reply after a turn carries that
//! turn's). Position t of the batch predicts token t + 1, so the mask and
//! the advantage are shifted by one against the input ids.

use anyhow::{anyhow, Result};
use candle_core::{Device, Tensor, Var, D};

use super::pg::{masked_pg_loss, Aggregation};
use crate::envs::Role;
use crate::ml::loss::token_logprobs;
use crate::ml::tokenizer::PAD;

/// One episode as a training row.
pub struct Row {
    pub ids: Vec<u32>,
    /// 1 where the loss counts the token (agent tokens; observations too if unmasked).
    pub mask: Vec<f32>,
    /// The advantage of the turn each token belongs to.
    pub adv: Vec<f32>,
    /// Whether the world wrote the token.
    pub obs: Vec<bool>,
}

impl Row {
    /// The row of one episode: BOS (if any), then its segments; `adv[k]` is
    /// the advantage of the k-th agent turn (0 past the end).
    pub fn new(segments: &[(Role, Vec<u32>)], adv: &[f32], mask_obs: bool, bos: Option<u32>) -> Row {
        let n = usize::from(bos.is_some());
        let mut row =
            Row { ids: bos.into_iter().collect(), mask: vec![0.0; n], adv: vec![0.0; n], obs: vec![false; n] };
        let (mut turn, mut cur) = (0usize, 0f32);
        for (role, t) in segments {
            if *role == Role::Agent {
                cur = adv.get(turn).copied().unwrap_or(0.0);
                turn += 1;
            }
            let m = match role {
                Role::Agent => 1.0,
                Role::Env if !mask_obs => 1.0,
                _ => 0.0,
            };
            row.ids.extend(t);
            row.mask.extend(std::iter::repeat_n(m, t.len()));
            row.adv.extend(std::iter::repeat_n(cur, t.len()));
            row.obs.extend(std::iter::repeat_n(*role == Role::Env, t.len()));
        }
        row
    }
}

/// The rows as tensors, padded to the longest; position t predicts token t + 1.
pub struct TokenBatch {
    /// Input ids `[B,T]`.
    pub x: Tensor,
    /// The next tokens `[B,T−1]`.
    pub targets: Tensor,
    pub mask: Tensor,
    pub adv: Tensor,
    /// The mask without observation tokens, whatever `mask_obs` says.
    pub agent_mask: Tensor,
    pub rows: Vec<Row>,
}

impl TokenBatch {
    pub fn new(rows: Vec<Row>, device: &Device) -> Result<TokenBatch> {
        let tmax = rows.iter().map(|r| r.ids.len()).max().unwrap_or(2);
        let b = rows.len();
        // Targets are the next tokens: position t carries the mask and advantage of token t + 1.
        let shifted = |f: &dyn Fn(&Row, usize) -> f32| -> Result<Tensor> {
            let v: Vec<f32> =
                rows.iter().flat_map(|r| (1..tmax).map(move |t| if t < r.ids.len() { f(r, t) } else { 0.0 })).collect();
            Ok(Tensor::from_vec(v, (b, tmax - 1), device)?)
        };
        let ids: Vec<u32> =
            rows.iter().flat_map(|r| r.ids.iter().copied().chain(std::iter::repeat(PAD)).take(tmax)).collect();
        let x = Tensor::from_vec(ids, (b, tmax), device)?;
        Ok(TokenBatch {
            targets: x.narrow(1, 1, tmax - 1)?,
            x,
            mask: shifted(&|r, t| r.mask[t])?,
            adv: shifted(&|r, t| r.adv[t])?,
            agent_mask: shifted(&|r, t| if r.obs[t] { 0.0 } else { r.mask[t] })?,
            rows,
        })
    }

    /// The gradient of the masked policy-gradient loss with respect to the
    /// logits `[B,T−1,V]` of this batch, on the CPU: the largest
    /// |∂loss/∂logit| at positions that predict a token the world wrote, and
    /// at positions that predict a token the loss trains.
    pub fn logit_grad_maxima(&self, logits: &Tensor, agg: Aggregation) -> Result<(f32, f32)> {
        let cpu = |x: &Tensor| x.to_device(&Device::Cpu);
        let probe = Var::from_tensor(&cpu(logits)?.detach())?;
        let logp = token_logprobs(probe.as_tensor(), &cpu(&self.targets)?)?;
        let loss = masked_pg_loss(&logp, &cpu(&self.adv)?, &cpu(&self.mask)?, agg)?;
        let g = loss
            .backward()?
            .get(probe.as_tensor())
            .cloned()
            .ok_or_else(|| anyhow!("no gradient reached the logits"))?;
        let gn = g.abs()?.max(D::Minus1)?.to_vec2::<f32>()?;
        let (mut obs_max, mut agent_max) = (0f32, 0f32);
        for (row, grads) in self.rows.iter().zip(&gn) {
            for (pos, &g_t) in grads.iter().enumerate() {
                // Position `pos` predicts token `pos + 1`.
                let Some(&is_obs) = row.obs.get(pos + 1) else { break };
                if is_obs {
                    obs_max = obs_max.max(g_t);
                } else if row.mask[pos + 1] > 0.0 {
                    agent_max = agent_max.max(g_t);
                }
            }
        }
        Ok((obs_max, agent_max))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_token_carries_its_turns_advantage_and_observations_are_masked() {
        let segs =
            vec![(Role::Prompt, vec![5, 6]), (Role::Agent, vec![7]), (Role::Env, vec![8, 9]), (Role::Agent, vec![10])];
        let row = Row::new(&segs, &[0.5, -1.0], true, Some(1));
        assert_eq!(row.ids, vec![1, 5, 6, 7, 8, 9, 10]);
        assert_eq!(row.mask, vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0]);
        assert_eq!(row.adv, vec![0.0, 0.0, 0.0, 0.5, 0.5, 0.5, -1.0]);
        assert_eq!(Row::new(&segs, &[0.5], false, None).mask, vec![0.0, 0.0, 1.0, 1.0, 1.0, 1.0]);
        let short = Row::new(&segs[..2], &[2.0], true, Some(1));
        let b = TokenBatch::new(vec![row, short], &Device::Cpu).unwrap();
        // Shifted by one and padded: the short row's last target is its agent token.
        assert_eq!(b.mask.to_vec2::<f32>().unwrap()[1], vec![0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
        assert_eq!(b.adv.to_vec2::<f32>().unwrap()[0], vec![0.0, 0.0, 0.5, 0.5, 0.5, -1.0]);
        assert_eq!(b.targets.to_vec2::<u32>().unwrap()[0], vec![5, 6, 7, 8, 9, 10]);
    }

    #[test]
    fn masked_observations_get_no_gradient() {
        let segs =
            vec![(Role::Prompt, vec![1, 2]), (Role::Agent, vec![3]), (Role::Env, vec![4, 5]), (Role::Agent, vec![6])];
        let logits = |b: &TokenBatch| {
            let (n, t) = b.mask.dims2().unwrap();
            let v: Vec<f32> = (0..n * t * 8).map(|i| ((i * 7 % 13) as f32 - 6.0) / 4.0).collect();
            Tensor::from_vec(v, (n, t, 8), &Device::Cpu).unwrap()
        };
        for (mask_obs, obs_zero) in [(true, true), (false, false)] {
            let b = TokenBatch::new(vec![Row::new(&segs, &[1.0, -0.5], mask_obs, Some(0))], &Device::Cpu).unwrap();
            let (obs, agent) = b.logit_grad_maxima(&logits(&b), Aggregation::TokenMean).unwrap();
            assert!(agent > 0.0);
            assert_eq!(obs == 0.0, obs_zero, "mask_obs {mask_obs}: {obs}");
        }
    }
}
