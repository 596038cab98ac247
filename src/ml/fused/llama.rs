//! The Llama decoder stack (RMSNorm, rotary positions, grouped-query
//! attention, SwiGLU) of a model with a **frozen base** as one candle op on
//! the CPU, with a hand-written backward for its LoRA adapters.
//!
//! Why: composed from candle ops, a SmolLM2 layer is some fifty small ops,
//! each allocating its output, and their backward zero-fills and adds
//! gradients one tensor at a time; under LoRA only the adapters (rank 8, a
//! few hundred thousand numbers) need a gradient at all. Here one layer is:
//!
//! ```text
//! x̂ = x·rstd(x)           h₁ = x̂ ⊙ w₁                       (RMSNorm, rstd = 1/√(mean x² + ε))
//! [q|k|v] = h₁ [Wq|Wk|Wv]ᵀ + s·(h₁Aᵀ)Bᵀ per adapter           (three products into one buffer)
//! q, k ← rotate(q, k, position)                               (in place)
//! o = softmax(q kᵀ/√d_h + causal) v   per query head, reading K/V head ⌊head/g⌋
//! x ← x + o Woᵀ (+ adapter)                                   (accumulated in place)
//! h₂ = RMSNorm(x) ⊙ w₂    [g|u] = h₂ [Wg|Wu]ᵀ (+ adapters)
//! x ← x + (silu(g) ⊙ u) Wdᵀ (+ adapter)
//! ```
//!
//! and the backward walks it in reverse: `dx` through every frozen product
//! (`dx = dy·W`, never a weight gradient), the adapters' `dB = s·dyᵀ(xAᵀ)`,
//! `dA = s·(dy B)ᵀ x`, and it stops at the lowest layer with an adapter
//! (nothing below it is trained). The batch runs as two shards side by side
//! ([`super::shards`]), their adapter gradients added in shard order, so a
//! run is the same on any number of threads.
//!
//! `src/ml/llama.rs` keeps the composed model: the reference this op is
//! checked against (values and adapter gradients, `tests/qwen2.rs`), and the
//! path for full fine-tuning and GPUs.

use std::sync::{Arc, Mutex};

use candle_core::{CpuStorage, CustomOp2, Layout as TLayout, Result, Shape, Storage, Tensor};
use rayon::prelude::*;

use super::attention::blocks;
use super::kernels;
use super::linalg::{matmul, matmul_as, View, SMALL_M};
use super::packed::{small_m_times_packed, Packed};
use super::profile::{self, Phase};
use super::simd::multiversion;
use super::Pool;

/// The projections of a layer in adapter order (`llama::LORA_TARGETS`).
pub const Q: usize = 0;
pub const K: usize = 1;
pub const V: usize = 2;
pub const O: usize = 3;
pub const GATE: usize = 4;
pub const UP: usize = 5;
pub const DOWN: usize = 6;

/// Shapes of the stack.
#[derive(Debug, Clone, Copy)]
pub struct Dims {
    pub d: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub head_dim: usize,
    pub ff: usize,
    pub eps: f32,
    pub rope_theta: f64,
}

impl Dims {
    fn qd(&self) -> usize {
        self.heads * self.head_dim
    }
    fn kvd(&self) -> usize {
        self.kv_heads * self.head_dim
    }
    /// Width of the `[q|k|v]` buffer.
    fn qkv(&self) -> usize {
        self.qd() + 2 * self.kvd()
    }
    /// `(d_out, d_in)` of projection `p`.
    fn shape(&self, p: usize) -> (usize, usize) {
        match p {
            Q => (self.qd(), self.d),
            K | V => (self.kvd(), self.d),
            O => (self.d, self.qd()),
            GATE | UP => (self.ff, self.d),
            _ => (self.d, self.ff),
        }
    }
}

/// One adapter's place in the flat parameter vector: `A [r, d_in]` at `off`,
/// then `B [d_out, r]`.
#[derive(Debug, Clone, Copy)]
pub struct Slot {
    pub off: usize,
    pub rank: usize,
    pub scale: f32,
}

/// A layer's frozen tensors: the two norm gains, the seven projection
/// weights `[d_out, d_in]` in adapter order, and q/k/v biases if any; each
/// weight also packed ([`super::packed`]) where it could be, for decoding.
#[derive(Debug, Clone)]
pub struct LayerTensors {
    pub input_norm: Tensor,
    pub post_norm: Tensor,
    pub w: [Tensor; 7],
    pub bias: [Option<Tensor>; 3],
    pub packed: [Option<Arc<Packed>>; 7],
}

