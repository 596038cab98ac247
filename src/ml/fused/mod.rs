//! The tiny GPT as **one** candle op on the CPU, with a hand-written backward.
//!
//! Why: candle runs the composed model (`src/ml/gpt.rs`) as ~40 small ops per
//! layer, each allocating its output and, in the backward pass, zero-filling
//! and accumulating gradients one tensor at a time. For the small models the
//! drills train that bookkeeping, not arithmetic, dominated a step (config S
//! trained at about a quarter of PyTorch's speed). Here the whole forward is
//! a straight sequence of matrix products (`gemm`, called with strides so
//! transposes are free and residual adds accumulate in place) and row-wise
//! kernels, and the backward is the same sequence in reverse over the
//! activations the forward saved.
//!
//! The op takes the token ids and all parameters concatenated in a fixed order
//! (`Layout`), so candle's autograd still works around it: the loss is
//! computed on the returned logits with ordinary candle ops, and the gradient
//! of the concatenation flows back into every `Var` of the model's `VarMap`.
//!
//! It covers the GELU MLP with learned positions or RoPE, tied or untied
//! head, on the CPU; SwiGLU and GPUs use the composed model.
//! `tests` checks values and gradients against the composed model.

mod attention;
pub mod block;
pub mod decode;
pub(crate) mod kernels;
pub mod linalg;
pub mod llama;
pub mod packed;
pub mod profile;
mod rope;
pub(crate) mod simd;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use candle_core::{CpuStorage, CustomOp2, Layout as TLayout, Result, Shape, Tensor, Var};

use super::gpt_config::GptConfig;
use attention::Dims;
use block::{BlockActs, BlockWeights};
use linalg::{matmul, View};
use profile::Phase;

/// Offsets of one block's parameters in the flat vector.
#[derive(Debug, Clone)]
struct BlockOffsets {
    ln1_w: usize,
    ln1_b: usize,
    qkv_w: usize,
    qkv_b: usize,
    proj_w: usize,
    proj_b: usize,
    ln2_w: usize,
    ln2_b: usize,
    fc_w: usize,
    fc_b: usize,
    fc2_w: usize,
    fc2_b: usize,
}

impl BlockOffsets {
    /// The block's parameters in `w` (the flat vector), for width `d`.
    fn weights<'a>(&self, w: &'a [f32], d: usize) -> BlockWeights<'a> {
        BlockWeights {
            ln1_w: &w[self.ln1_w..self.ln1_w + d],
            ln1_b: &w[self.ln1_b..self.ln1_b + d],
            qkv_w: &w[self.qkv_w..self.qkv_w + 3 * d * d],
            qkv_b: &w[self.qkv_b..self.qkv_b + 3 * d],
            proj_w: &w[self.proj_w..self.proj_w + d * d],
            proj_b: &w[self.proj_b..self.proj_b + d],
            ln2_w: &w[self.ln2_w..self.ln2_w + d],
            ln2_b: &w[self.ln2_b..self.ln2_b + d],
            fc_w: &w[self.fc_w..self.fc_w + 4 * d * d],
            fc_b: &w[self.fc_b..self.fc_b + 4 * d],
            fc2_w: &w[self.fc2_w..self.fc2_w + 4 * d * d],
            fc2_b: &w[self.fc2_b..self.fc2_b + d],
        }
    }
}

/// Recycled `f32` buffers: a training step reuses the previous step's
/// activation memory instead of page-faulting and zero-filling fresh pages
/// (that alone was a tenth of a step). Contents of a taken buffer are stale
/// numbers; every caller either overwrites it fully or asks for zeros.
#[derive(Default)]
pub struct Pool {
    free: Mutex<Vec<Vec<f32>>>,
}

impl Pool {
    fn take(&self, n: usize) -> Vec<f32> {
        let mut free = self.free.lock().expect("pool lock");
        let best = free
            .iter()
            .enumerate()
            .filter(|(_, v)| v.capacity() >= n)
            .min_by_key(|(_, v)| v.capacity())
            .map(|(i, _)| i);
        match best {
            Some(i) => {
                let mut v = free.swap_remove(i);
                if v.len() >= n {
                    v.truncate(n);
                } else {
                    v.resize(n, 0.0);
                }
                v
            }
            None => vec![0.0; n],
        }
    }

