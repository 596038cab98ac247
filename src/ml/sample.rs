//! Decoding: greedy, temperature, top-k and top-p sampling, batched, with a
//! KV cache so each new token costs one position of attention, not a whole
//! re-run of the prompt.
//!
//! Prompts of different lengths are *left*-padded: every row's last prompt
//! token sits in the same column, padding keys are masked out, and each row
//! gets its own absolute positions (padding does not shift them).

use candle_core::{Result, Tensor, D};

use super::gpt::{Gpt, KvCache, Positions};
use super::ops;
use super::rng::Rng;
use super::tokenizer::PAD;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Decoding {
    Greedy,
    Sample { temperature: f32, top_k: Option<usize>, top_p: Option<f32> },
}

#[derive(Debug, Clone, PartialEq)]
pub struct GenConfig {
    pub max_new: usize,
    pub decoding: Decoding,
    /// Generation of a row ends after it emits one of these (the stop token is kept).
    pub stop: Vec<u32>,
    pub use_cache: bool,
}

impl GenConfig {
    pub fn greedy(max_new: usize, stop: Vec<u32>) -> GenConfig {
        GenConfig { max_new, decoding: Decoding::Greedy, stop, use_cache: true }
    }
}

/// Pick a token from one row of logits.
pub fn pick(logits: &[f32], decoding: Decoding, rng: &mut Rng) -> u32 {
    match decoding {
        Decoding::Greedy => argmax(logits),
        Decoding::Sample { temperature, top_k, top_p } => {
            if temperature <= 0.0 {
                return argmax(logits);
            }
            let mut idx: Vec<usize> = (0..logits.len()).collect();
            idx.sort_unstable_by(|&a, &b| logits[b].total_cmp(&logits[a]));
            if let Some(k) = top_k {
                idx.truncate(k.max(1));
            }
            let m = logits[idx[0]];
            let mut p: Vec<f32> = idx.iter().map(|&i| ((logits[i] - m) / temperature).exp()).collect();
            let z: f32 = p.iter().sum();
            p.iter_mut().for_each(|x| *x /= z);
            if let Some(top_p) = top_p {
                // Smallest prefix of the sorted distribution with mass ≥ top_p.
                let mut acc = 0.0;
                let mut keep = p.len();
                for (i, x) in p.iter().enumerate() {
                    acc += x;
                    if acc >= top_p {
                        keep = i + 1;
                        break;
                    }
                }
                p.truncate(keep);
            }
            idx[rng.weighted(&p)] as u32
        }
    }
}

fn argmax(xs: &[f32]) -> u32 {
    let mut best = 0;
    for (i, x) in xs.iter().enumerate() {
        if *x > xs[best] {
            best = i;
        }
    }
    best as u32
}