/// Frozen tensors as slices, for one call.
struct LayerW<'a> {
    input_norm: &'a [f32],
    post_norm: &'a [f32],
    w: [&'a [f32]; 7],
    bias: [Option<&'a [f32]>; 3],
    packed: [Option<&'a Packed>; 7],
}

/// The stack's description, shared by every call: shapes, frozen tensors,
/// where each adapter sits, and the recycled buffers.
#[derive(Debug)]
pub struct Stack {
    pub dims: Dims,
    pub layers: Vec<LayerTensors>,
    pub norm: Tensor,
    /// Per layer, per projection.
    pub slots: Vec<[Option<Slot>; 7]>,
    /// Length of the flat adapter vector (at least 1: an empty model passes one zero).
    pub total: usize,
    pool: Arc<Pool>,
}

impl Stack {
    pub fn new(
        dims: Dims,
        layers: Vec<LayerTensors>,
        norm: Tensor,
        slots: Vec<[Option<Slot>; 7]>,
        total: usize,
        pool: Arc<Pool>,
    ) -> Stack {
        Stack { dims, layers, norm, slots, total, pool }
    }

    /// The lowest layer with an adapter (the backward stops there).
    fn first_adapted(&self) -> usize {
        self.slots.iter().position(|s| s.iter().any(Option::is_some)).unwrap_or(self.layers.len())
    }

    /// Run `f` on the frozen tensors as slices (each read-locked for the call).
    fn with_weights<R>(&self, f: impl FnOnce(&[LayerW], &[f32]) -> Result<R>) -> Result<R> {
        let mut tensors: Vec<&Tensor> = Vec::new();
        for l in &self.layers {
            tensors.push(&l.input_norm);
            tensors.push(&l.post_norm);
            tensors.extend(l.w.iter());
            tensors.extend(l.bias.iter().flatten());
        }
        tensors.push(&self.norm);
        let guards: Vec<_> = tensors.iter().map(|t| t.storage_and_layout()).collect();
        let mut slices = Vec::with_capacity(guards.len());
        for (g, l) in &guards {
            let Storage::Cpu(s) = &**g else { candle_core::bail!("fused Llama: CPU tensors only") };
            slices.push(contiguous(s, l)?);
        }
        let mut it = slices.into_iter();
        let mut layers = Vec::with_capacity(self.layers.len());
        for l in &self.layers {
            let mut next = || it.next().expect("one slice per tensor");
            let (input_norm, post_norm) = (next(), next());
            let w = std::array::from_fn(|_| next());
            let bias = std::array::from_fn(|i| l.bias[i].as_ref().map(|_| next()));
            let packed = std::array::from_fn(|p| l.packed[p].as_deref().filter(|pk| unchanged(pk, w[p])));
            layers.push(LayerW { input_norm, post_norm, w, bias, packed });
        }
        let norm = it.next().expect("the final norm");
        f(&layers, norm)
    }
}

/// Whether the packed copy still holds `w`'s numbers, checked at 16 places
/// spread over the matrix: the copy is made when the base is frozen, and a
/// weight trained since (through another handle on the same storage) would
/// have moved nearly everywhere; then the f32 weights are used.
fn unchanged(p: &Packed, w: &[f32]) -> bool {
    let n = p.rows * p.cols;
    w.len() == n
        && (0..16)
            .map(|i| (i * 7919 + n / 16 * i) % n)
            .all(|at| p.get(at / p.cols, at % p.cols).to_bits() == w[at].to_bits())
}

/// A contiguous f32 CPU tensor's numbers (the fused GPT's reader).
fn contiguous<'a>(s: &'a CpuStorage, l: &TLayout) -> Result<&'a [f32]> {
    super::contiguous::<f32>(s, l, "a fused Llama tensor")
}

/// What one layer keeps for the backward pass.
struct LayerSaved {
    xhat1: Vec<f32>,
    rstd1: Vec<f32>,
    h1: Vec<f32>,
    /// `[q|k|v]` after the rotation.
    qkv: Vec<f32>,
    /// Attention probabilities `[b, heads, t, t]` (on and below the diagonal).
    p: Vec<f32>,
    att: Vec<f32>,
    xhat2: Vec<f32>,
    rstd2: Vec<f32>,
    h2: Vec<f32>,
    gu: Vec<f32>,
    m: Vec<f32>,
    /// Per projection with an adapter: `s·(input Aᵀ)` `[n, r]`.
    lora_u: [Option<Vec<f32>>; 7],
}

struct Saved {
    n: usize,
    layers: Vec<LayerSaved>,
    xhatf: Vec<f32>,
    rstdf: Vec<f32>,
}

impl LayerSaved {
    fn recycle(self, pool: &Pool) {
        for v in [
            self.xhat1, self.rstd1, self.h1, self.qkv, self.p, self.att, self.xhat2, self.rstd2, self.h2, self.gu,
            self.m,
        ] {
            pool.give(v);
        }
        for v in self.lora_u.into_iter().flatten() {
            pool.give(v);
        }
    }
}

impl Saved {
    fn recycle(self, pool: &Pool) {
        for l in self.layers {
            l.recycle(pool);
        }
        pool.give(self.xhatf);
        pool.give(self.rstdf);
    }
}

/// One forward call: `x [b, t, d]` (embedded tokens, positions `0..t`) and the
/// flat adapters → the final normed hidden states `[b, t, d]`.
pub struct StackOp {
    stack: Arc<Stack>,
    /// Keep activations for a backward (the adapters are being trained).
    train: bool,
    saved: Mutex<Option<Vec<Saved>>>,
}

impl Drop for StackOp {
    fn drop(&mut self) {
        if let Some(saved) = self.saved.get_mut().ok().and_then(|s| s.take()) {
            for s in saved {
                s.recycle(&self.stack.pool);
            }
        }
    }
}

impl StackOp {
    pub fn new(stack: Arc<Stack>, train: bool) -> StackOp {
        StackOp { stack, train, saved: Mutex::new(None) }
    }
}

multiversion! {
    /// One row of RMSNorm: `y = x·rstd ⊙ w`, `xhat = x·rstd`; returns rstd.
    fn rms_row(x: &[f32], w: &[f32], eps: f32, y: &mut [f32], xhat: &mut [f32]) -> f32 {
        let r = 1.0 / (super::linalg::dot(x, x) / x.len() as f32 + eps).sqrt();
        for j in 0..x.len() {
            let h = x[j] * r;
            xhat[j] = h;
            y[j] = h * w[j];
        }
        r
    }
}