    fn zeroed(&self, n: usize) -> Vec<f32> {
        let mut v = self.take(n);
        v.fill(0.0);
        v
    }

    fn give(&self, v: Vec<f32>) {
        let mut free = self.free.lock().expect("pool lock");
        // Bounded: a model with a few dozen activation buffers per layer.
        if free.len() < 512 {
            free.push(v);
        }
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pool({} free)", self.free.lock().map(|v| v.len()).unwrap_or(0))
    }
}

/// Where every parameter sits in the concatenation the op receives.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Parameter names in concatenation order, with their sizes.
    pub order: Vec<(String, usize)>,
    pub total: usize,
    wte: usize,
    /// Learned position table, or `None` with RoPE.
    wpe: Option<usize>,
    blocks: Vec<BlockOffsets>,
    lnf_w: usize,
    lnf_b: usize,
    head: usize,
    /// Shared by every forward/backward of the model.
    pool: Arc<Pool>,
}

impl Layout {
    /// The layout for a config, or `None` if the fused path does not cover it.
    pub fn new(cfg: &GptConfig) -> Option<Layout> {
        use super::gpt_config::{MlpKind, PosEncoding};
        if cfg.mlp != MlpKind::Gelu {
            return None;
        }
        crate::tune_allocator();
        let d = cfg.d_model;
        let mut order = Vec::new();
        let mut total = 0;
        let mut add = |name: String, n: usize| -> usize {
            let off = total;
            order.push((name, n));
            total += n;
            off
        };
        let wte = add("wte.weight".into(), cfg.vocab * d);
        let wpe = (cfg.pos == PosEncoding::Learned).then(|| add("wpe.weight".into(), cfg.context * d));
        let mut blocks = Vec::new();
        for l in 0..cfg.n_layers {
            let n = |s: &str| format!("blocks.{l}.{s}");
            blocks.push(BlockOffsets {
                ln1_w: add(n("ln1.weight"), d),
                ln1_b: add(n("ln1.bias"), d),
                qkv_w: add(n("attn.qkv.weight"), 3 * d * d),
                qkv_b: add(n("attn.qkv.bias"), 3 * d),
                proj_w: add(n("attn.proj.weight"), d * d),
                proj_b: add(n("attn.proj.bias"), d),
                ln2_w: add(n("ln2.weight"), d),
                ln2_b: add(n("ln2.bias"), d),
                fc_w: add(n("mlp.fc.weight"), 4 * d * d),
                fc_b: add(n("mlp.fc.bias"), 4 * d),
                fc2_w: add(n("mlp.proj.weight"), 4 * d * d),
                fc2_b: add(n("mlp.proj.bias"), d),
            });
        }
        let lnf_w = add("ln_f.weight".into(), d);
        let lnf_b = add("ln_f.bias".into(), d);
        let head = if cfg.tied { wte } else { add("lm_head.weight".into(), cfg.vocab * d) };
        Some(Layout { order, total, wte, wpe, blocks, lnf_w, lnf_b, head, pool: Arc::default() })
    }

    /// All parameters as one flat tensor, in layout order (differentiable).
    pub fn concat(&self, vars: &BTreeMap<String, Var>) -> Result<Tensor> {
        let parts = self
            .order
            .iter()
            .map(|(name, _)| {
                vars.get(name)
                    .ok_or_else(|| candle_core::Error::Msg(format!("fused GPT: no parameter {name}")))
                    .and_then(|v| v.as_tensor().flatten_all())
            })
            .collect::<Result<Vec<_>>>()?;
        Tensor::cat(&parts, 0)
    }
}

/// Activations of one block kept for the backward pass: the block's
/// intermediates and the attention probabilities `[b, h, t, t]`.
struct BlockSaved {
    acts: BlockActs,
    p: Vec<f32>,
}

