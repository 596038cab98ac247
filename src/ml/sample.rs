//! Decoding: greedy, temperature, top-k and top-p sampling, batched, with a
//! KV cache so each new token costs one position of attention, not a whole
//! re-run of the prompt.
//!
//! Prompts of different lengths are *left*-padded: every row's last prompt
//! token sits in the same column, padding keys are masked out, and each row
//! gets its own absolute positions (padding does not shift them).
//!
//! Multi-turn rollouts call [`generate_with`] with one [`Memo`] per batch of
//! episodes: the memo keeps each sequence's keys and values, and the next
//! turn's prompt (the transcript so far plus the world's reply) reuses its
//! longest remembered prefix, so a turn computes its new tokens only, not the
//! whole transcript again. Sampling without top-k or top-p draws from the
//! tempered softmax in vocabulary order, with no sort of the vocabulary.

use candle_core::{Result, Tensor, D};

use super::gpt::{Gpt, Positions};
use super::kv::KvCache;
use super::memo::Memo;
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
    /// A real model's batches only: read rows that repeat one another (a
    /// GRPO group samples one prompt `group` times) once, and drop rows
    /// from the batch as they finish. Faster, and on the fused CPU decoder
    /// the same bits: its products run as the whole batch's would
    /// (`KvCache::batch`), so the rows left sample what they would have
    /// sampled among all of them (`tests/qwen2.rs`). On by default
    /// ([`GenConfig::new`]) and in every drill. `bench`'s prompts all
    /// differ and never stop, so there it changes nothing. The tiny models
    /// ignore it; the composed layers (GPUs) compact without that guarantee.
    pub compact: bool,
}

impl GenConfig {
    /// With the K/V cache and compacted batches, as every drill generates.
    pub fn new(max_new: usize, decoding: Decoding, stop: Vec<u32>) -> GenConfig {
        GenConfig { max_new, decoding, stop, use_cache: true, compact: true }
    }