multiversion! {
    /// One row of the RMSNorm backward, added to `dx`:
    /// `dx += rstd·(g − x̂·mean(g ⊙ x̂))` with `g = dy ⊙ w` (`g` is scratch).
    fn rms_back_row(dy: &[f32], xhat: &[f32], w: &[f32], r: f32, g: &mut [f32], dx: &mut [f32]) {
        for j in 0..dy.len() {
            g[j] = dy[j] * w[j];
        }
        let m = super::linalg::dot(g, xhat) / dy.len() as f32;
        for j in 0..dy.len() {
            dx[j] += r * (g[j] - xhat[j] * m);
        }
    }
}

fn rms_norm(x: &[f32], w: &[f32], eps: f32, d: usize, y: &mut [f32], xhat: &mut [f32], rstd: &mut [f32]) {
    y.par_chunks_mut(32 * d).zip(xhat.par_chunks_mut(32 * d)).zip(rstd.par_chunks_mut(32)).enumerate().for_each(
        |(c, ((y, xh), rs))| {
            for (r, slot) in rs.iter_mut().enumerate() {
                let i = c * 32 + r;
                *slot =
                    rms_row(&x[i * d..(i + 1) * d], w, eps, &mut y[r * d..(r + 1) * d], &mut xh[r * d..(r + 1) * d]);
            }
        },
    );
}

fn rms_norm_backward(dy: &[f32], xhat: &[f32], rstd: &[f32], w: &[f32], d: usize, dx: &mut [f32]) {
    dx.par_chunks_mut(32 * d).enumerate().for_each(|(c, dx)| {
        let mut g = vec![0f32; d];
        for (r, dxr) in dx.chunks_mut(d).enumerate() {
            let i = c * 32 + r;
            rms_back_row(&dy[i * d..(i + 1) * d], &xhat[i * d..(i + 1) * d], w, rstd[i], &mut g, dxr);
        }
    });
}

multiversion! {
    /// `m = silu(g) ⊙ u` for one row of `[g|u]`.
    fn swiglu_row(gu: &[f32], m: &mut [f32]) {
        let (g, u) = gu.split_at(m.len());
        for j in 0..m.len() {
            let s = 1.0 / (1.0 + kernels::exp(-g[j]));
            m[j] = g[j] * s * u[j];
        }
    }
}

multiversion! {
    /// `[dg|du]` of one row from `dm` and the saved `[g|u]`.
    fn swiglu_back_row(gu: &[f32], dm: &[f32], dgu: &mut [f32]) {
        let f = dm.len();
        let (g, u) = gu.split_at(f);
        let (dg, du) = dgu.split_at_mut(f);
        for j in 0..f {
            let s = 1.0 / (1.0 + kernels::exp(-g[j]));
            let silu = g[j] * s;
            du[j] = dm[j] * silu;
            dg[j] = dm[j] * u[j] * s * (1.0 + g[j] * (1.0 - s));
        }
    }
}

/// cos and sin of each (position, pair), one table row per position: the
/// angle is `p · θ^(−2j/d_h)` in f32, as the composed model computes it.
fn rope_table(positions: impl ExactSizeIterator<Item = u32>, hd: usize, theta: f64) -> (Vec<f32>, Vec<f32>) {
    let inv: Vec<f32> = (0..hd / 2).map(|i| 1.0 / theta.powf(2.0 * i as f64 / hd as f64) as f32).collect();
    let mut cos = Vec::with_capacity(positions.len() * hd / 2);
    let mut sin = Vec::with_capacity(positions.len() * hd / 2);
    for p in positions {
        for &f in &inv {
            let a = p as f32 * f;
            cos.push(a.cos());
            sin.push(a.sin());
        }
    }
    (cos, sin)
}

/// Rotate the query and key heads of every row of `[q|k|v]` ("rotate half"),
/// row `i` by table row `i % period` (training: the position in the
/// sequence; decoding: one table row per row); `inverse` rotates by −θ (the
/// backward).
fn rotate(qkv: &mut [f32], dims: &Dims, period: usize, table: &(Vec<f32>, Vec<f32>), inverse: bool) {
    let (w, hd) = (dims.qkv(), dims.head_dim);
    let half = hd / 2;
    let rotated = dims.heads + dims.kv_heads;
    qkv.par_chunks_mut(32 * w).enumerate().for_each(|(c, rows)| {
        for (r, row) in rows.chunks_mut(w).enumerate() {
            let pos = (c * 32 + r) % period;
            let (cos, sin) = (&table.0[pos * half..(pos + 1) * half], &table.1[pos * half..(pos + 1) * half]);
            for head in row[..rotated * hd].chunks_mut(hd) {
                let (x1, x2) = head.split_at_mut(half);
                for j in 0..half {
                    let s = if inverse { -sin[j] } else { sin[j] };
                    let (a, b) = (x1[j], x2[j]);
                    x1[j] = a * cos[j] - b * s;
                    x2[j] = b * cos[j] + a * s;
                }
            }
        }
    });
}

