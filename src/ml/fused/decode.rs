//! Incremental decoding with a KV cache on plain slices (CPU, inference only).
//!
//! The same block forward as the training op ([`block::forward`]), but for
//! `t` new positions per row at a time, with attention against every cached
//! key instead of over the sequence. Keys and values of each layer live
//! in `[b, h, capacity, hd]` buffers allocated once per generation, so a new
//! token costs one row of each matrix product and one pass over the cache.
//! Semantics match `ops::cached_mask`: a query sees earlier keys that are not
//! padding, and always itself.
//!
//! Across the turns of an episode, [`Decoder::take_row`] copies a row's keys
//! and values out (its real tokens only, padding dropped) and
//! [`Decoder::put_row`] writes them into the next turn's decoder, so the next
//! turn computes only the tokens that are new (`sample::generate_with`).

use rayon::prelude::*;

use super::block::{self, BlockActs};
use super::kernels;
use super::linalg::{matmul, View};
use super::Layout;
use crate::ml::gpt_config::GptConfig;

pub struct Decoder<'a> {
    cfg: &'a GptConfig,
    lay: &'a Layout,
    w: Vec<f32>,
    b: usize,
    cap: usize,
    len: usize,
    k: Vec<Vec<f32>>,
    v: Vec<Vec<f32>>,
    /// One block's intermediates, reused by every layer and step.
    acts: BlockActs,
}