    pub fn greedy(max_new: usize, stop: Vec<u32>) -> GenConfig {
        GenConfig::new(max_new, Decoding::Greedy, stop)
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
            if top_k.is_none() && top_p.is_none() {
                // Nothing to truncate: the tempered softmax in vocabulary order,
                // without sorting the vocabulary (`weighted` normalises).
                let m = logits.iter().fold(f32::NEG_INFINITY, |m, &v| if v > m { v } else { m });
                let inv_t = 1.0 / temperature;
                let p: Vec<f32> = logits.iter().map(|&l| crate::ml::fused::kernels::exp((l - m) * inv_t)).collect();
                return rng.weighted(&p) as u32;
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
    generate_with(model, prompts, cfg, rng, &mut Memo::default())
}

/// [`generate`] that keeps each sequence's keys and values in `memo` after
/// the call, so that a later prompt extending an earlier prompt and its
/// answer (the next turn of the same episode) only computes its new tokens.
/// Valid while the weights do not change: one memo per batch of rollouts.
/// On the CPU's fused decoder; elsewhere the memo is ignored.
pub fn generate_with(
    model: &Gpt,
    prompts: &[Vec<u32>],
    cfg: &GenConfig,
    rng: &mut Rng,
    memo: &mut Memo,
) -> Result<Vec<Vec<u32>>> {
    generate_tapped(model, prompts, cfg, rng, memo, None)
}

/// What sees each token as a generation picks it: the row, the token, and
/// the logits it was drawn from (Try streams the token and reads its
/// log-probability from them, [`logp_of`], instead of a second pass).
pub type Tap<'a> = dyn FnMut(usize, u32, &[f32]) + 'a;

/// The log-probability of `token` under one row of raw logits (temperature 1).
pub fn logp_of(logits: &[f32], token: u32) -> f32 {
    logits[token as usize] - super::fused::kernels::log_sum_exp(logits)
}

/// [`generate_with`] that shows every picked token to `tap` as it is picked.
pub fn generate_tapped(
    model: &Gpt,
    prompts: &[Vec<u32>],
    cfg: &GenConfig,
    rng: &mut Rng,
    memo: &mut Memo,
    tap: Option<&mut Tap<'_>>,
) -> Result<Vec<Vec<u32>>> {
    if prompts.is_empty() {
        return Ok(Vec::new());
    }
    match (cfg.use_cache, model.fused_layout()) {
        (true, Some(layout)) => generate_fused(model, layout, prompts, cfg, rng, memo, tap),
        _ => generate_composed(model, prompts, cfg, rng, tap),
    }
}

/// What the fused decoder keeps of one sequence between calls: its real
/// tokens (no padding) and, per layer, their keys and values `[h, n, hd]`.
struct Kept {
    tokens: Vec<u32>,
    k: Vec<Vec<f32>>,
    v: Vec<Vec<f32>>,
}

/// The fused decoder's generation. Rows are left-padded as in the module
/// docs; a row that continues a remembered sequence starts from its cached
/// keys and values (left-aligned so every row's reused part ends in the same
/// column) and feeds only the rest of its prompt.
fn generate_fused(
    model: &Gpt,
    layout: &super::fused::Layout,
    prompts: &[Vec<u32>],
    cfg: &GenConfig,
    rng: &mut Rng,
    memo: &mut Memo,
    mut tap: Option<&mut Tap<'_>>,
) -> Result<Vec<Vec<u32>>> {
    let b = prompts.len();
    let seen: &mut Vec<Kept> = memo.state();
    // Per row: how many leading tokens come from the memo, and from which entry.
    let reuse = super::memo::reuse_plan(seen.iter().map(|e| e.tokens.as_slice()), prompts);
    let c_max = reuse.iter().map(|r| r.0).max().unwrap_or(0);
    // The rest of each prompt (an empty prompt is read as BOS alone).
    let fresh: Vec<Vec<u32>> = prompts
        .iter()
        .zip(&reuse)
        .map(|(p, (c, _))| if p.is_empty() { vec![super::tokenizer::BOS] } else { p[*c..].to_vec() })
        .collect();
    let n_max = fresh.iter().map(|f| f.len()).max().unwrap_or(1);
    let longest = prompts.iter().map(|p| p.len()).max().unwrap_or(0).max(1);
    let budget = cfg.max_new.min(model.cfg.context.saturating_sub(longest));
    let w = layout.concat(&model.vars())?.to_vec1::<f32>()?;
    let mut dec = super::fused::decode::Decoder::new(&model.cfg, layout, w, b, c_max + n_max + budget.max(1));
    // Cache columns that are padding, per row; the columns holding real tokens.
    let mut pads: Vec<Vec<bool>> = Vec::with_capacity(b);
    let mut slots: Vec<Vec<usize>> = Vec::with_capacity(b);
    let (mut toks, mut pos) = (Vec::with_capacity(b * n_max), Vec::with_capacity(b * n_max));
    for (i, ((c, k), f)) in reuse.iter().zip(&fresh).enumerate() {
        if let Some(k) = k {
            let e = &seen[*k];
            dec.put_row(i, c_max - c, &e.k, &e.v, e.tokens.len(), *c)?;
        }
        let n_pad = n_max - f.len();
        let mut row: Vec<bool> = (0..c_max).map(|j| j < c_max - c).collect();
        row.extend((0..n_max).map(|j| j < n_pad));
        slots.push((0..row.len()).filter(|&j| !row[j]).collect());
        pads.push(row);
        toks.extend(std::iter::repeat_n(PAD, n_pad).chain(f.iter().copied()));
        pos.extend((0..n_max).map(|j| (c + j.saturating_sub(n_pad)) as u32));
    }
    // A continued sequence replaces the entry it continues.
    let mut used: Vec<usize> = reuse.iter().filter_map(|r| r.1).collect();
    used.sort_unstable();
    used.dedup();
    for k in used.into_iter().rev() {
        seen.swap_remove(k);
    }
    // Per row: the real tokens in the cache, in column order (`slots`).
    let mut fed: Vec<Vec<u32>> =
        prompts.iter().zip(&fresh).map(|(p, f)| if p.is_empty() { f.clone() } else { p.clone() }).collect();
    let mut next_pos: Vec<u32> = prompts.iter().map(|p| p.len().max(1) as u32).collect();
    let rows_of = |flat: Vec<f32>| -> Vec<Vec<f32>> { flat.chunks(model.cfg.vocab).map(|c| c.to_vec()).collect() };
    let mut last = rows_of(dec.step(&toks, &pos, n_max, &pads)?);
    let mut out: Vec<Vec<u32>> = vec![Vec::new(); b];
    let mut done = vec![false; b];
    for step in 0..budget {
        let mut step_tokens = Vec::with_capacity(b);
        let mut real = vec![false; b];
        for i in 0..b {
            if done[i] {
                step_tokens.push(PAD);
                continue;
            }
            let tok = pick(&last[i], cfg.decoding, rng);
            if let Some(tap) = tap.as_deref_mut() {
                tap(i, tok, &last[i]);
            }
            out[i].push(tok);
            done[i] = cfg.stop.contains(&tok);
            real[i] = true;
            step_tokens.push(tok);
        }
        if done.iter().all(|d| *d) || step + 1 == budget {
            break;
        }
        let width = dec.columns();
        let mut step_pos = Vec::with_capacity(b);
        for i in 0..b {
            pads[i].push(!real[i]);
            step_pos.push(next_pos[i]);
            if real[i] {
                slots[i].push(width);
                fed[i].push(step_tokens[i]);
                next_pos[i] += 1;
            }
        }
        last = rows_of(dec.step(&step_tokens, &step_pos, 1, &pads)?);
    }
    // Remember every row's real tokens with their keys and values.
    for (i, tokens) in fed.into_iter().enumerate() {
        let (k, v) = dec.take_row(i, &slots[i][..tokens.len()]);
        seen.push(Kept { tokens, k, v });
    }
    Ok(out)
}

/// Generation through candle's ops (GPUs; and the CPU without a cache, the reference).
fn generate_composed(
    model: &Gpt,
    prompts: &[Vec<u32>],
    cfg: &GenConfig,
    rng: &mut Rng,
    mut tap: Option<&mut Tap<'_>>,
) -> Result<Vec<Vec<u32>>> {
    let b = prompts.len();
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

    // First pass over the whole (padded) prompt.
    let mut last = {
        let tokens = Tensor::from_vec(rows.iter().flatten().copied().collect::<Vec<u32>>(), (b, p_len), &model.device)?;
        let mask = ops::cached_mask(&pads, p_len, &model.device)?;
        let logits = if cfg.use_cache {
            model.run(&tokens, Positions::PerRow(&pos), &mask, Some(&mut cache))?
        } else {
            model.run(&tokens, Positions::PerRow(&pos), &mask, None)?
        };
        logits.narrow(1, p_len - 1, 1)?.squeeze(1)?.to_vec2::<f32>()?
    };

    for _ in 0..budget {
        let mut step_tokens = Vec::with_capacity(b);
        for i in 0..b {
            let tok = if done[i] { PAD } else { pick(&last[i], cfg.decoding, rng) };
            if !done[i] {
                if let Some(tap) = tap.as_deref_mut() {
                    tap(i, tok, &last[i]);
                }
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
    fn a_memo_continues_episodes_with_the_same_tokens_as_a_fresh_prefill() {
        use crate::ml::gpt::GptConfig;
        let model = Gpt::new(GptConfig::new(40, 32, 2, 4, 64), 3, &candle_core::Device::Cpu).unwrap();
        assert!(model.fused_layout().is_some());
        let prompts: Vec<Vec<u32>> = vec![vec![1, 5, 9], vec![1, 7], vec![1, 2, 3, 4, 5, 6], vec![1, 5, 9]];
        let cfg = GenConfig::greedy(6, vec![11]);
        let mut memo = Memo::default();
        let first = generate_with(&model, &prompts, &cfg, &mut Rng::new(0), &mut memo).unwrap();
        assert_eq!(first, generate(&model, &prompts, &cfg, &mut Rng::new(0)).unwrap());
        // The next turn: each episode's transcript so far plus the world's reply;
        // one episode ended (not asked again) and a new one starts.
        let mut next: Vec<Vec<u32>> = prompts
            .iter()
            .zip(&first)
            .take(3)
            .enumerate()
            .map(|(i, (p, o))| [p.as_slice(), o, &[20 + i as u32, 21]].concat())
            .collect();
        next.push(vec![1, 30]);
        let cont = generate_with(&model, &next, &cfg, &mut Rng::new(0), &mut memo).unwrap();
        assert_eq!(cont, generate(&model, &next, &cfg, &mut Rng::new(0)).unwrap());
        // The memo holds one sequence per row of the last call, plus the episode not continued.
        let kept: &Vec<Kept> = memo.0.as_ref().unwrap().downcast_ref().unwrap();
        assert_eq!(kept.len(), 5);
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