/// Causal grouped-query attention of `b` sequences of `t` rows of `[q|k|v]`
/// → `att [b·t, heads·hd]`, saving the probabilities in `p [b, heads, t, t]`.
fn attention(qkv: &[f32], dims: &Dims, t: usize, att: &mut [f32], p: &mut [f32], threads: bool) {
    let (w, hd, qd, kvd) = (dims.qkv(), dims.head_dim, dims.qd(), dims.kvd());
    let (h, g) = (dims.heads, dims.heads / dims.kv_heads);
    let scale = 1.0 / (hd as f32).sqrt();
    let one = |(bi, (att_b, p_b)): (usize, (&mut [f32], &mut [f32]))| {
        let rows = &qkv[bi * t * w..(bi + 1) * t * w];
        for hi in 0..h {
            let kv = hi / g;
            let s = &mut p_b[hi * t * t..(hi + 1) * t * t];
            for (i0, i1) in blocks(t) {
                let q = View::strided(&rows[i0 * w + hi * hd..], i1 - i0, hd, w);
                let k = View::strided(&rows[qd + kv * hd..], i1, hd, w);
                let v = View::strided(&rows[qd + kvd + kv * hd..], i1, hd, w);
                matmul(&mut s[i0 * t..], t, q, k.t(), false, false);
                for i in i0..i1 {
                    kernels::softmax_causal(&mut s[i * t..i * t + i1], i + 1, scale);
                }
                let pv = View::strided(&s[i0 * t..], i1 - i0, i1, t);
                matmul(&mut att_b[i0 * qd + hi * hd..], qd, pv, v, false, false);
            }
        }
    };
    let it = att.chunks_mut(t * qd).zip(p.chunks_mut(h * t * t)).enumerate();
    if threads {
        it.collect::<Vec<_>>().into_par_iter().for_each(one);
    } else {
        it.for_each(one);
    }
}

/// The gradient of `[q|k|v]` (before un-rotating) from `datt`; `dqkv` is overwritten.
fn attention_backward(qkv: &[f32], p: &[f32], datt: &[f32], dims: &Dims, t: usize, dqkv: &mut [f32], threads: bool) {
    let (w, hd, qd, kvd) = (dims.qkv(), dims.head_dim, dims.qd(), dims.kvd());
    let (h, g) = (dims.heads, dims.heads / dims.kv_heads);
    let scale = 1.0 / (hd as f32).sqrt();
    let one = |(bi, dq_b): (usize, &mut [f32])| {
        let rows = &qkv[bi * t * w..(bi + 1) * t * w];
        let datt_b = &datt[bi * t * qd..(bi + 1) * t * qd];
        // K and V gradients add up over the query heads of a group.
        for row in dq_b.chunks_mut(w) {
            row[qd..].fill(0.0);
        }
        let mut ds = vec![0f32; t * t];
        for hi in 0..h {
            let kv = hi / g;
            let pb = &p[(bi * h + hi) * t * t..(bi * h + hi + 1) * t * t];
            for (i0, i1) in blocks(t) {
                let bs = i1 - i0;
                let q = View::strided(&rows[i0 * w + hi * hd..], bs, hd, w);
                let k = View::strided(&rows[qd + kv * hd..], i1, hd, w);
                let v = View::strided(&rows[qd + kvd + kv * hd..], i1, hd, w);
                let d_o = View::strided(&datt_b[i0 * qd + hi * hd..], bs, hd, qd);
                // dV += Pᵀ dO
                let pblock = View::strided(&pb[i0 * t..], bs, i1, t);
                matmul(&mut dq_b[qd + kvd + kv * hd..], w, pblock.t(), d_o, true, false);
                // dP = dO Vᵀ, then the softmax backward row by row.
                matmul(&mut ds[i0 * t..], t, d_o, v.t(), false, false);
                for i in i0..i1 {
                    kernels::softmax_causal_backward(&pb[i * t..i * t + i1], &mut ds[i * t..i * t + i1], i + 1, scale);
                }
                let dsv = View::strided(&ds[i0 * t..], bs, i1, t);
                // dQ = dS K; dK += dSᵀ Q.
                matmul(&mut dq_b[i0 * w + hi * hd..], w, dsv, k, false, false);
                matmul(&mut dq_b[qd + kv * hd..], w, dsv.t(), q, true, false);
            }
        }
    };
    let it = dqkv.chunks_mut(t * w).enumerate();
    if threads {
        it.collect::<Vec<_>>().into_par_iter().for_each(one);
    } else {
        it.for_each(one);
    }
}

impl Stack {
    /// `c (+)= a · wᵀ` for a frozen `w [d_out, d_in]`, timed as a weight product.
    fn mm(c: &mut [f32], ldc: usize, a: View, b: View, acc: bool, threads: bool, phase: Phase) {
        profile::time(phase, || matmul(c, ldc, a, b, acc, threads))
    }

    /// Projection `p` of layer `li` on `input [n, d_in]` into columns of `out`
    /// (row stride `ldc`): the frozen product, bias, and the adapter, each
    /// row with the bits it has among `rows_as ≥ n` rows ([`matmul_as`]).
    /// Returns the adapter's `s·(input Aᵀ)` when there is one.
    #[allow(clippy::too_many_arguments)]
    fn project(
        &self,
        lw: &LayerW,
        li: usize,
        p: usize,
        input: &[f32],
        n: usize,
        out: &mut [f32],
        ldc: usize,
        lora: &[f32],
        threads: bool,
        rows_as: usize,
    ) -> Option<Vec<f32>> {
        let st = self;
        let (d_out, d_in) = st.dims.shape(p);
        let x = View::rm(input, n, d_in);
        let mm = |c: &mut [f32], ldc: usize, a: View, b: View, acc: bool| {
            profile::time(Phase::FwdMatmul, || matmul_as(c, ldc, a, b, acc, threads, rows_as))
        };
        match lw.packed[p] {
            // Decoding: the weight from its packed copy, the same bits.
            Some(pk) if rows_as <= SMALL_M && super::packed::fast() => {
                profile::time(Phase::FwdMatmul, || small_m_times_packed(out, ldc, x, pk, false, threads))
            }
            _ => mm(out, ldc, x, View::rm(lw.w[p], d_out, d_in).t(), false),
        }
        if let Some(b) = lw.bias.get(p).copied().flatten() {
            profile::time(Phase::FwdRowwise, || {
                for row in out.chunks_mut(ldc).take(n) {
                    kernels::add_into(&mut row[..d_out], b);
                }
            });
        }
        let slot = st.slots[li][p]?;
        let r = slot.rank;
        let (a, b) = (&lora[slot.off..slot.off + r * d_in], &lora[slot.off + r * d_in..slot.off + r * (d_in + d_out)]);
        let mut u = st.pool.take(n * r);
        mm(&mut u, r, x, View::rm(a, r, d_in).t(), false);
        u.iter_mut().for_each(|v| *v *= slot.scale);
        mm(out, ldc, View::rm(&u, n, r), View::rm(b, d_out, r).t(), true);
        Some(u)
    }