struct Saved {
    tokens: Vec<u32>,
    blocks: Vec<BlockSaved>,
    xhatf: Vec<f32>,
    rstdf: Vec<f32>,
    hf: Vec<f32>,
}

impl Saved {
    fn recycle(self, pool: &Pool) {
        for b in self.blocks {
            for v in b.acts.into_buffers() {
                pool.give(v);
            }
            pool.give(b.p);
        }
        for v in [self.xhatf, self.rstdf, self.hf] {
            pool.give(v);
        }
    }
}

/// One forward call of the fused model (a new op per call, holding its activations).
pub struct GptOp {
    cfg: GptConfig,
    layout: Arc<Layout>,
    /// One entry per shard ([`shards`]).
    saved: Mutex<Option<Vec<Saved>>>,
}

impl Drop for GptOp {
    fn drop(&mut self) {
        if let Some(saved) = self.saved.get_mut().ok().and_then(|s| s.take()) {
            for s in saved {
                s.recycle(&self.layout.pool);
            }
        }
    }
}

impl GptOp {
    pub fn new(cfg: GptConfig, layout: Arc<Layout>) -> GptOp {
        GptOp { cfg, layout, saved: Mutex::new(None) }
    }

    /// Token ids `[b, t]` (u32) and the flat parameters → logits `[b, t, vocab]`.
    pub fn forward(self, tokens: &Tensor, params: &Tensor) -> Result<Tensor> {
        tokens.apply_op2(params, self)
    }

    /// The whole forward: each shard on its own thread → logits `[b·t, vocab]`
    /// and the activations of every shard.
    fn forward_all(&self, tokens: &[u32], b: usize, t: usize, w: &[f32]) -> Result<(Vec<f32>, Vec<Saved>)> {
        let v = self.cfg.vocab;
        let mut logits = vec![0f32; b * t * v];
        let parts = shards(b);
        let threads = rayon::current_num_threads() > parts.len();
        if parts.len() == 1 {
            let saved = self.run(tokens, b, t, w, &mut logits, threads)?;
            return Ok((logits, vec![saved]));
        }
        let b0 = parts[0];
        let (l0, l1) = logits.split_at_mut(b0 * t * v);
        let (s0, s1) = rayon::join(
            || self.run(&tokens[..b0 * t], b0, t, w, l0, threads),
            || self.run(&tokens[b0 * t..], b - b0, t, w, l1, threads),
        );
        Ok((logits, vec![s0?, s1?]))
    }

    /// The whole backward: each shard's gradient on its own thread, then
    /// their sum in shard order (the same whatever the number of threads).
    fn backward_all(&self, saved: &[Saved], t: usize, w: &[f32], dlogits: &[f32]) -> Vec<f32> {
        let lay = &self.layout;
        let mut gw = vec![0f32; lay.total];
        let threads = rayon::current_num_threads() > saved.len();
        match saved {
            [one] => self.backward(one, t, w, dlogits, &mut gw, threads),
            [s0, s1] => {
                let split = s0.tokens.len() * self.cfg.vocab;
                let mut gw1 = lay.pool.zeroed(lay.total);
                rayon::join(
                    || self.backward(s0, t, w, &dlogits[..split], &mut gw, threads),
                    || self.backward(s1, t, w, &dlogits[split..], &mut gw1, threads),
                );
                kernels::add_all(&mut gw, &gw1);
                lay.pool.give(gw1);
            }
            _ => unreachable!("one or two shards"),
        }
        gw
    }

