//! Prompt + response sequences under a model, for preference training:
//! right-padded batches with a mask of the response targets, summed response
//! log-probs (what [`dpo_loss`](super::dpo::dpo_loss) takes), per-token
//! log-ratios to a reference, and the exact KL to it along the responses.

use candle_core::{Device, Result, Tensor};

use super::dpo::sequence_logps;
use super::kl::kl_exact;
use crate::ml::lm::CausalLm;
use crate::ml::tokenizer::PAD;

/// A prompt and one answer, as token ids (the answer ends with EOS when the
/// model stopped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seq {
    pub prompt: Vec<u32>,
    pub response: Vec<u32>,
}

/// Right-padded inputs `[N,T]`, next-token targets `[N,T−1]` and the mask of
/// response targets `[N,T−1]` (position t predicts token t + 1).
pub fn seq_batch(seqs: &[&Seq], device: &Device) -> Result<(Tensor, Tensor, Tensor)> {
    let tmax = seqs.iter().map(|s| s.prompt.len() + s.response.len()).max().unwrap_or(2).max(2);
    let n = seqs.len();
    let mut ids = Vec::with_capacity(n * tmax);
    let mut mask = Vec::with_capacity(n * (tmax - 1));
    for s in seqs {
        let len = s.prompt.len() + s.response.len();
        ids.extend(s.prompt.iter().chain(&s.response).copied().chain(std::iter::repeat(PAD)).take(tmax));
        mask.extend((1..tmax).map(|i| if i >= s.prompt.len() && i < len { 1f32 } else { 0.0 }));
    }
    let x = Tensor::from_vec(ids, (n, tmax), device)?;
    let targets = x.narrow(1, 1, tmax - 1)?;
    Ok((x, targets, Tensor::from_vec(mask, (n, tmax - 1), device)?))
}

/// Per-position log-probs `[N,T−1]` of the next tokens of `x` under `model`,
/// needed where `mask` is non-zero (a model may skip its LM head elsewhere).
fn next_token_logps(model: &dyn CausalLm, x: &Tensor, targets: &Tensor, mask: &Tensor) -> Result<Tensor> {
    Ok(model.scored_logprobs(x, targets, mask, false)?.logp)
}

/// Summed response log-probs `[N]` of `seqs` under `model` (differentiable).
pub fn seq_logps(model: &dyn CausalLm, seqs: &[&Seq]) -> Result<Tensor> {
    let (x, targets, mask) = seq_batch(seqs, model.device())?;
    sequence_logps(&next_token_logps(model, &x, &targets, &mask)?, &mask)
}

/// [`seq_logps`] as numbers, in chunks of 512, so a big pair set never makes
/// one huge batch.
pub fn logps_of(model: &dyn CausalLm, seqs: &[&Seq]) -> Result<Vec<f32>> {
    let mut out = Vec::with_capacity(seqs.len());
    for chunk in seqs.chunks(512) {
        out.extend(seq_logps(model, chunk)?.detach().to_vec1::<f32>()?);
    }
    Ok(out)
}

/// Per-token log-ratio `log π − log π_ref` of one sequence (response tokens
/// only), for a token view.
pub fn token_log_ratios(policy: &dyn CausalLm, reference: &dyn CausalLm, s: &Seq) -> Result<Vec<f32>> {
    let (x, targets, mask) = seq_batch(&[s], policy.device())?;
    let lp = next_token_logps(policy, &x, &targets, &mask)?;
    let lq = next_token_logps(reference, &x, &targets, &mask)?;
    let d: Vec<f32> = (lp - lq)?.squeeze(0)?.to_vec1()?;
    Ok(d[s.prompt.len() - 1..].to_vec())
}

/// The exact KL(π ‖ π_ref) summed over each response, averaged over `seqs`
/// (in chunks of at most 512, fewer where a chunk's logits would pass 2^25
/// numbers: a real model's vocabulary is 49152): with `seqs` sampled from π,
/// the KL the policy has travelled from the reference.
pub fn kl_along(policy: &dyn CausalLm, reference: &dyn CausalLm, seqs: &[Seq]) -> Result<f64> {
    let longest = seqs.iter().map(|s| s.prompt.len() + s.response.len()).max().unwrap_or(1);
    let rows = ((1usize << 25) / (longest * policy.vocab()).max(1)).clamp(1, 512);
    let mut kl_sum = 0.0;
    for chunk in seqs.chunks(rows) {
        let refs: Vec<&Seq> = chunk.iter().collect();
        let (x, _, mask) = seq_batch(&refs, policy.device())?;
        let t = mask.dim(1)?;
        let kl = kl_exact(&policy.forward(&x)?.narrow(1, 0, t)?, &reference.forward(&x)?.narrow(1, 0, t)?)?;
        kl_sum += (kl * mask)?.sum_all()?.to_scalar::<f32>()? as f64;
    }
    Ok(kl_sum / seqs.len().max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ml::gpt::{Gpt, GptConfig};

    #[test]
    fn batches_mask_the_response_targets() {
        let (a, b) = (Seq { prompt: vec![1, 2], response: vec![3] }, Seq { prompt: vec![1], response: vec![4, 5] });
        let (x, targets, mask) = seq_batch(&[&a, &b], &Device::Cpu).unwrap();
        assert_eq!(x.to_vec2::<u32>().unwrap(), vec![vec![1, 2, 3], vec![1, 4, 5]]);
        assert_eq!(targets.to_vec2::<u32>().unwrap(), vec![vec![2, 3], vec![4, 5]]);
        assert_eq!(mask.to_vec2::<f32>().unwrap(), vec![vec![0.0, 1.0], vec![1.0, 1.0]]);
    }

    #[test]
    fn a_model_against_itself() {
        let model = Gpt::new(GptConfig::new(8, 16, 1, 2, 8), 1, &Device::Cpu).unwrap();
        let seqs = vec![Seq { prompt: vec![1, 2], response: vec![3, 4] }, Seq { prompt: vec![5], response: vec![6] }];
        let refs: Vec<&Seq> = seqs.iter().collect();
        let summed = seq_logps(&model, &refs).unwrap().to_vec1::<f32>().unwrap();
        assert_eq!(logps_of(&model, &refs).unwrap(), summed);
        assert!(summed.iter().all(|&l| l < 0.0));
        assert_eq!(token_log_ratios(&model, &model, &seqs[0]).unwrap(), vec![0.0; 2]);
        assert!(kl_along(&model, &model, &seqs).unwrap().abs() < 1e-6);
    }
}