    /// Backward of projection `p` given `dy` (`[n, d_out]`, row stride `ldy`):
    /// the adapter's gradients into `gl` (the flat gradient), and, with
    /// `dx = Some((buf, acc))`, `dx (+)= dy·W (+ the adapter's part)`.
    #[allow(clippy::too_many_arguments)]
    fn project_back(
        &self,
        lw: &LayerW,
        li: usize,
        p: usize,
        input: &[f32],
        u: Option<&Vec<f32>>,
        dy: View,
        lora: &[f32],
        gl: &mut [f32],
        dx: Option<(&mut [f32], bool)>,
        threads: bool,
    ) {
        let st = self;
        let (d_out, d_in) = st.dims.shape(p);
        let n = dy.rows;
        let mut dx = dx;
        if let Some((buf, acc)) = dx.as_mut() {
            Stack::mm(buf, d_in, dy, View::rm(lw.w[p], d_out, d_in), *acc, threads, Phase::BwdMatmul);
        }
        let (Some(slot), Some(u)) = (st.slots[li][p], u) else { return };
        let r = slot.rank;
        let a = &lora[slot.off..slot.off + r * d_in];
        let b = &lora[slot.off + r * d_in..slot.off + r * (d_in + d_out)];
        let (ga, gb) = gl[slot.off..slot.off + r * (d_in + d_out)].split_at_mut(r * d_in);
        // dB += dyᵀ · s(xAᵀ)
        Stack::mm(gb, r, dy.t(), View::rm(u, n, r), true, threads, Phase::BwdMatmul);
        // du = s · dy B;  dA += duᵀ x;  dx += du A
        let mut du = st.pool.take(n * r);
        Stack::mm(&mut du, r, dy, View::rm(b, d_out, r), false, threads, Phase::BwdMatmul);
        du.iter_mut().for_each(|v| *v *= slot.scale);
        Stack::mm(ga, d_in, View::rm(&du, n, r).t(), View::rm(input, n, d_in), true, threads, Phase::BwdMatmul);
        if let Some((buf, _)) = dx {
            Stack::mm(buf, d_in, View::rm(&du, n, r), View::rm(a, r, d_in), true, threads, Phase::BwdMatmul);
        }
        st.pool.give(du);
    }
}