    /// The forward of one shard (`b` sequences of `t` tokens) into `logits`
    /// (`[b·t, vocab]`); `threads`: let the matrix products split their work.
    fn run(&self, tokens: &[u32], b: usize, t: usize, w: &[f32], logits: &mut [f32], threads: bool) -> Result<Saved> {
        let cfg = &self.cfg;
        let lay = &self.layout;
        let (d, v) = (cfg.d_model, cfg.vocab);
        let n = b * t;
        if t > cfg.context {
            candle_core::bail!("sequence of {t} tokens exceeds the model context of {}", cfg.context);
        }
        let pool = &lay.pool;
        let mm = |c: &mut [f32], ldc: usize, a: View, b: View, acc: bool| {
            profile::time(Phase::FwdMatmul, || matmul(c, ldc, a, b, acc, threads))
        };
        // Token + position embeddings.
        let mut x = pool.take(n * d);
        for (i, row) in x.chunks_mut(d).enumerate() {
            let tok = tokens[i] as usize;
            if tok >= v {
                candle_core::bail!("token id {tok} is outside the vocabulary of {v}");
            }
            row.copy_from_slice(&w[lay.wte + tok * d..lay.wte + (tok + 1) * d]);
            if let Some(wpe) = lay.wpe {
                kernels::add_into(row, &w[wpe + (i % t) * d..wpe + (i % t + 1) * d]);
            }
        }
        let dims = Dims { t, h: cfg.n_heads, hd: d / cfg.n_heads };
        let rope =
            lay.wpe.is_none().then(|| rope::Table::new(dims.hd, &cfg.rope_scaling, &(0..t as u32).collect::<Vec<_>>()));
        let mut blocks = Vec::with_capacity(cfg.n_layers);
        for o in &lay.blocks {
            let mut acts = BlockActs::new(n, d, |len| pool.take(len));
            let mut p = pool.take(b * dims.h * t * t);
            let attend = |qkv: &[f32], att: &mut [f32]| attention::forward(qkv, dims, att, &mut p);
            block::forward(&o.weights(w, d), &mut x, &mut acts, rope.as_ref().map(|r| (r, t)), threads, attend);
            blocks.push(BlockSaved { acts, p });
        }
        let (mut hf, mut xhatf, mut rstdf) = (pool.take(n * d), pool.take(n * d), pool.take(n));
        profile::time(Phase::FwdRowwise, || {
            kernels::layer_norm(
                &x,
                &w[lay.lnf_w..lay.lnf_w + d],
                &w[lay.lnf_b..lay.lnf_b + d],
                d,
                &mut hf,
                &mut xhatf,
                &mut rstdf,
            )
        });
        mm(logits, v, View::rm(&hf, n, d), View::rm(&w[lay.head..lay.head + v * d], v, d).t(), false);
        pool.give(x);
        Ok(Saved { tokens: tokens.to_vec(), blocks, xhatf, rstdf, hf })
    }