/// Generate continuations of `prompts`. Returns the new tokens of each row
/// (including its stop token if it stopped).
pub fn generate(model: &Gpt, prompts: &[Vec<u32>], cfg: &GenConfig, rng: &mut Rng) -> Result<Vec<Vec<u32>>> {
    let b = prompts.len();
    if b == 0 {
        return Ok(Vec::new());
    }
    let p_len = prompts.iter().map(|p| p.len()).max().unwrap_or(0).max(1);
    let budget = cfg.max_new.min(model.cfg.context.saturating_sub(p_len));
    // Left-padded rows, which columns are padding, and per-row positions.
    let mut rows: Vec<Vec<u32>> = Vec::with_capacity(b);
    let mut pads: Vec<Vec<bool>> = Vec::with_capacity(b);
    let mut pos: Vec<Vec<u32>> = Vec::with_capacity(b);
    for p in prompts {
        let n_pad = p_len - p.len();
        let mut r = vec![PAD; n_pad];
        r.extend_from_slice(p);
        if p.is_empty() {
            r[p_len - 1] = super::tokenizer::BOS;
        }
        rows.push(r);
        pads.push((0..p_len).map(|i| i < n_pad && !p.is_empty()).collect());
        pos.push((0..p_len).map(|i| i.saturating_sub(n_pad) as u32).collect());
    }
    let mut next_pos: Vec<u32> = prompts.iter().map(|p| p.len().max(1) as u32).collect();
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); b];
    let mut done = vec![false; b];
    let mut cache = KvCache::new(model.cfg.n_layers);
    // On the CPU the fused decoder keeps the cache in plain buffers.
    let mut decoder = match (cfg.use_cache, model.fused_layout()) {
        (true, Some(layout)) => {
            let w = layout.concat(&model.vars())?.to_vec1::<f32>()?;
            Some(super::fused::decode::Decoder::new(&model.cfg, layout, w, b, p_len + budget.max(1)))
        }
        _ => None,
    };
    let rows_of = |flat: Vec<f32>| -> Vec<Vec<f32>> { flat.chunks(model.cfg.vocab).map(|c| c.to_vec()).collect() };

    // First pass over the whole (padded) prompt.
    let mut last = match decoder.as_mut() {
        Some(dec) => {
            let toks: Vec<u32> = rows.iter().flatten().copied().collect();
            let ps: Vec<u32> = pos.iter().flatten().copied().collect();
            rows_of(dec.step(&toks, &ps, p_len, &pads)?)
        }
        None => {
            let tokens =
                Tensor::from_vec(rows.iter().flatten().copied().collect::<Vec<u32>>(), (b, p_len), &model.device)?;
            let mask = ops::cached_mask(&pads, p_len, &model.device)?;
            let logits = if cfg.use_cache {
                model.run(&tokens, Positions::PerRow(&pos), &mask, Some(&mut cache))?
            } else {
                model.run(&tokens, Positions::PerRow(&pos), &mask, None)?
            };
            logits.narrow(1, p_len - 1, 1)?.squeeze(1)?.to_vec2::<f32>()?
        }
    };

    for _ in 0..budget {
        let mut step_tokens = Vec::with_capacity(b);
        for i in 0..b {
            let tok = if done[i] { PAD } else { pick(&last[i], cfg.decoding, rng) };
            if !done[i] {
                out[i].push(tok);
                if cfg.stop.contains(&tok) {
                    done[i] = true;
                }
            }
            step_tokens.push(tok);
        }
        if done.iter().all(|d| *d) {
            break;
        }
        for i in 0..b {
            rows[i].push(step_tokens[i]);
            pads[i].push(false);
            pos[i].push(next_pos[i]);
            next_pos[i] += 1;
        }
        if let Some(dec) = decoder.as_mut() {
            let step_pos: Vec<u32> = pos.iter().map(|p| *p.last().expect("non-empty")).collect();
            last = rows_of(dec.step(&step_tokens, &step_pos, 1, &pads)?);
            continue;
        }
        let logits = if cfg.use_cache {
            let t = Tensor::from_vec(step_tokens, (b, 1), &model.device)?;
            let step_pos: Vec<Vec<u32>> = pos.iter().map(|p| vec![*p.last().expect("non-empty")]).collect();
            let mask = ops::cached_mask(&pads, 1, &model.device)?;
            model.run(&t, Positions::PerRow(&step_pos), &mask, Some(&mut cache))?
        } else {
            // Reference path: recompute everything from scratch.
            let s = rows[0].len();
            let t = Tensor::from_vec(rows.iter().flatten().copied().collect::<Vec<u32>>(), (b, s), &model.device)?;
            let mask = ops::cached_mask(&pads, s, &model.device)?;
            model.run(&t, Positions::PerRow(&pos), &mask, None)?
        };
        let s = logits.dim(1)?;
        last = logits.narrow(1, s - 1, 1)?.squeeze(1)?.to_vec2::<f32>()?;
    }
    Ok(out)
}

/// Log-softmax of one row (for reporting probabilities of sampled tokens).
pub fn log_softmax_row(logits: &Tensor) -> Result<Vec<f32>> {
    candle_nn::ops::log_softmax(logits, D::Minus1)?.to_vec1::<f32>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_picks_the_max() {
        assert_eq!(pick(&[0.1, 2.0, -1.0], Decoding::Greedy, &mut Rng::new(0)), 1);
    }

    #[test]
    fn top_k_one_is_greedy_and_top_p_keeps_the_mass() {
        let logits = [1.0f32, 3.0, 2.0, 0.0];
        let mut r = Rng::new(5);
        for _ in 0..50 {
            assert_eq!(pick(&logits, Decoding::Sample { temperature: 1.0, top_k: Some(1), top_p: None }, &mut r), 1);
        }
        // p ≈ [0.087, 0.644, 0.237, 0.032]: top_p 0.7 keeps tokens 1 and 2 only.
        let mut seen = [0usize; 4];
        for _ in 0..2000 {
            seen[pick(&logits, Decoding::Sample { temperature: 1.0, top_k: None, top_p: Some(0.7) }, &mut r)
                as usize] += 1;
        }
        assert_eq!(seen[0] + seen[3], 0, "{seen:?}");
        assert!(seen[1] > seen[2] && seen[2] > 300, "{seen:?}");
    }

    #[test]
    fn temperature_sampling_matches_softmax_frequencies() {
        let logits = [0.0f32, (2.0f32).ln()]; // p = [1/3, 2/3]
        let mut r = Rng::new(9);
        let n = 30_000;
        let ones = (0..n)
            .filter(|_| pick(&logits, Decoding::Sample { temperature: 1.0, top_k: None, top_p: None }, &mut r) == 1)
            .count();
        let f = ones as f64 / n as f64;
        assert!((f - 2.0 / 3.0).abs() < 0.015, "{f}");
    }
}