impl StackOp {
    /// The forward of one shard: `b` sequences of `t` rows of `x` → `out`.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        lws: &[LayerW],
        norm: &[f32],
        lora: &[f32],
        x_in: &[f32],
        b: usize,
        t: usize,
        out: &mut [f32],
        threads: bool,
    ) -> Saved {
        let st = &self.stack;
        let dims = st.dims;
        let (d, n, w, ff, qd) = (dims.d, b * t, dims.qkv(), dims.ff, dims.qd());
        let pool = &st.pool;
        let first = st.first_adapted();
        let table = rope_table(0..t as u32, dims.head_dim, dims.rope_theta);
        let mut x = pool.take(n * d);
        x.copy_from_slice(x_in);
        let mut layers = Vec::new();
        for (li, lw) in lws.iter().enumerate() {
            let (mut xhat1, mut rstd1, mut h1) = (pool.take(n * d), pool.take(n), pool.take(n * d));
            profile::time(Phase::FwdRowwise, || {
                rms_norm(&x, lw.input_norm, dims.eps, d, &mut h1, &mut xhat1, &mut rstd1)
            });
            let mut qkv = pool.take(n * w);
            let uq = st.project(lw, li, Q, &h1, n, &mut qkv, w, lora, threads, n);
            let uk = st.project(lw, li, K, &h1, n, &mut qkv[qd..], w, lora, threads, n);
            let uv = st.project(lw, li, V, &h1, n, &mut qkv[qd + dims.kvd()..], w, lora, threads, n);
            profile::time(Phase::FwdRowwise, || rotate(&mut qkv, &dims, t, &table, false));
            let (mut att, mut p) = (pool.take(n * qd), pool.take(b * dims.heads * t * t));
            profile::time(Phase::FwdAttention, || attention(&qkv, &dims, t, &mut att, &mut p, threads));
            // x += att Woᵀ: the product into a scratch row block, then added.
            let mut y = pool.take(n * d);
            let uo = st.project(lw, li, O, &att, n, &mut y, d, lora, threads, n);
            profile::time(Phase::FwdRowwise, || kernels::add_into(&mut x, &y));
            let (mut xhat2, mut rstd2, mut h2) = (pool.take(n * d), pool.take(n), pool.take(n * d));
            profile::time(Phase::FwdRowwise, || {
                rms_norm(&x, lw.post_norm, dims.eps, d, &mut h2, &mut xhat2, &mut rstd2)
            });
            let mut gu = pool.take(n * 2 * ff);
            let ug = st.project(lw, li, GATE, &h2, n, &mut gu, 2 * ff, lora, threads, n);
            let uu = st.project(lw, li, UP, &h2, n, &mut gu[ff..], 2 * ff, lora, threads, n);
            let mut m = pool.take(n * ff);
            profile::time(Phase::FwdRowwise, || {
                m.par_chunks_mut(32 * ff).zip(gu.par_chunks(32 * 2 * ff)).for_each(|(m, gu)| {
                    for (mr, gr) in m.chunks_mut(ff).zip(gu.chunks(2 * ff)) {
                        swiglu_row(gr, mr);
                    }
                })
            });
            let ud = st.project(lw, li, DOWN, &m, n, &mut y, d, lora, threads, n);
            profile::time(Phase::FwdRowwise, || kernels::add_into(&mut x, &y));
            pool.give(y);
            let saved = LayerSaved {
                xhat1,
                rstd1,
                h1,
                qkv,
                p,
                att,
                xhat2,
                rstd2,
                h2,
                gu,
                m,
                lora_u: [uq, uk, uv, uo, ug, uu, ud],
            };
            if self.train && li >= first {
                layers.push(saved);
            } else {
                saved.recycle(pool);
            }
        }
        let (mut xhatf, mut rstdf) = (pool.take(n * d), pool.take(n));
        profile::time(Phase::FwdRowwise, || rms_norm(&x, norm, dims.eps, d, out, &mut xhatf, &mut rstdf));
        pool.give(x);
        Saved { n, layers, xhatf, rstdf }
    }

    /// The adapters' gradient from one shard's `dout` (`[n, d]`), added to `gl`.
    #[allow(clippy::too_many_arguments)]
    fn backward(
        &self,
        s: &Saved,
        lws: &[LayerW],
        norm: &[f32],
        lora: &[f32],
        t: usize,
        dout: &[f32],
        gl: &mut [f32],
        threads: bool,
    ) {
        let st = &self.stack;
        let dims = st.dims;
        let (d, n, w, ff, qd, kvd) = (dims.d, s.n, dims.qkv(), dims.ff, dims.qd(), dims.kvd());
        let pool = &st.pool;
        let first = st.first_adapted();
        let table = rope_table(0..t as u32, dims.head_dim, dims.rope_theta);
        let mut dx = pool.zeroed(n * d);
        profile::time(Phase::BwdRowwise, || rms_norm_backward(dout, &s.xhatf, &s.rstdf, norm, d, &mut dx));
        let (mut dm, mut dgu, mut dh, mut datt, mut dqkv) =
            (pool.take(n * ff), pool.take(n * 2 * ff), pool.take(n * d), pool.take(n * qd), pool.take(n * w));
        for (k, a) in s.layers.iter().enumerate().rev() {
            let li = first + k;
            let lw = &lws[li];
            let dxv = View::rm(&dx, n, d);
            // MLP: x_out = x_mid + m·Wdᵀ, m = silu(g) ⊙ u, [g|u] = h₂[Wg|Wu]ᵀ.
            st.project_back(
                lw,
                li,
                DOWN,
                &a.m,
                a.lora_u[DOWN].as_ref(),
                dxv,
                lora,
                gl,
                Some((&mut dm, false)),
                threads,
            );
            profile::time(Phase::BwdRowwise, || {
                dgu.par_chunks_mut(32 * 2 * ff).zip(dm.par_chunks(32 * ff)).zip(a.gu.par_chunks(32 * 2 * ff)).for_each(
                    |((dgu, dm), gu)| {
                        for ((o, g), r) in dgu.chunks_mut(2 * ff).zip(dm.chunks(ff)).zip(gu.chunks(2 * ff)) {
                            swiglu_back_row(r, g, o);
                        }
                    },
                )
            });
            let dg = View::strided(&dgu, n, ff, 2 * ff);
            let du = View::strided(&dgu[ff..], n, ff, 2 * ff);
            st.project_back(
                lw,
                li,
                GATE,
                &a.h2,
                a.lora_u[GATE].as_ref(),
                dg,
                lora,
                gl,
                Some((&mut dh, false)),
                threads,
            );
            st.project_back(lw, li, UP, &a.h2, a.lora_u[UP].as_ref(), du, lora, gl, Some((&mut dh, true)), threads);
            profile::time(Phase::BwdRowwise, || rms_norm_backward(&dh, &a.xhat2, &a.rstd2, lw.post_norm, d, &mut dx));
            // Attention: x_mid = x_in + att·Woᵀ.
            let dxv = View::rm(&dx, n, d);
            st.project_back(lw, li, O, &a.att, a.lora_u[O].as_ref(), dxv, lora, gl, Some((&mut datt, false)), threads);
            profile::time(Phase::BwdAttention, || {
                attention_backward(&a.qkv, &a.p, &datt, &dims, t, &mut dqkv, threads)
            });
            profile::time(Phase::BwdRowwise, || rotate(&mut dqkv, &dims, t, &table, true));
            // Below the lowest adapted layer nothing is trained: no dx there.
            let below = li > first;
            let parts = [(Q, 0, qd), (K, qd, kvd), (V, qd + kvd, kvd)];
            for (i, (p, off, width)) in parts.into_iter().enumerate() {
                let dy = View::strided(&dqkv[off..], n, width, w);
                let dxo = below.then_some((&mut dh[..], i > 0));
                st.project_back(lw, li, p, &a.h1, a.lora_u[p].as_ref(), dy, lora, gl, dxo, threads);
            }
            if below {
                profile::time(Phase::BwdRowwise, || {
                    rms_norm_backward(&dh, &a.xhat1, &a.rstd1, lw.input_norm, d, &mut dx)
                });
            }
        }
        for v in [dx, dm, dgu, dh, datt, dqkv] {
            pool.give(v);
        }
    }
}