    /// Add one shard's gradient to `gw` (layout order, zeroed by the caller)
    /// from its `dlogits` `[b·t, vocab]`.
    fn backward(&self, s: &Saved, t: usize, w: &[f32], dlogits: &[f32], gw: &mut [f32], threads: bool) {
        let cfg = &self.cfg;
        let lay = &self.layout;
        let (d, v) = (cfg.d_model, cfg.vocab);
        let n = s.tokens.len();
        let dims = Dims { t, h: cfg.n_heads, hd: d / cfg.n_heads };
        let rope =
            lay.wpe.is_none().then(|| rope::Table::new(dims.hd, &cfg.rope_scaling, &(0..t as u32).collect::<Vec<_>>()));
        let pool = &lay.pool;
        let mm = |c: &mut [f32], ldc: usize, a: View, b: View, acc: bool| {
            profile::time(Phase::BwdMatmul, || matmul(c, ldc, a, b, acc, threads))
        };

        // Head: logits = hf · Wᵀ.
        mm(&mut gw[lay.head..lay.head + v * d], d, View::rm(dlogits, n, v).t(), View::rm(&s.hf, n, d), true);
        let mut dhf = pool.take(n * d);
        mm(&mut dhf, d, View::rm(dlogits, n, v), View::rm(&w[lay.head..lay.head + v * d], v, d), false);
        let mut dx = pool.zeroed(n * d);
        {
            let (gwl, gbl) = gw[lay.lnf_w..lay.lnf_b + d].split_at_mut(d);
            profile::time(Phase::BwdRowwise, || {
                kernels::layer_norm_backward(
                    &dhf,
                    &s.xhatf,
                    &s.rstdf,
                    &w[lay.lnf_w..lay.lnf_w + d],
                    d,
                    &mut dx,
                    gwl,
                    gbl,
                )
            });
        }
        for (o, saved) in lay.blocks.iter().zip(&s.blocks).rev() {
            let a = &saved.acts;
            // MLP: x_out = x_mid + gelu(LN2(x_mid)·Wfcᵀ + bfc)·W2ᵀ + b2.
            mm(&mut gw[o.fc2_w..o.fc2_w + 4 * d * d], 4 * d, View::rm(&dx, n, d).t(), View::rm(&a.g, n, 4 * d), true);
            profile::time(Phase::BwdRowwise, || kernels::bias_grad(&dx, d, &mut gw[o.fc2_b..o.fc2_b + d]));
            let mut du = pool.take(n * 4 * d);
            mm(&mut du, 4 * d, View::rm(&dx, n, d), View::rm(&w[o.fc2_w..o.fc2_w + 4 * d * d], d, 4 * d), false);
            profile::time(Phase::BwdRowwise, || kernels::gelu_backward(&a.u, &mut du));
            mm(&mut gw[o.fc_w..o.fc_w + 4 * d * d], d, View::rm(&du, n, 4 * d).t(), View::rm(&a.h2, n, d), true);
            profile::time(Phase::BwdRowwise, || kernels::bias_grad(&du, 4 * d, &mut gw[o.fc_b..o.fc_b + 4 * d]));
            let mut dh2 = pool.take(n * d);
            mm(&mut dh2, d, View::rm(&du, n, 4 * d), View::rm(&w[o.fc_w..o.fc_w + 4 * d * d], 4 * d, d), false);
            {
                let (gwl, gbl) = gw[o.ln2_w..o.ln2_b + d].split_at_mut(d);
                profile::time(Phase::BwdRowwise, || {
                    kernels::layer_norm_backward(
                        &dh2,
                        &a.xhat2,
                        &a.rstd2,
                        &w[o.ln2_w..o.ln2_w + d],
                        d,
                        &mut dx,
                        gwl,
                        gbl,
                    )
                });
            }
            // Attention: x_mid = x_in + Attn(LN1(x_in))·Wpᵀ + bp.
            mm(&mut gw[o.proj_w..o.proj_w + d * d], d, View::rm(&dx, n, d).t(), View::rm(&a.att, n, d), true);
            profile::time(Phase::BwdRowwise, || kernels::bias_grad(&dx, d, &mut gw[o.proj_b..o.proj_b + d]));
            let mut datt = pool.take(n * d);
            mm(&mut datt, d, View::rm(&dx, n, d), View::rm(&w[o.proj_w..o.proj_w + d * d], d, d), false);
            let mut dqkv = pool.take(n * 3 * d);
            profile::time(Phase::BwdAttention, || attention::backward(&a.qkv, &saved.p, &datt, dims, &mut dqkv));
            if let Some(table) = &rope {
                // Gradients of the rotated q, k → gradients of q, k: rotate back.
                profile::time(Phase::BwdRowwise, || rope::rotate_qk(&mut dqkv, d, dims.hd, table, t, true));
            }
            mm(&mut gw[o.qkv_w..o.qkv_w + 3 * d * d], d, View::rm(&dqkv, n, 3 * d).t(), View::rm(&a.h1, n, d), true);
            profile::time(Phase::BwdRowwise, || kernels::bias_grad(&dqkv, 3 * d, &mut gw[o.qkv_b..o.qkv_b + 3 * d]));
            let mut dh1 = pool.take(n * d);
            mm(&mut dh1, d, View::rm(&dqkv, n, 3 * d), View::rm(&w[o.qkv_w..o.qkv_w + 3 * d * d], 3 * d, d), false);
            {
                let (gwl, gbl) = gw[o.ln1_w..o.ln1_b + d].split_at_mut(d);
                profile::time(Phase::BwdRowwise, || {
                    kernels::layer_norm_backward(
                        &dh1,
                        &a.xhat1,
                        &a.rstd1,
                        &w[o.ln1_w..o.ln1_w + d],
                        d,
                        &mut dx,
                        gwl,
                        gbl,
                    )
                });
            }
            for buf in [du, dh2, datt, dqkv, dh1] {
                pool.give(buf);
            }
        }
        pool.give(dhf);
        // Embeddings: scatter-add the residual stream's gradient.
        for (i, row) in dx.chunks(d).enumerate() {
            let tok = s.tokens[i] as usize;
            profile::time(Phase::BwdRowwise, || {
                kernels::add_into(&mut gw[lay.wte + tok * d..lay.wte + (tok + 1) * d], row)
            });
            if let Some(wpe) = lay.wpe {
                profile::time(Phase::BwdRowwise, || {
                    kernels::add_into(&mut gw[wpe + (i % t) * d..wpe + (i % t + 1) * d], row)
                });
            }
        }
        pool.give(dx);
    }
}