impl<'a> Decoder<'a> {
    /// `w`: the flat parameters (`Layout::concat`, copied out once).
    pub fn new(cfg: &'a GptConfig, lay: &'a Layout, w: Vec<f32>, b: usize, cap: usize) -> Decoder<'a> {
        let size = b * cap * cfg.d_model;
        let layers = cfg.n_layers;
        let (k, v) = (vec![vec![0.0; size]; layers], vec![vec![0.0; size]; layers]);
        Decoder { cfg, lay, w, b, cap, len: 0, k, v, acts: BlockActs::new(0, cfg.d_model, |_| Vec::new()) }
    }

    /// Cache columns so far (every row has the same number, padding included).
    pub fn columns(&self) -> usize {
        self.len
    }

    /// Row `r`'s keys and values at cache columns `cols`, in that order: per
    /// layer `[h, cols.len(), hd]`.
    pub fn take_row(&self, r: usize, cols: &[usize]) -> (Vec<Vec<f32>>, Vec<Vec<f32>>) {
        let (h, hd) = (self.cfg.n_heads, self.cfg.d_model / self.cfg.n_heads);
        let grab = |buf: &Vec<f32>| {
            let mut out = Vec::with_capacity(h * cols.len() * hd);
            for hi in 0..h {
                let base = (r * h + hi) * self.cap;
                for &c in cols {
                    out.extend_from_slice(&buf[(base + c) * hd..(base + c + 1) * hd]);
                }
            }
            out
        };
        (self.k.iter().map(grab).collect(), self.v.iter().map(grab).collect())
    }

    /// Write the first `n` of `kept` columns (per layer `[h, kept, hd]`, as
    /// [`take_row`](Self::take_row) gives them) into row `r` at columns
    /// `at..at + n`, and count the cache as `at + n` columns long.
    pub fn put_row(
        &mut self,
        r: usize,
        at: usize,
        k: &[Vec<f32>],
        v: &[Vec<f32>],
        kept: usize,
        n: usize,
    ) -> candle_core::Result<()> {
        let (h, hd) = (self.cfg.n_heads, self.cfg.d_model / self.cfg.n_heads);
        if at + n > self.cap || r >= self.b || n > kept {
            candle_core::bail!("decoder: {n} kept columns at {at} of row {r} do not fit");
        }
        for (dst, src) in self.k.iter_mut().zip(k).chain(self.v.iter_mut().zip(v)) {
            for hi in 0..h {
                let to = ((r * h + hi) * self.cap + at) * hd;
                dst[to..to + n * hd].copy_from_slice(&src[hi * kept * hd..(hi * kept + n) * hd]);
            }
        }
        self.len = self.len.max(at + n);
        Ok(())
    }

    /// Run `t` new tokens per row (`tokens`, `pos`: row-major `b × t`) and
    /// return the logits of each row's last new position, `[b, vocab]`.
    /// `pad[r][j]`: key `j` of row `r` is padding (length = positions so far + t).
    pub fn step(&mut self, tokens: &[u32], pos: &[u32], t: usize, pad: &[Vec<bool>]) -> candle_core::Result<Vec<f32>> {
        // On a pool thread, the kernels' parallel loops below split and join
        // without waking a thread from outside the pool each time (a decode
        // step of 8 rows is ~20 such loops of a few microseconds of work).
        rayon::scope(|_| self.step_in_pool(tokens, pos, t, pad))
    }

    fn step_in_pool(
        &mut self,
        tokens: &[u32],
        pos: &[u32],
        t: usize,
        pad: &[Vec<bool>],
    ) -> candle_core::Result<Vec<f32>> {
        if self.len + t > self.cap {
            candle_core::bail!("decoder: {} positions exceed its capacity {}", self.len + t, self.cap);
        }
        let (cfg, lay, w) = (self.cfg, self.lay, &self.w);
        let (b, d, vocab) = (self.b, cfg.d_model, cfg.vocab);
        let (h, hd) = (cfg.n_heads, d / cfg.n_heads);
        let n = b * t;
        let mut x = vec![0f32; n * d];
        for (i, row) in x.chunks_mut(d).enumerate() {
            let (tok, p) = (tokens[i] as usize, pos[i] as usize);
            if tok >= vocab || p >= cfg.context {
                candle_core::bail!("decoder: token {tok} or position {p} out of range");
            }
            row.copy_from_slice(&w[lay.wte + tok * d..lay.wte + (tok + 1) * d]);
            if let Some(wpe) = lay.wpe {
                kernels::add_into(row, &w[wpe + p * d..wpe + (p + 1) * d]);
            }
        }
        // RoPE angles at each token's own absolute position.
        let rope = lay.wpe.is_none().then(|| super::rope::Table::new(hd, &self.cfg.rope_scaling, pos));
        let scale = 1.0 / (hd as f32).sqrt();
        let s_total = self.len + t;
        let (cap, len) = (self.cap, self.len);
        self.acts.fit(n, d);
        for ((o, kc), vc) in lay.blocks.iter().zip(&mut self.k).zip(&mut self.v) {
            let attend = |qkv: &[f32], att: &mut [f32]| {
                // Append the new keys and values to the cache, head-major.
                for r in 0..b {
                    for ti in 0..t {
                        let row = &qkv[(r * t + ti) * 3 * d..(r * t + ti + 1) * 3 * d];
                        for hi in 0..h {
                            let at = ((r * h + hi) * cap + len + ti) * hd;
                            kc[at..at + hd].copy_from_slice(&row[d + hi * hd..d + (hi + 1) * hd]);
                            vc[at..at + hd].copy_from_slice(&row[2 * d + hi * hd..2 * d + (hi + 1) * hd]);
                        }
                    }
                }
                let (kc, vc) = (&*kc, &*vc);
                att.par_chunks_mut(t * d).enumerate().for_each(|(r, att_r)| {
                    let mut scores = vec![0f32; t * s_total];
                    for hi in 0..h {
                        let base = (r * h + hi) * cap * hd;
                        let q = View::strided(&qkv[r * t * 3 * d + hi * hd..], t, hd, 3 * d);
                        let k = View::rm(&kc[base..base + s_total * hd], s_total, hd);
                        matmul(&mut scores, s_total, q, k.t(), false, false);
                        for ti in 0..t {
                            let qpos = len + ti;
                            let row = &mut scores[ti * s_total..(ti + 1) * s_total];
                            for (j, sc) in row.iter_mut().enumerate() {
                                let visible = j <= qpos && (!pad[r][j] || j == qpos);
                                if !visible {
                                    *sc = f32::NEG_INFINITY;
                                }
                            }
                            // Masked keys are −∞: their probability is exactly 0.
                            kernels::softmax_causal(row, s_total, scale);
                        }
                        let v = View::rm(&vc[base..base + s_total * hd], s_total, hd);
                        matmul(&mut att_r[hi * hd..], d, View::rm(&scores, t, s_total), v, false, false);
                    }
                });
            };
            block::forward(&o.weights(w, d), &mut x, &mut self.acts, rope.as_ref().map(|r| (r, n)), true, attend);
        }
        self.len += t;
        // Only each row's last position is needed for the next token.
        let mut last = vec![0f32; b * d];
        for r in 0..b {
            last[r * d..(r + 1) * d].copy_from_slice(&x[((r + 1) * t - 1) * d..(r + 1) * t * d]);
        }
        let (mut hf, mut xh, mut rs) = (vec![0f32; b * d], vec![0f32; b * d], vec![0f32; b]);
        kernels::layer_norm(
            &last,
            &w[lay.lnf_w..lay.lnf_w + d],
            &w[lay.lnf_b..lay.lnf_b + d],
            d,
            &mut hf,
            &mut xh,
            &mut rs,
        );
        let mut logits = vec![0f32; b * vocab];
        matmul(
            &mut logits,
            vocab,
            View::rm(&hf, b, d),
            View::rm(&w[lay.head..lay.head + vocab * d], vocab, d).t(),
            false,
            true,
        );
        Ok(logits)
    }
}