impl CustomOp2 for StackOp {
    fn name(&self) -> &'static str {
        "fused-llama-stack"
    }

    fn cpu_fwd(&self, s1: &CpuStorage, l1: &TLayout, s2: &CpuStorage, l2: &TLayout) -> Result<(CpuStorage, Shape)> {
        let (b, t, d) = l1.shape().dims3()?;
        let st = &self.stack;
        if d != st.dims.d || l2.shape().elem_count() != st.total {
            candle_core::bail!(
                "fused Llama: input width {d} or {} adapter numbers do not fit",
                l2.shape().elem_count()
            );
        }
        let x = contiguous(s1, l1)?;
        let lora = contiguous(s2, l2)?;
        let mut out = vec![0f32; b * t * d];
        let saved = st.with_weights(|lws, norm| {
            let parts = super::shards(b);
            let threads = rayon::current_num_threads() > parts.len();
            if parts.len() == 1 {
                return Ok(vec![self.run(lws, norm, lora, x, b, t, &mut out, threads)]);
            }
            let split = parts[0] * t * d;
            let (o0, o1) = out.split_at_mut(split);
            let (s0, s1) = rayon::join(
                || self.run(lws, norm, lora, &x[..split], parts[0], t, o0, threads),
                || self.run(lws, norm, lora, &x[split..], parts[1], t, o1, threads),
            );
            Ok(vec![s0, s1])
        })?;
        if self.train {
            *self.saved.lock().expect("fused Llama lock") = Some(saved);
        } else {
            for s in saved {
                s.recycle(&st.pool);
            }
        }
        Ok((CpuStorage::F32(out), Shape::from((b, t, d))))
    }

    fn bwd(&self, x: &Tensor, lora: &Tensor, _res: &Tensor, grad: &Tensor) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let (_, t, d) = x.dims3()?;
        let st = &self.stack;
        let guard = self.saved.lock().expect("fused Llama lock");
        let Some(saved) = guard.as_ref() else {
            candle_core::bail!("fused Llama: backward without a training forward");
        };
        let grad = grad.contiguous()?;
        let (gs, gl) = grad.storage_and_layout();
        let (ls, ll) = lora.storage_and_layout();
        let (Storage::Cpu(gs), Storage::Cpu(ls)) = (&*gs, &*ls) else {
            candle_core::bail!("fused Llama runs on the CPU only");
        };
        let dout = contiguous(gs, gl)?;
        let lora_w = contiguous(ls, ll)?;
        let mut g = vec![0f32; st.total];
        st.with_weights(|lws, norm| {
            let threads = rayon::current_num_threads() > saved.len();
            match saved.as_slice() {
                [one] => self.backward(one, lws, norm, lora_w, t, dout, &mut g, threads),
                [s0, s1] => {
                    let split = s0.n * d;
                    let mut g1 = st.pool.zeroed(st.total);
                    rayon::join(
                        || self.backward(s0, lws, norm, lora_w, t, &dout[..split], &mut g, threads),
                        || self.backward(s1, lws, norm, lora_w, t, &dout[split..], &mut g1, threads),
                    );
                    kernels::add_all(&mut g, &g1);
                    st.pool.give(g1);
                }
                _ => unreachable!("one or two shards"),
            }
            Ok(())
        })?;
        Ok((None, Some(Tensor::from_vec(g, st.total, lora.device())?)))
    }
}

multiversion! {
    /// Softmax of `s·scale + mask` in place (a −∞ in `mask` gives 0).
    fn masked_softmax_row(row: &mut [f32], mask: &[f32], scale: f32) {
        let mut max = f32::NEG_INFINITY;
        for (x, m) in row.iter_mut().zip(mask) {
            *x = *x * scale + m;
            max = max.max(*x);
        }
        let mut sum = 0.0;
        for x in row.iter_mut() {
            *x = kernels::exp(*x - max);
            sum += *x;
        }
        let inv = 1.0 / sum;
        row.iter_mut().for_each(|x| *x *= inv);
    }
}