/// How the `b` sequences of a batch are split into shards that run side by
/// side: two halves (the first one the larger) from 2 sequences on, else one.
/// Fixed by the batch alone, never by the number of threads, so that a run
/// gives the same numbers on any machine with the same kernels: each shard's
/// weight gradients are summed over its own rows, then the two are added.
pub fn shards(b: usize) -> Vec<usize> {
    if b >= 2 && std::env::var("TMP_NOSHARD").is_err() {
        vec![b.div_ceil(2), b / 2]
    } else {
        vec![b]
    }
}

fn contiguous<'a, T: candle_core::WithDType>(s: &'a CpuStorage, l: &TLayout, what: &str) -> Result<&'a [T]> {
    let (start, end) = l
        .contiguous_offsets()
        .ok_or_else(|| candle_core::Error::Msg(format!("fused GPT: {what} must be contiguous")))?;
    Ok(&s.as_slice::<T>()?[start..end])
}

impl CustomOp2 for GptOp {
    fn name(&self) -> &'static str {
        "fused-gpt"
    }

    fn cpu_fwd(&self, s1: &CpuStorage, l1: &TLayout, s2: &CpuStorage, l2: &TLayout) -> Result<(CpuStorage, Shape)> {
        let (b, t) = l1.shape().dims2()?;
        if l2.shape().elem_count() != self.layout.total {
            candle_core::bail!(
                "fused GPT: {} parameters given, {} expected",
                l2.shape().elem_count(),
                self.layout.total
            );
        }
        let tokens = contiguous::<u32>(s1, l1, "tokens")?;
        let w = contiguous::<f32>(s2, l2, "parameters")?;
        let (logits, saved) = self.forward_all(tokens, b, t, w)?;
        *self.saved.lock().expect("fused GPT lock") = Some(saved);
        Ok((CpuStorage::F32(logits), Shape::from((b, t, self.cfg.vocab))))
    }

    fn bwd(
        &self,
        tokens: &Tensor,
        params: &Tensor,
        _res: &Tensor,
        grad_res: &Tensor,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let (_, t) = tokens.dims2()?;
        let grad = grad_res.contiguous()?;
        let (gs, gl) = grad.storage_and_layout();
        let (ps, pl) = params.storage_and_layout();
        let (candle_core::Storage::Cpu(gs), candle_core::Storage::Cpu(ps)) = (&*gs, &*ps) else {
            candle_core::bail!("fused GPT runs on the CPU only");
        };
        let dlogits = contiguous::<f32>(gs, gl, "logit gradient")?;
        let w = contiguous::<f32>(ps, pl, "parameters")?;
        let mut guard = self.saved.lock().expect("fused GPT lock");
        if guard.is_none() {
            // The activations were lost (the op's forward did not run here): recompute them.
            let (ts, tl) = tokens.storage_and_layout();
            let candle_core::Storage::Cpu(ts) = &*ts else { candle_core::bail!("fused GPT runs on the CPU only") };
            let toks = contiguous::<u32>(ts, tl, "tokens")?;
            let (b, _) = tokens.dims2()?;
            *guard = Some(self.forward_all(toks, b, t, w)?.1);
        }
        let saved = guard.as_ref().expect("set above");
        let gw = self.backward_all(saved, t, w, dlogits);
        Ok((None, Some(Tensor::from_vec(gw, self.layout.total, params.device())?)))
    }
}

#[cfg(test)]
mod tests;