impl Stack {
    /// One pass of generation with a K/V cache, forward only: `x [b·t, d]`
    /// (the new tokens' embeddings) at absolute `positions` (one per row),
    /// attending to the cached keys and their own under the additive `mask`
    /// `[b, t, S]` (S = cached + t: padding and the future blocked) →
    /// the final normed hidden states `[b·t, d]`. Each layer's new keys and
    /// values (after the rotation) are appended to `cache`, `[b, kv_heads, S, hd]`.
    /// Where finished rows have left the batch (`cache.batch` > b), the
    /// products run as the whole batch's would: each row the same bits.
    #[allow(clippy::too_many_arguments)]
    pub fn decode(
        &self,
        x: &[f32],
        b: usize,
        t: usize,
        positions: &[u32],
        mask: &[f32],
        lora: &[f32],
        cache: &mut crate::ml::kv::KvCache,
    ) -> Result<Vec<f32>> {
        let dims = self.dims;
        let (d, n, w, ff, qd, kvd, hd) = (dims.d, b * t, dims.qkv(), dims.ff, dims.qd(), dims.kvd(), dims.head_dim);
        let (kvh, g) = (dims.kv_heads, dims.heads / dims.kv_heads);
        let threads = rayon::current_num_threads() > 1;
        let rows_as = cache.batch.max(b) * t;
        let table = rope_table(positions.iter().copied(), hd, dims.rope_theta);
        let scale = 1.0 / (hd as f32).sqrt();
        let device = candle_core::Device::Cpu;
        let pool = &self.pool;
        self.with_weights(|lws, norm| {
            let mut x = x.to_vec();
            let (mut h, mut xhat, mut rstd) = (pool.take(n * d), pool.take(n * d), pool.take(n));
            let (mut qkv, mut att, mut y) = (pool.take(n * w), pool.take(n * qd), pool.take(n * d));
            let (mut gu, mut m) = (pool.take(n * 2 * ff), pool.take(n * ff));
            let give = |u: Option<Vec<f32>>| u.into_iter().for_each(|u| pool.give(u));
            for (li, lw) in lws.iter().enumerate() {
                profile::time(Phase::FwdRowwise, || {
                    rms_norm(&x, lw.input_norm, dims.eps, d, &mut h, &mut xhat, &mut rstd)
                });
                give(self.project(lw, li, Q, &h, n, &mut qkv, w, lora, threads, rows_as));
                give(self.project(lw, li, K, &h, n, &mut qkv[qd..], w, lora, threads, rows_as));
                give(self.project(lw, li, V, &h, n, &mut qkv[qd + kvd..], w, lora, threads, rows_as));
                rotate(&mut qkv, &dims, n, &table, false);
                // The new keys and values, [b, kv_heads, t, hd], onto the cache.
                let (mut k_new, mut v_new) = (vec![0f32; n * kvd], vec![0f32; n * kvd]);
                for bi in 0..b {
                    for kv in 0..kvh {
                        for ti in 0..t {
                            let row = &qkv[(bi * t + ti) * w..];
                            let at = ((bi * kvh + kv) * t + ti) * hd;
                            k_new[at..at + hd].copy_from_slice(&row[qd + kv * hd..qd + (kv + 1) * hd]);
                            v_new[at..at + hd].copy_from_slice(&row[qd + kvd + kv * hd..qd + kvd + (kv + 1) * hd]);
                        }
                    }
                }
                let (k_all, v_all) = cache.append(
                    li,
                    Tensor::from_vec(k_new, (b, kvh, t, hd), &device)?,
                    Tensor::from_vec(v_new, (b, kvh, t, hd), &device)?,
                )?;
                let s = k_all.dim(2)?;
                if mask.len() != n * s {
                    candle_core::bail!(
                        "fused Llama decode: mask for {} keys, the cache holds {s}",
                        mask.len() / n.max(1)
                    );
                }
                let (kg, kl) = k_all.storage_and_layout();
                let (vg, vl) = v_all.storage_and_layout();
                let (Storage::Cpu(ks), Storage::Cpu(vs)) = (&*kg, &*vg) else {
                    candle_core::bail!("fused Llama: a CPU cache only")
                };
                let (keys, values) = (contiguous(ks, kl)?, contiguous(vs, vl)?);
                profile::time(Phase::FwdAttention, || {
                    let one = |(bi, att_b): (usize, &mut [f32])| {
                        let mut p = vec![0f32; t * s];
                        for hi in 0..dims.heads {
                            let kv = hi / g;
                            let q = View::strided(&qkv[bi * t * w + hi * hd..], t, hd, w);
                            let kv_at = (bi * kvh + kv) * s * hd;
                            let kmat = View::rm(&keys[kv_at..kv_at + s * hd], s, hd);
                            let vmat = View::rm(&values[kv_at..kv_at + s * hd], s, hd);
                            matmul(&mut p, s, q, kmat.t(), false, false);
                            for (ti, row) in p.chunks_mut(s).enumerate() {
                                masked_softmax_row(row, &mask[(bi * t + ti) * s..(bi * t + ti + 1) * s], scale);
                            }
                            matmul(&mut att_b[hi * hd..], qd, View::rm(&p, t, s), vmat, false, false);
                        }
                    };
                    let it = att.chunks_mut(t * qd).enumerate();
                    if threads && b > 1 {
                        it.collect::<Vec<_>>().into_par_iter().for_each(one);
                    } else {
                        it.for_each(one);
                    }
                });
                drop((kg, vg));
                give(self.project(lw, li, O, &att, n, &mut y, d, lora, threads, rows_as));
                kernels::add_into(&mut x, &y);
                profile::time(Phase::FwdRowwise, || {
                    rms_norm(&x, lw.post_norm, dims.eps, d, &mut h, &mut xhat, &mut rstd)
                });
                give(self.project(lw, li, GATE, &h, n, &mut gu, 2 * ff, lora, threads, rows_as));
                give(self.project(lw, li, UP, &h, n, &mut gu[ff..], 2 * ff, lora, threads, rows_as));
                for (mr, gr) in m.chunks_mut(ff).zip(gu.chunks(2 * ff)) {
                    swiglu_row(gr, mr);
                }
                give(self.project(lw, li, DOWN, &m, n, &mut y, d, lora, threads, rows_as));
                kernels::add_into(&mut x, &y);
            }
            let mut out = vec![0f32; n * d];
            rms_norm(&x, norm, dims.eps, d, &mut out, &mut xhat, &mut rstd);
            for v in [h, xhat, rstd, qkv, att, y, gu, m] {
                pool.give(v);
            }
            Ok(out)
        })
    }
}
